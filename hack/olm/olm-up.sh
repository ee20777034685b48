#!/usr/bin/env bash
# olm-up.sh
#
# The local equivalent of `operator-sdk olm install` for the loopback cluster of hack/cluster/cluster-up.sh:
# installs OLM v0 (OLM_VERSION, default v0.46.0) with its `olm` and `catalog` operators running as
# local processes against the cluster of $CLUSTER_DIR instead of as Deployments in it (the kwok
# cluster has no container runtime). Steps:
#   1. build bin/olm and bin/catalog from OLM's module source (hack/olm/build-olm-tools.sh; skipped when
#      built), the same source the CRDs below come from;
#   2. server-side apply OLM's 8 CRDs from the module's deploy/chart/crds/ (the CSV CRD is too big for
#      a client-side apply's last-applied annotation) and wait until they are Established;
#   3. create what the chart's templates create besides the operators (see BASE OBJECTS below);
#   4. start `olm` and `catalog` (logs $CLUSTER_DIR/logs/{olm,catalog}.log, pids
#      $CLUSTER_DIR/pids/{olm,catalog}.pid) and wait until both have started their workers and
#      answer on their health endpoint.
# Idempotent: objects are re-applied, running operators are left running. Needs the cluster to be
# up (`make cluster-up`). Stop with hack/olm/olm-down.sh (--purge also removes OLM from the cluster).
#
# What differs from `operator-sdk olm install`:
#   - no packageserver: there is no packages.operators.coreos.com API (`kubectl get packagemanifests`
#     fails); Subscriptions, InstallPlans, CSVs and CatalogSources work as usual;
#   - no operatorhubio-catalog CatalogSource (it would pull an image): publish catalogs with
#     hack/olm/catalog-serve.sh (a grpc-address CatalogSource on 127.0.0.1);
#   - olm and catalog run on this host with the cluster-admin kubeconfig, not as Deployments with the
#     olm-operator-serviceaccount; an operator that OLM installs gets a Deployment whose kwok pod
#     runs nothing (run the operator itself locally).
#
# Listeners: OLM hard-codes its health/metrics/pprof listener to ":8080" (plain HTTP) or ":8443"
# (when --tls-cert/--tls-key are given); no flag changes the address (pkg/lib/server/server.go,
# getAddress). hack/olm/build-olm-tools.sh patches it to 127.0.0.1 in our build. Both operators would
# take 8080, so `catalog` gets a self-signed certificate ($CLUSTER_DIR/olm/tls.{crt,key}) and
# listens on 127.0.0.1:8443; `olm` listens on 127.0.0.1:8080. A port that is already taken is only
# logged by OLM (the operator still works): the health check then relies on the operator's log
# alone. Nothing else is opened (the controller-runtime metrics server of `olm` is disabled in its
# source).
#
# NODE=real (`make olm-up NODE=real`): OLM in the cluster, as `operator-sdk olm install --version
# v0.46.0` installs it on a connected machine, for the real-node tier (hack/cluster/cluster-up.sh NODE=real).
# `operator-sdk olm install` downloads crds.yaml and olm.yaml from GitHub, which cannot work here;
# this installs the same objects from OLM's module source, with only image references changed,
# then waits as the release's install.sh does:
#   1. the local OLM image (hack/images/local-images.sh olm: OLM's binaries built from that source, for
#      quay.io/operator-framework/olm@sha256:e74b2ac5...) and the opm image (local/opm, for
#      quay.io/operator-framework/opm) are pushed to the local registry if missing;
#   2. the CRDs (as step 2 above), then the release's olm.yaml, rendered as OLM's release renders it
#      (hack/tools/operator-sdk/helm-template: Helm's engine on deploy/chart with
#      deploy/upstream/values.yaml; the copy in deploy/upstream/quickstart/ is stale) with the local
#      images by digest where the release sets its public ones: olm-operator, catalog-operator,
#      packageserver and the catalog operator's --util-image (bundle unpack Jobs), --opmImage; the
#      operatorhubio-catalog CatalogSource (quay.io/operatorhubio/catalog, a public index) is left
#      out. The result is kept in $CLUSTER_DIR/olm/olm.yaml;
#   3. waits for the olm-operator and catalog-operator Deployments, the packageserver CSV
#      Succeeded, its Deployment and the v1.packages.operators.coreos.com APIService Available
#      (the API server reaches the packageserver pods on the node's bridge), and lists
#      `kubectl get packagemanifests`.
# hack/olm/olm-down.sh --purge (NODE=real) removes it. The configmap-operator-registry image named
# by -configmapServerImage is left as released: only ConfigMap CatalogSources use it, and neither
# this project nor operator-sdk creates one.
#
# Environment (defaults):
#   NODE=kwok   CLUSTER_DIR=<repo>/.cluster (NODE=real: <repo>/.cluster-real)   LOCALBIN=<repo>/bin   OLM_VERSION=v0.46.0
#   STEP_TIMEOUT=120 (seconds per wait)   OLM_DEBUG=0 (1: --debug for both operators)
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
export LOCALBIN=${LOCALBIN:-$root/bin}
NODE=${NODE:-kwok}
case $NODE in
  kwok) CLUSTER_DIR=${CLUSTER_DIR:-$root/.cluster} ;;
  real) CLUSTER_DIR=${CLUSTER_DIR:-$root/.cluster-real} ;;
  *) echo "olm-up: NODE must be kwok or real, not '$NODE'" >&2; exit 2 ;;
