#!/usr/bin/env bash
# olmv1-down.sh [--purge]
#
# Undoes hack/olm/olmv1-up.sh in the real-node cluster. Without --purge: deletes every ClusterExtension
# (operator-controller, still running, uninstalls what each installed: its Helm release of the
# bundle's objects) and every ClusterCatalog, and waits until they are gone; OLM v1 and cert-manager
# stay installed, so the next olmv1-up.sh only re-applies. A CRD that an extension installed stays
# (operator-controller removes it with the release: see docs/olm.md for what an uninstall keeps).
# --purge (or PURGE=1), the local equivalent of deleting both release manifests: also deletes
# everything operator-controller.yaml and cert-manager.yaml created (namespaces olmv1-system and
# cert-manager with their pods, CRDs, cluster RBAC, webhook configurations, the ClusterIssuer),
# stops the registry's listener on the node (hack/images/registry.sh stop-node) and deletes
# $CLUSTER_DIR/olmv1. Safe to run when nothing is installed.
#
# Environment (defaults): CLUSTER_DIR=<repo>/.cluster-real  LOCALBIN=<repo>/bin  PURGE_TIMEOUT=180
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
LOCALBIN=${LOCALBIN:-$root/bin}
CLUSTER_DIR=${CLUSTER_DIR:-$root/.cluster-real}
PURGE=${PURGE:-0}
PURGE_TIMEOUT=${PURGE_TIMEOUT:-180}
for arg in "$@"; do
  case $arg in
    --purge) PURGE=1 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "olmv1-down.sh: unknown argument $arg (usage: olmv1-down.sh [--purge])" >&2; exit 2 ;;
  esac
done
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}" no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"
kubeconfig=$CLUSTER_DIR/kubeconfig
kubectl=$LOCALBIN/kubectl
dir=$CLUSTER_DIR/olmv1
t0=$(date +%s%N)
# shellcheck source=../lib/procs.sh
. "$root/hack/lib/procs.sh"
k() { "$kubectl" --kubeconfig="$kubeconfig" "$@"; }

if [ ! -s "$kubeconfig" ] || ! k get --raw /readyz >/dev/null 2>&1; then
  step "no cluster answers in $CLUSTER_DIR: nothing to remove"
  [ "$PURGE" != 1 ] || { "$root/hack/images/registry.sh" stop-node || true; rm -rf "$dir"; }
  exit 0
fi

if k get crd clusterextensions.olm.operatorframework.io >/dev/null 2>&1; then
  n=$(k get clusterextensions -o name | wc -l)
  k delete clusterextensions --all --wait=true --timeout="${PURGE_TIMEOUT}s" >/dev/null || die "deleting the ClusterExtensions failed or timed out"
  step "deleted $n ClusterExtension(s) (operator-controller uninstalled their releases)"
fi
if k get crd clustercatalogs.olm.operatorframework.io >/dev/null 2>&1; then
  n=$(k get clustercatalogs -o name | wc -l)
  k delete clustercatalogs --all --wait=true --timeout="${PURGE_TIMEOUT}s" >/dev/null || die "deleting the ClusterCatalogs failed or timed out"
  step "deleted $n ClusterCatalog(s)"
fi
[ "$PURGE" = 1 ] || { step "OLM v1 and cert-manager stay installed (--purge removes them)"; exit 0; }

for m in operator-controller cert-manager; do
  [ -s "$dir/$m.yaml" ] || { step "no $dir/$m.yaml: $m was not installed by olmv1-up.sh"; continue; }
  k delete -f "$dir/$m.yaml" --ignore-not-found --wait=true --timeout="${PURGE_TIMEOUT}s" >/dev/null || die "deleting what $m.yaml created failed or timed out"
  step "deleted what $dir/$m.yaml created"
done
# cert-manager's cainjector and controller leave their leader-election Leases in kube-system.
k -n kube-system delete lease cert-manager-controller cert-manager-cainjector-leader-election --ignore-not-found >/dev/null || true
"$root/hack/images/registry.sh" stop-node || true
rm -rf "$dir"
step "OLM v1 and cert-manager removed"
