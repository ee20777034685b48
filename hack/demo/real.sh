# shellcheck shell=bash
# real.sh — the real node's stories of hack/demo/demo.sh (sourced by it), every step timed:
#
# demo-real (make demo-real): the real node (make cluster-up NODE=real) -> the images in the local
# registry (memcached from Debian, the operator from its Dockerfile, the test client) -> the operator
# as a pod (make deploy-real: config/default, images by digest) -> the sample Memcached in a
# namespace enforcing the restricted profile, Available once its 3 pods pass their readiness probes
# -> a client pod resolves and queries every server of status.serverList, stores 100 keys through
# the headless Service and 100 spread over the servers -> kubectl scale 3 -> 5 (the 3 original
# servers keep their items) -> a rollout of maxMemoryMB 64 -> 96 with minReadySeconds 5, one pod at
# a time. Everything stays up at the end. down: make cluster-down NODE=real (stops what runs on it).
#
# demo-olm-real (make demo-olm-real): what a user of the operator does, with OLM v0.46.0 running as
# pods and every image from the local registry (README "OLM on the real node" says what each stands
# for): the real node, the registry (plain HTTP and HTTPS for operator-sdk), the release images
# (make olm-real-images: operator and bundle images of every release, our catalog images), OLM
# (make olm-up NODE=real) ->
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
# demo-olmv1-real (make demo-olmv1-real): the OLM v1 story with the YAML of docs/olm.md
# (config/samples/olmv1): OLM v1 and cert-manager as pods (hack/olm/olmv1-up.sh), our catalog image
# (hack/olm/olm-real-images.sh, every release) pushed over the tag the ClusterCatalog polls, the
# ClusterExtension installing the head of `stable`, and config/samples' Memcached Available in
# namespace memcached-demo-olmv1. down deletes the namespace, the ClusterExtension (and with it the
# operator and the CRD) and the ClusterCatalog. make test-olmv1-real proves more (upgrade, version
# pin, preflight, install modes).
#
# Environment (defaults): REAL_IMG=127.0.0.1:5000/memcached-operator:v<VERSION>  MCCLIENT_IMG=mcclient:test
#   OPERATOR_SDK=<repo>/bin/operator-sdk  REGISTRY_PORT=5000  REGISTRY_TLS_PORT=5443  OPM_VERSION=v1.74.0

OPERATOR_SDK=${OPERATOR_SDK:-$root/bin/operator-sdk}
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}" no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"
mk() {
  make -C "$root" --no-print-directory "$@" CLUSTER_DIR="$CLUSTER_DIR" REAL_CLUSTER_DIR="$CLUSTER_DIR" \
    ${REAL_IMG:+REAL_IMG="$REAL_IMG"} ${MCCLIENT_IMG:+MCCLIENT_IMG="$MCCLIENT_IMG"}
}
# The operator's log: the Deployment of make deploy-real and of OLM v1 (memcached-operator-system),
# the one OLM v0 installed in NS.
operator_log() {
  local ns=memcached-operator-system
  [ "$me" != demo-olm-real ] || ns=$NS
  k logs -n "$ns" deploy/memcached-operator-controller-manager --tail=20
}
# image NAME [HINT]: the image hack/images/local-images.sh recorded as NAME in the registry's images.env.
image() {
  local ref
  ref=$(sed -n "s/^$1=//p" "$REGISTRY_DIR/images.env" 2>/dev/null | tail -n1)
  [ -n "$ref" ] || die "no $1 in $REGISTRY_DIR/images.env${2:+: $2}"
  echo "$ref"
}
# up_and_ready: the cluster answers (down does nothing before the node ever ran).
up_and_ready() { [ -f "$KUBECONFIG" ] && k get --raw /readyz >/dev/null 2>&1; }

# client_pod IMAGE: the client pod mcclient in NS (it meets the restricted profile), Ready.
client_pod() {
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
    image: $1
    command: [/mcclient]
    args: [idle]
    resources: {requests: {cpu: 10m, memory: 32Mi}, limits: {memory: 64Mi}}
    securityContext: {allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: {drop: [ALL]}}
YAML
  k wait --for=condition=Ready pod/mcclient -n "$NS" --timeout=120s >/dev/null
}
client() { k exec -n "$NS" mcclient -c mcclient -- /mcclient "$@"; }
server_list() { k get memcached "$sample" -n "$NS" -o jsonpath='{range .status.serverList[*]}{@}{","}{end}'; }