esac
OLM_VERSION=${OLM_VERSION:-v0.46.0}
STEP_TIMEOUT=${STEP_TIMEOUT:-120}
OLM_DEBUG=${OLM_DEBUG:-0}
export CLUSTER_DIR OLM_VERSION

# Never let a proxy setting send loopback traffic elsewhere (OLM's grpc dialer honours *_PROXY).
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}" no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"

kubeconfig=$CLUSTER_DIR/kubeconfig
logs=$CLUSTER_DIR/logs
pids=$CLUSTER_DIR/pids
olmdir=$CLUSTER_DIR/olm
kubectl=$LOCALBIN/kubectl
OLM_HEALTH_PORT=8080     # olm: plain HTTP, fixed by OLM
CATALOG_HEALTH_PORT=8443 # catalog: HTTPS (given a certificate), fixed by OLM

t0=$(date +%s%N)
# shellcheck source=../lib/procs.sh
. "$root/hack/lib/procs.sh"
k() { "$kubectl" --kubeconfig="$kubeconfig" "$@"; }

# On failure (on_exit in lib/procs.sh): the failing component's log tail and how to clean up.
failing=""
on_failure() { if [ -n "$failing" ]; then failed_hint=" (hack/olm/olm-down.sh stops what was started)"; fi; }
trap on_exit EXIT

# ---------------------------------------------------------------- the cluster must be up
[ -s "$kubeconfig" ] || die "no cluster in $CLUSTER_DIR (no kubeconfig): start it with 'make cluster-up' (or hack/cluster/cluster-up.sh with the same CLUSTER_DIR)"
k get --raw /readyz >/dev/null 2>&1 ||
  die "the cluster of $CLUSTER_DIR does not answer: start it with 'make cluster-up' (or hack/cluster/cluster-up.sh with the same CLUSTER_DIR and ports)"
command -v ss >/dev/null || die "ss is required (apt-get install iproute2)"
command -v openssl >/dev/null || die "openssl is required (apt-get install openssl)"

mkdir -p "$logs" "$pids" "$olmdir"
exec 9>>"$pids/.olm.lock" # in pids/: hack/cluster/cluster-down.sh --purge removes it with the rest
if ! flock -n 9; then
  step "another olm-up.sh/olm-down.sh is running for $CLUSTER_DIR: waiting for it"
  flock -w 900 9 || die "timed out waiting for the other olm-up.sh/olm-down.sh"
fi

# ---------------------------------------------------------------- 1. binaries (kwok) or images (real)
if [ "$NODE" = real ]; then
  step "pushing the local OLM and opm images if needed"
  "$root/hack/images/local-images.sh" olm opm >"$olmdir/local-images.log" 2>&1 || { tail -n 20 "$olmdir/local-images.log" >&2; die "building the OLM images failed (log $olmdir/local-images.log)"; }
  # shellcheck disable=SC1091
  olm_image=$(set -a; . "${REGISTRY_DIR:-$root/.registry}/images.env"; echo "$OLM_IMAGE")
  opm_image=$(set -a; . "${REGISTRY_DIR:-$root/.registry}/images.env"; echo "$OPM_IMAGE")
  [[ $olm_image == *@sha256:* && $opm_image == *@sha256:* ]] || die "no OLM_IMAGE/OPM_IMAGE by digest in images.env"
  step "images: OLM $olm_image, opm $opm_image"
