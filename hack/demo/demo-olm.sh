#!/usr/bin/env bash
# demo-olm.sh — `make demo-olm`: the OLM user story on the local cluster, step by step with timings:
# OLM install, our catalog (0.1.0 as the stable head), subscribe, CSV Succeeded, the operator run
# as OLM deployed it (runner), the sample Memcached with 3 pods Running, a patch to 5, then the
# stable head moves to the current release (OLM_HEAD_VERSION) and OLM upgrades the operator.
# Everything stays up at the end; `make demo-down` stops it all.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
CLUSTER_DIR=${CLUSTER_DIR:-$root/.cluster}
KUBECTL=${KUBECTL:-$root/bin/kubectl}
NS=${DEMO_NAMESPACE:-memcached-olm-demo}
HEAD=v${OLM_HEAD_VERSION:?set OLM_HEAD_VERSION to the current release (make demo-olm does)}
HEAD=${HEAD#vv}
export KUBECONFIG=$CLUSTER_DIR/kubeconfig CLUSTER_DIR
runner_pid=$CLUSTER_DIR/pids/olm-runner.pid
runner_dir=$CLUSTER_DIR/olm-runner
pids=$CLUSTER_DIR/pids
# shellcheck source=../lib/procs.sh
. "$root/hack/lib/procs.sh"
start=$(date +%s)
last=$start
# step MSG: this demo's heading (elapsed, since the last step), in place of procs.sh's step.
step() { local now; now=$(date +%s); printf '\n\033[1m[%3ss, +%ss] %s\033[0m\n' "$((now - start))" "$((now - last))" "$*"; last=$now; }
k() { "$KUBECTL" "$@"; }
# until_ok SECONDS WHAT CMD...: run CMD every 0.5 s until it succeeds; fail after SECONDS.
until_ok() {
  local deadline=$(( $(date +%s) + $1 )) what=$2
  shift 2
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || { echo "demo-olm: timed out waiting for $what" >&2; exit 1; }
    sleep 0.5
  done
}
csv_phase() { [ "$(k get csv "$1" -n "$NS" -o jsonpath='{.status.phase}' 2>/dev/null)" = "$2" ]; }
runner_runs() { grep "=== runner" "$runner_dir/operator.log" 2>/dev/null | tail -1 | grep -q ":$1 "; }
manager_started() { grep -q "Starting manager" "$runner_dir/operator.log"; }

step "Local cluster"
"$root/hack/cluster/cluster-up.sh"
# Only one operator may reconcile the Memcacheds: stop the one `make demo` runs, if any.
stop_group manager

step "Installing OLM (CRDs, base objects, olm and catalog operators)"
"$root/hack/olm/olm-up.sh"

step "Serving our catalog with 0.1.0 as the stable head"
CATALOG_MAX_VERSION=0.1.0 "$root/hack/olm/catalog-serve.sh" start

step "OperatorGroup and Subscription in $NS (channel stable, OwnNamespace)"
k get namespace "$NS" >/dev/null 2>&1 || k create namespace "$NS" >/dev/null
until k get serviceaccount default -n "$NS" >/dev/null 2>&1; do sleep 0.2; done
# An earlier run (the cluster keeps its state across demo-down) left a Subscription at the head:
# remove it and our CSVs so the story starts at 0.1.0 again; the namespace and its OperatorGroup stay.
if k get subscriptions.operators.coreos.com memcached-operator -n "$NS" >/dev/null 2>&1; then
  echo "removing the Subscription and CSVs of an earlier run"
  k delete subscriptions.operators.coreos.com memcached-operator -n "$NS" >/dev/null
  for csv in $(k get csv -n "$NS" -o name | { grep '/memcached-operator\.v' || true; }); do
    k delete -n "$NS" "$csv" --wait=true --timeout=120s >/dev/null
  done
fi
# OLM allows one OperatorGroup per namespace: reuse the one $NS has when it serves $NS, else stop
# with a message naming it.
KUBECTL=$KUBECTL "$root/hack/olm/operator-group.sh" "$NS" "$NS" >/dev/null
k apply --server-side --field-manager=memcached-demo -f - <<YAML
apiVersion: operators.coreos.com/v1alpha1
kind: Subscription
metadata: {name: memcached-operator, namespace: $NS}
spec:
  channel: stable
  name: memcached-operator
  source: memcached-catalog
  sourceNamespace: olm
  installPlanApproval: Automatic
  startingCSV: memcached-operator.v0.1.0
YAML

step "Waiting for CSV memcached-operator.v0.1.0 Succeeded"
until_ok 180 "CSV memcached-operator.v0.1.0 Succeeded" csv_phase memcached-operator.v0.1.0 Succeeded
k get installplans.operators.coreos.com,csv -n "$NS"

step "Running the operator as OLM deployed it (runner; log $runner_dir/operator.log)"
if [ -f "$runner_pid" ] && kill -0 "$(cat "$runner_pid")" 2>/dev/null; then kill -TERM "$(cat "$runner_pid")"; sleep 1; fi
mkdir -p "$runner_dir" "$(dirname "$runner_pid")"
# A fresh log: the checks below read it, and an earlier run's lines would pass them at once.
if [ -f "$runner_dir/operator.log" ]; then mv "$runner_dir/operator.log" "$runner_dir/operator.log.prev"; fi
(cd "$root" && go build -o "$root/bin/olm-runner" ./test/olm/cmd/olm-runner)
nohup "$root/bin/olm-runner" -namespace "$NS" -workdir "$runner_dir" >"$runner_dir/runner.log" 2>&1 &
echo $! >"$runner_pid"
until_ok 60 "the operator to start (log $runner_dir/operator.log)" manager_started
grep "=== runner" "$runner_dir/operator.log" | tail -1

step "Creating the sample Memcached (size 3)"
k apply -n "$NS" -f "$root/config/samples/cache_v1alpha1_memcached.yaml"
{ k wait memcached/memcached-sample -n "$NS" --for=jsonpath='{.status.readyReplicas}'=3 --timeout=120s >/dev/null &&
  k wait memcached/memcached-sample -n "$NS" --for=condition=Available --timeout=120s; } ||
  { explain_memcached "$NS" memcached-sample tail -n 20 "$runner_dir/operator.log"; die "memcached-sample did not become Available with 3 ready pods within 120 s"; }
k get memcached,deploy,pods -n "$NS" -l app.kubernetes.io/name=memcached
k get memcached -n "$NS"

step "Scaling to 5"
k patch memcached memcached-sample -n "$NS" --type=merge -p '{"spec":{"size":5}}'
{ k wait memcached/memcached-sample -n "$NS" --for=jsonpath='{.status.readyReplicas}'=5 --timeout=120s >/dev/null &&
  k wait memcached/memcached-sample -n "$NS" --for=condition=Available --timeout=120s; } ||
  { explain_memcached "$NS" memcached-sample tail -n 20 "$runner_dir/operator.log"; die "memcached-sample did not become Available with 5 ready pods within 120 s"; }
k get memcached -n "$NS"
hash_before=$(k get pods -n "$NS" -l app.kubernetes.io/instance=memcached-sample -o jsonpath='{.items[*].metadata.labels.pod-template-hash}')

step "Channel bump: the catalog's stable head moves to $HEAD (its skipRange covers 0.1.0)"
"$root/hack/olm/catalog-serve.sh" start
until_ok 180 "CSV memcached-operator.$HEAD Succeeded" csv_phase "memcached-operator.$HEAD" Succeeded
k wait csv/memcached-operator.v0.1.0 -n "$NS" --for=delete --timeout=120s
k get installplans.operators.coreos.com,csv -n "$NS"
until_ok 60 "the runner to run $HEAD" runner_runs "$HEAD"
grep "=== runner" "$runner_dir/operator.log" | tail -1
hash_after=$(k get pods -n "$NS" -l app.kubernetes.io/instance=memcached-sample -o jsonpath='{.items[*].metadata.labels.pod-template-hash}')
echo "memcached pod-template-hash before: $hash_before"
echo "memcached pod-template-hash after:  $hash_after   (unchanged: the upgrade did not restart the cache)"
k get memcached -n "$NS"

step "Done. Running: the local cluster, OLM (olm, catalog), opm serve, the runner with operator $HEAD"
cat <<MSG
  export KUBECONFIG=$KUBECONFIG
  $KUBECTL get csv,memcached -n $NS
  tail -f $runner_dir/operator.log
Stop everything (runner, operator, opm serve, OLM, cluster): make demo-down
MSG