# ------------------------------------------------------------------------------------- demo-real

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

demo_real_down() { mk cluster-down NODE=real; }

demo_real_up() {
  step "Real node: make cluster-up NODE=real (first run builds kubelet, kube-proxy, CoreDNS & co.; later ~10-20 s)"
  mk cluster-up NODE=real
  k get nodes -o wide

  step "Images in the local registry: memcached (Debian), the operator (Dockerfile, buildah), the client"
  mk real-images
  local mcclient
  mcclient=$(image MCCLIENT_IMAGE)

  step "The operator as a pod: make deploy-real (config/default; manager and memcached images by digest)"
  mk deploy-real
  k get pods -n memcached-operator-system -o wide

  step "Namespace $NS (enforces the restricted Pod Security Standard) and the sample Memcached (3 servers)"
  if k get namespace "$NS" >/dev/null 2>&1; then
    echo "deleting the namespace of an earlier run"
    k delete namespace "$NS" --wait=true --timeout=120s
  fi
  namespace "$NS" pod-security.kubernetes.io/enforce=restricted pod-security.kubernetes.io/enforce-version=latest
  k apply -n "$NS" -f "$sample_file"

  step "Waiting until $sample is Available (its 3 pods pass their TCP readiness probes)"
  wait_available 3 180
  k get memcached,pods -n "$NS" -o wide
  local pod_facts='{range .items[*]}  {.metadata.name}: uid {.spec.securityContext.runAsUser}'
  pod_facts+=', readOnlyRootFilesystem {.spec.containers[0].securityContext.readOnlyRootFilesystem}'
  pod_facts+=', memory limit {.spec.containers[0].resources.limits.memory}, args {.spec.containers[0].args}{"\n"}{end}'
  k get pods -n "$NS" -l app.kubernetes.io/instance="$sample" -o jsonpath="$pod_facts"

  step "A client pod (restricted profile) resolves and queries every server of status.serverList"
  client_pod "$mcclient"
  servers

  step "100 keys set and read back through the headless Service $sample:11211"
  client service -addr "$sample:11211" -prefix svc -n 100 | tr -d '\n ' | sed 's/,"/, "/g'
  echo

  step "100 keys spread over the servers (CRC-32 of the key mod 3 over the sorted serverList)"
  client hashset -servers "$(server_list)" -prefix key -n 100 >/dev/null
  servers

  step "kubectl scale memcached/$sample --replicas=5"
  k scale "memcached/$sample" -n "$NS" --replicas=5
  wait_available 5 120
  k get memcached,pods -n "$NS"
  echo "the 3 original servers keep their items (same pods, uptime still growing); the 2 new ones start empty:"
  servers

  step "Rollout: maxMemoryMB 64 -> 96 with minReadySeconds 5 (one pod at a time, never fewer than 5 ready)"
  k patch memcached "$sample" -n "$NS" --type=merge -p '{"spec":{"minReadySeconds":5,"memcached":{"maxMemoryMB":96}}}'
  k rollout status "deployment/$sample" -n "$NS" --timeout=300s
  wait_available 5 120
  k get memcached,pods -n "$NS"
  echo "every server now runs -m 96 (maxbytes 100663296):"
  servers

  step "Done. The node, the operator and the sample keep running:"
  cat <<MSG
  export KUBECONFIG=$KUBECONFIG
  $KUBECTL get memcached,pods -n $NS -o wide
  $KUBECTL exec -n $NS mcclient -- /mcclient servers -servers \$($KUBECTL get memcached $sample -n $NS -o jsonpath='{range .status.serverList[*]}{@}{","}{end}')
  $KUBECTL logs -n memcached-operator-system deploy/memcached-operator-controller-manager
  make test-real              # the same story as assertions
  make cluster-down NODE=real # stop everything (PURGE=1 also deletes $CLUSTER_DIR)
MSG
}

