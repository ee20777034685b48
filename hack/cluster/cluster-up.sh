#!/usr/bin/env bash
# cluster-up.sh
#
# Starts a local Kubernetes cluster in one of two tiers (NODE, default kwok):
#
# NODE=kwok, the scale tier: listens on 127.0.0.1 only:
#   etcd -> kube-apiserver -> kube-controller-manager + kube-scheduler -> kwok -> fake Nodes.
# There is no kubelet and no container runtime: kwok (configured by hack/cluster/kwok.yaml) plays the
# kubelet for NODES fake Nodes, so Pods are scheduled and become Running/Ready ~1 s after creation,
# but no container ever runs. Pod IPs (10.244.0.0/16) and Service IPs (10.96.0.0/16) route nowhere.
#
# NODE=real, the truth tier (needs root; hack/cluster/host-packages.sh real installs its Debian packages):
#   the same control plane -> the local registry (hack/images/registry.sh, 127.0.0.1:5000, with the pause
#   image) -> containerd + runc -> kubelet (one real Node) -> kube-proxy (iptables) -> CoreDNS.
# Pods run real containers from the local registry on a bridge network that only this host and the
# pods' network namespaces share; the API server, kubelet and CoreDNS listen on the node address
# (NODE_IP, default 10.244.0.1), the other components on 127.0.0.1. hack/lib/node.sh has the
# details: what it changes on the host, and how hack/cluster/cluster-down.sh undoes each change.
# State defaults to <repo>/.cluster-real, and the ports differ from the kwok tier's, so both tiers
# can run at once.
#
# Idempotent: when the cluster is already up it says so and exits 0; a half-up cluster is stopped
# and started again. State (certificates, etcd data, logs, pids, kubeconfig) lives in CLUSTER_DIR
# and survives hack/cluster/cluster-down.sh unless --purge is given, so a restart keeps objects and the
# admin kubeconfig stays valid.
#
# Environment (defaults for NODE=kwok; NODE=real adds 1000 to each port):
#   NODE=kwok   CLUSTER_DIR=<repo>/.cluster (NODE=real: <repo>/.cluster-real)   LOCALBIN=<repo>/bin
#   NODES=3   ZONES="zone-a zone-b zone-c"   (kwok tier)
#   ETCD_PORT=22379 ETCD_PEER_PORT=22380 APISERVER_PORT=26443
#   KCM_PORT=20257 SCHEDULER_PORT=20259 KWOK_PORT=20247   (all on 127.0.0.1)
#   hack/lib/node.sh lists the real node's settings (NODE_IP, POD_CIDR, REGISTRY, ...).
#   KWOK_CONFIG=<repo>/hack/cluster/kwok.yaml   STEP_TIMEOUT=120 (seconds for each component to get healthy)
#   KEEP_ON_FAILURE=1 leaves the components that did start running after a failure.
#   KUBE_API_QPS, KUBE_API_BURST: when set, the client limits of kube-controller-manager and
#     kube-scheduler (--kube-api-qps, --kube-api-burst; theirs default to 20/30 and 50/100), so a
#     benchmark measures the operator and not the cluster's own pace (make bench-scale).
#   AUDIT_POLICY=<file>: when set, the API server audits per that policy to $CLUSTER_DIR/logs/audit.log
#     (JSON lines, never rotated); make bench-scale counts the operator's writes with it.
#   NODE_MAX_PODS=250: pods each fake Node accepts (kwok tier).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
export LOCALBIN=${LOCALBIN:-$root/bin}
NODE=${NODE:-kwok}
case $NODE in
  kwok) CLUSTER_DIR=${CLUSTER_DIR:-$root/.cluster}; port_base=0 ;;
  real) CLUSTER_DIR=${CLUSTER_DIR:-$root/.cluster-real}; port_base=1000 ;;
  *) echo "cluster-up: NODE must be kwok or real, not '$NODE'" >&2; exit 2 ;;
