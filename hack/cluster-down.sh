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

t0=$(date +%s%N)
elapsed() {
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100))
}
step() { printf '[%6ss] %s\n' "$(elapsed)" "$*"; }

# ours NAME PID: PID is alive and still runs the binary NAME (guards against PID reuse).
ours() {
  kill -0 "$2" 2>/dev/null || return 1
  local argv0
  argv0=$(tr '\0' '\n' <"/proc/$2/cmdline" 2>/dev/null | head -n1) || return 1
  [ "$(basename -- "$argv0")" = "$1" ]
}

# running PID: the process exists and has not exited yet (a zombie has closed its files and ports).
running() {
  local state
  state=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
  [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

stop_group() { # stop_group NAME... : SIGTERM them together, wait, SIGKILL leftovers
  local name pid
  local -a names=() ids=()
  for name in "$@"; do
    [ -f "$pids/$name.pid" ] || continue
    pid=$(cat "$pids/$name.pid" 2>/dev/null || true)
    if [[ "$pid" =~ ^[0-9]+$ ]] && ours "$name" "$pid"; then
      kill -TERM "$pid" 2>/dev/null || true
      names+=("$name") ids+=("$pid")
    else
      step "$name was not running"
      rm -f "$pids/$name.pid"
    fi
  done
  [ "${#ids[@]}" -gt 0 ] || return 0
  local deadline=$(( $(date +%s%N) / 1000000 + GRACE * 1000 )) i left
  while :; do
    left=0
    for i in "${!ids[@]}"; do
      running "${ids[i]}" && left=1
    done
    [ "$left" = 0 ] && break
    if [ $(( $(date +%s%N) / 1000000 )) -ge "$deadline" ]; then
      for i in "${!ids[@]}"; do
        if running "${ids[i]}"; then
          step "${names[i]} (pid ${ids[i]}) ignored SIGTERM for ${GRACE}s: SIGKILL"
          kill -KILL "${ids[i]}" 2>/dev/null || true
        fi
      done
      sleep 0.2
      break
    fi
    sleep 0.1
  done
  for i in "${!ids[@]}"; do
    rm -f "$pids/${names[i]}.pid"
    step "stopped ${names[i]} (pid ${ids[i]})"
  done
}

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
    "$CLUSTER_DIR/.lock"
  if rmdir "$CLUSTER_DIR" 2>/dev/null; then
    step "purged $CLUSTER_DIR"
  else
    step "purged cluster state; $CLUSTER_DIR still holds other files, left in place"
  fi
fi
step "cluster down"
