#!/usr/bin/env bash
# registry.sh start|start-tls|start-node IP:PORT|stop-node|stop|status
#
# A local OCI image registry for the images this project builds without a Docker engine
# (hack/images/local-images.sh, `make images-local`): Debian's docker-registry (distribution 2.8,
# /usr/bin/docker-registry) serving plain HTTP on 127.0.0.1:$REGISTRY_PORT only, no auth.
#
#   start   starts it unless it already runs (then a no-op); waits until /v2/ answers.
#   start-tls  starts it if needed, then serves the same images over HTTPS on
#           127.0.0.1:$REGISTRY_TLS_PORT too: a second docker-registry on the same data/ (distribution
#           supports instances sharing a storage root), with a certificate for 127.0.0.1 signed by a
#           local CA made here ($REGISTRY_DIR/tls/ca.crt; tls/ca-bundle.crt is the host's CA bundle
#           plus that CA, for a client's SSL_CERT_FILE: nothing is added to the host's trust store).
#           For clients that cannot pull over plain HTTP: operator-sdk v1.42.3 checks the labels of
#           `run bundle`'s --index-image over HTTPS whatever its --use-http says. The real node's
#           containerd pulls 127.0.0.1:$REGISTRY_TLS_PORT/... from the plain-HTTP listener (a mirror).
#   start-node IP:PORT  starts it if needed, then serves the same images read-only on IP:PORT, the
#           real node's bridge address, for pods that pull images themselves (see start_node).
#   stop-node  stops that listener only.
#   stop    stops only the recorded processes (SIGTERM, SIGKILL after $GRACE s); keeps the images.
#   status  prints whether it runs, its address and the repositories it holds; exit 1 when down.
#
# State in $REGISTRY_DIR (persistent: pushed images survive a stop/start):
#   config.yml        the registry's configuration (rewritten by each start)
#   data/             the blobs and manifests
#   docker-registry.pid, registry.log
#   images.env        digests of what hack/images/local-images.sh pushed (written by that script)
# A stale pid file (the process gone, or the PID reused by another program) is ignored and replaced.
#
# Clients must use plain HTTP: `buildah push --tls-verify=false`, `skopeo inspect
# --tls-verify=false docker://127.0.0.1:5000/...`, `opm render --use-http`; containerd
# needs a hosts.toml for 127.0.0.1:5000 with `server = "http://127.0.0.1:5000"`.
#
# Environment (defaults): REGISTRY_DIR=<repo>/.registry  REGISTRY_PORT=5000  REGISTRY_TLS_PORT=5443  GRACE=10
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
REGISTRY_DIR=${REGISTRY_DIR:-$root/.registry}
REGISTRY_PORT=${REGISTRY_PORT:-5000}
REGISTRY_TLS_PORT=${REGISTRY_TLS_PORT:-5443}
GRACE=${GRACE:-10}
bin=${REGISTRY_BIN:-/usr/bin/docker-registry}
name=$(basename "$bin")
addr=127.0.0.1:$REGISTRY_PORT

usage() { echo "usage: registry.sh start|start-tls|start-node IP:PORT|stop-node|stop|status   (env REGISTRY_DIR, REGISTRY_PORT, REGISTRY_TLS_PORT)" >&2; exit 2; }
case ${1:-} in
  start-node) [ $# -eq 2 ] || usage ;;
  start|start-tls|stop-node|stop|status) [ $# -eq 1 ] || usage ;;
  -h|--help) sed -n '2,34p' "$0"; exit 0 ;;
  *) usage ;;
esac
[[ "$REGISTRY_PORT" =~ ^[0-9]+$ ]] || { echo "registry: REGISTRY_PORT must be a port number" >&2; exit 2; }
[[ "$REGISTRY_TLS_PORT" =~ ^[0-9]+$ ]] || { echo "registry: REGISTRY_TLS_PORT must be a port number" >&2; exit 2; }
tls_name=$name-tls
tls_addr=127.0.0.1:$REGISTRY_TLS_PORT
tls_dir=$REGISTRY_DIR/tls
node_name=$name-node
node_dir=$REGISTRY_DIR/node

pids=$REGISTRY_DIR
t0=$(date +%s%N)
# shellcheck source=../lib/procs.sh
. "$root/hack/lib/procs.sh"

export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}" no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"

# answers URL [CURL_ARGS...]: the registry at URL answers /v2/.
answers() { local url=$1; shift; curl -fsS -o /dev/null --max-time 2 "$@" "$url/v2/" 2>/dev/null; }