# --------------------------------------------------------------------------------- demo-olm-real

SDK_NS=$NS-sdk
CATSRC=memcached-demo

demo_olm_real_down() { up_and_ready || return 0; demo_olm_real_remove; }
demo_olm_real_remove() {
  k delete namespace "$NS" "$SDK_NS" --ignore-not-found --wait=true >/dev/null
  # Before OLM is installed there is no CatalogSource kind (make test-olm-real calls down first).
  if k get crd catalogsources.operators.coreos.com >/dev/null 2>&1; then
    k delete catalogsource "$CATSRC" -n olm --ignore-not-found >/dev/null
  fi
  local r owners='{range .items[*]}{.metadata.name}={.metadata.labels.olm\.owner}{"\n"}{end}'
  for r in $(k get clusterroles -o jsonpath="$owners" | sed -n 's/=memcached-operator\..*//p'); do
    k delete clusterrole "$r" >/dev/null
  done
  k delete crd memcacheds.cache.example.com --ignore-not-found >/dev/null
  echo "demo-olm-real: removed namespaces $NS and $SDK_NS, CatalogSource olm/$CATSRC, the Memcached CRD and the bundle's ClusterRoles"
}

# stable_head CSV: packageserver lists CSV as the head of stable in our CatalogSource.
stable_head() {
  local jp='{.items[0].status.channels[?(@.name=="stable")].currentCSV}'
  [ "$(k get packagemanifests -n olm -l catalog=$CATSRC -o jsonpath="$jp")" = "$1" ]
}
# installed CSV: the Subscription installed CSV and it succeeded.
installed() { [ "$(k get subscription memcached-operator -n "$NS" -o jsonpath='{.status.installedCSV}')" = "$1" ] && csv_succeeded "$NS" "$1"; }
gone() { ! k get "$@" >/dev/null 2>&1; }
# pods: the sample's pods, names and UIDs.
pods() { k get pods -n "$NS" -l app.kubernetes.io/instance="$sample" -o jsonpath='{range .items[*]}{.metadata.name}/{.metadata.uid} {end}'; }