esac
ETCD_PORT=${ETCD_PORT:-$((22379 + port_base))}
ETCD_PEER_PORT=${ETCD_PEER_PORT:-$((22380 + port_base))}
APISERVER_PORT=${APISERVER_PORT:-$((26443 + port_base))}
KCM_PORT=${KCM_PORT:-$((20257 + port_base))}
SCHEDULER_PORT=${SCHEDULER_PORT:-$((20259 + port_base))}
KWOK_PORT=${KWOK_PORT:-20247}
NODES=${NODES:-3}
NODE_MAX_PODS=${NODE_MAX_PODS:-250}
KUBE_API_QPS=${KUBE_API_QPS:-}
KUBE_API_BURST=${KUBE_API_BURST:-}
AUDIT_POLICY=${AUDIT_POLICY:-}
ZONES=${ZONES:-zone-a zone-b zone-c}
STEP_TIMEOUT=${STEP_TIMEOUT:-120}
KWOK_CONFIG=${KWOK_CONFIG:-$root/hack/cluster/kwok.yaml}
export CLUSTER_DIR

# Never let a proxy setting send loopback traffic elsewhere.
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}" no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"

if [ "$NODE" = real ]; then
  COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler containerd kubelet kube-proxy coredns)
else
  COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok)
fi
pki=$CLUSTER_DIR/pki
logs=$CLUSTER_DIR/logs
pids=$CLUSTER_DIR/pids
kubeconfig=$CLUSTER_DIR/kubeconfig
kubectl=$LOCALBIN/kubectl

t0=$(date +%s%N)
# shellcheck source=../lib/procs.sh
. "$root/hack/lib/procs.sh"
# The address the API server listens on and advertises: loopback for kwok; the node address for a
# real node, whose pods must reach it (through the `kubernetes` Service).
API_ADDR=127.0.0.1
if [ "$NODE" = real ]; then
  # shellcheck source=../lib/node.sh
  . "$root/hack/lib/node.sh"
  API_ADDR=$NODE_IP
fi

pid_of() { cat "$pids/$1.pid" 2>/dev/null || true; }

curl_api() {
  curl --noproxy '*' -fsS --max-time 5 --cacert "$pki/ca.crt" --cert "$pki/admin.crt" --key "$pki/admin.key" \
    "https://$API_ADDR:$APISERVER_PORT$1"
}

# On failure (on_exit in lib/procs.sh): the failing component's log tail, then stop what was started.
started=()
failing=""
failed_hint=" (logs: $logs)"
on_failure() {
  if [ "${#started[@]}" -gt 0 ] && [ "${KEEP_ON_FAILURE:-0}" != 1 ]; then
    echo "cluster-up: stopping the components started so far (KEEP_ON_FAILURE=1 keeps them)" >&2
    CLUSTER_DIR=$CLUSTER_DIR "$root/hack/cluster/cluster-down.sh" >&2 || true
  fi
}
trap on_exit EXIT

print_usage_hint() {
  echo
  local version nodes
  version=$(curl_api /version | sed -n 's/.*"gitVersion": *"\([^"]*\)".*/\1/p')
  if [ "$NODE" = real ]; then
    echo "Kubernetes $version on https://$API_ADDR:$APISERVER_PORT with the real node $NODE_NAME (state: $CLUSTER_DIR)"
    echo "  images: $REGISTRY (hack/images/registry.sh); pods: $POD_CIDR on $NODE_BRIDGE; services: $SERVICE_CIDR; DNS: $DNS_IP"
  else
    nodes=$("$kubectl" --kubeconfig="$kubeconfig" get nodes -l type=kwok -o name | grep -c . || true)
    echo "Kubernetes $version on https://127.0.0.1:$APISERVER_PORT with $nodes kwok nodes (state: $CLUSTER_DIR)"
  fi
  echo "  export KUBECONFIG=$kubeconfig"
  echo "  $kubectl get nodes"
  echo "Stop it with: NODE=$NODE hack/cluster/cluster-down.sh   (add --purge to delete $CLUSTER_DIR as well)"
}

