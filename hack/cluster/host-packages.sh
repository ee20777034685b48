#!/usr/bin/env bash
# host-packages.sh [GROUP...]
#
# Installs the Debian packages the local tiers need that the Go module proxy cannot provide, only
# when a command they ship is missing (apt-get update only when an install fails). Groups:
#   base    openssl, curl (the local control plane), promtool of Debian's prometheus package
#           (make test checks and unit-tests the alerts), python3-pylibmc (libmemcached's ketama)
#           and python3-pymemcache (its rendezvous HashClient): the clients the user guide names,
#           run by test/real/pyclients against memcached on loopback and packed into the
#           pyclients image (hack/images/local-images.sh). No memcached: the one the tests and the
#           real tier's image run is the Debian build the Makefile pins (sid's 1.6.45), which make
#           memcached-debian assembles with apt's own tools (hack/images/debian-memcached.sh).
#   real    the real-node tier: containerd, runc, CNI plugins (containernetworking-plugins),
#           iptables, nftables and conntrack (kube-proxy; nft removes the tables it leaves), buildah, skopeo, umoci (images without a Docker
#           engine), docker-registry (the local registry), busybox-static (a shell for images),
#           jq (the real OLM tier's catalog and scorecard scripts)
# With no GROUP, installs base and real. Needs root (CI runs as root).
set -euo pipefail

declare -A pkg_of=(
  [openssl]=openssl [curl]=curl [promtool]=prometheus
  [containerd]=containerd [runc]=runc [/usr/lib/cni/bridge]=containernetworking-plugins
  [iptables]=iptables [conntrack]=conntrack [buildah]=buildah [skopeo]=skopeo [umoci]=umoci
  [docker-registry]=docker-registry [busybox]=busybox-static [nft]=nftables [jq]=jq
  [/usr/lib/python3/dist-packages/pylibmc]=python3-pylibmc [/usr/lib/python3/dist-packages/pymemcache]=python3-pymemcache
)
groups_base=(openssl curl promtool /usr/lib/python3/dist-packages/pylibmc /usr/lib/python3/dist-packages/pymemcache)
groups_real=(containerd runc /usr/lib/cni/bridge iptables nft conntrack buildah skopeo umoci docker-registry busybox jq)

[ $# -gt 0 ] || set -- base real
want=()
for g in "$@"; do
  case $g in
    base) want+=("${groups_base[@]}") ;;
    real) want+=("${groups_real[@]}") ;;
    *) echo "host-packages.sh: unknown group $g (base, real)" >&2; exit 2 ;;
  esac
done

need=()
for c in "${want[@]}"; do
  if [[ $c == /* ]]; then [ -e "$c" ] && continue; else command -v "$c" >/dev/null && continue; fi
  need+=("${pkg_of[$c]}")
done
[ ${#need[@]} -gt 0 ] || exit 0
echo ">> installing Debian packages: ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-install-recommends "${need[@]}" ||
  { apt-get update && apt-get install -y --no-install-recommends "${need[@]}"; }
