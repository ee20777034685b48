#!/usr/bin/env bash
# catalog-serve.sh start|stop|status [CATALOG_DIR]
#
# Publishes a file-based catalog (default: catalog/) to the OLM of hack/olm/olm-up.sh without any
# image: `opm serve` runs on this host and a grpc-address CatalogSource points OLM at it.
#
#   start  writes a copy of CATALOG_DIR to $CLUSTER_DIR/catalog-serve/<timestamp>/ with every bundle
#          image blanked (`catalog-tool blank-images`, hack/catalog): OLM then installs a bundle from
#          its inline olm.bundle.object properties instead of starting an unpack Job for its image
#          (which never produces content on the kwok cluster: the install would loop forever).
#          CATALOG_MAX_VERSION=X.Y.Z leaves the bundles newer than X.Y.Z out of the copy (and the
#          channel entries naming them), to stage an upgrade: serve the old catalog, subscribe,
#          then `start` again with the full catalog.
#          CATALOG_HEAD_BUNDLE=DIR (a bundle directory, e.g. bundle/) is the head in the copy
#          (`catalog-tool with-head`): the bundle the working tree generates for the Makefile's
#          VERSION replaces the committed release of that version, or, built as the next version,
#          is added as the new head of every channel whose head is older, so the OLM tests install
#          the current code's CSV (its RBAC, its descriptors) with the current code (make test-olm
#          runs bin/manager for that version). hack/olm/olm-real-images.sh does the same for the
#          real tier.
#          The copy is validated (opm validate), then `bin/opm serve` is (re)started on
#          CATALOG_PORT (log $CLUSTER_DIR/logs/opm-serve.log, pid $CLUSTER_DIR/pids/opm.pid) and the
#          CatalogSource CATALOG_SOURCE in namespace CATALOG_NAMESPACE is created or updated
#          (sourceType grpc, address 127.0.0.1:CATALOG_PORT). Waits until the catalog operator
#          reports the connection READY. Running `start` again restarts opm serve with the new copy
#          on the same port: that is how a new release is published; OLM re-resolves the
#          Subscriptions of that catalog when it reconnects, so an Automatic Subscription upgrades.
#   stop   stops opm serve (only the recorded PID) and deletes the CatalogSource.
#   status prints what is served and the CatalogSource's connection state.
#
# Never modifies CATALOG_DIR. Needs OLM (hack/olm/olm-up.sh) on the cluster of $CLUSTER_DIR.
#
# Listeners: opm serve listens on *:CATALOG_PORT, every interface -- its --port takes a port only
# and it listens on ":"+port (operator-registry cmd/opm/serve); its pprof listener (localhost:6060
# by default) is turned off with --pprof-addr "". OLM connects to 127.0.0.1:CATALOG_PORT.
#
# Environment (defaults):
#   CLUSTER_DIR=<repo>/.cluster   LOCALBIN=<repo>/bin   CATALOG_PORT=50051   CATALOG_MAX_VERSION=
#   CATALOG_SOURCE=memcached-catalog   CATALOG_NAMESPACE=olm   STEP_TIMEOUT=120 (seconds per wait)
#   CATALOG_HEAD_BUNDLE=
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
export LOCALBIN=${LOCALBIN:-$root/bin}
CLUSTER_DIR=${CLUSTER_DIR:-$root/.cluster}
CATALOG_PORT=${CATALOG_PORT:-50051}
CATALOG_MAX_VERSION=${CATALOG_MAX_VERSION:-}
CATALOG_HEAD_BUNDLE=${CATALOG_HEAD_BUNDLE:-}
CATALOG_SOURCE=${CATALOG_SOURCE:-memcached-catalog}
CATALOG_NAMESPACE=${CATALOG_NAMESPACE:-olm}
STEP_TIMEOUT=${STEP_TIMEOUT:-120}
export CLUSTER_DIR

export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}" no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"

usage() { echo "usage: catalog-serve.sh start|stop|status [CATALOG_DIR]   (env CATALOG_PORT, CATALOG_MAX_VERSION, CATALOG_SOURCE, CATALOG_NAMESPACE)" >&2; exit 2; }
if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage; fi
action=$1
catalog_dir=${2:-$root/catalog}
case $action in start|stop|status) ;; -h|--help) sed -n '2,39p' "$0"; exit 0 ;; *) usage ;; esac
[[ "$CATALOG_PORT" =~ ^[0-9]+$ ]] || { echo "catalog-serve: CATALOG_PORT must be a port number" >&2; exit 2; }

