# shellcheck shell=bash
# node.sh — the real node of the local cluster (hack/cluster/cluster-up.sh NODE=real, hack/cluster/cluster-down.sh).
# Sourced after hack/lib/procs.sh, with root, LOCALBIN, CLUSTER_DIR, pids, logs, pki, kubectl and
# kubeconfig set. One Node (NODE_NAME) made of Debian's containerd + runc + CNI plugins, a kubelet,
# kube-proxy (iptables mode) and CoreDNS, all built or installed by the project, on a Linux bridge
# (NODE_BRIDGE, NODE_IP/24) that only this host and the pods' network namespaces are on:
#
#   host ── NODE_BRIDGE (NODE_IP, gateway of POD_CIDR) ── veth ── pod netns (one per pod)
#
# - The API server, the kubelet and CoreDNS listen on NODE_IP, which pods reach directly.
# - Service IPs (SERVICE_CIDR) are DNAT'd by kube-proxy; the route SERVICE_CIDR dev NODE_BRIDGE
#   keeps a packet that is not DNAT'd on this host. The `kubernetes` Service is NODE_IP:APISERVER_PORT
#   (the API server's lease endpoint reconciler); `kube-dns` (DNS_IP) is CoreDNS on NODE_IP:53.
# - net.ipv4.ip_forward stays 0. A pod's packet to a Service IP reaches the host, is DNAT'd by
#   kube-proxy and must go back out the bridge to the endpoint pod: forwarding is enabled on the
#   bridge alone (net.ipv4.conf.NODE_BRIDGE.forwarding=1, gone with the bridge), and the first rule
#   of the FORWARD chain (chain MCNODE-FORWARD) drops whatever would leave by another interface, so
#   nothing a pod sends is routed off the host. Bridge netfilter (bridge-nf-call-iptables=1) lets
#   conntrack undo the DNAT on the endpoint's bridged reply.
# - Host changes are recorded before they are made ($node_dir/host-before.env: sysctls, nft tables,
#   which host directories existed) and undone by node_down: containers, mounts, network namespaces,
#   interfaces, iptables rules and tables, sysctls, cgroups, the directories containerd and the
#   kubelet create outside CLUSTER_DIR.
#
# Environment (defaults): NODE_NAME=local-node NODE_BRIDGE=mcnode0 NODE_IP=10.244.0.1
#   POD_CIDR=10.244.0.0/24 SERVICE_CIDR=10.96.0.0/16 DNS_IP=10.96.0.10 NODE_CGROUP=memcached-node
#   REGISTRY=127.0.0.1:5000 REGISTRY_TLS=127.0.0.1:5443 PAUSE_IMAGE=$REGISTRY/pause:3.10 NODE_STATE=/run/memcached-node

NODE_NAME=${NODE_NAME:-local-node}
NODE_BRIDGE=${NODE_BRIDGE:-mcnode0}
NODE_IP=${NODE_IP:-10.244.0.1}
POD_CIDR=${POD_CIDR:-10.244.0.0/24}
SERVICE_CIDR=${SERVICE_CIDR:-10.96.0.0/16}
DNS_IP=${DNS_IP:-10.96.0.10}
NODE_CGROUP=${NODE_CGROUP:-memcached-node}
REGISTRY=${REGISTRY:-127.0.0.1:5000}
PAUSE_IMAGE=${PAUSE_IMAGE:-$REGISTRY/pause:3.10}
REGISTRY_TLS=${REGISTRY_TLS:-127.0.0.1:${REGISTRY_TLS_PORT:-5443}}
# containerd's state: sockets and runtime files; a short path on tmpfs (unix socket paths are limited
# to 107 bytes).
NODE_STATE=${NODE_STATE:-/run/memcached-node}
KUBELET_HEALTHZ_PORT=${KUBELET_HEALTHZ_PORT:-10248}
KUBE_PROXY_HEALTHZ_PORT=${KUBE_PROXY_HEALTHZ_PORT:-10256}
KUBE_PROXY_METRICS_PORT=${KUBE_PROXY_METRICS_PORT:-10249}
COREDNS_HEALTH_PORT=${COREDNS_HEALTH_PORT:-28080}
COREDNS_READY_PORT=${COREDNS_READY_PORT:-28181}