demo_olm_real_up() {
  local registry=127.0.0.1:${REGISTRY_PORT:-5000} registry_tls=127.0.0.1:${REGISTRY_TLS_PORT:-5443}
  local polled versions head oldest previous mcclient servers before
  polled=$registry/memcached-operator-catalog:demo
  versions=$(ls "$root/catalog/memcached-operator/bundles" | sed -n 's/^memcached-operator\.v\(.*\)\.yaml$/\1/p' | sort -V)
  head=$(sed -n 's/^VERSION ?= //p' "$root/Makefile")
  oldest=$(head -n1 <<<"$versions")
  previous=$(grep -vx "$head" <<<"$versions" | tail -n1)

  step "the real node, the registry (HTTP and HTTPS), the release and catalog images, OLM v0.46.0 as pods"
  mk cluster-up NODE=real
  "$root/hack/images/registry.sh" start-tls
  mk olm-real-images
  "$root/hack/images/local-images.sh" gobin "${MCCLIENT_IMG:-mcclient:test}" ./test/real/cmd/mcclient | tail -n 1
  mk olm-up NODE=real
  demo_olm_real_remove
  set -a
  . "$REGISTRY_DIR/images.env"
  set +a
  mcclient=$(image MCCLIENT_IMAGE)
  export SSL_CERT_FILE=$REGISTRY_DIR/tls/ca-bundle.crt

  step "1. operator-sdk run bundle memcached-operator-bundle:v$previous (namespace $SDK_NS)"
  namespace "$SDK_NS" pod-security.kubernetes.io/enforce=baseline
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
  namespace "$NS" pod-security.kubernetes.io/enforce=baseline pod-security.kubernetes.io/warn=restricted
  subscribe "$CATSRC"
  until_ok 240 "memcached-operator.v$oldest Succeeded" installed "memcached-operator.v$oldest"
  k get csv,deploy -n "$NS"

  step "2. the sample Memcached (3 pods) and a client pod storing 100 keys"
  k apply -n "$NS" -f "$sample_file"
  wait_available 3 180
  client_pod "$mcclient"
  servers=$(server_list)
  client hashset -servers "$servers" -prefix demo -n 100 | jq -c '{stored: (.keys | length), errors: (.errors // [] | length)}'
  before=$(pods)
  k get memcached,pods -n "$NS"

  step "3. push the catalog image whose stable head is $head over $polled; OLM polls and upgrades"
  skopeo copy --quiet --src-tls-verify=false --dest-tls-verify=false "docker://$registry/memcached-operator-catalog:olm-real" "docker://$polled"
  until_ok 180 "packageserver listing memcached-operator.v$head as the stable head" stable_head "memcached-operator.v$head"
  until_ok 240 "memcached-operator.v$head Succeeded" installed "memcached-operator.v$head"
  until_ok 120 "memcached-operator.v$oldest removed" gone csv "memcached-operator.v$oldest" -n "$NS"
  k get csv,installplans -n "$NS"
  wait_available 3 120
  [ "$(pods)" = "$before" ] || die "the memcached pods changed across the upgrade: $before -> $(pods)"
  echo "memcached pods unchanged (names and UIDs): $before"
  client locate -servers "$servers" -prefix demo -n 100 |
    jq -c '{found: ([.keys[] | select(length == 1)] | length), wrong: (.wrong // {} | length),
      errors: (.errors // [] | length)}'

  step "4. operator-sdk scorecard bundle/ in the cluster (8 tests as pods)"
  KUBECONFIG=$KUBECONFIG "$root/hack/olm/scorecard-real.sh" run "$root/bundle" | grep -E '^  (pass|fail)|scorecard exit'

  step "done: memcached-operator.v$head installed from our catalog in $NS (hack/demo/demo.sh real olm down removes it)"
}

# ------------------------------------------------------------------------------- demo-olmv1-real

samples=$root/config/samples/olmv1

demo_olmv1_real_down() {
  up_and_ready || return 0
  k delete namespace "$NS" --ignore-not-found --wait=true >/dev/null
  k delete clusterextension memcached-operator --ignore-not-found --wait=true >/dev/null 2>&1 || true
  k delete clustercatalog memcached-operator --ignore-not-found --wait=true >/dev/null 2>&1 || true
  step "removed namespace $NS, ClusterExtension and ClusterCatalog memcached-operator (the operator and the CRD with it)"
}

demo_olmv1_real_up() {
  local catalog polled
  step "OLM v1 and cert-manager (hack/olm/olmv1-up.sh)"
  CLUSTER_DIR=$CLUSTER_DIR REGISTRY_DIR=$REGISTRY_DIR "$root/hack/olm/olmv1-up.sh" | tail -n 1
  catalog=$(image OLM_REAL_CATALOG_IMAGE "run make olm-real-images")
  polled=$(sed -n 's/^ *ref: //p' "$samples/clustercatalog.yaml")
  skopeo copy -q --src-tls-verify=false --dest-tls-verify=false "docker://$catalog" "docker://$polled"
  step "our catalog ($catalog) pushed as $polled"
  k apply -f "$samples/clustercatalog.yaml" >/dev/null
  k wait --for=condition=Serving clustercatalog/memcached-operator --timeout=3m >/dev/null
  step "ClusterCatalog memcached-operator Serving"
  k apply -f "$samples/installer.yaml" -f "$samples/clusterextension.yaml" >/dev/null
  k wait --for=condition=Installed clusterextension/memcached-operator --timeout=4m >/dev/null
  step "ClusterExtension Installed: $(k get clusterextension memcached-operator -o jsonpath='{.status.install.bundle.name}')"
  k -n memcached-operator-system rollout status deployment/memcached-operator-controller-manager --timeout=3m >/dev/null
  step "operator Deployment rolled out in memcached-operator-system"
  namespace "$NS" pod-security.kubernetes.io/enforce=restricted
  k apply -n "$NS" -f "$sample_file" >/dev/null
  wait_available 3 180
  step "Memcached $NS/$sample Available: $(k -n "$NS" get memcached "$sample" -o jsonpath='{.status.readyReplicas} ready, servers {.status.serverList}')"
  step "done; make demo-olmv1-real-down removes it"
}
