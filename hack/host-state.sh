#!/usr/bin/env bash
# host-state.sh — prints the host state the real node (hack/lib/node.sh) may change, normalized so
# that two snapshots compare with diff: network interfaces, addresses and routes, iptables and
# ip6tables rules (no counters), nft tables, the sysctls the node's components touch, mount points,
# network namespaces, the node's cgroups, the host directories containerd and the kubelet use, and
# processes of containerd, its shims, the kubelet, kube-proxy and CoreDNS.
# CI snapshots before `make test-real` and after `make cluster-down NODE=real` and fails on any
# difference: "down undoes every host change" is checked, not assumed.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
CLUSTER_DIR=${CLUSTER_DIR:-$root/.cluster-real}
# shellcheck source=lib/node.sh
. "$root/hack/lib/node.sh"

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
echo "## cgroups"; ls -d /sys/fs/cgroup/*/"$NODE_CGROUP" 2>/dev/null || true
echo "## host dirs"; for d in "${NODE_HOST_DIRS[@]}" "$NODE_STATE"; do [ -e "$d" ] && echo "$d"; done
echo "## node processes"
pgrep -a -f '(^|/)(containerd|containerd-shim-runc-v2|kubelet|kube-proxy|coredns)( |$)' | awk '{$1=""; print}' | sort || true
