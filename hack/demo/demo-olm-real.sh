#!/usr/bin/env bash
# demo-olm-real.sh [up|down] - `make demo-olm-real`: the OLM story on the real node, one command,
# every step timed. What a user of the operator does, with OLM v0.46.0 running as pods and every
# image from the local registry (README "OLM on the real node" says what each stands for):
#   the real node, the registry (plain HTTP and HTTPS for operator-sdk), the release images
#   (make olm-real-images: operator and bundle images of every release, our catalog images), OLM
#   (make olm-up NODE=real) ->
#   1. operator-sdk run bundle <previous release> -> run bundle-upgrade <head> -> cleanup;
#   2. our catalog image as a CatalogSource polled every 10 s whose stable channel ends at the first
#      release; an OperatorGroup (an existing one is reused) and a Subscription to stable install it;
#      the sample Memcached (3 pods) and 100 keys stored by a client pod;
#   3. the catalog image whose stable head is the current release is pushed over the same tag: OLM
#      polls it and upgrades the operator with nobody approving anything; the memcached pods stay,
#      every key is still served;
#   4. operator-sdk scorecard on bundle/, its 8 tests as pods (make scorecard-real).
# The operator installed in step 2 stays (namespace $DEMO_NAMESPACE). down: remove what the demo
# installed (namespace, CatalogSource, the CRD and the bundle's ClusterRoles); the cluster stays up
# (make cluster-down NODE=real stops it).
#
# Environment (defaults): CLUSTER_DIR=<repo>/.cluster-real  KUBECTL=<repo>/bin/kubectl
#   OPERATOR_SDK=<repo>/bin/operator-sdk  REGISTRY_DIR=<repo>/.registry  MCCLIENT_IMG=mcclient:test
#   DEMO_NAMESPACE=memcached-olm-demo
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
CLUSTER_DIR=${CLUSTER_DIR:-$root/.cluster-real}
KUBECTL=${KUBECTL:-$root/bin/kubectl}
OPERATOR_SDK=${OPERATOR_SDK:-$root/bin/operator-sdk}
REGISTRY_DIR=${REGISTRY_DIR:-$root/.registry}
MCCLIENT_IMG=${MCCLIENT_IMG:-mcclient:test}
NS=${DEMO_NAMESPACE:-memcached-olm-demo}
SDK_NS=$NS-sdk
CATSRC=memcached-demo
registry=127.0.0.1:${REGISTRY_PORT:-5000}
registry_tls=127.0.0.1:${REGISTRY_TLS_PORT:-5443}
polled=$registry/memcached-operator-catalog:demo
export KUBECONFIG=$CLUSTER_DIR/kubeconfig
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}" no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"
mk() { make -C "$root" --no-print-directory "$@" REAL_CLUSTER_DIR="$CLUSTER_DIR"; }
k() { "$KUBECTL" "$@"; }
# shellcheck source=../lib/procs.sh
. "$root/hack/lib/procs.sh" # die; step and elapsed are this script's own (per-step timings)
versions=$(ls "$root/catalog/memcached-operator/bundles" | sed -n 's/^memcached-operator\.v\(.*\)\.yaml$/\1/p' | sort -V)
head=$(sed -n 's/^VERSION ?= //p' "$root/Makefile")
oldest=$(head -n1 <<<"$versions")
previous=$(grep -vx "$head" <<<"$versions" | tail -n1)

down() {
  k delete namespace "$NS" "$SDK_NS" --ignore-not-found --wait=true >/dev/null
  # Before OLM is installed there is no CatalogSource kind (make test-olm-real calls down first).
  if k get crd catalogsources.operators.coreos.com >/dev/null 2>&1; then
    k delete catalogsource "$CATSRC" -n olm --ignore-not-found >/dev/null
  fi
  local r
  local owners='{range .items[*]}{.metadata.name}={.metadata.labels.olm\.owner}{"\n"}{end}'
  for r in $(k get clusterroles -o jsonpath="$owners" | sed -n 's/=memcached-operator\..*//p'); do
    k delete clusterrole "$r" >/dev/null
  done
  k delete crd memcacheds.cache.example.com --ignore-not-found >/dev/null
  echo "demo-olm-real: removed namespaces $NS and $SDK_NS, CatalogSource olm/$CATSRC, the Memcached CRD and the bundle's ClusterRoles"
}

