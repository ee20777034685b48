#!/usr/bin/env bash
# olmv1-up.sh
#
# Installs OLM v1 (operator-controller OPERATOR_CONTROLLER_VERSION, which contains catalogd) and the
# cert-manager it needs (CERT_MANAGER_VERSION) into the real-node cluster (hack/cluster/cluster-up.sh
# NODE=real) as pods, the way operator-controller's release install.sh does on a connected machine:
# cert-manager's release manifest, wait for its webhook, then operator-controller's release
# manifest, wait for both Deployments. install.sh downloads both manifests from GitHub, which cannot
# work here; each is rendered from its project's module source as its release renders it, with only
# image references changed, and kept in $CLUSTER_DIR/olmv1/:
#   1. images: hack/images/local-images.sh olmv1 (the five static binaries of hack/olm/build-olmv1-tools.sh on
#      the local static base, pushed to the local registry; by digest below);
#   2. cert-manager.yaml: as cert-manager's make/manifests.mk cuts it: the chart of
#      deploy/charts/cert-manager with Chart.yaml from Chart.template.yaml (version and appVersion
#      set), templates/crds.yaml made of deploy/crds/*.yaml inside `if .Values.installCRDs`, rendered
#      with `--namespace=cert-manager --set installCRDs=true --set creator=static --set
#      startupapicheck.enabled=false` (hack/tools/operator-sdk/helm-template), after
#      deploy/manifests/namespace.yaml; image.repository/digest, webhook.image.* and cainjector.image.*
#      set to the local images; applied server-side; waits for the three Deployments Available and
#      for the webhook configurations' caBundle, as install.sh does, then until the webhook answers
#      (a server-side dry run of an Issuer);
#   3. operator-controller.yaml: as its Makefile's `quickstart` target cuts it: `kustomize build
#      config/overlays/cert-manager` with cert-git-version replaced by cert-$OPERATOR_CONTROLLER_VERSION,
#      from a local overlay (kept beside it) that changes only:
#        - the images of operator-controller and catalogd to the local ones by digest;
#        - both managers get a registries.conf (ConfigMap olmv1-registries-conf mounted at
#          /etc/containers, as operator-controller's own e2e component config/components/registries-conf
#          does): catalogd and operator-controller pull catalog and bundle images themselves with
#          containers/image, from inside their pods, where 127.0.0.1 is the pod's own; the conf mirrors
#          the registry 127.0.0.1:$REGISTRY_PORT to the node's read-only listener $NODE_IP:$REGISTRY_PORT
#          (hack/images/registry.sh start-node), so image references stay the ones the tests and users write,
#          and serves registry.example.com and docker.io from it too, as a mirrored cluster does;
#        - operator-controller gets --feature-gates=$OLMV1_FEATURE_GATES (default
#          SingleOwnNamespaceInstallSupport=true: Own/SingleNamespace installs, off by default in v1.2.0);
#        - the catalogd webhook's CA comes from the Certificate olmv1-ca (cert-manager.io/inject-ca-from)
#          instead of its Secret (inject-ca-from-secret, which needs the Secret annotated through the
#          Certificate's secretTemplate): the release pairs v1.2.0 with cert-manager v1.17.1, and
#          v1.11.5, the newest whose commands the Go proxy serves, refuses that annotation. Same CA.
#      applied server-side; waits for both Deployments Available and the certificates Ready.
# Idempotent (re-applies). Undo: hack/olm/olmv1-down.sh [--purge].
#
# Environment (defaults): CLUSTER_DIR=<repo>/.cluster-real  LOCALBIN=<repo>/bin  NODE_IP=10.244.0.1
#   REGISTRY_DIR=<repo>/.registry  REGISTRY_PORT=5000  OPERATOR_CONTROLLER_VERSION=v1.2.0
#   CERT_MANAGER_VERSION=v1.11.5  OLMV1_FEATURE_GATES=SingleOwnNamespaceInstallSupport=true  STEP_TIMEOUT=180
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
export LOCALBIN=${LOCALBIN:-$root/bin}
CLUSTER_DIR=${CLUSTER_DIR:-$root/.cluster-real}
REGISTRY_DIR=${REGISTRY_DIR:-$root/.registry}
REGISTRY_PORT=${REGISTRY_PORT:-5000}
NODE_IP=${NODE_IP:-10.244.0.1}
OPERATOR_CONTROLLER_VERSION=${OPERATOR_CONTROLLER_VERSION:-v1.2.0}
CERT_MANAGER_VERSION=${CERT_MANAGER_VERSION:-v1.11.5}
OLMV1_FEATURE_GATES=${OLMV1_FEATURE_GATES-SingleOwnNamespaceInstallSupport=true}
STEP_TIMEOUT=${STEP_TIMEOUT:-180}
export REGISTRY_DIR REGISTRY_PORT OPERATOR_CONTROLLER_VERSION CERT_MANAGER_VERSION
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}" no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"

