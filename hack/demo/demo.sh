#!/usr/bin/env bash
# demo.sh kwok|real [olm|olmv1] [up|down] — the driver of every make demo* target: one story per tier
# (NODE kwok: the loopback cluster with simulated pods; real: the real node) and OLM generation (none;
# olm: OLM v0; olmv1: OLM v1, real node only), each told in timed steps:
#
#   make demo              demo.sh kwok up          cluster, CRD, operator as a local process, the sample, 3 -> 5
#   make demo-down         demo.sh kwok down        stop the demo operators (both kwok stories) and the cluster
#   make demo-olm          demo.sh kwok olm up      OLM, our catalog, subscribe, the sample, upgrade 0.1.0 -> VERSION
#   make demo-real         demo.sh real up          images, the operator as a pod, the sample, traffic, scale, rollout
#   make demo-olm-real     demo.sh real olm up      operator-sdk run bundle, our catalog image, a channel bump, scorecard
#                          demo.sh real olm down    remove what it installed (make test-olm-real and test-olmv1-real call it)
#   make demo-olmv1-real   demo.sh real olmv1 up    OLM v1, our ClusterCatalog, a ClusterExtension, the sample
#   make demo-olmv1-real-down  demo.sh real olmv1 down
#
# The steps of each story are functions of its tier, in hack/demo/kwok.sh and hack/demo/real.sh
# (their headers say what each story does and leaves running); this file holds what they share: the
# settings, the timed step headings, waiting (until_ok, wait_available), the namespace, the OLM v0
# Subscription, and the report of a timed-out wait.
#
# Environment (defaults): CLUSTER_DIR=<repo>/.cluster (kwok) or <repo>/.cluster-real (real)
#   KUBECTL=<repo>/bin/kubectl  REGISTRY_DIR=<repo>/.registry  DEMO_NAMESPACE=<the story's, below>
#   and each tier's own (hack/demo/kwok.sh, hack/demo/real.sh).
set -euo pipefail

usage() { echo "usage: $0 kwok|real [olm|olmv1] [up|down]" >&2; exit 2; }
NODE=${1:-}
case $NODE in kwok | real) shift ;; *) usage ;; esac
OLM=
case ${1:-} in olm | olmv1) OLM=$1; shift ;; esac
action=${1:-up}
case $action in up | down) ;; *) usage ;; esac
[ $# -le 1 ] || usage
[ "$NODE$OLM" != kwokolmv1 ] || { echo "demo.sh: OLM v1 runs on the real node only (demo.sh real olmv1)" >&2; exit 2; }
# me is the story's make target (demo, demo-olm, demo-real, demo-olm-real, demo-olmv1-real): the
# prefix of its messages and, with - as _, of its functions (demo_olm_real_up, ...).
me=demo${OLM:+-$OLM}
[ "$NODE" = kwok ] || me+=-real

root=$(cd "$(dirname "$0")/../.." && pwd)
if [ "$NODE" = kwok ]; then CLUSTER_DIR=${CLUSTER_DIR:-$root/.cluster}; else CLUSTER_DIR=${CLUSTER_DIR:-$root/.cluster-real}; fi
KUBECTL=${KUBECTL:-$root/bin/kubectl}
REGISTRY_DIR=${REGISTRY_DIR:-$root/.registry}
case $me in
  demo) NS=${DEMO_NAMESPACE:-memcached-demo} ;;
  demo-real) NS=${DEMO_NAMESPACE:-memcached-real-demo} ;;
  demo-olm | demo-olm-real) NS=${DEMO_NAMESPACE:-memcached-olm-demo} ;;
  demo-olmv1-real) NS=${DEMO_NAMESPACE:-memcached-demo-olmv1} ;;
esac
export KUBECONFIG=$CLUSTER_DIR/kubeconfig CLUSTER_DIR
pids=$CLUSTER_DIR/pids
# The sample every story creates (config/samples: 3 servers), and its name.
sample_file=$root/config/samples/cache_v1alpha1_memcached.yaml
sample=$(sed -n 's/^  name: //p' "$sample_file" | head -n1)

t0=$(date +%s%N)
last=$t0
# shellcheck source=../lib/procs.sh
. "$root/hack/lib/procs.sh"
die() { echo "$me: $*" >&2; exit 1; }
k() { "$KUBECTL" "$@"; }