node_dir=$CLUSTER_DIR/node
containerd_sock=$NODE_STATE/containerd.sock
# The sysctls the node's components change (kubelet: overcommit, panic, keys; kube-proxy with the
# settings below changes none, but its defaults would touch conntrack), recorded and restored.
NODE_SYSCTLS=(vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops
  kernel.keys.root_maxkeys kernel.keys.root_maxbytes net.ipv4.ip_forward
  net.ipv4.conf.all.route_localnet net.netfilter.nf_conntrack_max
  net.netfilter.nf_conntrack_tcp_timeout_established net.netfilter.nf_conntrack_tcp_timeout_close_wait
  net.bridge.bridge-nf-call-iptables net.bridge.bridge-nf-call-ip6tables)
# Host paths containerd, CNI and the kubelet use whatever their configuration says: removed on the
# way down when they did not exist before.
NODE_HOST_DIRS=(/run/containerd /var/lib/cni /var/log/containers /var/log/pods /run/netns /opt/containerd)

ctr_() { ctr --address "$containerd_sock" -n k8s.io "$@"; }

# ---------------------------------------------------------------- preflight
node_preflight() {
  [ "$(id -u)" = 0 ] || die "NODE=real needs root (network namespaces, mounts, cgroups, iptables)"
  local c missing=()
  for c in containerd containerd-shim-runc-v2 runc ctr iptables ip6tables nft ip; do
    command -v "$c" >/dev/null || missing+=("$c")
  done
  for c in bridge host-local loopback; do [ -x "/usr/lib/cni/$c" ] || missing+=("cni/$c"); done
  [ ${#missing[@]} -eq 0 ] || die "missing on this host: ${missing[*]} (run: hack/cluster/host-packages.sh real)"
  [ -d /proc/sys/net/bridge ] || modprobe br_netfilter 2>/dev/null ||
    die "bridge netfilter (br_netfilter) is not available: kube-proxy could not DNAT pod traffic"
}

# ---------------------------------------------------------------- host state, before and after
node_record_host() {
  # Recorded once, before the first change: a restart must not take our own changes as the baseline.
  [ -s "$node_dir/host-before.env" ] && return 0
  mkdir -p "$node_dir"
  local s d tmp=$node_dir/host-before.env.tmp
  {
    for s in "${NODE_SYSCTLS[@]}"; do
      [ -e "/proc/sys/${s//.//}" ] && printf 'sysctl %s %s\n' "$s" "$(sysctl -n "$s")"
    done
    for d in "${NODE_HOST_DIRS[@]}"; do [ -e "$d" ] && printf 'dir %s\n' "$d"; done
    nft list tables 2>/dev/null | sed 's/^table /nft /'
  } >"$tmp"
  mv "$tmp" "$node_dir/host-before.env"
}

node_restore_host() {
  local f=$node_dir/host-before.env kind a b cur
  [ -s "$f" ] || return 0
  while read -r kind a b; do
    [ "$kind" = sysctl ] || continue
    cur=$(sysctl -n "$a" 2>/dev/null) || continue
    if [ "$cur" != "$b" ]; then
      sysctl -qw "$a=$b" && step "restored sysctl $a=$b (was $cur)"
    fi
  done <"$f"
  for a in "${NODE_HOST_DIRS[@]}"; do
    if [ -e "$a" ] && ! grep -qx "dir $a" "$f"; then
      umount_under "$a"
      rm -rf "$a" && step "removed $a (created by the node)"
    fi
  done
  local fam name
  while read -r fam name; do
    grep -qx "nft $fam $name" "$f" && continue
    nft delete table "$fam" "$name" 2>/dev/null && step "removed nft table $fam $name (created by iptables for the node)"
  done < <(nft list tables 2>/dev/null | sed 's/^table //')
  rm -f "$f"
}

# umount_under DIR: unmount every mount point at or below DIR, deepest first.
umount_under() {
  local m
  awk -v d="$1" '$5 == d || index($5, d "/") == 1 {print $5}' /proc/self/mountinfo | sort -r |
    while read -r m; do umount -l "$m" 2>/dev/null || true; done
}

# ---------------------------------------------------------------- network
node_network_up() {
  if ! ip link show "$NODE_BRIDGE" >/dev/null 2>&1; then
    ip link add "$NODE_BRIDGE" type bridge
    step "created bridge $NODE_BRIDGE"
  fi
  ip addr replace "$NODE_IP/${POD_CIDR#*/}" dev "$NODE_BRIDGE"
  ip link set "$NODE_BRIDGE" up
  ip route replace "$SERVICE_CIDR" dev "$NODE_BRIDGE" src "$NODE_IP"
  sysctl -qw net.bridge.bridge-nf-call-iptables=1 net.bridge.bridge-nf-call-ip6tables=1
  # Forward only from the bridge back onto it (Service traffic between pods), never elsewhere.
  iptables -N MCNODE-FORWARD 2>/dev/null || true
  iptables -C MCNODE-FORWARD -i "$NODE_BRIDGE" ! -o "$NODE_BRIDGE" -j DROP 2>/dev/null ||
    iptables -A MCNODE-FORWARD -i "$NODE_BRIDGE" ! -o "$NODE_BRIDGE" -j DROP
  iptables -C MCNODE-FORWARD ! -i "$NODE_BRIDGE" -o "$NODE_BRIDGE" -j DROP 2>/dev/null ||
    iptables -A MCNODE-FORWARD ! -i "$NODE_BRIDGE" -o "$NODE_BRIDGE" -j DROP
  iptables -C FORWARD -j MCNODE-FORWARD 2>/dev/null || iptables -I FORWARD 1 -j MCNODE-FORWARD
  sysctl -qw "net.ipv4.conf.$NODE_BRIDGE.forwarding=1"
  [ "$(sysctl -n net.ipv4.ip_forward)" = 0 ] ||
    step "warning: net.ipv4.ip_forward is 1 on this host (it was before the node started): pods' traffic could be routed off the host"
  mkdir -p "$node_dir/cni/net.d" "$node_dir/cni/ipam"
  # isGateway and ipMasq stay false: either would make the bridge plugin set ip_forward=1.
  cat >"$node_dir/cni/net.d/10-memcached-node.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "memcached-node",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$NODE_BRIDGE",
      "isGateway": false,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "dataDir": "$node_dir/cni/ipam",
        "ranges": [[{"subnet": "$POD_CIDR", "gateway": "$NODE_IP"}]],
        "routes": [{"dst": "0.0.0.0/0", "gw": "$NODE_IP"}]
      }
    }
  ]
}
EOF
}