kubeconfig=$CLUSTER_DIR/kubeconfig
kubectl=$LOCALBIN/kubectl
dir=$CLUSTER_DIR/olmv1
t0=$(date +%s%N)
# shellcheck source=../lib/procs.sh
. "$root/hack/lib/procs.sh"
k() { "$kubectl" --kubeconfig="$kubeconfig" "$@"; }
trap on_exit EXIT

[ -s "$kubeconfig" ] && [ -d "$CLUSTER_DIR/node" ] || die "no real-node cluster in $CLUSTER_DIR: start it with 'make cluster-up NODE=real'"
k get --raw /readyz >/dev/null 2>&1 || die "the cluster of $CLUSTER_DIR does not answer: start it with 'make cluster-up NODE=real'"
mkdir -p "$dir"

# module_dir MODULE VERSION TOOLS_DIR: the module's source in the module cache (read-only).
module_dir() {
  (cd "$root/$3" && GOFLAGS=-mod=mod go mod download -json "$1@$2" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
}
# image KEY: the recorded image of KEY (repository@digest).
image() { sed -n "s/^$1=//p" "$REGISTRY_DIR/images.env" | tail -n1; }
# wait_until WHAT COMMAND...: runs COMMAND every second until it succeeds, for STEP_TIMEOUT seconds.
wait_until() {
  local what=$1 deadline=$(( $(date +%s) + STEP_TIMEOUT ))
  shift
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || die "timed out after ${STEP_TIMEOUT}s waiting for $what"
    sleep 1
  done
}
available() { k -n "$1" wait --for=condition=Available "deployment/$2" --timeout="${STEP_TIMEOUT}s" >/dev/null || { k -n "$1" get pods -o wide >&2; die "deployment $1/$2 did not become Available"; }; }

# ---------------------------------------------------------------- 1. images
step "building and pushing the OLM v1 and cert-manager images if needed"
"$root/hack/images/local-images.sh" olmv1 >"$dir/local-images.log" 2>&1 || { tail -n 20 "$dir/local-images.log" >&2; die "building the images failed (log $dir/local-images.log)"; }
for key in OPERATOR_CONTROLLER_IMAGE CATALOGD_IMAGE CERT_MANAGER_CONTROLLER_IMAGE CERT_MANAGER_CAINJECTOR_IMAGE CERT_MANAGER_WEBHOOK_IMAGE; do
  [[ $(image "$key") == *@sha256:* ]] || die "no $key by digest in $REGISTRY_DIR/images.env"
done
step "images: $(image OPERATOR_CONTROLLER_IMAGE | sed 's/@sha256:\(.\{12\}\).*/@\1/'), $(image CATALOGD_IMAGE | sed 's/@sha256:\(.\{12\}\).*/@\1/'), cert-manager's three"
"$root/hack/images/registry.sh" start-node "$NODE_IP:$REGISTRY_PORT" | tail -n 1

# ---------------------------------------------------------------- 2. cert-manager
cm_src=$(module_dir github.com/cert-manager/cert-manager "$CERT_MANAGER_VERSION" hack/tools/cert-manager)
[ -d "$cm_src/deploy/charts/cert-manager" ] || die "cert-manager $CERT_MANAGER_VERSION's chart not found in the module cache"
"$root/hack/olm/build-olm-tools.sh" helm-template
chart=$dir/chart/cert-manager
rm -rf "$dir/chart"
mkdir -p "$dir/chart"
cp -r "$cm_src/deploy/charts/cert-manager" "$chart"
chmod -R u+w "$chart"
sed -e "s/^version: .*/version: $CERT_MANAGER_VERSION/" -e "s/^appVersion: .*/appVersion: $CERT_MANAGER_VERSION/" \
  -e 's/"{{IS_PRERELEASE}}"/"false"/' "$chart/Chart.template.yaml" >"$chart/Chart.yaml"
rm "$chart/Chart.template.yaml" "$chart/README.template.md"
{
  echo '{{- if .Values.installCRDs }}'
  for f in "$cm_src"/deploy/crds/*.yaml; do echo '---'; cat "$f"; done
  echo '{{- end }}'
} >"$chart/templates/crds.yaml"
sets=(-set installCRDs=true -set creator=static -set startupapicheck.enabled=false)
for c in controller webhook cainjector; do
  key=CERT_MANAGER_${c^^}_IMAGE prefix=$c.
  [ "$c" = controller ] && prefix=
  ref=$(image "$key")
  sets+=(-set "${prefix}image.repository=${ref%@*}" -set "${prefix}image.digest=${ref#*@}")
done
{
  cat "$cm_src/deploy/manifests/namespace.yaml"
  "$LOCALBIN/helm-template" -chart "$chart" -name cert-manager -namespace cert-manager "${sets[@]}"
} >"$dir/cert-manager.yaml" || die "rendering cert-manager's chart failed"
k apply --server-side --force-conflicts --field-manager=olmv1-up -f "$dir/cert-manager.yaml" >/dev/null || die "applying cert-manager.yaml failed"
step "applied cert-manager $CERT_MANAGER_VERSION's release manifest ($dir/cert-manager.yaml: rendered from its chart, images local)"
for d in cert-manager-webhook cert-manager-cainjector cert-manager; do available cert-manager "$d"; done
step "cert-manager's Deployments are Available"
for w in mutatingwebhookconfigurations validatingwebhookconfigurations; do
  wait_until "the caBundle of $w/cert-manager-webhook" bash -c '[ -n "$("$0" --kubeconfig="$1" get "$2/cert-manager-webhook" -o jsonpath="{.webhooks[0].clientConfig.caBundle}")" ]' "$kubectl" "$kubeconfig" "$w"
done
dry_issuer='{"apiVersion":"cert-manager.io/v1","kind":"Issuer","metadata":{"name":"olmv1-up-probe","namespace":"cert-manager"},"spec":{"selfSigned":{}}}'
wait_until "cert-manager's webhook to answer (a server-side dry run of an Issuer)" bash -c 'echo "$0" | "$1" --kubeconfig="$2" create --dry-run=server -f -' "$dry_issuer" "$kubectl" "$kubeconfig"
step "cert-manager's webhook has its caBundle and answers"

# ---------------------------------------------------------------- 3. operator-controller and catalogd
oc_src=$(module_dir github.com/operator-framework/operator-controller "$OPERATOR_CONTROLLER_VERSION" hack/tools/operator-controller)
[ -d "$oc_src/config/overlays/cert-manager" ] || die "operator-controller $OPERATOR_CONTROLLER_VERSION's config/overlays/cert-manager not found"
for t in kubectl kustomize; do [ -x "$LOCALBIN/$t" ] || die "$t not found in $LOCALBIN (make $t)"; done
ovl=$dir/overlay
rm -rf "$ovl"
mkdir -p "$ovl"
oc_img=$(image OPERATOR_CONTROLLER_IMAGE) cd_img=$(image CATALOGD_IMAGE)
cat >"$ovl/registries.conf" <<EOF
# Pull 127.0.0.1:$REGISTRY_PORT/... (the host's registry) from its read-only listener on the node's bridge.
[[registry]]
prefix = "127.0.0.1:$REGISTRY_PORT"
location = "$NODE_IP:$REGISTRY_PORT"
insecure = true
# A mirrored (disconnected) cluster: the public hosts the shipped catalog names, served by the same
# registry under the same paths, as the node's containerd serves them (hack/lib/node.sh). location
# replaces the host, so a name the registry lacks fails instead of reaching the public host.
[[registry]]
prefix = "registry.example.com"
location = "$NODE_IP:$REGISTRY_PORT"
insecure = true
[[registry]]
prefix = "docker.io"
location = "$NODE_IP:$REGISTRY_PORT"
insecure = true
EOF
# The ConfigMap keeps its name (disableNameSuffixHash) and containers/image reads registries.conf
# once per process: the conf's checksum in the pod template restarts both managers when it changes.
conf_sum=$(sha256sum "$ovl/registries.conf" | cut -c1-64)
mount_patch() { # mount_patch DEPLOYMENT [EXTRA_ARG]
  cat <<EOF
- target: {kind: Deployment, name: $1}
  patch: |-
    - op: add
      path: /spec/template/metadata/annotations/olmv1-up.memcached-operator.local~1registries-conf-sha256
      value: "$conf_sum"
    - op: add
      path: /spec/template/spec/volumes/-
      value: {"name": "registries-conf", "configMap": {"name": "olmv1-registries-conf"}}
    - op: add
      path: /spec/template/spec/containers/0/volumeMounts/-
      value: {"name": "registries-conf", "mountPath": "/etc/containers", "readOnly": true}
EOF
  [ -z "${2:-}" ] || cat <<EOF
    - op: add
      path: /spec/template/spec/containers/0/args/-
      value: "$2"
EOF
}
{
  cat <<EOF
# Written by hack/olm/olmv1-up.sh: operator-controller $OPERATOR_CONTROLLER_VERSION's release overlay with local images
# and a registries.conf (see the script's header). Nothing else differs from the release.
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- $(realpath --relative-to="$ovl" "$oc_src/config/overlays/cert-manager")
images:
- name: quay.io/operator-framework/operator-controller
  newName: ${oc_img%@*}
  digest: ${oc_img#*@}
- name: quay.io/operator-framework/catalogd
  newName: ${cd_img%@*}
  digest: ${cd_img#*@}
configMapGenerator:
- name: olmv1-registries-conf
  namespace: olmv1-system
  options: {disableNameSuffixHash: true}
  files:
  - registries.conf
patches:
EOF
  mount_patch operator-controller-controller-manager "${OLMV1_FEATURE_GATES:+--feature-gates=$OLMV1_FEATURE_GATES}"
  mount_patch catalogd-controller-manager
  # cert-manager v1.11.5 (see the header) refuses cert-manager.io/* annotations in a Certificate's
  # secretTemplate, so the CA Secret cannot carry allow-direct-injection, which its cainjector needs for
  # inject-ca-from-secret: the webhook takes the same CA from the Certificate (inject-ca-from) instead.
  cat <<EOF
- target: {group: cert-manager.io, kind: Certificate, name: olmv1-ca}
  patch: |-
    - op: remove
      path: /spec/secretTemplate
- target: {kind: MutatingWebhookConfiguration, name: catalogd-mutating-webhook-configuration}
  patch: |-
    - op: remove
      path: /metadata/annotations/cert-manager.io~1inject-ca-from-secret
    - op: add
      path: /metadata/annotations/cert-manager.io~1inject-ca-from
      value: cert-manager/olmv1-ca
EOF
} >"$ovl/kustomization.yaml"
"$LOCALBIN/kustomize" build "$ovl" | sed "s/cert-git-version/cert-$OPERATOR_CONTROLLER_VERSION/g" >"$dir/operator-controller.yaml" ||
  die "kustomize build of $ovl failed"
grep -q "image: ${oc_img}" "$dir/operator-controller.yaml" && grep -q "image: ${cd_img}" "$dir/operator-controller.yaml" ||
  die "the rendered manifest does not name the local images ($dir/operator-controller.yaml)"
k apply --server-side --force-conflicts --field-manager=olmv1-up -f "$dir/operator-controller.yaml" >/dev/null || die "applying operator-controller.yaml failed"
step "applied operator-controller $OPERATOR_CONTROLLER_VERSION's release manifest ($dir/operator-controller.yaml; feature gates: ${OLMV1_FEATURE_GATES:-none})"
for d in catalogd-controller-manager operator-controller-controller-manager; do available olmv1-system "$d"; done
k -n olmv1-system wait --for=condition=Ready certificate --all --timeout="${STEP_TIMEOUT}s" >/dev/null || die "OLM v1's certificates are not Ready"
k -n olmv1-system get pods -o wide
step "OLM v1 ($OPERATOR_CONTROLLER_VERSION) and cert-manager ($CERT_MANAGER_VERSION) are up in the cluster of $CLUSTER_DIR"