# listening NAME URL LOG [CURL_ARGS...]: the listener NAME already runs (its recorded pid in the caller's
# $pid) and answers on URL; dies when NAME runs but does not answer (see LOG). Otherwise a stale pid
# file of NAME is removed and it returns 1.
listening() {
  local name=$1 url=$2 log=$3
  shift 3
  pid=$(pid_if_ours "$name") || { rm -f "$pids/$name.pid"; return 1; }
  answers "$url" "$@" || die "$name (pid $pid) runs but $url/v2/ does not answer: see $log"
}

# serve NAME EXE CONFIG LOG URL [CURL_ARGS...]: runs `EXE serve CONFIG` in a session of its own (its
# pid in $pids/NAME.pid and the caller's $pid, output appended to LOG), then waits up to 20 s until
# it answers on URL. The listeners beside the plain one run the registry binary through a link named
# NAME (EXE), so that their pid files are told apart from the plain listener's.
serve() {
  local name=$1 exe=$2 config=$3 log=$4 url=$5 deadline
  shift 5
  setsid "$exe" serve "$config" >>"$log" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$pids/$name.pid"
  deadline=$(( $(date +%s) + 20 ))
  until answers "$url" "$@"; do
    running "$pid" || { tail -n 20 "$log" >&2; rm -f "$pids/$name.pid"; die "$name exited at start (log above: $log)"; }
    [ "$(date +%s)" -lt "$deadline" ] || { tail -n 20 "$log" >&2; die "$name (pid $pid) did not answer on $url within 20s"; }
    sleep 0.1
  done
}

start() {
  local pid
  if listening "$name" "http://$addr" "$REGISTRY_DIR/registry.log"; then
    step "registry already running on $addr (pid $pid, data $REGISTRY_DIR/data)"
    return 0
  fi
  [ -x "$bin" ] || die "$bin not found: install Debian's docker-registry (hack/cluster/host-packages.sh real)"
  [ -z "$(port_owner "$REGISTRY_PORT")" ] || die "port $REGISTRY_PORT is taken by pid $(port_owner "$REGISTRY_PORT" | tr '\n' ' ')(not ours): set REGISTRY_PORT"
  mkdir -p "$REGISTRY_DIR/data"
  cat >"$REGISTRY_DIR/config.yml" <<EOF
# Written by hack/images/registry.sh: plain HTTP on loopback only, no auth, storage under REGISTRY_DIR.
version: 0.1
log:
  level: info
  fields:
    service: registry
storage:
  filesystem:
    rootdirectory: $REGISTRY_DIR/data
  delete:
    enabled: true
  cache:
    blobdescriptor: inmemory
http:
  addr: $addr
  headers:
    X-Content-Type-Options: [nosniff]
EOF
  serve "$name" "$bin" "$REGISTRY_DIR/config.yml" "$REGISTRY_DIR/registry.log" "http://$addr"
  step "registry up on http://$addr (pid $pid, data $REGISTRY_DIR/data, log $REGISTRY_DIR/registry.log)"
}