node_network_down() {
  local l
  # Pods' veths left behind (normally removed with their sandboxes), then the bridge (its routes go with it).
  for l in $(ip -o link show master "$NODE_BRIDGE" 2>/dev/null | awk -F': ' '{sub(/@.*/, "", $2); print $2}'); do
    ip link del "$l" 2>/dev/null && step "removed leftover pod interface $l"
  done
  if ip link show "$NODE_BRIDGE" >/dev/null 2>&1; then
    ip link del "$NODE_BRIDGE" && step "removed bridge $NODE_BRIDGE and its routes"
  fi
  iptables -D FORWARD -j MCNODE-FORWARD 2>/dev/null || true
  iptables -F MCNODE-FORWARD 2>/dev/null && iptables -X MCNODE-FORWARD 2>/dev/null || true
  # Rules kube-proxy and the kubelet added (kube-proxy --cleanup leaves the kubelet's KUBE-FIREWALL
  # and canaries): delete every rule that jumps to a KUBE-* chain, then the chains.
  local ipt t chain
  for ipt in iptables ip6tables; do
    for t in filter nat mangle; do
      "$ipt" -t "$t" -S 2>/dev/null | awk '$1 == "-A" && / -j KUBE-/ {sub(/^-A /, "-D "); print}' |
        while read -r rule; do eval "$ipt -t $t $rule" 2>/dev/null || true; done
      for chain in $("$ipt" -t "$t" -S 2>/dev/null | awk '$1 == "-N" && $2 ~ /^KUBE-/ {print $2}'); do
        "$ipt" -t "$t" -F "$chain" 2>/dev/null || true
      done
      for chain in $("$ipt" -t "$t" -S 2>/dev/null | awk '$1 == "-N" && $2 ~ /^KUBE-/ {print $2}'); do
        "$ipt" -t "$t" -X "$chain" 2>/dev/null || true
      done
    done
  done
}