else
  step "building olm and catalog $OLM_VERSION if needed"
  "$root/hack/olm/build-olm-tools.sh" olm catalog
fi
src=$LOCALBIN/.src/operator-lifecycle-manager-$OLM_VERSION
crds=$src/deploy/chart/crds
[ -d "$crds" ] || die "OLM's CRDs are missing in $crds (hack/olm/build-olm-tools.sh olm makes that copy of the module source)"
[ "$NODE" = real ] || step "olm and catalog $OLM_VERSION are built"

# ---------------------------------------------------------------- 2. CRDs
# --force-conflicts: take over fields another manager (an earlier install) may own.
k apply --server-side --force-conflicts --field-manager=olm-up -f "$crds" >/dev/null || die "applying OLM's CRDs failed"
step "applied OLM's CRDs ($(find "$crds" -name '*.yaml' | wc -l) files from deploy/chart/crds, server-side)"
k wait --for=condition=Established -f "$crds" --timeout="${STEP_TIMEOUT}s" >/dev/null || die "OLM's CRDs did not become Established"
step "OLM's CRDs are Established"

# ---------------------------------------------------------------- NODE=real: olm.yaml, in the cluster
if [ "$NODE" = real ]; then
  "$root/hack/olm/build-olm-tools.sh" helm-template
  "$LOCALBIN/helm-template" -chart "$src/deploy/chart" -name olm -namespace olm -values "$src/deploy/upstream/values.yaml" \
    -set "olm.image.ref=$olm_image" -set "catalog.image.ref=$olm_image" -set "package.image.ref=$olm_image" \
    -set "catalog.opmImageArgs=--opmImage=$opm_image" -skip-kind CatalogSource >"$olmdir/olm.yaml" ||
    die "rendering OLM's chart failed"
  k apply --server-side --force-conflicts --field-manager=olm-up -f "$olmdir/olm.yaml" >/dev/null || die "applying olm.yaml failed"
  step "applied OLM $OLM_VERSION's release manifests ($olmdir/olm.yaml: rendered from its chart, images local, no operatorhubio catalog)"
  for d in olm-operator catalog-operator; do
    k -n olm rollout status "deployment/$d" --timeout="${STEP_TIMEOUT}s" >/dev/null ||
      { k -n olm get pods -o wide >&2; die "deployment $d did not become ready"; }
    step "deployment olm/$d ready"
  done
  deadline=$(( $(date +%s) + STEP_TIMEOUT ))
  until [ "$(k -n olm get csv packageserver -o jsonpath='{.status.phase}' 2>/dev/null)" = Succeeded ]; do
    [ "$(date +%s)" -lt "$deadline" ] || { k -n olm get csv packageserver -o yaml >&2 || true; die "the packageserver CSV did not reach Succeeded"; }
    sleep 0.5
  done
  step "CSV olm/packageserver Succeeded"
  k -n olm rollout status deployment/packageserver --timeout="${STEP_TIMEOUT}s" >/dev/null || die "deployment packageserver did not become ready"
  k wait --for=condition=Available apiservice/v1.packages.operators.coreos.com --timeout="${STEP_TIMEOUT}s" >/dev/null ||
    die "the APIService v1.packages.operators.coreos.com is not Available"
  k get packagemanifests -A >/dev/null || die "kubectl get packagemanifests failed"
  step "APIService v1.packages.operators.coreos.com Available; kubectl get packagemanifests answers"
  k -n olm get pods -o wide
  step "OLM $OLM_VERSION is up in the cluster (what 'operator-sdk olm install --version $OLM_VERSION' installs; images from the local registry ${olm_image%%/*})"
  exit 0
fi