# One cluster-up at a time per CLUSTER_DIR: a second one waits, then finds the cluster up.
mkdir -p "$CLUSTER_DIR"
exec 9>"$CLUSTER_DIR/.lock"
if ! flock -n 9; then
  step "another cluster-up.sh is running for $CLUSTER_DIR: waiting for it"
  flock -w 900 9 || die "timed out waiting for the other cluster-up.sh"
fi

# ---------------------------------------------------------------- already up?
any_alive=0 all_alive=1
for c in "${COMPONENTS[@]}"; do
  if alive "$c"; then any_alive=1; else all_alive=0; fi
done
if [ "$all_alive" = 1 ] && curl_api /readyz >/dev/null 2>&1; then
  step "cluster is already up"
  print_usage_hint
  exit 0
fi
if [ "$any_alive" = 1 ]; then
  step "cluster is only partly up: stopping it to start again"
  CLUSTER_DIR=$CLUSTER_DIR "$root/hack/cluster/cluster-down.sh"
fi

# ---------------------------------------------------------------- fail fast, before the builds
# What can fail in a second is checked before the binaries are built (a first build takes tens of
# minutes): the host's packages, the ports, the free disk.
if [ "$NODE" = real ]; then
  node_preflight
  binaries=(etcd kube-apiserver kubectl kube-controller-manager kube-scheduler kubelet kube-proxy coredns crictl)
else
  binaries=(etcd kube-apiserver kubectl kube-controller-manager kube-scheduler kwok)