# ---------------------------------------------------------------- cgroups (cgroupfs driver)
# The node's cgroups live under NODE_CGROUP in every mounted cgroup hierarchy: each cgroup v1
# controller mount, the cgroup2 mount of a hybrid host (/sys/fs/cgroup/unified, where runc and the
# kubelet create cgroups too) and, on a pure cgroup2 host, /sys/fs/cgroup itself. The hierarchies are
# read from the mount table, never from a list of names: a hierarchy a list forgets keeps the
# kubelet's cgroups after cluster-down.

# node_cgroup_mounts: the mount point of every cgroup (v1) and cgroup2 hierarchy, one per line, from
# NODE_MOUNTINFO (default /proc/self/mountinfo; test/hostscripts gives it other hosts' tables).
node_cgroup_mounts() {
  # mountinfo(5): optional fields end with "-", then the filesystem type; field 5 is the mount point.
  awk '{for (i = 7; i <= NF; i++) if ($i == "-") { if ($(i+1) == "cgroup" || $(i+1) == "cgroup2") print $5; break }}' \
    "${NODE_MOUNTINFO:-/proc/self/mountinfo}" | sort -u
}

# node_cgroup_dirs: NODE_CGROUP in every hierarchy where it exists.
node_cgroup_dirs() {
  local m
  for m in $(node_cgroup_mounts); do
    [ -d "$m/$NODE_CGROUP" ] && echo "$m/$NODE_CGROUP"
  done
  return 0
}

node_cgroups_up() {
  local m d c
  for m in $(node_cgroup_mounts); do
    d=$m/$NODE_CGROUP
    mkdir -p "$d"
    # A cpuset cgroup takes no task until it has CPUs and memory nodes (v1).
    if [ -f "$m/cpuset.cpus" ] && [ -f "$d/cpuset.cpus" ] && [ -z "$(cat "$d/cpuset.cpus")" ]; then
      cat "$m/cpuset.cpus" >"$d/cpuset.cpus"
      cat "$m/cpuset.mems" >"$d/cpuset.mems"
    fi
    # cgroup2: delegate to the kubelet's children every controller this cgroup has (none on a hybrid
    # host's unified mount, whose controllers are all bound to v1 hierarchies).
    if [ -f "$d/cgroup.subtree_control" ]; then
      for c in $(cat "$d/cgroup.controllers"); do
        echo "+$c" >"$d/cgroup.subtree_control" 2>/dev/null || true
      done
    fi
  done
}

# node_cgroups_down: remove NODE_CGROUP and every cgroup below it in every hierarchy, children first.
# A cgroup that still holds a process cannot be removed: it is reported with those processes, and
# the function fails so the caller says the host was not restored.
node_cgroups_down() {
  local d left=0 c p
  for d in $(node_cgroup_dirs); do
    # A cgroup whose last process has just exited may refuse rmdir for a moment (EBUSY): retry.
    for _ in 1 2 3 4 5; do
      find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null || true
      [ -d "$d" ] || break
      sleep 0.2
    done
    [ -d "$d" ] || { step "removed cgroup $d"; continue; }
    left=1
    while read -r c; do
      for p in $(cat "$c/cgroup.procs" 2>/dev/null); do
        step "warning: cgroup $c still holds process $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"
      done
    done < <(find "$d" -depth -type d)
    step "warning: cgroup $d left in place (processes above, or a cgroup that would not go)"
  done
  return "$left"
}

# ---------------------------------------------------------------- certificates and kubeconfigs
# Extra leaves of the node, signed by the cluster CA (gen_pki in cluster-up.sh calls it).
node_pki() {
  leaf kubelet ca "/O=system:nodes/CN=system:node:$NODE_NAME" clientAuth
  leaf kubelet-serving ca "/CN=$NODE_NAME" serverAuth "IP:$NODE_IP,DNS:$NODE_NAME"
  leaf kube-proxy ca "/CN=system:kube-proxy" clientAuth
  leaf coredns ca "/CN=system:coredns" clientAuth
}