# step MSG: the story's heading with the time since it started: whole seconds on kwok (demo-olm: and
# since the last step), tenths and since the last step on the real node; demo-olmv1-real prints
# procs.sh's plain step line.
step() {
  local now
  now=$(date +%s%N)
  case $me in
    demo) printf '\n\033[1m[%3ss] %s\033[0m\n' "$((now / 10 ** 9 - t0 / 10 ** 9))" "$*" ;;
    demo-olm) printf '\n\033[1m[%3ss, +%ss] %s\033[0m\n' "$((now / 10 ** 9 - t0 / 10 ** 9))" "$((now / 10 ** 9 - last / 10 ** 9))" "$*" ;;
    demo-olmv1-real) printf '[%6ss] %s\n' "$(elapsed)" "$*" ;;
    *) printf '\n\033[1m[%5.1fs, +%4.1fs] %s\033[0m\n' "$(((now - t0) / 1000000))e-3" "$(((now - last) / 1000000))e-3" "$*" ;;
  esac
  last=$now
}

# until_ok SECONDS WHAT CMD...: run CMD every 0.2 s until it succeeds; after SECONDS, report (below)
# and fail.
until_ok() {
  local seconds=$1 what=$2 deadline=$(($(date +%s) + $1))
  shift 2
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || { report; die "timed out after $seconds s waiting for $what"; }
    sleep 0.2
  done
}

# report: after a timed-out wait, on stderr: what OLM made of the Subscription (OLM v0), the
# sample's objects, and why the sample is not there yet (its conditions, events and the operator's
# last log lines, operator_log being the tier's way to read them).
report() {
  [ "$OLM" != olm ] || k get csv,sub,ip -n "$NS" >&2 || true
  k get memcached,deploy,pods -n "$NS" -o wide >&2 || true
  explain_memcached "$NS" "$sample" operator_log
}

# available SIZE: the sample's status is about its current spec, with SIZE ready pods and Available=True.
available() {
  local gen observed ready avail
  read -r gen observed ready avail <<<"$(k get memcached "$sample" -n "$NS" -o jsonpath='{.metadata.generation} {.status.observedGeneration} {.status.readyReplicas} {.status.conditions[?(@.type=="Available")].status}')"
  [ "$gen" = "$observed" ] && [ "$ready" = "$1" ] && [ "$avail" = True ]
}

# wait_available SIZE SECONDS: until the sample is available with SIZE ready pods.
wait_available() { until_ok "$2" "$sample Available with $1 ready pods" available "$1"; }

# namespace NS [LABEL=VALUE...]: NS exists (created when missing) with these labels and its default
# ServiceAccount (a pod cannot be created in NS before it).
namespace() {
  local ns=$1
  shift
  k get namespace "$ns" >/dev/null 2>&1 || k create namespace "$ns" >/dev/null
  [ $# -eq 0 ] || k label namespace "$ns" --overwrite "$@" >/dev/null
  until_ok 30 "ServiceAccount $ns/default" k get serviceaccount default -n "$ns"
}

# csv_succeeded NS CSV: OLM v0 installed CSV in NS.
csv_succeeded() { [ "$(k get csv "$2" -n "$1" -o jsonpath='{.status.phase}')" = Succeeded ]; }

# subscribe SOURCE [STARTING_CSV]: an OperatorGroup serving NS (OLM allows one per namespace:
# hack/olm/operator-group.sh reuses the one NS has when it fits, else stops with a message naming it)
# and the Subscription to our package's stable channel in the CatalogSource olm/SOURCE, approved
# automatically, from STARTING_CSV when given.
subscribe() {
  KUBECTL=$KUBECTL "$root/hack/olm/operator-group.sh" "$NS" "$NS" >/dev/null
  k apply --server-side --field-manager=memcached-demo -f - <<YAML
apiVersion: operators.coreos.com/v1alpha1
kind: Subscription
metadata: {name: memcached-operator, namespace: $NS}
spec:
  channel: stable
  name: memcached-operator
  source: $1
  sourceNamespace: olm
  installPlanApproval: Automatic${2:+
  startingCSV: $2}
YAML
}

# shellcheck source=kwok.sh
. "$root/hack/demo/$NODE.sh"
"${me//-/_}_$action"
