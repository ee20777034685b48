#!/usr/bin/env bash
# prometheus-operator-up.sh
#
# Installs the Prometheus Operator (PROMETHEUS_OPERATOR_VERSION) into the real-node cluster
# (hack/cluster/cluster-up.sh NODE=real) as a pod, the way its release's example manifests install
# it, from its module source in the Go module cache (hack/tools/prometheus-operator pins it); nothing
# is written by hand but the overlay, kept in $CLUSTER_DIR/prometheus-operator/:
#   1. images: hack/images/local-images.sh prometheus-operator prometheus (the operator and its
#      config reloader built from the module, and the Prometheus server v3.5.0 it is built against,
#      from hack/tools/prometheus, on the local registry; by digest below and in
#      $REGISTRY_DIR/images.env for the tests);
#   2. the CRDs of example/prometheus-operator-crd (every monitoring.coreos.com kind), applied
#      server-side (the Prometheus CRD is larger than client-side apply's annotation allows), and
#      waited for Established;
#   3. example/rbac/prometheus-operator's ServiceAccount, ClusterRole, ClusterRoleBinding,
#      Deployment and Service, copied unchanged and built by a kustomize overlay that changes only:
#        - the namespace: $PROMETHEUS_OPERATOR_NAMESPACE (created here, enforcing the restricted Pod
#          Security profile, which the release's Deployment meets) instead of default;
#        - the operator's image: the local one by digest;
#        - its --prometheus-config-reloader flag: the local reloader image by digest (the Prometheus
#          pods it creates run the reloader as their init container and sidecar);
#      applied server-side; waits for the Deployment Available.
# The operator watches every namespace, as released. The Prometheus server image is not the
# operator's to choose: a Prometheus object names it (spec.image: PROMETHEUS_IMAGE) with its
# spec.version.
# Idempotent (re-applies). Undo: delete the namespace and the CRDs (cluster-down removes everything).
#
# Environment (defaults): CLUSTER_DIR=<repo>/.cluster-real  LOCALBIN=<repo>/bin
#   REGISTRY_DIR=<repo>/.registry  PROMETHEUS_OPERATOR_VERSION=v0.85.0
#   PROMETHEUS_OPERATOR_NAMESPACE=prometheus-operator  STEP_TIMEOUT=180
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
export LOCALBIN=${LOCALBIN:-$root/bin}
CLUSTER_DIR=${CLUSTER_DIR:-$root/.cluster-real}
REGISTRY_DIR=${REGISTRY_DIR:-$root/.registry}
PROMETHEUS_OPERATOR_VERSION=${PROMETHEUS_OPERATOR_VERSION:-v0.85.0}
PROMETHEUS_OPERATOR_NAMESPACE=${PROMETHEUS_OPERATOR_NAMESPACE:-prometheus-operator}
STEP_TIMEOUT=${STEP_TIMEOUT:-180}
export REGISTRY_DIR PROMETHEUS_OPERATOR_VERSION
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}" no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"

kubeconfig=$CLUSTER_DIR/kubeconfig
kubectl=$LOCALBIN/kubectl
dir=$CLUSTER_DIR/prometheus-operator
t0=$(date +%s%N)
# shellcheck source=../lib/procs.sh
. "$root/hack/lib/procs.sh"
k() { "$kubectl" --kubeconfig="$kubeconfig" "$@"; }
trap on_exit EXIT

[ -s "$kubeconfig" ] && [ -d "$CLUSTER_DIR/node" ] || die "no real-node cluster in $CLUSTER_DIR: start it with 'make cluster-up NODE=real'"
k get --raw /readyz >/dev/null 2>&1 || die "the cluster of $CLUSTER_DIR does not answer: start it with 'make cluster-up NODE=real'"
for t in kubectl kustomize; do [ -x "$LOCALBIN/$t" ] || die "$t not found in $LOCALBIN (make $t)"; done
mkdir -p "$dir"

# image KEY: the recorded image of KEY (repository@digest).
image() { sed -n "s/^$1=//p" "$REGISTRY_DIR/images.env" | tail -n1; }

# ---------------------------------------------------------------- 1. images
step "building and pushing the prometheus-operator and Prometheus images if needed"
"$root/hack/images/local-images.sh" prometheus-operator prometheus >"$dir/local-images.log" 2>&1 ||
  { tail -n 20 "$dir/local-images.log" >&2; die "building the images failed (log $dir/local-images.log)"; }
for key in PROMETHEUS_OPERATOR_IMAGE PROMETHEUS_CONFIG_RELOADER_IMAGE PROMETHEUS_IMAGE; do
  [[ $(image "$key") == *@sha256:* ]] || die "no $key by digest in $REGISTRY_DIR/images.env"