# ---------------------------------------------------------------- containerd
node_containerd_start() {
  mkdir -p "$node_dir/containerd/root" "$NODE_STATE"
  cat >"$node_dir/containerd/config.toml" <<EOF
version = 2
root = "$node_dir/containerd/root"
state = "$NODE_STATE/state"
# Only the plugins the node needs; "opt" would create /opt/containerd.
disabled_plugins = ["io.containerd.internal.v1.opt", "io.containerd.snapshotter.v1.aufs",
  "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.devmapper",
  "io.containerd.snapshotter.v1.zfs", "io.containerd.tracing.processor.v1.otlp"]
[grpc]
  address = "$containerd_sock"
[ttrpc]
  address = "$containerd_sock.ttrpc"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  # Root here lacks CAP_SYS_RESOURCE: a negative oom_score_adj is refused and every sandbox would
  # fail ("can't get final child's PID from pipe"); this keeps scores at or above containerd's own.
  restrict_oom_score_adj = true
  disable_apparmor = true
  enable_selinux = false
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$node_dir/cni/net.d"
  # Registry hosts (containerd's registry host configuration, one hosts.toml per host below).
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "$node_dir/containerd/certs.d"
EOF
  # Every host the node pulls from is served by the local registry, which serves plain HTTP on
  # loopback (containerd runs in the host's network). hosts.toml's `server` replaces the host's own
  # endpoint, so a name the local registry lacks fails to pull here and is never fetched from the
  # public host (the deprecated `registry.mirrors` would fall back to it, e.g. registry-1.docker.io):
  #   - $REGISTRY itself, and $REGISTRY_TLS (hack/images/registry.sh start-tls: the same images, pulled
  #     over plain HTTP too, so references host-side tools needed over TLS work in pods unchanged);
  #   - registry.access.redhat.com: operator-sdk's registry pods use ubi9/ubi:9.8 as init image, which
  #     "run bundle-upgrade" cannot change (the local registry holds a stand-in,
  #     hack/images/local-images.sh ubi, and nothing else of that host);
  #   - registry.example.com and docker.io, as a mirrored (disconnected) cluster serves them: the
  #     images the shipped catalog and its bundles name, under the same paths
  #     (registry.example.com/memcached-operator:vX.Y.Z is $REGISTRY/memcached-operator:vX.Y.Z,
  #     docker.io/library/memcached is $REGISTRY/library/memcached), by tag and by digest, so they
  #     run with their names and digests untouched (hack/olm/mirror-images.sh pushes exactly those;
  #     test/olmreal TestMirroredCatalog).
  local host
  for host in "$REGISTRY" "$REGISTRY_TLS" registry.access.redhat.com registry.example.com docker.io; do
    mkdir -p "$node_dir/containerd/certs.d/$host"
    # containerd 1.6.20 resolves through the [host] entry; `server` alone was not used for a
    # public host (it went to https://registry.example.com), and it is the fallback after the hosts.
    printf 'server = "http://%s"\n\n[host."http://%s"]\n  capabilities = ["pull", "resolve"]\n' \
      "$REGISTRY" "$REGISTRY" >"$node_dir/containerd/certs.d/$host/hosts.toml"
  done
  start_cmd containerd "$(command -v containerd)" --config "$node_dir/containerd/config.toml"
  wait_until containerd "containerd serving on $containerd_sock" ctr_ version
  # The CRI plugin answers "server is not initialized yet" for a moment after containerd serves,
  # and a kubelet that meets that exits ("validate CRI v1 runtime API").
  wait_until containerd "containerd's CRI initialized" "$LOCALBIN/crictl" --runtime-endpoint "unix://$containerd_sock" info
}

# node_containers_down: stop every container and sandbox of this node's containerd (normally the
# kubelet has already done it when the pods were deleted): kill the tasks, tear down their network
# namespaces (CNI DEL is containerd's job; leftovers are removed by node_network_down) and unmount.
node_containers_down() {
  local id
  if [ -S "$containerd_sock" ] && ctr_ version >/dev/null 2>&1; then
    for id in $(ctr_ tasks ls -q 2>/dev/null); do
      ctr_ tasks kill -s SIGKILL "$id" >/dev/null 2>&1 || true
    done
    sleep 0.5
    for id in $(ctr_ tasks ls -q 2>/dev/null); do
      ctr_ tasks delete -f "$id" >/dev/null 2>&1 || true
    done
  fi
  # Shims whose containerd is ours (their command line names our socket) outlive containerd.
  local pid
  for pid in $(pgrep -f "containerd-shim-runc-v2 .*-address $containerd_sock( |$)" || true); do
    kill -KILL "$pid" 2>/dev/null && step "killed leftover shim $pid"
  done
}