case ${1:-up} in
  down) [ -f "$KUBECONFIG" ] && k get --raw /readyz >/dev/null 2>&1 && down; exit 0 ;;
  up) ;;
  *) echo "usage: $0 [up|down]" >&2; exit 2 ;;
esac

start=$(date +%s%N)
last=$start
step() {
  local now; now=$(date +%s%N)
  printf '\n\033[1m[%5.1fs, +%4.1fs] %s\033[0m\n' "$(( (now - start) / 1000000 ))e-3" "$(( (now - last) / 1000000 ))e-3" "$*"
  last=$now
}
# until_ok SECONDS WHAT CMD...: run CMD every 0.2 s until it succeeds; fail after SECONDS.
until_ok() {
  local deadline=$(( $(date +%s) + $1 )) what=$2
  shift 2
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || { k get csv,sub,ip,pods -n "$NS" >&2 || true; die "timed out after $1 s waiting for $what"; }
    sleep 0.2
  done
}
csv_succeeded() { [ "$(k get csv "$2" -n "$1" -o jsonpath='{.status.phase}')" = Succeeded ]; }
stable_head() {
  local jp='{.items[0].status.channels[?(@.name=="stable")].currentCSV}'
  [ "$(k get packagemanifests -n olm -l catalog=$CATSRC -o jsonpath="$jp")" = "$1" ]
}
installed() { [ "$(k get subscription memcached-operator -n "$NS" -o jsonpath='{.status.installedCSV}')" = "$1" ] && csv_succeeded "$NS" "$1"; }
available() {
  local ready='{.status.readyReplicas} {.status.conditions[?(@.type=="Available")].status}'
  [ "$(k get memcached memcached-sample -n "$NS" -o jsonpath="$ready")" = "3 True" ]
}
gone() { ! k get "$@" >/dev/null 2>&1; }
pods() { k get pods -n "$NS" -l app.kubernetes.io/instance=memcached-sample -o jsonpath='{range .items[*]}{.metadata.name}/{.metadata.uid} {end}'; }
client() { k exec -n "$NS" mcclient -c mcclient -- /mcclient "$@"; }

step "the real node, the registry (HTTP and HTTPS), the release and catalog images, OLM v0.46.0 as pods"
mk cluster-up NODE=real
"$root/hack/images/registry.sh" start-tls
mk olm-real-images
"$root/hack/images/local-images.sh" gobin "$MCCLIENT_IMG" ./test/real/cmd/mcclient | tail -n 1
mk olm-up NODE=real
down
set -a; . "$REGISTRY_DIR/images.env"; set +a
mcclient=$(sed -n 's/^MCCLIENT_IMAGE=//p' "$REGISTRY_DIR/images.env")
export SSL_CERT_FILE=$REGISTRY_DIR/tls/ca-bundle.crt

step "1. operator-sdk run bundle memcached-operator-bundle:v$previous (namespace $SDK_NS)"
k create namespace "$SDK_NS" >/dev/null
k label namespace "$SDK_NS" pod-security.kubernetes.io/enforce=baseline >/dev/null
until_ok 30 "ServiceAccount $SDK_NS/default" k get serviceaccount default -n "$SDK_NS"
"$OPERATOR_SDK" run bundle "$registry_tls/memcached-operator-bundle:v$previous" -n "$SDK_NS" \
  --index-image "$registry_tls/local/opm-index:${OPM_VERSION:-v1.74.0}" --decompression-image "$registry/ubi9/ubi:9.8" --timeout 4m
k get csv -n "$SDK_NS"
step "1. operator-sdk run bundle-upgrade memcached-operator-bundle:v$head"
"$OPERATOR_SDK" run bundle-upgrade "$registry_tls/memcached-operator-bundle:v$head" -n "$SDK_NS" --timeout 4m
k get csv -n "$SDK_NS"
step "1. operator-sdk cleanup memcached-operator"
"$OPERATOR_SDK" cleanup memcached-operator -n "$SDK_NS" --timeout 2m
k delete namespace "$SDK_NS" --wait=false >/dev/null

step "2. our catalog image (stable ends at $oldest) as CatalogSource olm/$CATSRC, polled every 10 s"
skopeo copy --quiet --src-tls-verify=false --dest-tls-verify=false \
  "docker://$registry/memcached-operator-catalog:olm-real-v$oldest" "docker://$polled"
