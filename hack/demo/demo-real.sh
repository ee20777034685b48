#!/usr/bin/env bash
# demo-real.sh [up|down] — `make demo-real`: the operator's story on the real node, one command,
# every step timed:
#   the real node (make cluster-up NODE=real) -> the images in the local registry (memcached from
#   Debian, the operator from its Dockerfile, the test client) -> the operator as a pod
#   (make deploy-real: config/default, images by digest) -> the sample Memcached in a namespace
#   enforcing the restricted profile, Available once its 3 pods pass their readiness probes -> a
#   client pod resolves and queries every server of status.serverList, stores 100 keys through the
#   headless Service and 100 spread over the servers -> kubectl scale 3 -> 5 (the 3 original servers
#   keep their items) -> a rollout of maxMemoryMB 64 -> 96 with minReadySeconds 5, one pod at a time.
# Everything stays up at the end. down: `make cluster-down NODE=real` (stops what runs on it).
#
# Environment (defaults): CLUSTER_DIR=<repo>/.cluster-real  KUBECTL=<repo>/bin/kubectl
#   REAL_IMG=127.0.0.1:5000/memcached-operator:v<VERSION>  MCCLIENT_IMG=mcclient:test
#   REGISTRY_DIR=<repo>/.registry  DEMO_NAMESPACE=memcached-real-demo
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
CLUSTER_DIR=${CLUSTER_DIR:-$root/.cluster-real}
KUBECTL=${KUBECTL:-$root/bin/kubectl}
REGISTRY_DIR=${REGISTRY_DIR:-$root/.registry}
NS=${DEMO_NAMESPACE:-memcached-real-demo}
export KUBECONFIG=$CLUSTER_DIR/kubeconfig
mk() { make -C "$root" --no-print-directory "$@" CLUSTER_DIR="$CLUSTER_DIR" REAL_CLUSTER_DIR="$CLUSTER_DIR" \
  ${REAL_IMG:+REAL_IMG="$REAL_IMG"} ${MCCLIENT_IMG:+MCCLIENT_IMG="$MCCLIENT_IMG"}; }

case ${1:-up} in
  down) mk cluster-down NODE=real; exit 0 ;;
  up) ;;
  *) echo "usage: $0 [up|down]" >&2; exit 2 ;;
esac

# shellcheck source=../lib/procs.sh
. "$root/hack/lib/procs.sh"
start=$(date +%s%N)
last=$start
# step MSG: this demo's own heading (elapsed and since the last step), in place of procs.sh's.
step() {
  local now; now=$(date +%s%N)
  printf '\n\033[1m[%5.1fs, +%4.1fs] %s\033[0m\n' "$(( (now - start) / 1000000 ))e-3" "$(( (now - last) / 1000000 ))e-3" "$*"
  last=$now
}
k() { "$KUBECTL" "$@"; }
# until_ok SECONDS WHAT CMD...: run CMD every 0.2 s until it succeeds; fail after SECONDS.
until_ok() {
  local deadline=$(( $(date +%s) + $1 )) what=$2
  shift 2
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || {
      k get memcached,deploy,pods -n "$NS" -o wide >&2 || true
      explain_memcached "$NS" memcached-sample k logs -n memcached-operator-system deploy/memcached-operator-controller-manager --tail=20
      die "timed out after $1 s waiting for $what"
    }
    sleep 0.2
  done
}
# available SIZE: the sample's status is about its current spec, with SIZE ready pods and Available=True.
available() {
  local out
  out=$(k get memcached memcached-sample -n "$NS" -o jsonpath='{.metadata.generation} {.status.observedGeneration} {.status.readyReplicas} {.status.conditions[?(@.type=="Available")].status}')
  read -r gen observed ready avail <<<"$out"
  [ "$gen" = "$observed" ] && [ "$ready" = "$1" ] && [ "$avail" = True ]
}
server_list() { k get memcached memcached-sample -n "$NS" -o jsonpath='{range .status.serverList[*]}{@}{","}{end}'; }
client() { k exec -n "$NS" mcclient -c mcclient -- /mcclient "$@"; }
# servers: one line per server of status.serverList, as the client sees it. serverList follows
# pod readiness and a pod's DNS name follows the EndpointSlice a moment later (up to tens of
# seconds when kube-controller-manager backs off, see README "Using the operator"), so the client
# first retries until every name resolves, as a client should.
servers() {
  until_ok 60 "every status.serverList entry to resolve in cluster DNS" client servers -servers "$(server_list)"
  client servers -servers "$(server_list)" | awk -F'"' '
    /"server"/ {s=$4} /"addrs"/ {getline; a=$2} /"version"/ {v=$4} /"uptime"/ {u=$4} /"currItems"/ {c=$4}
    /"maxBytes"/ {printf "  %-62s -> %-12s memcached %s, up %4ss, %3s items, maxbytes %s\n", s, a, v, u, c, $4}'
}