# ---------------------------------------------------------------- kubelet
node_kubelet_start() {
  mkdir -p "$node_dir/kubelet/root" "$node_dir/kubelet/pod-logs"
  : >"$node_dir/kubelet/resolv.conf" # pods get cluster DNS only; nothing resolves off the host
  write_kubeconfig "$node_dir/kubelet/kubeconfig" kubelet
  cat >"$node_dir/kubelet/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $KUBELET_HEALTHZ_PORT
tlsCertFile: $pki/kubelet-serving.crt
tlsPrivateKeyFile: $pki/kubelet-serving.key
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $pki/ca.crt}
authorization: {mode: Webhook}
containerRuntimeEndpoint: unix://$containerd_sock
# cgroup v1 without systemd: cgroupfs, under a cgroup of our own in every hierarchy.
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: /$NODE_CGROUP
clusterDNS: [$DNS_IP]
clusterDomain: cluster.local
resolvConf: $node_dir/kubelet/resolv.conf
podLogsDir: $node_dir/kubelet/pod-logs
failSwapOn: false
serializeImagePulls: false
maxPods: 110
evictionHard: {memory.available: 100Mi, nodefs.available: 1%, nodefs.inodesFree: 1%, imagefs.available: 1%}
EOF
  start kubelet --config="$node_dir/kubelet/config.yaml" --kubeconfig="$node_dir/kubelet/kubeconfig" \
    --root-dir="$node_dir/kubelet/root" --cert-dir="$node_dir/kubelet/pki" \
    --hostname-override="$NODE_NAME" --node-ip="$NODE_IP"
  kubelet_ok() { curl --noproxy '*' -fsS --max-time 2 "http://127.0.0.1:$KUBELET_HEALTHZ_PORT/healthz"; }
  wait_until kubelet "kubelet healthy (127.0.0.1:$KUBELET_HEALTHZ_PORT)" kubelet_ok
  node_ready() {
    [ "$("$kubectl" --kubeconfig="$kubeconfig" get node "$NODE_NAME" \
      -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" = True ]
  }
  wait_until kubelet "node $NODE_NAME Ready" node_ready
}

# ---------------------------------------------------------------- kube-proxy
node_kube_proxy_start() {
  mkdir -p "$node_dir/kube-proxy"
  write_kubeconfig "$node_dir/kube-proxy/kubeconfig" kube-proxy
  # No conntrack sysctl is changed (maxPerCore and the TCP timeouts 0 = leave as is), NodePorts only
  # on NODE_IP (localhost NodePorts would set route_localnet=1).
  cat >"$node_dir/kube-proxy/config.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection:
  kubeconfig: $node_dir/kube-proxy/kubeconfig
mode: iptables
clusterCIDR: $POD_CIDR
hostnameOverride: $NODE_NAME
bindAddress: $NODE_IP
healthzBindAddress: 127.0.0.1:$KUBE_PROXY_HEALTHZ_PORT
metricsBindAddress: 127.0.0.1:$KUBE_PROXY_METRICS_PORT
nodePortAddresses: [$NODE_IP/32]
iptables:
  localhostNodePorts: false
conntrack:
  maxPerCore: 0
  min: 0
  tcpEstablishedTimeout: 0s
  tcpCloseWaitTimeout: 0s
EOF
  start kube-proxy --config="$node_dir/kube-proxy/config.yaml"
  proxy_ok() { curl --noproxy '*' -fsS --max-time 2 "http://127.0.0.1:$KUBE_PROXY_HEALTHZ_PORT/healthz"; }
  wait_until kube-proxy "kube-proxy healthy (iptables mode, 127.0.0.1:$KUBE_PROXY_HEALTHZ_PORT)" proxy_ok
}