# start_tls: the HTTPS listener (see the header).
start_tls() {
  local pid owner
  start
  if listening "$tls_name" "https://$tls_addr" "$REGISTRY_DIR/registry-tls.log" --cacert "$tls_dir/ca.crt"; then
    step "registry already serving HTTPS on $tls_addr (pid $pid)"
    return 0
  fi
  owner=$(port_owner "$REGISTRY_TLS_PORT" | tr '\n' ' ')
  [ -z "$owner" ] || die "port $REGISTRY_TLS_PORT is taken by pid $owner(not ours): set REGISTRY_TLS_PORT"
  mkdir -p "$tls_dir"
  if [ ! -s "$tls_dir/server.key" ] || [ ! -s "$tls_dir/ca.crt" ]; then
    (
      umask 077
      openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=memcached-operator local registry CA" \
        -keyout "$tls_dir/ca.key" -out "$tls_dir/ca.crt" 2>/dev/null
      openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout "$tls_dir/server.key" -out "$tls_dir/server.csr" 2>/dev/null
      openssl x509 -req -in "$tls_dir/server.csr" -CA "$tls_dir/ca.crt" -CAkey "$tls_dir/ca.key" -CAcreateserial -days 3650 \
        -extfile <(printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n') -out "$tls_dir/server.crt" 2>/dev/null
      chmod 0644 "$tls_dir/ca.crt" "$tls_dir/server.crt"
    ) || die "making the TLS certificate failed"
  fi
  cat /etc/ssl/certs/ca-certificates.crt "$tls_dir/ca.crt" >"$tls_dir/ca-bundle.crt" 2>/dev/null || cp "$tls_dir/ca.crt" "$tls_dir/ca-bundle.crt"
  sed -e "s#^  addr: .*#  addr: $tls_addr\n  tls:\n    certificate: $tls_dir/server.crt\n    key: $tls_dir/server.key#" \
    "$REGISTRY_DIR/config.yml" >"$tls_dir/config.yml"
  grep -q "certificate: $tls_dir/server.crt" "$tls_dir/config.yml" || die "could not write $tls_dir/config.yml"
  ln -sfn "$bin" "$tls_dir/$tls_name"
  serve "$tls_name" "$tls_dir/$tls_name" "$tls_dir/config.yml" "$REGISTRY_DIR/registry-tls.log" "https://$tls_addr" --cacert "$tls_dir/ca.crt"
  step "registry also on https://$tls_addr (pid $pid, same data; CA $tls_dir/ca.crt, SSL_CERT_FILE=$tls_dir/ca-bundle.crt)"
}

# start_node ADDR: a read-only listener on ADDR (plain HTTP, same data), for the pods of the real node
# that pull images themselves rather than through containerd (OLM v1's catalogd and
# operator-controller pull catalog and bundle images with containers/image): a pod's 127.0.0.1 is its
# own, so they reach the registry at the node's bridge address, which only this host and the node's
# pods are on. Read-only (storage.maintenance.readonly): a pod can pull, never push. Stopped by
# `stop-node` (hack/cluster/cluster-down.sh NODE=real calls it before the bridge goes) and by `stop`.
start_node() {
  local node_addr=$1 pid
  [[ $node_addr =~ ^[0-9.]+:[0-9]+$ ]] || die "start-node needs ADDR as IP:PORT, not '$node_addr'"
  start
  if listening "$node_name" "http://$node_addr" "$REGISTRY_DIR/registry-node.log"; then
    step "registry already serving the node on $node_addr (pid $pid, read-only)"
    return 0
  fi
  # grep reads a string, not a pipe: grep -q exits at the first match and ip, still writing, would
  # fail the pipeline (pipefail) with SIGPIPE.
  grep -q "inet ${node_addr%:*}/" <<<"$(ip -o addr show)" || die "no interface has ${node_addr%:*}: is the real node up (make cluster-up NODE=real)?"
  mkdir -p "$node_dir"
  sed -e "s#^  addr: .*#  addr: $node_addr#" -e "s#^  delete:#  maintenance:\n    readonly:\n      enabled: true\n  delete:#" \
    "$REGISTRY_DIR/config.yml" >"$node_dir/config.yml"
  grep -q "addr: $node_addr" "$node_dir/config.yml" && grep -q "readonly:" "$node_dir/config.yml" || die "could not write $node_dir/config.yml"
  ln -sfn "$bin" "$node_dir/$node_name"
  serve "$node_name" "$node_dir/$node_name" "$node_dir/config.yml" "$REGISTRY_DIR/registry-node.log" "http://$node_addr"
  step "registry also on http://$node_addr for the node's pods (pid $pid, same data, read-only)"
}

status() {
  local pid
  if pid=$(pid_if_ours "$name") && answers "http://$addr"; then
    echo "registry running on http://$addr (pid $pid, data $REGISTRY_DIR/data)"
    curl -fsS --max-time 5 "http://$addr/v2/_catalog?n=1000" | tr -d '\n'; echo
    [ -f "$REGISTRY_DIR/images.env" ] && echo "digests: $REGISTRY_DIR/images.env"
    return 0
  fi
  echo "registry not running (expected on $addr, state $REGISTRY_DIR)"
  return 1
}

case $1 in
  start) start ;;
  start-tls) start_tls ;;
  start-node) start_node "$2" ;;
  stop-node) if [ -f "$pids/$node_name.pid" ]; then stop_group "$node_name"; fi ;;
  stop)
    [ ! -f "$pids/$node_name.pid" ] || stop_group "$node_name"
    [ ! -f "$pids/$tls_name.pid" ] || stop_group "$tls_name"
    if [ -f "$pids/$name.pid" ]; then stop_group "$name"; else step "registry was not running"; fi ;;
  status) status ;;
esac