step "Real node: make cluster-up NODE=real (first run builds kubelet, kube-proxy, CoreDNS & co.; later ~10-20 s)"
mk cluster-up NODE=real
k get nodes -o wide

step "Images in the local registry: memcached (Debian), the operator (Dockerfile, buildah), the client"
mk real-images
MCCLIENT_IMAGE=$(sed -n 's/^MCCLIENT_IMAGE=//p' "$REGISTRY_DIR/images.env" | tail -n1)
[ -n "$MCCLIENT_IMAGE" ] || die "no MCCLIENT_IMAGE in $REGISTRY_DIR/images.env"

step "The operator as a pod: make deploy-real (config/default; manager and memcached images by digest)"
mk deploy-real
k get pods -n memcached-operator-system -o wide

step "Namespace $NS (enforces the restricted Pod Security Standard) and the sample Memcached (3 servers)"
if k get namespace "$NS" >/dev/null 2>&1; then
  echo "deleting the namespace of an earlier run"
  k delete namespace "$NS" --wait=true --timeout=120s
fi
k create namespace "$NS"
k label namespace "$NS" pod-security.kubernetes.io/enforce=restricted pod-security.kubernetes.io/enforce-version=latest >/dev/null
until_ok 30 "ServiceAccount $NS/default" k get serviceaccount default -n "$NS"
k apply -n "$NS" -f "$root/config/samples/cache_v1alpha1_memcached.yaml"

step "Waiting until memcached-sample is Available (its 3 pods pass their TCP readiness probes)"
until_ok 180 "memcached-sample Available with 3 ready pods" available 3
k get memcached,pods -n "$NS" -o wide
pod_facts='{range .items[*]}  {.metadata.name}: uid {.spec.securityContext.runAsUser}'
pod_facts+=', readOnlyRootFilesystem {.spec.containers[0].securityContext.readOnlyRootFilesystem}'
pod_facts+=', memory limit {.spec.containers[0].resources.limits.memory}, args {.spec.containers[0].args}{"\n"}{end}'
k get pods -n "$NS" -l app.kubernetes.io/instance=memcached-sample -o jsonpath="$pod_facts"

step "A client pod (restricted profile) resolves and queries every server of status.serverList"
k apply -n "$NS" -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: mcclient
  labels: {app.kubernetes.io/name: mcclient}
spec:
  automountServiceAccountToken: false
  enableServiceLinks: false
  terminationGracePeriodSeconds: 5
  securityContext: {runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, seccompProfile: {type: RuntimeDefault}}
  containers:
  - name: mcclient
    image: $MCCLIENT_IMAGE
    command: [/mcclient]
    args: [idle]
    resources: {requests: {cpu: 10m, memory: 32Mi}, limits: {memory: 64Mi}}
    securityContext: {allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: {drop: [ALL]}}
YAML
k wait --for=condition=Ready pod/mcclient -n "$NS" --timeout=90s >/dev/null
servers

step "100 keys set and read back through the headless Service memcached-sample:11211"
client service -addr memcached-sample:11211 -prefix svc -n 100 | tr -d '\n ' | sed 's/,"/, "/g'; echo

step "100 keys spread over the servers (CRC-32 of the key mod 3 over the sorted serverList)"
client hashset -servers "$(server_list)" -prefix key -n 100 >/dev/null
servers

step "kubectl scale memcached/memcached-sample --replicas=5"
k scale memcached/memcached-sample -n "$NS" --replicas=5
until_ok 120 "memcached-sample Available with 5 ready pods" available 5
k get memcached,pods -n "$NS"
echo "the 3 original servers keep their items (same pods, uptime still growing); the 2 new ones start empty:"
servers

step "Rollout: maxMemoryMB 64 -> 96 with minReadySeconds 5 (one pod at a time, never fewer than 5 ready)"
k patch memcached memcached-sample -n "$NS" --type=merge -p '{"spec":{"minReadySeconds":5,"memcached":{"maxMemoryMB":96}}}'
k rollout status deployment/memcached-sample -n "$NS" --timeout=300s
until_ok 120 "memcached-sample Available after the rollout" available 5
k get memcached,pods -n "$NS"
echo "every server now runs -m 96 (maxbytes 100663296):"
servers

step "Done. The node, the operator and the sample keep running:"
cat <<MSG
  export KUBECONFIG=$KUBECONFIG
  $KUBECTL get memcached,pods -n $NS -o wide
  $KUBECTL exec -n $NS mcclient -- /mcclient servers -servers \$($KUBECTL get memcached memcached-sample -n $NS -o jsonpath='{range .status.serverList[*]}{@}{","}{end}')
  $KUBECTL logs -n memcached-operator-system deploy/memcached-operator-controller-manager
  make test-real              # the same story as assertions
  make cluster-down NODE=real # stop everything (PURGE=1 also deletes $CLUSTER_DIR)
MSG