# ---------------------------------------------------------------- CoreDNS
node_coredns_start() {
  mkdir -p "$node_dir/coredns"
  write_kubeconfig "$node_dir/coredns/kubeconfig" coredns
  "$kubectl" --kubeconfig="$kubeconfig" apply --server-side --field-manager=cluster-up -f - >/dev/null <<EOF
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: system:coredns
rules:
- apiGroups: [""]
  resources: [endpoints, services, pods, namespaces]
  verbs: [list, watch]
- apiGroups: [discovery.k8s.io]
  resources: [endpointslices]
  verbs: [list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: system:coredns
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:coredns"}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: "system:coredns"}
---
# CoreDNS runs on the host, on NODE_IP: a Service without selector and a hand-made EndpointSlice.
apiVersion: v1
kind: Service
metadata:
  name: kube-dns
  namespace: kube-system
  labels: {k8s-app: kube-dns, kubernetes.io/name: CoreDNS}
spec:
  clusterIP: $DNS_IP
  ports:
  - {name: dns, port: 53, protocol: UDP, targetPort: 53}
  - {name: dns-tcp, port: 53, protocol: TCP, targetPort: 53}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: kube-dns-host
  namespace: kube-system
  labels:
    kubernetes.io/service-name: kube-dns
    endpointslice.kubernetes.io/managed-by: cluster-up.memcached-operator
addressType: IPv4
endpoints:
- addresses: [$NODE_IP]
  conditions: {ready: true}
ports:
- {name: dns, port: 53, protocol: UDP}
- {name: dns-tcp, port: 53, protocol: TCP}
EOF
  cat >"$node_dir/coredns/Corefile" <<EOF
.:53 {
    bind $NODE_IP
    errors
    health 127.0.0.1:$COREDNS_HEALTH_PORT
    ready 127.0.0.1:$COREDNS_READY_PORT
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig $node_dir/coredns/kubeconfig local
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }
    cache 30
}
EOF
  start coredns -conf "$node_dir/coredns/Corefile"
  coredns_ok() { curl --noproxy '*' -fsS --max-time 2 "http://127.0.0.1:$COREDNS_READY_PORT/ready"; }
  wait_until coredns "CoreDNS ready on $NODE_IP:53 (Service kube-dns $DNS_IP)" coredns_ok
}

# ---------------------------------------------------------------- up and down
# node_drain: with the API server still up, stop what would recreate pods, delete every pod and let
# the kubelet stop their containers and sandboxes (CNI DEL, unmounts) the normal way.
node_drain() {
  [ -s "$kubeconfig" ] || return 0
  "$kubectl" --kubeconfig="$kubeconfig" --request-timeout=5s get --raw /readyz >/dev/null 2>&1 || return 0
  pid_if_ours kubelet >/dev/null || return 0
  local n
  n=$("$kubectl" --kubeconfig="$kubeconfig" get pods -A --field-selector "spec.nodeName=$NODE_NAME" -o name 2>/dev/null | grep -c . || true)
  [ "$n" -gt 0 ] || return 0
  stop_group kube-controller-manager kube-scheduler
  "$kubectl" --kubeconfig="$kubeconfig" delete pods -A --all --grace-period=1 --wait=true --timeout=90s >/dev/null 2>&1 ||
    step "warning: not every pod was deleted within 90s: their containers are stopped below"
  step "deleted $n pods: the kubelet stopped their containers and sandboxes"
}

# node_down: the node's pods and processes, while the control plane still runs.
node_down() {
  node_drain
  stop_group coredns kube-proxy kubelet
  [ -x "$LOCALBIN/kube-proxy" ] && "$LOCALBIN/kube-proxy" --cleanup >/dev/null 2>&1 || true
  node_containers_down
  stop_group containerd
  umount_under "$node_dir"
  umount_under "$NODE_STATE"
  node_netns_down
}

# node_netns_down: the network namespaces the node's sandboxes left (CNI names them cni-<uuid>).
node_netns_down() {
  local ns
  for ns in /run/netns/cni-*; do
    [ -e "$ns" ] || continue
    umount "$ns" 2>/dev/null; rm -f "$ns" && step "removed leftover network namespace ${ns##*/}"
  done
  return 0
}

# node_host_down: the host changes, once the API server (which listens on NODE_IP, and whose
# shutdown talks to itself there) has stopped.
node_host_down() {
  local rc=0
  node_network_down
  node_cgroups_down || rc=1
  rm -rf "$NODE_STATE"
  node_restore_host
  [ "$rc" = 0 ] || step "warning: some of the node's cgroups are still on the host (above)"
  return "$rc"
}