fi
missing=()
for c in openssl curl flock go; do command -v "$c" >/dev/null || missing+=("$c"); done
[ ${#missing[@]} -eq 0 ] || die "missing on this host: ${missing[*]} (openssl and curl: hack/cluster/host-packages.sh base; flock: util-linux; go: https://go.dev/dl)"

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
ports=("$ETCD_PORT" "$ETCD_PEER_PORT" "$APISERVER_PORT" "$KCM_PORT" "$SCHEDULER_PORT")
if [ "$NODE" = real ]; then
  ports+=("$KUBELET_HEALTHZ_PORT" "$KUBE_PROXY_HEALTHZ_PORT" "$KUBE_PROXY_METRICS_PORT" "$COREDNS_HEALTH_PORT" "$COREDNS_READY_PORT")
else
  ports+=("$KWOK_PORT")
fi
for p in "${ports[@]}"; do
  port_busy "$p" && die "127.0.0.1:$p is already in use by another process (override ETCD_PORT, ETCD_PEER_PORT, APISERVER_PORT, KCM_PORT, SCHEDULER_PORT or KWOK_PORT)"
done

# Free disk: CLUSTER_FREE_MIB (default 1024) where the cluster keeps its state (etcd, logs); when a
# binary is still to be built, BUILD_FREE_MIB (default 6144) where it goes (LOCALBIN) and in the Go
# build cache: the kwok tier's six binaries take 0.5 GiB, and a cold build fills the cache by several GiB.
free_mib() { df -Pm "$1" 2>/dev/null | awk 'NR == 2 { print $4 }'; }
need_free() {
  local dir=$1 mib=$2 what=$3 have
  while [ ! -d "$dir" ]; do dir=$(dirname "$dir"); done
  have=$(free_mib "$dir")
  [ -z "$have" ] || [ "$have" -ge "$mib" ] ||
    die "only $have MiB free on the filesystem of $dir ($what); at least $mib MiB are needed (free some, or lower $4)"
}
need_free "$CLUSTER_DIR" "${CLUSTER_FREE_MIB:-1024}" "the cluster's state, CLUSTER_DIR" CLUSTER_FREE_MIB
to_build=()
for b in "${binaries[@]}"; do [ -x "$LOCALBIN/$b" ] || to_build+=("$b"); done
if [ ${#to_build[@]} -gt 0 ]; then
  need_free "$LOCALBIN" "${BUILD_FREE_MIB:-6144}" "to build ${to_build[*]} into LOCALBIN" BUILD_FREE_MIB
  need_free "$(go env GOCACHE)" "${BUILD_FREE_MIB:-6144}" "the Go build cache, for building ${to_build[*]}" BUILD_FREE_MIB
fi

# ---------------------------------------------------------------- binaries
step "building binaries if needed (${binaries[*]})"
if [ "$NODE" = real ]; then
  "$root/hack/cluster/build-kube.sh" etcd kube-apiserver kubectl kube-controller-manager kube-scheduler kubelet kube-proxy coredns crictl
else
  "$root/hack/cluster/build-kube.sh" etcd kube-apiserver kubectl kube-controller-manager kube-scheduler
  "$root/hack/cluster/build-kwok.sh"
fi

mkdir -p "$logs" "$pids" "$CLUSTER_DIR/etcd" "$CLUSTER_DIR/certs"

# ---------------------------------------------------------------- certificates
gen_pki() {
  local tmp=$pki.tmp
  rm -rf "$tmp" && mkdir -p "$tmp" && chmod 700 "$tmp"
  (
    set -e
    umask 077
    cd "$tmp"
    ca() { # ca NAME CN
      printf '[req]\ndistinguished_name=dn\nprompt=no\n[dn]\nCN=%s\n[ext]\nbasicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign,digitalSignature,keyEncipherment\nsubjectKeyIdentifier=hash\n' "$2" >"$1.cnf"
      openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -config "$1.cnf" -extensions ext \
        -keyout "$1.key" -out "$1.crt" 2>>openssl.log
    }
    leaf() { # leaf NAME CA SUBJECT serverAuth|clientAuth [SAN]
      openssl req -newkey rsa:2048 -nodes -subj "$3" -keyout "$1.key" -out "$1.csr" 2>>openssl.log
      {
        echo "basicConstraints=critical,CA:FALSE"
        echo "keyUsage=critical,digitalSignature,keyEncipherment"
        echo "extendedKeyUsage=$4"
        echo "authorityKeyIdentifier=keyid"
        [ -z "${5:-}" ] || echo "subjectAltName=$5"
      } >"$1.ext"
      openssl x509 -req -in "$1.csr" -CA "$2.crt" -CAkey "$2.key" -CAcreateserial -days 3650 \
        -extfile "$1.ext" -out "$1.crt" 2>>openssl.log
      rm -f "$1.csr" "$1.ext"
    }
    ca ca kubernetes-ca
    leaf apiserver ca "/CN=kube-apiserver" serverAuth \
      "IP:127.0.0.1,IP:$API_ADDR,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
    leaf admin ca "/O=system:masters/CN=kubernetes-admin" clientAuth
    leaf kube-controller-manager ca "/CN=system:kube-controller-manager" clientAuth
    leaf kube-scheduler ca "/CN=system:kube-scheduler" clientAuth
    leaf apiserver-kubelet-client ca "/O=system:masters/CN=kube-apiserver-kubelet-client" clientAuth
    ca front-proxy-ca front-proxy-ca
    leaf front-proxy-client front-proxy-ca "/CN=front-proxy-client" clientAuth
    if [ "$NODE" = real ]; then node_pki; fi
    openssl genrsa -out sa.key 2048 2>>openssl.log
    openssl rsa -in sa.key -pubout -out sa.pub 2>>openssl.log
    rm -f ./*.cnf ./*.srl
  ) || { cat "$tmp/openssl.log" >&2; die "generating certificates with openssl failed"; }
  rm -f "$tmp/openssl.log"
  mv "$tmp" "$pki"
}

write_kubeconfig() { # write_kubeconfig FILE USER
  local b64='base64 -w0'
  (umask 077 && cat >"$1") <<EOF
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: https://$API_ADDR:$APISERVER_PORT
    certificate-authority-data: $($b64 <"$pki/ca.crt")
users:
- name: $2
  user:
    client-certificate-data: $($b64 <"$pki/$2.crt")
    client-key-data: $($b64 <"$pki/$2.key")
contexts:
- name: local
  context:
    cluster: local
    user: $2
current-context: local
EOF
}

if [ ! -s "$pki/sa.pub" ]; then
  gen_pki
  step "generated certificates in $pki"
fi
# Always rewrite kubeconfigs: the apiserver port may have changed.
write_kubeconfig "$kubeconfig" admin
write_kubeconfig "$CLUSTER_DIR/kube-controller-manager.kubeconfig" kube-controller-manager
write_kubeconfig "$CLUSTER_DIR/kube-scheduler.kubeconfig" kube-scheduler

# ---------------------------------------------------------------- helpers to start and wait
start() { # start NAME ARGS... (runs $LOCALBIN/NAME in its own session, detached)
  local name=$1
  shift
  start_cmd "$name" "$LOCALBIN/$name" "$@"
}
start_cmd() { # start_cmd NAME BINARY ARGS... (BINARY's base name must be NAME: see ours in procs.sh)
  local name=$1 bin=$2
  shift 2
  failing=$name
  setsid "$bin" "$@" </dev/null >"$logs/$name.log" 2>&1 9>&- &
  echo $! >"$pids/$name.pid"
  started+=("$name")
}

wait_until() { # wait_until NAME DESCRIPTION COMMAND...
  local name=$1 what=$2 deadline=$(( $(date +%s) + STEP_TIMEOUT ))
  shift 2
  failing=$name
  until "$@" >/dev/null 2>&1; do
    # Just started by us: only check that it has not exited (right after the fork its command
    # line is still the shell's or setsid's, so alive's binary-name check would misfire).
    running "$(pid_of "$name")" || die "$name exited while waiting for: $what"
    [ "$(date +%s)" -lt "$deadline" ] || die "timed out after ${STEP_TIMEOUT}s waiting for: $what"
    sleep 0.2
  done
  step "$what"
}

# ---------------------------------------------------------------- real node: host side first
# The node address must exist before the API server binds it; the pause image must be in the
# registry before the first pod. The kwok tier has no pods to reach the API server: no endpoints.
endpoint_reconciler=none
if [ "$NODE" = real ]; then
  endpoint_reconciler=lease
  node_record_host
  node_network_up
  node_cgroups_up
  step "node network: $NODE_BRIDGE $NODE_IP, pods $POD_CIDR, services $SERVICE_CIDR (host changes recorded in $node_dir/host-before.env)"
  failing=registry
  # The registry outlives the cluster when it was already running (images are built without a
  # cluster); cluster-down.sh stops it only when this script started it.
  if ! "$root/hack/images/registry.sh" status >/dev/null 2>&1; then
    "$root/hack/images/registry.sh" start 9>&- # the registry must not hold the cluster lock
    touch "$CLUSTER_DIR/registry-started-by-cluster-up"
  fi
  "$root/hack/images/local-images.sh" pause
fi

# ---------------------------------------------------------------- etcd
start etcd --name=local --data-dir="$CLUSTER_DIR/etcd" --unsafe-no-fsync \
  --listen-client-urls="http://127.0.0.1:$ETCD_PORT" --advertise-client-urls="http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-cluster="local=http://127.0.0.1:$ETCD_PEER_PORT" --initial-cluster-state=new \
  --quota-backend-bytes=$((2 * 1024 * 1024 * 1024)) --log-level=warn
etcd_ok() { curl --noproxy '*' -fsS --max-time 2 "http://127.0.0.1:$ETCD_PORT/health" | grep -q '"health":"true"'; }
wait_until etcd "etcd healthy on 127.0.0.1:$ETCD_PORT" etcd_ok

# ---------------------------------------------------------------- kube-apiserver
apiserver_extra=()
if [ -n "$AUDIT_POLICY" ]; then
  [ -f "$AUDIT_POLICY" ] || die "AUDIT_POLICY $AUDIT_POLICY is not a file"
  apiserver_extra+=(--audit-policy-file="$AUDIT_POLICY" --audit-log-path="$logs/audit.log" --audit-log-format=json --audit-log-mode=blocking)
fi
client_limits=()
[ -z "$KUBE_API_QPS" ] || client_limits+=(--kube-api-qps="$KUBE_API_QPS")
[ -z "$KUBE_API_BURST" ] || client_limits+=(--kube-api-burst="$KUBE_API_BURST")
start kube-apiserver "${apiserver_extra[@]}" \
  --bind-address="$API_ADDR" --advertise-address="$API_ADDR" --secure-port="$APISERVER_PORT" \
  --endpoint-reconciler-type="$endpoint_reconciler" \
  --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
  --cert-dir="$CLUSTER_DIR/certs" \
  --tls-cert-file="$pki/apiserver.crt" --tls-private-key-file="$pki/apiserver.key" \
  --client-ca-file="$pki/ca.crt" \
  --kubelet-client-certificate="$pki/apiserver-kubelet-client.crt" --kubelet-client-key="$pki/apiserver-kubelet-client.key" \
  --kubelet-preferred-address-types=InternalIP \
  --service-account-issuer="https://kubernetes.default.svc.cluster.local" \
  --service-account-key-file="$pki/sa.pub" --service-account-signing-key-file="$pki/sa.key" \
  --service-cluster-ip-range=10.96.0.0/16 \
  --authorization-mode=Node,RBAC \
  --allow-privileged=true \
  --requestheader-client-ca-file="$pki/front-proxy-ca.crt" \
  --requestheader-allowed-names=front-proxy-client \
  --requestheader-username-headers=X-Remote-User \
  --requestheader-group-headers=X-Remote-Group \
  --requestheader-extra-headers-prefix=X-Remote-Extra- \
  --proxy-client-cert-file="$pki/front-proxy-client.crt" --proxy-client-key-file="$pki/front-proxy-client.key"
wait_until kube-apiserver "kube-apiserver ready on https://$API_ADDR:$APISERVER_PORT (/readyz)" curl_api /readyz

# ---------------------------------------------------------------- controller-manager and scheduler
kcm_kc=$CLUSTER_DIR/kube-controller-manager.kubeconfig
start kube-controller-manager "${client_limits[@]}" \
  --kubeconfig="$kcm_kc" --authentication-kubeconfig="$kcm_kc" --authorization-kubeconfig="$kcm_kc" \
  --bind-address=127.0.0.1 --secure-port="$KCM_PORT" --cert-dir="$CLUSTER_DIR/certs" \
  --leader-elect=false \
  --service-account-private-key-file="$pki/sa.key" --root-ca-file="$pki/ca.crt" \
  --cluster-signing-cert-file="$pki/ca.crt" --cluster-signing-key-file="$pki/ca.key" \
  --use-service-account-credentials=true \
  --service-cluster-ip-range=10.96.0.0/16 --cluster-name=local
sched_kc=$CLUSTER_DIR/kube-scheduler.kubeconfig
start kube-scheduler "${client_limits[@]}" \
  --kubeconfig="$sched_kc" --authentication-kubeconfig="$sched_kc" --authorization-kubeconfig="$sched_kc" \
  --bind-address=127.0.0.1 --secure-port="$SCHEDULER_PORT" --cert-dir="$CLUSTER_DIR/certs" \
  --leader-elect=false
healthz() { curl --noproxy '*' -fsSk --max-time 2 "https://127.0.0.1:$1/healthz"; }
wait_until kube-controller-manager "kube-controller-manager healthy on 127.0.0.1:$KCM_PORT" healthz "$KCM_PORT"
wait_until kube-scheduler "kube-scheduler healthy on 127.0.0.1:$SCHEDULER_PORT" healthz "$SCHEDULER_PORT"

if [ "$NODE" = real ]; then
  # ------------------------------------------------------------ real node
  node_containerd_start
  node_kubelet_start
  node_kube_proxy_start
  node_coredns_start
else
# ---------------------------------------------------------------- kwok
# On a restart the Node Leases in etcd are still held by the previous kwok process (kwok picks a
# random holder identity per run) and the new one would wait until they expire (up to 40 s) before
# it plays any stage on those Nodes. Nothing else holds them: delete them so kwok takes over at once.
failing=kube-apiserver
mapfile -t old_nodes < <("$kubectl" --kubeconfig="$kubeconfig" get nodes -l type=kwok -o name)
if [ "${#old_nodes[@]}" -gt 0 ]; then
  "$kubectl" --kubeconfig="$kubeconfig" -n kube-node-lease delete lease --ignore-not-found --wait=false \
    "${old_nodes[@]#node/}" >/dev/null || die "deleting the stale node leases failed"
  step "deleted the stale leases of ${#old_nodes[@]} existing kwok nodes"
fi
start kwok --kubeconfig="$kubeconfig" --config="$KWOK_CONFIG" \
  --server-address="127.0.0.1:$KWOK_PORT" --node-ip=127.0.0.1
kwok_ok() { curl --noproxy '*' -fsS --max-time 2 "http://127.0.0.1:$KWOK_PORT/healthz"; }
wait_until kwok "kwok healthy on 127.0.0.1:$KWOK_PORT" kwok_ok

# ---------------------------------------------------------------- fake nodes
read -r -a zones <<<"$ZONES"
nodes_yaml() {
  local i name
  for ((i = 0; i < NODES; i++)); do  # names must match node_names below
    name=kwok-node-$i
    cat <<EOF
---
apiVersion: v1
kind: Node
metadata:
  name: $name
  annotations:
    kwok.x-k8s.io/node: fake
  labels:
    type: kwok
    kubernetes.io/hostname: $name
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    topology.kubernetes.io/region: local
    topology.kubernetes.io/zone: ${zones[i % ${#zones[@]}]}
status:
  allocatable:
    cpu: "64"
    memory: 256Gi
    ephemeral-storage: 1Ti
    pods: "$NODE_MAX_PODS"
  capacity:
    cpu: "64"
    memory: 256Gi
    ephemeral-storage: 1Ti
    pods: "$NODE_MAX_PODS"
EOF
  done
}
failing=kwok
nodes_yaml | "$kubectl" --kubeconfig="$kubeconfig" apply -f - >/dev/null || die "creating the fake nodes failed"
step "applied $NODES fake nodes (kwok.x-k8s.io/node=fake)"
nodes_ready() {
  local n
  n=$("$kubectl" --kubeconfig="$kubeconfig" get nodes -l type=kwok \
    -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' | grep -c '^True$')
  [ "$n" -ge "$NODES" ]
}
node_names=()
for ((i = 0; i < NODES; i++)); do node_names+=("kwok-node-$i"); done
leases_held() { "$kubectl" --kubeconfig="$kubeconfig" -n kube-node-lease get lease "${node_names[@]}"; }
wait_until kwok "kwok holds the leases of $NODES nodes" leases_held
wait_until kwok "$NODES nodes Ready" nodes_ready
fi
default_sa() { "$kubectl" --kubeconfig="$kubeconfig" -n default get serviceaccount default; }
wait_until kube-controller-manager "ServiceAccount default/default exists" default_sa

failing=""
started=()
step "cluster up"
print_usage_hint
