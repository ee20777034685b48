#!/usr/bin/env bash
# olm-down.sh [--purge]
#
# Stops the OLM operators started by hack/olm/olm-up.sh: only the processes whose PIDs it recorded in
# $CLUSTER_DIR/pids/{catalog,olm}.pid (and only while a PID still runs that binary), with SIGTERM,
# then SIGKILL after GRACE seconds (default 10). OLM's objects stay in the cluster, so olm-up.sh
# carries on where it stopped. Safe to run when nothing is up.
# --purge (or PURGE=1), the local `operator-sdk olm uninstall`: while the operators still run (the
# olm operator finalizes CSVs), deletes OLM's CRDs -- and with them every Subscription, InstallPlan,
# CatalogSource, CSV (so the operators OLM installed), OperatorGroup and OperatorCondition -- the
# namespaces olm and operators, the ClusterRoles olm-up.sh created and the cluster-scoped RBAC OLM
# made for OperatorGroups and CSVs; then stops the operators and deletes $CLUSTER_DIR/olm (the
# catalog operator's certificate). The CRDs of operators that OLM installed stay (`make uninstall`
# removes the project's). A hack/olm/catalog-serve.sh server is not stopped (hack/olm/catalog-serve.sh stop).
#
# With OLM in the cluster (hack/olm/olm-up.sh NODE=real) there is no process to stop; --purge also
# deletes the packageserver APIService and the operators' ClusterRole and binding, and the namespace
# olm with OLM's pods.
#
# Environment (defaults): NODE=kwok   CLUSTER_DIR=<repo>/.cluster (NODE=real: <repo>/.cluster-real)   LOCALBIN=<repo>/bin   GRACE=10
#   PURGE_TIMEOUT=120 (seconds to wait for the deletions)
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
LOCALBIN=${LOCALBIN:-$root/bin}
case ${NODE:-kwok} in real) CLUSTER_DIR=${CLUSTER_DIR:-$root/.cluster-real} ;; *) CLUSTER_DIR=${CLUSTER_DIR:-$root/.cluster} ;; esac
GRACE=${GRACE:-10}
PURGE=${PURGE:-0}
PURGE_TIMEOUT=${PURGE_TIMEOUT:-120}
for arg in "$@"; do
  case $arg in
    --purge) PURGE=1 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "olm-down.sh: unknown argument $arg (usage: olm-down.sh [--purge])" >&2; exit 2 ;;
  esac
done
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}" no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"
pids=$CLUSTER_DIR/pids
kubeconfig=$CLUSTER_DIR/kubeconfig
kubectl=$LOCALBIN/kubectl
OLM_CRDS=(catalogsources clusterserviceversions installplans olmconfigs operatorconditions operatorgroups operators subscriptions)

t0=$(date +%s%N)
# shellcheck source=../lib/procs.sh
. "$root/hack/lib/procs.sh"
k() { "$kubectl" --kubeconfig="$kubeconfig" "$@"; }

if [ -d "$pids" ]; then
  exec 9>>"$pids/.olm.lock"
  flock -w 900 9 || { echo "olm-down: timed out waiting for another olm-up.sh/olm-down.sh" >&2; exit 1; }
fi

purge() {
  if [ ! -s "$kubeconfig" ] || ! k get --raw /readyz >/dev/null 2>&1; then
    step "the cluster of $CLUSTER_DIR is not up: nothing to delete in it (its state goes with hack/cluster/cluster-down.sh --purge)"
    return 0
  fi
  local crds=() c
  for c in "${OLM_CRDS[@]}"; do crds+=("$c.operators.coreos.com"); done
  # CSVs carry OLM's finalizer operators.coreos.com/csv-cleanup: the olm operator removes it once
  # it cleaned up. Without a running olm operator nobody would: remove it here.
  if ! pid_if_ours olm >/dev/null && k get crd clusterserviceversions.operators.coreos.com >/dev/null 2>&1; then
    strip_csv_finalizers
  fi
  k delete crd --ignore-not-found --wait=false "${crds[@]}" >/dev/null
  step "deleting OLM's CRDs (and every OLM object: CSVs, Subscriptions, InstallPlans, CatalogSources, ...)"
  if ! k wait --for=delete crd "${crds[@]}" --timeout="${PURGE_TIMEOUT}s" >/dev/null 2>&1; then
    step "OLM's CRDs are still there after ${PURGE_TIMEOUT}s: removing the CSV finalizers"
    strip_csv_finalizers
    k wait --for=delete crd "${crds[@]}" --timeout="${PURGE_TIMEOUT}s" >/dev/null || { echo "olm-down: OLM's CRDs were not deleted" >&2; return 1; }
  fi
  step "deleted OLM's CRDs"
  # Cluster-scoped objects OLM made for namespaced owners are not garbage-collected (a cluster-scoped
  # object cannot have a namespaced owner); they carry the label olm.owner=<owner>:
  #   - olm.og.<group>.<admin|edit|view>-<hash>: the ClusterRoles of each OperatorGroup;
  #   - <csv>-<hash>: the ClusterRoles/-Bindings of a CSV's clusterPermissions (and, in
  #     AllNamespaces mode, of its permissions); OLM deletes these itself when a CSV is deleted
  #     while it runs;
  #   - the bundle's own cluster-scoped objects (here the editor/viewer/metrics-reader ClusterRoles),
  #     which OLM never deletes.
  # An installed operator's CRDs stay (deleting them would delete every custom resource), and so
  # do the <crd>-<version>-<admin|edit|view|crdview> ClusterRoles that OLM made for them (owned by
  # the CRD, garbage-collected with it).
  k delete clusterrole,clusterrolebinding --ignore-not-found -l olm.owner >/dev/null
  k delete clusterrole --ignore-not-found aggregate-olm-edit aggregate-olm-view >/dev/null
  step "deleted the ClusterRoles/-Bindings labelled olm.owner (OLM's, for OperatorGroups and CSVs) and aggregate-olm-edit/-view"
  # OLM in the cluster (hack/olm/olm-up.sh NODE=real): its operators' RBAC and packageserver's
  # APIService, which would otherwise stay registered with nothing serving it (discovery errors).
  k delete apiservice --ignore-not-found v1.packages.operators.coreos.com >/dev/null
  k delete clusterrolebinding --ignore-not-found olm-operator-binding-olm >/dev/null
  k delete clusterrole --ignore-not-found system:controller:operator-lifecycle-manager >/dev/null
  k delete namespace --ignore-not-found --wait=false olm operators >/dev/null
  k wait --for=delete namespace olm operators --timeout="${PURGE_TIMEOUT}s" >/dev/null 2>&1 ||
    step "WARNING: namespaces olm/operators are still terminating after ${PURGE_TIMEOUT}s"
  step "deleted namespaces olm and operators"
}

strip_csv_finalizers() {
  local ns name
  while read -r ns name; do
    [ -n "$name" ] || continue
    k -n "$ns" patch csv "$name" --type=merge -p '{"metadata":{"finalizers":null}}' >/dev/null 2>&1 || true
  done < <(k get csv -A -o jsonpath='{range .items[*]}{.metadata.namespace}{" "}{.metadata.name}{"\n"}{end}' 2>/dev/null)
}

if [ "$PURGE" = 1 ]; then
  purge
fi
if [ -d "$pids" ]; then
  stop_group catalog olm
else
  step "no OLM state in $CLUSTER_DIR: nothing to stop"
fi
if [ "$PURGE" = 1 ]; then
  rm -rf "$CLUSTER_DIR/olm"
  step "removed $CLUSTER_DIR/olm"
fi
step "OLM down"