# ---------------------------------------------------------------- 3. base objects
# BASE OBJECTS: what deploy/chart/templates creates, with the values of deploy/upstream/values.yaml
# (the release's olm.yaml: namespace olm, catalog namespace olm, operator namespace operators):
#   00-namespace         namespaces olm and operators with their Pod Security labels  -> created
#   03-olmconfig         OLMConfig cluster                                            -> created
#   09-aggregated        ClusterRoles aggregate-olm-edit/-view: give the built-in admin,
#                        edit and view roles access to OLM's API in their namespaces  -> created
#   13-operatorgroup     OperatorGroups operators/global-operators (all namespaces)
#                        and olm/olm-operators (targets olm)                          -> created
# Left out:
#   02-serviceaccount    ClusterRole system:controller:operator-lifecycle-manager, its binding and
#                        the olm-operator-serviceaccount: only the in-cluster operators use them;
#                        here they run with the cluster-admin kubeconfig.
#   07/08-deployments    olm-operator and catalog-operator: local processes instead.
#   01-networkpolicies   they select the operators' pods, which do not exist (and no CNI enforces
#                        policies here).
#   03-services          metrics Services of the operators' pods: no pods, and Service IPs route
#                        nowhere on this cluster.
#   04-cert-manager, 90-service-monitor/prometheus-rule, 99-operatorstatus: disabled upstream
#                        (cert-manager, monitoring) or OpenShift-only (ClusterOperator).
#   15-packageserver     the packageserver CSV and its APIService: the aggregated API would be
#                        served by a pod at a Service IP the apiserver cannot reach.
#   17-catalogsource     operatorhubio-catalog: a spec.image CatalogSource needs a registry pod.
base_objects() {
  cat <<'EOF'
apiVersion: v1
kind: Namespace
metadata:
  name: olm
  labels:
    pod-security.kubernetes.io/enforce: restricted
    pod-security.kubernetes.io/enforce-version: latest
---
apiVersion: v1
kind: Namespace
metadata:
  name: operators
  labels:
    pod-security.kubernetes.io/enforce: baseline
    pod-security.kubernetes.io/enforce-version: latest
---
apiVersion: operators.coreos.com/v1
kind: OLMConfig
metadata:
  name: cluster
---
kind: ClusterRole
apiVersion: rbac.authorization.k8s.io/v1
metadata:
  name: aggregate-olm-edit
  labels:
    rbac.authorization.k8s.io/aggregate-to-admin: "true"
    rbac.authorization.k8s.io/aggregate-to-edit: "true"
rules:
- apiGroups: ["operators.coreos.com"]
  resources: ["subscriptions"]
  verbs: ["create", "update", "patch", "delete"]
- apiGroups: ["operators.coreos.com"]
  resources: ["clusterserviceversions", "catalogsources", "installplans", "subscriptions"]
  verbs: ["delete"]
---
kind: ClusterRole
apiVersion: rbac.authorization.k8s.io/v1
metadata:
  name: aggregate-olm-view
  labels:
    rbac.authorization.k8s.io/aggregate-to-admin: "true"
    rbac.authorization.k8s.io/aggregate-to-edit: "true"
    rbac.authorization.k8s.io/aggregate-to-view: "true"
rules:
- apiGroups: ["operators.coreos.com"]
  resources: ["clusterserviceversions", "catalogsources", "installplans", "subscriptions", "operatorgroups"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["packages.operators.coreos.com"]
  resources: ["packagemanifests", "packagemanifests/icon"]
  verbs: ["get", "list", "watch"]
---
apiVersion: operators.coreos.com/v1
kind: OperatorGroup
metadata:
  name: global-operators
  namespace: operators
---
apiVersion: operators.coreos.com/v1
kind: OperatorGroup
metadata:
  name: olm-operators
  namespace: olm
spec:
  targetNamespaces:
  - olm
EOF
}
base_objects | k apply --server-side --force-conflicts --field-manager=olm-up -f - >/dev/null || die "creating OLM's base objects failed"
step "applied namespaces olm and operators, OLMConfig cluster, ClusterRoles aggregate-olm-edit/-view, OperatorGroups operators/global-operators and olm/olm-operators"

# ---------------------------------------------------------------- 4. operators
if [ ! -s "$olmdir/tls.key" ]; then
  (
    umask 077
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=catalog-operator" \
      -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
      -keyout "$olmdir/tls.key.tmp" -out "$olmdir/tls.crt" 2>/dev/null
    mv "$olmdir/tls.key.tmp" "$olmdir/tls.key"
  ) || die "generating the catalog operator's certificate failed"
fi

start() { # start NAME ARGS...: runs $LOCALBIN/NAME detached in its own session
  local name=$1
  shift
  failing=$name
  # CI set in the environment turns on OLM's label-checking round tripper (meant for OLM's own CI):
  # keep it out so both operators behave as released.
  env -u CI KUBECONFIG="$kubeconfig" setsid "$LOCALBIN/$name" "$@" </dev/null >"$logs/$name.log" 2>&1 9>&- &
  echo $! >"$pids/$name.pid"
}

warn_port() { # warn_port NAME PORT
  local owner
  owner=$(port_owner "$2" | tr '\n' ' ')
  [ -z "$owner" ] && return 0
  echo "olm-up: WARNING: port $2 is already taken (pid ${owner% }): $1 cannot open its health/metrics listener there (OLM hard-codes it); $1 works without it and is checked through its log only" >&2
}

debug=()
[ "$OLM_DEBUG" = 1 ] && debug=(--debug)
if alive olm; then
  step "olm is already running (pid $(cat "$pids/olm.pid"))"
else
  warn_port olm "$OLM_HEALTH_PORT"
  start olm --namespace olm --writeStatusName "" --writePackageServerStatusName "" "${debug[@]}"
  step "started olm (pid $(cat "$pids/olm.pid"), log $logs/olm.log)"
fi
if alive catalog; then
  step "catalog is already running (pid $(cat "$pids/catalog.pid"))"
else
  warn_port catalog "$CATALOG_HEALTH_PORT"
  # The images are only used for registry pods and bundle unpack Jobs, which grpc-address
  # CatalogSources with inline bundle objects (hack/olm/catalog-serve.sh) never need: nothing pulls them.
  start catalog --kubeconfig "$kubeconfig" --namespace olm --writeStatusName "" \
    --configmapServerImage "quay.io/operator-framework/configmap-operator-registry:latest" \
    --opmImage "quay.io/operator-framework/opm:v1.74.0" \
    --util-image "quay.io/operator-framework/olm:$OLM_VERSION" \
    --set-workload-user-id=true \
    --tls-cert "$olmdir/tls.crt" --tls-key "$olmdir/tls.key" "${debug[@]}"
  step "started catalog (pid $(cat "$pids/catalog.pid"), log $logs/catalog.log)"
fi

# healthy NAME WORKERS PORT SCHEME: NAME runs, its log shows WORKERS "starting workers..." lines
# (olm: 1; catalog: 2, its catalog and catalog-template operators) and, when NAME owns PORT, its
# /healthz answers 200.
healthy() {
  local name=$1 workers=$2 port=$3 scheme=$4 pid
  alive "$name" || return 1
  [ "$(grep -c 'msg="starting workers..."' "$logs/$name.log" 2>/dev/null)" -ge "$workers" ] || return 1
  pid=$(cat "$pids/$name.pid")
  if port_owner "$port" | grep -qx "$pid"; then
    curl --noproxy '*' -fsSk --max-time 2 -o /dev/null "$scheme://127.0.0.1:$port/healthz" || return 1
  fi
}
wait_healthy() { # wait_healthy NAME WORKERS PORT SCHEME
  local deadline=$(( $(date +%s) + STEP_TIMEOUT ))
  failing=$1
  until healthy "$@"; do
    # Just started: only check it has not exited (alive's binary-name check can misfire before exec).
    running "$(cat "$pids/$1.pid" 2>/dev/null)" || die "$1 exited (see $logs/$1.log)"
    [ "$(date +%s)" -lt "$deadline" ] || die "timed out after ${STEP_TIMEOUT}s waiting for $1 to get healthy"
    sleep 0.2
  done
  local where="no health listener: port $3 belongs to another process"
  port_owner "$3" | grep -qx "$(cat "$pids/$1.pid")" && where="health on $4://127.0.0.1:$3/healthz"
  step "$1 is healthy: workers started, $where"
}
wait_healthy olm 1 "$OLM_HEALTH_PORT" http
wait_healthy catalog 2 "$CATALOG_HEALTH_PORT" https
failing=""

# Every listener of the two operators, to show what is open (ss shows *:PORT for all interfaces).
for name in olm catalog; do
  pid=$(cat "$pids/$name.pid")
  listen=$(ss -Hltnp 2>/dev/null | { grep "pid=$pid," || true; } | awk '{print $4}' | sort -u | tr '\n' ' ')
  step "$name (pid $pid) listens on: ${listen:-nothing}"
done

step "OLM $OLM_VERSION is up"
cat <<EOF

OLM $OLM_VERSION runs against $(k config view --minify -o jsonpath='{.clusters[0].cluster.server}') (state: $CLUSTER_DIR)
  olm:     pid $(cat "$pids/olm.pid"), log $logs/olm.log
  catalog: pid $(cat "$pids/catalog.pid"), log $logs/catalog.log
Unlike 'operator-sdk olm install': no packageserver (no PackageManifest API), no operatorhubio
catalog, and both operators run as local processes. Publish the project's catalog with
  hack/olm/catalog-serve.sh start
Stop with hack/olm/olm-down.sh (--purge also deletes OLM's CRDs and namespaces).
EOF