done
op_img=$(image PROMETHEUS_OPERATOR_IMAGE) rl_img=$(image PROMETHEUS_CONFIG_RELOADER_IMAGE)
step "images: ${op_img%@*}, ${rl_img%@*}, $(image PROMETHEUS_IMAGE | sed 's/@.*//') (by digest)"

# ---------------------------------------------------------------- 2. CRDs
src=$(cd "$root/hack/tools/prometheus-operator" && GOFLAGS=-mod=mod go mod download -json \
  "github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$src/example/prometheus-operator-crd" ] && [ -d "$src/example/rbac/prometheus-operator" ] ||
  die "prometheus-operator $PROMETHEUS_OPERATOR_VERSION's example/ manifests not found in the module cache ($src)"
k apply --server-side --force-conflicts --field-manager=prometheus-operator-up -f "$src/example/prometheus-operator-crd" >/dev/null ||
  die "applying the CRDs of example/prometheus-operator-crd failed"
k wait --for=condition=Established --timeout="${STEP_TIMEOUT}s" -f "$src/example/prometheus-operator-crd" >/dev/null ||
  die "the monitoring.coreos.com CRDs were not Established within ${STEP_TIMEOUT}s"
step "applied and Established the CRDs of prometheus-operator $PROMETHEUS_OPERATOR_VERSION (example/prometheus-operator-crd)"

# ---------------------------------------------------------------- 3. the operator
ovl=$dir/overlay
rm -rf "$ovl"
mkdir -p "$ovl/release"
cp "$src"/example/rbac/prometheus-operator/prometheus-operator-{service-account,cluster-role,cluster-role-binding,deployment,service}.yaml "$ovl/release/"
chmod -R u+w "$ovl"
cat >"$ovl/kustomization.yaml" <<EOF
# Written by hack/monitoring/prometheus-operator-up.sh: prometheus-operator $PROMETHEUS_OPERATOR_VERSION's
# example/rbac/prometheus-operator (release/, unchanged copies) with the namespace, the operator's
# image and the reloader image changed (see the script's header). Nothing else differs.
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: $PROMETHEUS_OPERATOR_NAMESPACE
resources:
- namespace.yaml
- release/prometheus-operator-service-account.yaml
- release/prometheus-operator-cluster-role.yaml
- release/prometheus-operator-cluster-role-binding.yaml
- release/prometheus-operator-deployment.yaml
- release/prometheus-operator-service.yaml
images:
- name: quay.io/prometheus-operator/prometheus-operator
  newName: ${op_img%@*}
  digest: ${op_img#*@}
patches:
- target: {kind: Deployment, name: prometheus-operator}
  patch: |-
    - op: test
      path: /spec/template/spec/containers/0/args/1
      value: --prometheus-config-reloader=quay.io/prometheus-operator/prometheus-config-reloader:$PROMETHEUS_OPERATOR_VERSION
    - op: replace
      path: /spec/template/spec/containers/0/args/1
      value: --prometheus-config-reloader=$rl_img
EOF
cat >"$ovl/namespace.yaml" <<EOF
apiVersion: v1
kind: Namespace
metadata:
  name: $PROMETHEUS_OPERATOR_NAMESPACE
  labels:
    pod-security.kubernetes.io/enforce: restricted
    pod-security.kubernetes.io/enforce-version: latest
EOF
"$LOCALBIN/kustomize" build "$ovl" >"$dir/prometheus-operator.yaml" || die "kustomize build $ovl failed"
k apply --server-side --force-conflicts --field-manager=prometheus-operator-up -f "$dir/prometheus-operator.yaml" >/dev/null ||
  die "applying $dir/prometheus-operator.yaml failed"
k -n "$PROMETHEUS_OPERATOR_NAMESPACE" wait --for=condition=Available deployment/prometheus-operator --timeout="${STEP_TIMEOUT}s" >/dev/null ||
  { k -n "$PROMETHEUS_OPERATOR_NAMESPACE" get pods -o wide >&2; k -n "$PROMETHEUS_OPERATOR_NAMESPACE" logs deployment/prometheus-operator --tail=30 >&2 || true
    die "deployment $PROMETHEUS_OPERATOR_NAMESPACE/prometheus-operator did not become Available"; }
step "prometheus-operator $PROMETHEUS_OPERATOR_VERSION Available in namespace $PROMETHEUS_OPERATOR_NAMESPACE ($dir/prometheus-operator.yaml)"
