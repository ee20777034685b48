#!/usr/bin/env bash
# demo.sh up|down — the one-command local demo behind `make demo` / `make demo-down`.
#
# up: starts the loopback kwok cluster (building what is missing), installs the CRD, runs the
# operator (bin/manager) as a local process, creates the sample Memcached in namespace
# memcached-demo, waits until it is Available with its pods Running and status.nodes filled, then
# scales it 3 -> 5 and shows it converge. The cluster and the operator stay up.
# down: stops the demo operator and the cluster (only processes these scripts started).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
CLUSTER_DIR=${CLUSTER_DIR:-$root/.cluster}
KUBECTL=${KUBECTL:-$root/bin/kubectl}
MANAGER_BIN=${MANAGER_BIN:-$root/bin/manager}
MEMCACHED_IMAGE=${MEMCACHED_IMAGE:-docker.io/library/memcached:1.6.38-alpine}
NS=${DEMO_NAMESPACE:-memcached-demo}
# The operator's loopback ports: metrics (HTTPS) and health probes.
METRICS_PORT=${DEMO_METRICS_PORT:-29443}
PROBE_PORT=${DEMO_PROBE_PORT:-29081}
export KUBECONFIG=$CLUSTER_DIR/kubeconfig
pidfile=$CLUSTER_DIR/pids/manager.pid
log=$CLUSTER_DIR/logs/manager.log
pids=$CLUSTER_DIR/pids
# shellcheck source=../lib/procs.sh
. "$root/hack/lib/procs.sh"

start=$(date +%s)
# step MSG: this demo's heading (seconds since start), in place of procs.sh's step.
step() { printf '\n\033[1m[%3ss] %s\033[0m\n' "$(( $(date +%s) - start ))" "$*"; }
k() { "$KUBECTL" "$@"; }

stop_manager() {
  if [ -f "$pidfile" ]; then
    local pid; pid=$(cat "$pidfile")
    if kill -0 "$pid" 2>/dev/null && [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$(readlink -f "$MANAGER_BIN")" ]; then
      kill -TERM "$pid"
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
      kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
      echo "stopped the demo operator (pid $pid)"
    fi
    rm -f "$pidfile"
  fi
}

case ${1:-up} in
  down)
    stop_manager
    "$root/hack/cluster/cluster-down.sh"
    exit 0 ;;
  up) ;;
  *) echo "usage: $0 up|down" >&2; exit 2 ;;
esac

step "Starting the local cluster (first run builds kube-apiserver & co. from the Go proxy: 15-45 min; later runs ~5-15 s)"
"$root/hack/cluster/cluster-up.sh"

step "Installing the Memcached CRD"
k apply --server-side --force-conflicts -f "$root/config/crd/bases" >/dev/null
k wait --for=condition=Established crd/memcacheds.cache.example.com --timeout=60s

step "Starting the operator (log: $log)"
stop_manager
# Only one operator may reconcile the Memcacheds: stop the OLM runner of `make demo-olm`, if any.
stop_group olm-runner
for port in "$METRICS_PORT" "$PROBE_PORT"; do
  owner=$(port_owner "$port" | paste -sd' ')
  [ -z "$owner" ] || die "port $port is taken by pid $owner: set DEMO_METRICS_PORT / DEMO_PROBE_PORT to free ports"
done
mkdir -p "$(dirname "$pidfile")" "$(dirname "$log")"
WATCH_NAMESPACE="" RELATED_IMAGE_MEMCACHED="$MEMCACHED_IMAGE" \
  nohup "$MANAGER_BIN" --metrics-bind-address=127.0.0.1:$METRICS_PORT --health-probe-bind-address=127.0.0.1:$PROBE_PORT >>"$log" 2>&1 &
echo $! >"$pidfile"
for _ in $(seq 100); do
  curl --noproxy '*' -fsS http://127.0.0.1:$PROBE_PORT/readyz >/dev/null 2>&1 && break
  kill -0 "$(cat "$pidfile")" 2>/dev/null || { echo "the operator exited:"; tail -20 "$log"; exit 1; }
  sleep 0.2
done
echo "operator ready (pid $(cat "$pidfile")), metrics on https://127.0.0.1:$METRICS_PORT/metrics"
# The ClusterRole a scraper's ServiceAccount is bound to (the bundle ships the same one). Server-side
# apply: a client-side apply of an object created otherwise (by OLM from the bundle, or by
# `kubectl create`) warns that it lacks the last-applied-configuration annotation.
k create clusterrole memcached-operator-metrics-reader --non-resource-url=/metrics --verb=get \
  --dry-run=client -o yaml | k apply --server-side --force-conflicts --field-manager=memcached-demo -f - >/dev/null

step "Creating namespace $NS and the sample Memcached (size 3)"
k get namespace "$NS" >/dev/null 2>&1 || k create namespace "$NS" >/dev/null
until k get serviceaccount default -n "$NS" >/dev/null 2>&1; do sleep 0.2; done
k apply -n "$NS" -f "$root/config/samples/cache_v1alpha1_memcached.yaml"
k patch memcached memcached-sample -n "$NS" --type=merge -p '{"spec":{"size":3}}' >/dev/null

step "Waiting until memcached-sample is Available"
{ k wait memcached/memcached-sample -n "$NS" --for=jsonpath='{.status.readyReplicas}'=3 --timeout=120s >/dev/null &&
  k wait memcached/memcached-sample -n "$NS" --for=condition=Available --timeout=120s; } ||
  { explain_memcached "$NS" memcached-sample tail -n 20 "$log"; die "memcached-sample did not become Available with 3 ready pods within 120 s"; }
k get memcached,deploy,pods -n "$NS" -o wide
echo "status.nodes:      $(k get memcached memcached-sample -n "$NS" -o jsonpath='{.status.nodes}')"
echo "status.serverList: $(k get memcached memcached-sample -n "$NS" -o jsonpath='{.status.serverList}')"

step "Scaling memcached-sample from 3 to 5"
k patch memcached memcached-sample -n "$NS" --type=merge -p '{"spec":{"size":5}}'
{ k wait memcached/memcached-sample -n "$NS" --for=jsonpath='{.status.readyReplicas}'=5 --timeout=120s >/dev/null &&
  k wait memcached/memcached-sample -n "$NS" --for=condition=Available --timeout=120s; } ||
  { explain_memcached "$NS" memcached-sample tail -n 20 "$log"; die "memcached-sample did not become Available with 5 ready pods within 120 s"; }
k get memcached,deploy,pods -n "$NS" -o wide
echo "status.nodes:      $(k get memcached memcached-sample -n "$NS" -o jsonpath='{.status.nodes}')"

step "Done. The cluster and the operator keep running:"
cat <<MSG
  export KUBECONFIG=$KUBECONFIG
  $KUBECTL get memcached -A
  tail -f $log                # operator log
  make demo-down              # stop the operator and the cluster (PURGE=1 also deletes .cluster/)
MSG
