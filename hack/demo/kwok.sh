# shellcheck shell=bash
# kwok.sh — the kwok tier's stories of hack/demo/demo.sh (sourced by it), on the loopback kwok cluster:
#
# demo (make demo): starts the cluster (building what is missing), installs the CRD, runs the
# operator (bin/manager) as a local process, creates the sample Memcached in namespace
# memcached-demo, waits until it is Available with its pods Running and status.nodes filled, then
# scales it 3 -> 5 and shows it converge. The cluster and the operator stay up.
#
# demo-olm (make demo-olm): the OLM user story, step by step with timings: OLM install, our catalog
# (0.1.0 as the stable head), subscribe, CSV Succeeded, the operator run as OLM deployed it (runner),
# the sample Memcached with 3 pods Running, a patch to 5, then the stable head moves to the current
# release (OLM_HEAD_VERSION) and OLM upgrades the operator. Everything stays up at the end.
#
# down (make demo-down, for both): stops the demo operators and the cluster (only processes these
# scripts started: hack/cluster/cluster-down.sh).
#
# Environment (defaults): MANAGER_BIN=<repo>/bin/manager  MEMCACHED_IMAGE=docker.io/library/memcached:1.6.46-alpine
#   DEMO_METRICS_PORT=29443 DEMO_PROBE_PORT=29081 (the operator's loopback metrics and probe ports)
#   OLM_HEAD_VERSION (demo-olm, required: the current release; make demo-olm sets it), OLM_HEAD_DIGEST
#   (its operator image digest when the release pins it; make demo-olm sets it from IMG_DIGEST)

MANAGER_BIN=${MANAGER_BIN:-$root/bin/manager}
MEMCACHED_IMAGE=${MEMCACHED_IMAGE:-docker.io/library/memcached:1.6.46-alpine}
METRICS_PORT=${DEMO_METRICS_PORT:-29443}
PROBE_PORT=${DEMO_PROBE_PORT:-29081}
log=$CLUSTER_DIR/logs/manager.log
runner_dir=$CLUSTER_DIR/olm-runner
# The operator's log: bin/manager's (demo), the OLM runner's (demo-olm).
operator_log() {
  if [ "$me" = demo ]; then tail -n 20 "$log"; else tail -n 20 "$runner_dir/operator.log"; fi
}

# kwok_cluster HEADING: the cluster up, and no demo operator running: only one operator may reconcile
# the Memcacheds, so the one of either kwok story (bin/manager, the OLM runner) is stopped.
kwok_cluster() {
  step "$1"
  "$root/hack/cluster/cluster-up.sh"
  stop_group manager olm-runner
}

# kwok_sample: the sample in NS, at size 3 (an earlier run may have left it at 5: a client-side apply
# leaves a field alone when the sample's value did not change, so it is patched back).
kwok_sample() {
  k apply -n "$NS" -f "$sample_file"
  k patch memcached "$sample" -n "$NS" --type=merge -p '{"spec":{"size":3}}' >/dev/null
}

demo_up() {
  kwok_cluster "Starting the local cluster (first run builds kube-apiserver & co. from the Go proxy: 15-45 min; later runs ~5-15 s)"

  step "Installing the Memcached CRD"
  k apply --server-side --force-conflicts -f "$root/config/crd/bases" >/dev/null
  k wait --for=condition=Established crd/memcacheds.cache.example.com --timeout=60s

  step "Starting the operator (log: $log)"
  local port owner
  for port in "$METRICS_PORT" "$PROBE_PORT"; do
    owner=$(port_owner "$port" | paste -sd' ')
    [ -z "$owner" ] || die "port $port is taken by pid $owner: set DEMO_METRICS_PORT / DEMO_PROBE_PORT to free ports"
  done
  mkdir -p "$pids" "$(dirname "$log")"
  WATCH_NAMESPACE="" RELATED_IMAGE_MEMCACHED="$MEMCACHED_IMAGE" \
    nohup "$MANAGER_BIN" --metrics-bind-address=127.0.0.1:$METRICS_PORT --health-probe-bind-address=127.0.0.1:$PROBE_PORT >>"$log" 2>&1 &
  echo $! >"$pids/manager.pid"
  for _ in $(seq 100); do
    curl --noproxy '*' -fsS http://127.0.0.1:$PROBE_PORT/readyz >/dev/null 2>&1 && break
    kill -0 "$(cat "$pids/manager.pid")" 2>/dev/null || { echo "the operator exited:"; tail -20 "$log"; exit 1; }
    sleep 0.2
  done
  echo "operator ready (pid $(cat "$pids/manager.pid")), metrics on https://127.0.0.1:$METRICS_PORT/metrics"
  # The ClusterRole a scraper's ServiceAccount is bound to (the bundle ships the same one). Server-side
  # apply: a client-side apply of an object created otherwise (by OLM from the bundle, or by
  # `kubectl create`) warns that it lacks the last-applied-configuration annotation.
  k create clusterrole memcached-operator-metrics-reader --non-resource-url=/metrics --verb=get \
    --dry-run=client -o yaml | k apply --server-side --force-conflicts --field-manager=memcached-demo -f - >/dev/null

  step "Creating namespace $NS and the sample Memcached (size 3)"
  namespace "$NS"
  kwok_sample

  step "Waiting until $sample is Available"
  wait_available 3 240
  k get memcached,deploy,pods -n "$NS" -o wide
  echo "status.nodes:      $(k get memcached "$sample" -n "$NS" -o jsonpath='{.status.nodes}')"
  echo "status.serverList: $(k get memcached "$sample" -n "$NS" -o jsonpath='{.status.serverList}')"

  step "Scaling $sample from 3 to 5"
  k patch memcached "$sample" -n "$NS" --type=merge -p '{"spec":{"size":5}}'
  wait_available 5 240
  k get memcached,deploy,pods -n "$NS" -o wide
  echo "status.nodes:      $(k get memcached "$sample" -n "$NS" -o jsonpath='{.status.nodes}')"

  step "Done. The cluster and the operator keep running:"
  cat <<MSG
  export KUBECONFIG=$KUBECONFIG
  $KUBECTL get memcached -A
  tail -f $log                # operator log
  make demo-down              # stop the operator and the cluster (PURGE=1 also deletes .cluster/)
MSG
}

