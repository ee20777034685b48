#!/usr/bin/env bash
# cluster-down.sh [--purge]
#
# Stops the local cluster started by hack/cluster/cluster-up.sh (NODE=kwok: CLUSTER_DIR <repo>/.cluster;
# NODE=real: <repo>/.cluster-real), and what the demo, OLM and catalog scripts run on it: only the
# processes whose PIDs they recorded in $CLUSTER_DIR/pids (and only while a PID still runs the binary
# it was recorded for), with SIGTERM, then SIGKILL after GRACE seconds (default 10). Order: what runs
# on the cluster; for a real node its pods (deleted through the API so the kubelet stops them), then
# CoreDNS, kube-proxy, the kubelet, containerd, and every host change they made (hack/lib/node.sh
# node_down: containers, mounts, network namespaces, interfaces, iptables rules, sysctls, cgroups);
# kwok, scheduler and controller-manager; then kube-apiserver, then etcd; last the registry when
# cluster-up.sh started it. Safe to run when nothing is up.
# --purge (or PURGE=1) also deletes the state in $CLUSTER_DIR (certificates, etcd data, logs,
# kubeconfig), so the next cluster-up.sh starts from scratch.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
LOCALBIN=${LOCALBIN:-$root/bin}
case ${NODE:-kwok} in
  real) CLUSTER_DIR=${CLUSTER_DIR:-$root/.cluster-real} ;;
  *) CLUSTER_DIR=${CLUSTER_DIR:-$root/.cluster} ;;
esac
GRACE=${GRACE:-10}
PURGE=${PURGE:-0}
for arg in "$@"; do
  case $arg in
    --purge) PURGE=1 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "cluster-down.sh: unknown argument $arg (usage: cluster-down.sh [--purge])" >&2; exit 2 ;;
  esac
done
pids=$CLUSTER_DIR/pids
logs=$CLUSTER_DIR/logs
kubeconfig=$CLUSTER_DIR/kubeconfig
kubectl=$LOCALBIN/kubectl

# shellcheck source=../lib/procs.sh
. "$root/hack/lib/procs.sh"
if [ -d "$pids" ]; then
  # What runs on top of the cluster first: the demo operator and the OLM runner (make demo,
  # make demo-olm), the catalog server and OLM's operators (make catalog-serve, make olm-up).
  stop_group olm-runner manager
  stop_group opm olm catalog
fi
# A real node leaves host state even when its processes are gone: always clean up after it.
if [ -d "$CLUSTER_DIR/node" ]; then
  # shellcheck source=../lib/node.sh
  . "$root/hack/lib/node.sh"
  mkdir -p "$pids"
  # The registry's listener on the node's bridge (hack/images/registry.sh start-node, for OLM v1) goes first.
  "$root/hack/images/registry.sh" stop-node || true
  node_down
fi
if [ -d "$pids" ]; then
  stop_group kwok kube-scheduler kube-controller-manager
  stop_group kube-apiserver
  stop_group etcd
  rmdir "$pids" 2>/dev/null || true
else
  step "no cluster state in $CLUSTER_DIR: nothing to stop"
fi
host_rc=0
if [ -d "$CLUSTER_DIR/node" ]; then
  node_host_down || host_rc=1
fi
if [ -f "$CLUSTER_DIR/registry-started-by-cluster-up" ]; then
  "$root/hack/images/registry.sh" stop
  rm -f "$CLUSTER_DIR/registry-started-by-cluster-up"
fi

if [ "$PURGE" = 1 ] && [ -d "$CLUSTER_DIR" ]; then
  # Remove only what cluster-up.sh creates, then the directory if that left it empty.
  rm -rf "$CLUSTER_DIR/pki" "$CLUSTER_DIR/pki.tmp" "$CLUSTER_DIR/etcd" "$CLUSTER_DIR/certs" \
    "$CLUSTER_DIR/logs" "$CLUSTER_DIR/pids" "$CLUSTER_DIR/kubeconfig" \
    "$CLUSTER_DIR/kube-controller-manager.kubeconfig" "$CLUSTER_DIR/kube-scheduler.kubeconfig" \
    "$CLUSTER_DIR/.lock" "$CLUSTER_DIR/catalog-serve" "$CLUSTER_DIR/olm" "$CLUSTER_DIR/olm-runner" \
    "$CLUSTER_DIR/node"
  if rmdir "$CLUSTER_DIR" 2>/dev/null; then
    step "purged $CLUSTER_DIR"
  else
    step "purged cluster state; $CLUSTER_DIR still holds other files, left in place"
  fi
fi
[ "$host_rc" = 0 ] || die "the real node's host changes were not all undone (warnings above)"
step "cluster down"
