#!/usr/bin/env bash
# host-state.sh — prints the host state the real node (hack/lib/node.sh) may change, normalized so
# that two snapshots compare with diff: network interfaces, addresses and routes, iptables and
# ip6tables rules (no counters), nft tables, the sysctls the node's components touch, mount points,
# network namespaces, the node's cgroups, the host directories containerd and the kubelet use, and
# processes of containerd, its shims, the kubelet, kube-proxy and CoreDNS.
# CI snapshots before `make test-real` and after `make cluster-down NODE=real` and fails on any
# difference: "down undoes every host change" is checked, not assumed.
#
# host-state.sh leftovers   lists what a real node of ours may leave on the host (its cgroups in any
#                           hierarchy, its bridge, its chains, its state directory, its network
#                           namespaces, its processes) and fails when there is any: a baseline taken
#                           with one of them present would hide the same leftover after the run.
# host-state.sh clean       removes those leftovers when no node of ours runs (an earlier run that
#                           was killed, or an older version of cluster-down), then checks leftovers.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
CLUSTER_DIR=${CLUSTER_DIR:-$root/.cluster-real}
# shellcheck source=../lib/procs.sh
. "$root/hack/lib/procs.sh"
# shellcheck source=../lib/node.sh
. "$root/hack/lib/node.sh"

node_procs() {
  pgrep -a -f '(^|/)(containerd|containerd-shim-runc-v2|kubelet|kube-proxy|coredns)( |$)' | awk '{$1=""; print}' | sort || true
}

leftovers() {
  node_cgroup_dirs | sed 's/^/cgroup /'
  ip link show "$NODE_BRIDGE" >/dev/null 2>&1 && echo "link $NODE_BRIDGE"
  iptables -S MCNODE-FORWARD >/dev/null 2>&1 && echo "iptables chain MCNODE-FORWARD"
  [ -e "$NODE_STATE" ] && echo "dir $NODE_STATE"
  ls /run/netns 2>/dev/null | grep '^cni-' | sed 's/^/netns /'
  node_procs | sed 's/^/process/'
  return 0
}

case ${1:-} in
  leftovers)
    left=$(leftovers)
    [ -z "$left" ] && exit 0
    printf 'a real node of ours left this on the host:\n%s\n(run hack/cluster/host-state.sh clean, or make cluster-down NODE=real when it still runs)\n' "$left" >&2
    exit 1 ;;
  clean)
    [ -z "$(node_procs)" ] || die "a node's processes still run (make cluster-down NODE=real first): $(node_procs | tr '\n' ';')"
    node_network_down
    node_cgroups_down || true
    node_netns_down
    [ -e "$NODE_STATE" ] && { umount_under "$NODE_STATE"; rm -rf "$NODE_STATE"; step "removed $NODE_STATE"; }
    exec "$0" leftovers ;;
  "") ;;
  *) echo "usage: host-state.sh [leftovers|clean]" >&2; exit 2 ;;
esac

echo "## links"; ip -o link show | awk -F': ' '{sub(/@.*/, "", $2); print $2}' | sort
echo "## addresses"; ip -o addr show | awk '{print $2, $3, $4}' | sort
echo "## routes"; ip route show table all | sort
for ipt in iptables ip6tables; do
  echo "## $ipt"
  command -v "$ipt-save" >/dev/null && "$ipt-save" 2>/dev/null | grep -v '^#' | sed 's/\[[0-9]*:[0-9]*\]//' | sort || true
done
echo "## nft tables"; nft list tables 2>/dev/null | sort || true
echo "## sysctls"
for s in "${NODE_SYSCTLS[@]}"; do
  [ -e "/proc/sys/${s//.//}" ] && echo "$s = $(sysctl -n "$s")"
done
echo "## mounts"; awk '{print $5, $9}' /proc/self/mountinfo | sort
echo "## netns"; ls /run/netns 2>/dev/null | sort || true
echo "## cgroups"; node_cgroup_dirs
echo "## host dirs"; for d in "${NODE_HOST_DIRS[@]}" "$NODE_STATE"; do [ -e "$d" ] && echo "$d"; done
echo "## node processes"; node_procs