demo_down() { "$root/hack/cluster/cluster-down.sh"; }
demo_olm_down() { demo_down; }

# runner_runs VERSION [DIGEST]: the OLM runner's last run is of operator VERSION (an image by tag)
# or of the image DIGEST (a release pins its operator by digest: OLM_HEAD_DIGEST).
runner_runs() {
  local last
  last=$(grep "=== runner" "$runner_dir/operator.log" 2>/dev/null | tail -1)
  grep -q ":$1 " <<<"$last" || { [ -n "${2:-}" ] && grep -q "@$2 " <<<"$last"; }
}
manager_started() { grep -q "Starting manager" "$runner_dir/operator.log"; }

demo_olm_up() {
  local head=v${OLM_HEAD_VERSION:?set OLM_HEAD_VERSION to the current release (make demo-olm does)}
  head=${head#vv}

  kwok_cluster "Local cluster"

  step "Installing OLM (CRDs, base objects, olm and catalog operators)"
  "$root/hack/olm/olm-up.sh"

  step "Serving our catalog with 0.1.0 as the stable head"
  CATALOG_MAX_VERSION=0.1.0 "$root/hack/olm/catalog-serve.sh" start

  step "OperatorGroup and Subscription in $NS (channel stable, OwnNamespace)"
  namespace "$NS"
  # An earlier run (the cluster keeps its state across demo-down) left a Subscription at the head:
  # remove it and our CSVs so the story starts at 0.1.0 again; the namespace and its OperatorGroup stay.
  if k get subscriptions.operators.coreos.com memcached-operator -n "$NS" >/dev/null 2>&1; then
    echo "removing the Subscription and CSVs of an earlier run"
    k delete subscriptions.operators.coreos.com memcached-operator -n "$NS" >/dev/null
    for csv in $(k get csv -n "$NS" -o name | { grep '/memcached-operator\.v' || true; }); do
      k delete -n "$NS" "$csv" --wait=true --timeout=120s >/dev/null
    done
  fi
  subscribe memcached-catalog memcached-operator.v0.1.0

  step "Waiting for CSV memcached-operator.v0.1.0 Succeeded"
  until_ok 180 "CSV memcached-operator.v0.1.0 Succeeded" csv_succeeded "$NS" memcached-operator.v0.1.0
  k get installplans.operators.coreos.com,csv -n "$NS"

  step "Running the operator as OLM deployed it (runner; log $runner_dir/operator.log)"
  mkdir -p "$runner_dir" "$pids"
  # A fresh log: the checks below read it, and an earlier run's lines would pass them at once.
  if [ -f "$runner_dir/operator.log" ]; then mv "$runner_dir/operator.log" "$runner_dir/operator.log.prev"; fi
  (cd "$root" && go build -o "$root/bin/olm-runner" ./test/olm/cmd/olm-runner)
  nohup "$root/bin/olm-runner" -namespace "$NS" -workdir "$runner_dir" >"$runner_dir/runner.log" 2>&1 &
  echo $! >"$pids/olm-runner.pid"
  until_ok 60 "the operator to start (log $runner_dir/operator.log)" manager_started
  grep "=== runner" "$runner_dir/operator.log" | tail -1

  step "Creating the sample Memcached (size 3)"
  kwok_sample
  wait_available 3 240
  k get memcached,deploy,pods -n "$NS" -l app.kubernetes.io/name=memcached
  k get memcached -n "$NS"

  step "Scaling to 5"
  k patch memcached "$sample" -n "$NS" --type=merge -p '{"spec":{"size":5}}'
  wait_available 5 240
  k get memcached -n "$NS"
  local hash_before hash_after
  hash_before=$(k get pods -n "$NS" -l app.kubernetes.io/instance="$sample" -o jsonpath='{.items[*].metadata.labels.pod-template-hash}')

  step "Channel bump: the catalog's stable head moves to $head (its skipRange covers 0.1.0)"
  "$root/hack/olm/catalog-serve.sh" start
  until_ok 180 "CSV memcached-operator.$head Succeeded" csv_succeeded "$NS" "memcached-operator.$head"
  k wait csv/memcached-operator.v0.1.0 -n "$NS" --for=delete --timeout=120s
  k get installplans.operators.coreos.com,csv -n "$NS"
  until_ok 60 "the runner to run $head" runner_runs "$head" "${OLM_HEAD_DIGEST:-}"
  grep "=== runner" "$runner_dir/operator.log" | tail -1
  hash_after=$(k get pods -n "$NS" -l app.kubernetes.io/instance="$sample" -o jsonpath='{.items[*].metadata.labels.pod-template-hash}')
  echo "memcached pod-template-hash before: $hash_before"
  echo "memcached pod-template-hash after:  $hash_after   (unchanged: the upgrade did not restart the cache)"
  k get memcached -n "$NS"

  step "Done. Running: the local cluster, OLM (olm, catalog), opm serve, the runner with operator $head"
  cat <<MSG
  export KUBECONFIG=$KUBECONFIG
  $KUBECTL get csv,memcached -n $NS
  tail -f $runner_dir/operator.log
Stop everything (runner, operator, opm serve, OLM, cluster): make demo-down
MSG
}
