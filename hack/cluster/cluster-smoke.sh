#!/usr/bin/env bash
# cluster-smoke.sh
#
# Quick end-to-end check of the local cluster from hack/cluster/cluster-up.sh: a namespace gets its
# default ServiceAccount, a 3-replica Deployment gets 3 Running+Ready Pods, scaling to 5 works,
# deleting the Deployment removes its Pods (garbage collector + kwok's pod-delete stage), and the
# namespace is finalized. Prints the time of every step; exits non-zero on the first failure.
# Environment: KUBECONFIG (default $CLUSTER_DIR/kubeconfig), CLUSTER_DIR (default <repo>/.cluster),
# LOCALBIN (default <repo>/bin), TIMEOUT per step in seconds (default 60).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
LOCALBIN=${LOCALBIN:-$root/bin}
CLUSTER_DIR=${CLUSTER_DIR:-$root/.cluster}
export KUBECONFIG=${KUBECONFIG:-$CLUSTER_DIR/kubeconfig}
TIMEOUT=${TIMEOUT:-60}
kubectl=$LOCALBIN/kubectl
ns=smoke-$(date +%s)-$$
app=smoke

[ -x "$kubectl" ] || { echo "cluster-smoke: $kubectl missing (run hack/cluster/cluster-up.sh)" >&2; exit 1; }
[ -f "$KUBECONFIG" ] || { echo "cluster-smoke: $KUBECONFIG missing (run hack/cluster/cluster-up.sh)" >&2; exit 1; }

k() { "$kubectl" "$@"; }

t0=$(date +%s%N) tstep=$t0
secs() { local ms=$(( ($(date +%s%N) - $1) / 1000000 )); printf '%d.%03d' $((ms / 1000)) $((ms % 1000)); }
step() { printf '[%8ss] %-58s (+%ss)\n' "$(secs "$t0")" "$*" "$(secs "$tstep")"; tstep=$(date +%s%N); }

cleanup() {
  local rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "cluster-smoke: FAILED after $(secs "$t0")s; state of namespace $ns:" >&2
    k -n "$ns" get deploy,rs,pods -o wide >&2 2>/dev/null || true
    k delete namespace "$ns" --wait=false >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT

wait_for() { # wait_for DESCRIPTION COMMAND...
  local what=$1 deadline=$(( $(date +%s) + TIMEOUT ))
  shift
  until "$@"; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      echo "cluster-smoke: timed out after ${TIMEOUT}s waiting for: $what" >&2
      return 1
    fi
    sleep 0.1
  done
  step "$what"
}

# ready_pods N: exactly N pods of the app exist, all Running with Ready=True.
ready_pods() {
  local out
  out=$(k -n "$ns" get pods -l app=$app \
    -o jsonpath='{range .items[*]}{.status.phase}/{.status.conditions[?(@.type=="Ready")].status}/{.metadata.deletionTimestamp}{"\n"}{end}') || return 1
  [ "$(grep -c . <<<"$out")" -eq "$1" ] && [ "$(grep -c '^Running/True/$' <<<"$out")" -eq "$1" ]
}
no_pods() { [ -z "$(k -n "$ns" get pods -l app=$app -o name 2>/dev/null)" ]; }
has_sa() { k -n "$ns" get serviceaccount default >/dev/null 2>&1; }
ns_gone() { ! k get namespace "$ns" >/dev/null 2>&1; }

k get --raw /readyz >/dev/null
step "apiserver ready ($(k get --raw /version | sed -n 's/.*"gitVersion": *"\([^"]*\)".*/\1/p'))"

k create namespace "$ns" >/dev/null
step "created namespace $ns"
wait_for "ServiceAccount $ns/default exists" has_sa

k -n "$ns" create deployment $app --image=registry.example.com/x:1 --replicas=3 >/dev/null
step "created Deployment $app (3 replicas)"
wait_for "3 pods Running and Ready" ready_pods 3
k -n "$ns" rollout status deployment/$app --timeout="${TIMEOUT}s" >/dev/null
step "Deployment rolled out (Available)"

k -n "$ns" scale deployment/$app --replicas=5 >/dev/null
step "scaled Deployment to 5"
wait_for "5 pods Running and Ready" ready_pods 5
k -n "$ns" get pods -l app=$app -o custom-columns=POD:.metadata.name,NODE:.spec.nodeName,IP:.status.podIP,PHASE:.status.phase --no-headers | sed 's/^/    /'

k -n "$ns" delete deployment $app --wait=false >/dev/null
step "deleted Deployment"
wait_for "its pods are gone (GC + kwok pod-delete)" no_pods

k delete namespace "$ns" --wait=false >/dev/null
step "deleted namespace $ns"
wait_for "namespace $ns is gone" ns_gone

step "smoke test PASSED in $(secs "$t0")s"