k apply -f - <<EOF
apiVersion: operators.coreos.com/v1alpha1
kind: CatalogSource
metadata:
  name: $CATSRC
  namespace: olm
spec:
  sourceType: grpc
  image: $polled
  displayName: memcached-operator (demo)
  publisher: memcached-operator project
  updateStrategy:
    registryPoll:
      interval: 10s
EOF
until_ok 180 "packageserver listing memcached-operator.v$oldest as the stable head" stable_head "memcached-operator.v$oldest"
k get packagemanifests -n olm -l catalog=$CATSRC

step "2. OperatorGroup and Subscription to stable in $NS"
k create namespace "$NS" >/dev/null
k label namespace "$NS" pod-security.kubernetes.io/enforce=baseline pod-security.kubernetes.io/warn=restricted >/dev/null
# One OperatorGroup per namespace: an existing one that fits is reused, else the script stops.
KUBECTL=$KUBECTL "$root/hack/olm/operator-group.sh" "$NS" "$NS" >/dev/null
k apply -f - <<EOF
apiVersion: operators.coreos.com/v1alpha1
kind: Subscription
metadata:
  name: memcached-operator
  namespace: $NS
spec:
  channel: stable
  name: memcached-operator
  source: $CATSRC
  sourceNamespace: olm
  installPlanApproval: Automatic
EOF
until_ok 240 "memcached-operator.v$oldest Succeeded" installed "memcached-operator.v$oldest"
k get csv,deploy -n "$NS"

step "2. the sample Memcached (3 pods) and a client pod storing 100 keys"
k apply -n "$NS" -f "$root/config/samples/cache_v1alpha1_memcached.yaml"
until_ok 180 "the sample Available with 3 ready pods" available
# The client pod meets the restricted Pod Security profile.
overrides=$(jq -cn --arg image "$mcclient" '{spec: {
  securityContext: {runAsNonRoot: true, runAsUser: 65532, seccompProfile: {type: "RuntimeDefault"}},
  containers: [{name: "mcclient", image: $image, command: ["/mcclient", "idle"],
    securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: ["ALL"]}}}]}}')
k run mcclient -n "$NS" --image "$mcclient" --restart Never --command --overrides "$overrides" \
  -- /mcclient idle >/dev/null
k wait --for=condition=Ready pod/mcclient -n "$NS" --timeout=120s >/dev/null
servers=$(k get memcached memcached-sample -n "$NS" -o jsonpath='{range .status.serverList[*]}{@}{","}{end}')
client hashset -servers "$servers" -prefix demo -n 100 | jq -c '{stored: (.keys | length), errors: (.errors // [] | length)}'
before=$(pods)
k get memcached,pods -n "$NS"

step "3. push the catalog image whose stable head is $head over $polled; OLM polls and upgrades"
skopeo copy --quiet --src-tls-verify=false --dest-tls-verify=false "docker://$registry/memcached-operator-catalog:olm-real" "docker://$polled"
until_ok 180 "packageserver listing memcached-operator.v$head as the stable head" stable_head "memcached-operator.v$head"
until_ok 240 "memcached-operator.v$head Succeeded" installed "memcached-operator.v$head"
until_ok 120 "memcached-operator.v$oldest removed" gone csv "memcached-operator.v$oldest" -n "$NS"
k get csv,installplans -n "$NS"
until_ok 120 "the sample Available" available
[ "$(pods)" = "$before" ] || die "the memcached pods changed across the upgrade: $before -> $(pods)"
echo "memcached pods unchanged (names and UIDs): $before"
client locate -servers "$servers" -prefix demo -n 100 |
  jq -c '{found: ([.keys[] | select(length == 1)] | length), wrong: (.wrong // {} | length),
    errors: (.errors // [] | length)}'

step "4. operator-sdk scorecard bundle/ in the cluster (8 tests as pods)"
KUBECONFIG=$KUBECONFIG "$root/hack/olm/scorecard-real.sh" run "$root/bundle" | grep -E '^  (pass|fail)|scorecard exit'

step "done: memcached-operator.v$head installed from our catalog in $NS (hack/demo/demo-olm-real.sh down removes it)"