kubeconfig=$CLUSTER_DIR/kubeconfig
logs=$CLUSTER_DIR/logs
pids=$CLUSTER_DIR/pids
state=$CLUSTER_DIR/catalog-serve
kubectl=$LOCALBIN/kubectl
catalog_tool=$LOCALBIN/catalog-tool
opm=$LOCALBIN/opm
address=127.0.0.1:$CATALOG_PORT

t0=$(date +%s%N)
# shellcheck source=../lib/procs.sh
. "$root/hack/lib/procs.sh"
k() { "$kubectl" --kubeconfig="$kubeconfig" "$@"; }

# opm_pid: prints the recorded PID of opm serve when it still runs bin/opm.
opm_pid() { pid_if_ours opm; }
cluster_up() { [ -s "$kubeconfig" ] && k get --raw /readyz >/dev/null 2>&1; }

stop_opm() {
  local pid
  if ! pid=$(opm_pid); then
    rm -f "$pids/opm.pid"
    return 1
  fi
  kill -TERM "$pid" 2>/dev/null || true
  local deadline=$(( $(date +%s) + 10 ))
  while running "$pid"; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.2
      break
    fi
    sleep 0.1
  done
  rm -f "$pids/opm.pid"
  step "stopped opm serve (pid $pid)"
}

catsrc_field() { # catsrc_field JSONPATH
  k -n "$CATALOG_NAMESPACE" get catalogsource "$CATALOG_SOURCE" -o jsonpath="$1" 2>/dev/null || true
}

# The lock lives in pids/, which hack/cluster/cluster-down.sh --purge removes with the rest of the state.
if [ -d "$pids" ]; then
  exec 9>>"$pids/.catalog-serve.lock"
  flock -w 900 9 || die "timed out waiting for another catalog-serve.sh"
fi

case $action in
# ------------------------------------------------------------------------------------------ stop
stop)
  stop_opm || step "opm serve was not running"
  if cluster_up; then
    if k get crd catalogsources.operators.coreos.com >/dev/null 2>&1; then
      k -n "$CATALOG_NAMESPACE" delete catalogsource "$CATALOG_SOURCE" --ignore-not-found >/dev/null
      step "deleted CatalogSource $CATALOG_NAMESPACE/$CATALOG_SOURCE"
    fi
  else
    step "the cluster of $CLUSTER_DIR is not up: CatalogSource $CATALOG_NAMESPACE/$CATALOG_SOURCE left as it is"
  fi
  rm -rf "$state"
  step "catalog-serve stopped"
  ;;

# ---------------------------------------------------------------------------------------- status
status)
  if pid=$(opm_pid); then
    echo "opm serve: pid $pid on *:$CATALOG_PORT, serving $(cat "$state/served" 2>/dev/null || echo '?')"
  else
    echo "opm serve: not running"
  fi
  if cluster_up; then
    echo "CatalogSource $CATALOG_NAMESPACE/$CATALOG_SOURCE: $(catsrc_field '{.spec.address} {.status.connectionState.lastObservedState}' | sed 's/^$/not found/')"
  fi
  ;;

