#!/usr/bin/env bash
# cluster-down.sh [--purge]
#
# Stops the local cluster started by hack/cluster-up.sh, and what the demo, OLM and catalog scripts
# run on it: only the processes whose PIDs they recorded in $CLUSTER_DIR/pids (and only while a PID still runs the binary it was recorded for),
# with SIGTERM, then SIGKILL after GRACE seconds (default 10). Order: kwok, scheduler and
# controller-manager first, then kube-apiserver, then etcd. Safe to run when nothing is up.
# --purge (or PURGE=1) also deletes the state in $CLUSTER_DIR (certificates, etcd data, logs,
# kubeconfig), so the next cluster-up.sh starts from scratch.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
CLUSTER_DIR=${CLUSTER_DIR:-$root/.cluster}
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

# shellcheck source=lib/procs.sh
. "$root/hack/lib/procs.sh"
if [ -d "$pids" ]; then
  # What runs on top of the cluster first: the demo operator and the OLM runner (make demo,
  # make demo-olm), the catalog server and OLM's operators (make catalog-serve, make olm-up).
  stop_group olm-runner manager
  stop_group opm olm catalog
  stop_group kwok kube-scheduler kube-controller-manager
  stop_group kube-apiserver
  stop_group etcd
  rmdir "$pids" 2>/dev/null || true
else
  step "no cluster state in $CLUSTER_DIR: nothing to stop"
fi

if [ "$PURGE" = 1 ] && [ -d "$CLUSTER_DIR" ]; then
  # Remove only what cluster-up.sh creates, then the directory if that left it empty.
  rm -rf "$CLUSTER_DIR/pki" "$CLUSTER_DIR/pki.tmp" "$CLUSTER_DIR/etcd" "$CLUSTER_DIR/certs" \
    "$CLUSTER_DIR/logs" "$CLUSTER_DIR/pids" "$CLUSTER_DIR/kubeconfig" \
    "$CLUSTER_DIR/kube-controller-manager.kubeconfig" "$CLUSTER_DIR/kube-scheduler.kubeconfig" \
    "$CLUSTER_DIR/.lock" "$CLUSTER_DIR/catalog-serve" "$CLUSTER_DIR/olm" "$CLUSTER_DIR/olm-runner"
  if rmdir "$CLUSTER_DIR" 2>/dev/null; then
    step "purged $CLUSTER_DIR"
  else
    step "purged cluster state; $CLUSTER_DIR still holds other files, left in place"
  fi
fi
step "cluster down"
