#!/usr/bin/env bash
# demo-olmv1-real.sh [up|down] — the OLM v1 story on the real node, every step timed, with the YAML
# of docs/olm.md (config/samples/olmv1): OLM v1 and cert-manager as pods (hack/olm/olmv1-up.sh), our
# catalog image (hack/olm/olm-real-images.sh, every release) pushed over the tag the ClusterCatalog
# polls, the ClusterExtension installing the head of `stable`, and config/samples' Memcached
# Available in namespace memcached-demo-olmv1. `down` deletes the namespace, the ClusterExtension
# (and with it the operator and the CRD) and the ClusterCatalog. make test-olmv1-real proves more
# (upgrade, version pin, preflight, install modes).
#
# Environment (defaults): CLUSTER_DIR=<repo>/.cluster-real  KUBECTL=<repo>/bin/kubectl  REGISTRY_DIR=<repo>/.registry
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
CLUSTER_DIR=${CLUSTER_DIR:-$root/.cluster-real}
KUBECTL=${KUBECTL:-$root/bin/kubectl}
REGISTRY_DIR=${REGISTRY_DIR:-$root/.registry}
export KUBECONFIG=$CLUSTER_DIR/kubeconfig
NS=memcached-demo-olmv1
samples=$root/config/samples/olmv1
t0=$(date +%s%N)
# shellcheck source=../lib/procs.sh
. "$root/hack/lib/procs.sh"
k() { "$KUBECTL" "$@"; }

down() {
  k delete namespace "$NS" --ignore-not-found --wait=true >/dev/null
  k delete clusterextension memcached-operator --ignore-not-found --wait=true >/dev/null 2>&1 || true
  k delete clustercatalog memcached-operator --ignore-not-found --wait=true >/dev/null 2>&1 || true
  step "removed namespace $NS, ClusterExtension and ClusterCatalog memcached-operator (the operator and the CRD with it)"
}
case ${1:-up} in
  down) [ -f "$KUBECONFIG" ] && k get --raw /readyz >/dev/null 2>&1 && down; exit 0 ;;
  up) ;;
  *) echo "usage: $0 [up|down]" >&2; exit 2 ;;
esac

step "OLM v1 and cert-manager (hack/olm/olmv1-up.sh)"
CLUSTER_DIR=$CLUSTER_DIR REGISTRY_DIR=$REGISTRY_DIR "$root/hack/olm/olmv1-up.sh" | tail -n 1
catalog=$(sed -n 's/^OLM_REAL_CATALOG_IMAGE=//p' "$REGISTRY_DIR/images.env")
[ -n "$catalog" ] || die "no OLM_REAL_CATALOG_IMAGE in $REGISTRY_DIR/images.env: run make olm-real-images"
polled=$(sed -n 's/^ *ref: //p' "$samples/clustercatalog.yaml")
skopeo copy -q --src-tls-verify=false --dest-tls-verify=false "docker://$catalog" "docker://$polled"
step "our catalog ($catalog) pushed as $polled"
k apply -f "$samples/clustercatalog.yaml" >/dev/null
k wait --for=condition=Serving clustercatalog/memcached-operator --timeout=3m >/dev/null
step "ClusterCatalog memcached-operator Serving"
k apply -f "$samples/installer.yaml" -f "$samples/clusterextension.yaml" >/dev/null
k wait --for=condition=Installed clusterextension/memcached-operator --timeout=4m >/dev/null
step "ClusterExtension Installed: $(k get clusterextension memcached-operator -o jsonpath='{.status.install.bundle.name}')"
k -n memcached-operator-system rollout status deployment/memcached-operator-controller-manager --timeout=3m >/dev/null
step "operator Deployment rolled out in memcached-operator-system"
k create namespace "$NS" --dry-run=client -o yaml | k apply -f - >/dev/null
k label namespace "$NS" pod-security.kubernetes.io/enforce=restricted --overwrite >/dev/null
k apply -n "$NS" -f "$root/config/samples/cache_v1alpha1_memcached.yaml" >/dev/null
name=$(sed -n 's/^  name: //p' "$root/config/samples/cache_v1alpha1_memcached.yaml" | head -n1)
if ! k -n "$NS" wait --for=condition=Available "memcached/$name" --timeout=3m >/dev/null; then
  explain_memcached "$NS" "$name" "$KUBECTL" -n memcached-operator-system logs deployment/memcached-operator-controller-manager
  die "Memcached $NS/$name did not become Available"
fi
step "Memcached $NS/$name Available: $(k -n "$NS" get memcached "$name" -o jsonpath='{.status.readyReplicas} ready, servers {.status.serverList}')"
step "done; $0 down removes it"