# ----------------------------------------------------------------------------------------- start
start)
  [ -d "$catalog_dir" ] || die "catalog directory $catalog_dir does not exist"
  catalog_dir=$(cd "$catalog_dir" && pwd)
  cluster_up || die "the cluster of $CLUSTER_DIR does not answer: start it with 'make cluster-up', then hack/olm/olm-up.sh"
  k get crd catalogsources.operators.coreos.com >/dev/null 2>&1 || die "OLM is not installed on the cluster of $CLUSTER_DIR: run hack/olm/olm-up.sh"
  catalog_pid=$(cat "$pids/catalog.pid" 2>/dev/null || true)
  if ! [[ "$catalog_pid" =~ ^[0-9]+$ ]] || ! kill -0 "$catalog_pid" 2>/dev/null; then
    die "OLM's catalog operator is not running (no live $pids/catalog.pid): run hack/olm/olm-up.sh"
  fi
  command -v ss >/dev/null || die "ss is required (apt-get install iproute2)"

  mkdir -p "$logs" "$pids" "$state"
  step "building opm and catalog-tool if needed"
  "$root/hack/olm/build-olm-tools.sh" opm
  (cd "$root/hack/catalog" && go build -o "$catalog_tool" .) || die "building hack/catalog failed"

  # The copy: a new directory each time, so the running server keeps its files until it is replaced.
  copy=$state/$(date +%Y%m%d-%H%M%S-%N)
  max_args=()
  [ -n "$CATALOG_MAX_VERSION" ] && max_args=(-max-version "$CATALOG_MAX_VERSION")
  source_dir=$catalog_dir
  if [ -n "$CATALOG_HEAD_BUNDLE" ]; then
    [ -d "$CATALOG_HEAD_BUNDLE/manifests" ] || die "CATALOG_HEAD_BUNDLE=$CATALOG_HEAD_BUNDLE is not a bundle directory (no manifests/)"
    mkdir -p "$copy/source"
    source_dir=$copy/source
    did=$("$catalog_tool" with-head -in "$catalog_dir/memcached-operator" -out "$source_dir/memcached-operator" \
      -bundle-dir "$CATALOG_HEAD_BUNDLE" -opm "$opm") || die "catalog-tool with-head $CATALOG_HEAD_BUNDLE failed"
    step "${did#"$copy/"}"
  fi
  "$catalog_tool" blank-images -in "$source_dir" -out "$copy/configs" "${max_args[@]}" >"$state/blank-images.out" 2>&1 ||
    { cat "$state/blank-images.out" >&2; rm -rf "$copy"; die "copying $catalog_dir failed"; }
  step "$(sed "s|$state/||" "$state/blank-images.out")"
  "$opm" validate "$copy/configs" >"$state/validate.out" 2>&1 ||
    { cat "$state/validate.out" >&2; rm -rf "$copy"; die "opm validate rejected the copy of $catalog_dir"; }
  step "opm validate: the copy is valid"

  # Restart opm serve on the same port with the new copy.
  before=$(catsrc_field '{.status.connectionState.lastConnect}')
  stop_opm || true
  others=$(port_owner "$CATALOG_PORT" | tr '\n' ' ')
  [ -z "$others" ] || die "port $CATALOG_PORT is taken by pid ${others% } (set CATALOG_PORT)"
  # --cache-dir in the copy (not a temporary directory that a SIGKILL would leave behind);
  # --termination-log: the default /dev/termination-log is for containers.
  (
    cd "$copy"
    exec setsid "$opm" serve "$copy/configs" --port "$CATALOG_PORT" --pprof-addr "" \
      --cache-dir "$copy/cache" --cache-enforce-integrity=false \
      --termination-log "$copy/termination.log" </dev/null >"$logs/opm-serve.log" 2>&1 9>&-
  ) &
  echo $! >"$pids/opm.pid"
  pid=$!
  deadline=$(( $(date +%s) + STEP_TIMEOUT ))
  until port_owner "$CATALOG_PORT" | grep -qx "$pid" && (exec 3<>"/dev/tcp/127.0.0.1/$CATALOG_PORT") 2>/dev/null; do
    running "$pid" || { tail -n 20 "$logs/opm-serve.log" >&2; die "opm serve exited (log $logs/opm-serve.log)"; }
    [ "$(date +%s)" -lt "$deadline" ] || die "opm serve did not listen on port $CATALOG_PORT within ${STEP_TIMEOUT}s"
    sleep 0.1
  done
  echo "$catalog_dir${CATALOG_MAX_VERSION:+ (bundles up to $CATALOG_MAX_VERSION)} from $copy/configs" >"$state/served"
  step "opm serve (pid $pid) serves the copy on *:$CATALOG_PORT (log $logs/opm-serve.log)"
  # Only the served copy is kept.
  find "$state" -mindepth 1 -maxdepth 1 -type d -not -path "$copy" -exec rm -rf {} +

  k apply --server-side --force-conflicts --field-manager=catalog-serve -f - >/dev/null <<EOF || die "applying the CatalogSource failed"
apiVersion: operators.coreos.com/v1alpha1
kind: CatalogSource
metadata:
  name: $CATALOG_SOURCE
  namespace: $CATALOG_NAMESPACE
spec:
  sourceType: grpc
  address: $address
  displayName: Memcached Operator (local catalog)
  publisher: memcached-operator developers
EOF
  step "applied CatalogSource $CATALOG_NAMESPACE/$CATALOG_SOURCE (grpc, address $address)"

  # READY, and (on a restart) a connection made after the restart: lastConnect changes when the
  # catalog operator sees the connection state change.
  deadline=$(( $(date +%s) + STEP_TIMEOUT ))
  while :; do
    read -r st last <<<"$(catsrc_field '{.status.connectionState.lastObservedState} {.status.connectionState.lastConnect}')" || true
    [ "${st:-}" = READY ] && { [ -z "$before" ] || [ "${last:-}" != "$before" ]; } && break
    running "$pid" || die "opm serve exited (log $logs/opm-serve.log)"
    [ "$(date +%s)" -lt "$deadline" ] ||
      die "CatalogSource $CATALOG_NAMESPACE/$CATALOG_SOURCE is not READY after ${STEP_TIMEOUT}s (state ${st:-none}; see $logs/catalog.log)"
    sleep 0.2
  done
  step "CatalogSource $CATALOG_NAMESPACE/$CATALOG_SOURCE is READY (last connect $last)"
  ;;
esac
