#!/usr/bin/env bash
# debian-memcached.sh [dir|path]
#
# Assembles Debian's memcached package of version $MEMCACHED_DEBIAN_VERSION from the suite
# $MEMCACHED_DEBIAN_SUITE, with the libraries it runs with and the dynamic loader from the same
# suite, into $MEMCACHED_DEBIAN_DIR; a directory already assembled from the same inputs is kept
# (the run then costs a few milliseconds). The host's apt sources, lists and caches are never
# read or written: apt runs on a sources list and a state of its own in $MEMCACHED_DEBIAN_DIR.apt,
# removed once the directory is assembled. First assembly of sid's 1.6.45: about 11 s, 17 MB
# downloaded (the suite's package index, 11 MB, and the packages, 6 MB).
#
#   dir    (the default) print the directory, assembling it first when needed
#   path   print the path of its memcached wrapper, assembling first when needed
#
# The directory:
#   rootfs/    the memcached image's files (hack/images/local-images.sh memcached): /usr/bin/memcached,
#              the packages' files (documentation left out), Debian's merged-/usr links (/lib64,
#              /lib, /bin, /sbin) so the loader sits at the path the binary names, /etc/passwd and
#              /etc/group with root and memcache 11211:11211
#   memcached  runs rootfs/usr/bin/memcached on this host through rootfs's loader and libraries
#              (`exec`: memcached keeps the wrapper's PID, so signals reach it); make test runs
#              this one (MEMCACHED_BINARY)
#   version    the upstream version `memcached -V` prints (1.6.45), the image's tag
#   packages   the packages and versions it was assembled from
#
# Packages: memcached and the runtime closure its binary links (libevent, Lua 5.4 for the proxy,
# SASL with its sasldb plugin, OpenSSL for TLS, glibc with the loader, ...). After assembly the
# loader lists the binary's libraries from rootfs alone and `memcached -V` must print the
# pinned upstream version; as root, also inside `chroot rootfs`, as the image runs it.
#
# Environment (defaults): MEMCACHED_DEBIAN_SUITE, MEMCACHED_DEBIAN_VERSION (the Makefile's pins)
#   MEMCACHED_DEBIAN_MIRROR=http://deb.debian.org/debian (the Debian mirror the host's apt uses)
#   MEMCACHED_DEBIAN_DIR=${XDG_CACHE_HOME:-~/.cache}/memcached-operator/memcached/debian-<suite>-<version>
#   MEMCACHED_DEBIAN_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg (the suite's Release
#   signature is checked against it)
# A suite that no longer carries the pinned version (sid moves on within weeks) would turn every
# later CI run red on a clean machine, through no change of ours: the script then takes the
# suite's newest memcached of the same upstream series (1.6.x) when it is newer than the pin, and
# says so (bump the pin to it); an older or other-series version, or MEMCACHED_DEBIAN_STRICT=1
# (a release pipeline), fails the run naming the versions the suite has. The tests' version rules
# are written as "from 1.6.N", so a newer 1.6 build keeps them meaningful. To rebuild the pinned
# version exactly, point MEMCACHED_DEBIAN_MIRROR at a snapshot that has it
# (https://snapshot.debian.org/archive/debian/<YYYYMMDDTHHMMSSZ>).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
t0=$(date +%s%N)
# shellcheck source=../lib/procs.sh
. "$root/hack/lib/procs.sh"
usage() { sed -n '2,/^set -euo pipefail$/p' "$0" | sed '$d' >&2; exit 2; }

pin() { sed -n "s/^$1 ?= //p" "$root/Makefile"; }
suite=${MEMCACHED_DEBIAN_SUITE:-$(pin MEMCACHED_DEBIAN_SUITE)}
version=${MEMCACHED_DEBIAN_VERSION:-$(pin MEMCACHED_DEBIAN_VERSION)}
mirror=${MEMCACHED_DEBIAN_MIRROR:-http://deb.debian.org/debian}
keyring=${MEMCACHED_DEBIAN_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}
[ -n "$suite" ] && [ -n "$version" ] || die "MEMCACHED_DEBIAN_SUITE and MEMCACHED_DEBIAN_VERSION are not set (nor pinned in $root/Makefile)"
dir=${MEMCACHED_DEBIAN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/memcached-operator/memcached/debian-$suite-$version}
# upstream: Debian's version without epoch and Debian revision (1:1.6.45-1+b1 -> 1.6.45).
upstream=${version#*:}
upstream=${upstream%%-*}

# The runtime closure of sid's memcached 1.6.45 (its binary's NEEDED entries and what they need
# in turn), plus libsasl2-2's sasldb plugin; the loader check below fails naming any library a
# new build needs beyond these.
packages=(memcached libc6 libgcc-s1 libcrypt1 libevent-2.1-7t64 liblua5.4-0 libsasl2-2
  libsasl2-modules-db libdb5.3t64 libssl3t64 libzstd1 zlib1g)
inputs="suite=$suite version=$version mirror=$mirror packages=${packages[*]} recipe=1"

case ${1:-dir} in
  dir) print=$dir ;;
  path) print=$dir/memcached ;;
  -h | --help | *) usage ;;
esac

# complete: the directory was assembled from these inputs.
complete() { [ "$(cat "$dir/inputs" 2>/dev/null)" = "$inputs" ] && [ -x "$dir/memcached" ]; }

if complete; then
  echo "$print"
  exit 0
fi
for c in apt-get apt-cache dpkg-deb; do command -v "$c" >/dev/null || die "$c not found: this script needs Debian's apt and dpkg"; done
[ -r "$keyring" ] || die "$keyring not found: install debian-archive-keyring"
mkdir -p "$(dirname "$dir")"
exec 9>"$dir.lock"
flock -n 9 || { step "waiting for another debian-memcached.sh to finish" >&2; flock 9; }
if complete; then
  echo "$print"
  exit 0
fi

step "assembling memcached $version from Debian $suite ($mirror) into $dir" >&2
apt_dir=$dir.apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs" "$apt_dir/preferences.d"
echo "deb [signed-by=$keyring target=Packages] $mirror $suite main" >"$apt_dir/sources.list"
: >"$apt_dir/status"
apt_opts=(-o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o Dir::Etc::sourceparts=- -o "Dir::State::lists=$apt_dir/lists"
  -o "Dir::State::status=$apt_dir/status" -o "Dir::Cache=$apt_dir/cache" -o "Dir::Etc::preferencesparts=$apt_dir/preferences.d"
  -o "Dir::Etc::preferences=$apt_dir/preferences" -o Acquire::Languages=none -o APT::Sandbox::User=root)
apt-get "${apt_opts[@]}" -qq update >&2 || die "apt-get update of Debian $suite from $mirror failed"

# The pinned version, or (see the header) the suite's newer build of the same upstream series.
have=$(apt-cache "${apt_opts[@]}" madison memcached | awk -F'|' '{ gsub(/ /, "", $2); print $2 }' | sort -u | paste -sd' ')
if [[ " $have " != *" $version "* ]]; then
  newest=$(tr ' ' '\n' <<<"$have" | sort -V | tail -n1)
  newest_up=${newest#*:}
  newest_up=${newest_up%%-*}
  if [ "${MEMCACHED_DEBIAN_STRICT:-0}" != 1 ] && [ -n "$newest" ] && [ "${newest_up%.*}" = "${upstream%.*}" ] &&
    [ "$(printf '%s\n%s\n' "$version" "$newest" | sort -V | tail -n1)" = "$newest" ]; then
    step "NOTE: memcached $version is no longer in Debian $suite; taking its $newest (same $(cut -d. -f1,2 <<<"$upstream") series, newer): bump MEMCACHED_DEBIAN_VERSION in the Makefile to $newest" >&2
    version=$newest upstream=$newest_up
  else
    die "memcached $version is not in Debian $suite at $mirror (it has: ${have:-no memcached}): pin one of those as MEMCACHED_DEBIAN_VERSION in the Makefile, or set MEMCACHED_DEBIAN_MIRROR to a snapshot.debian.org archive that has $version"
  fi
fi

# Download the closure: memcached at the pinned version, the libraries at the suite's versions.
rm -f "$apt_dir/debs/"*.deb
want=("memcached=$version")
for p in "${packages[@]:1}"; do want+=("$p"); done
(cd "$apt_dir/debs" && apt-get "${apt_opts[@]}" -qq download "${want[@]}" >&2) ||
  die "apt-get download ${want[*]} from Debian $suite failed"

tmp=$dir.new
rm -rf "$tmp"
mkdir -p "$tmp/rootfs"
rootfs=$tmp/rootfs
for deb in "$apt_dir/debs/"*.deb; do
  dpkg-deb -x "$deb" "$rootfs"
  dpkg-deb -f "$deb" Package Version | paste -sd' ' | sed 's/^Package: //; s/ Version: / /' >>"$tmp/packages"
done
rm -rf "$rootfs/usr/share/doc" "$rootfs/usr/share/man" "$rootfs/usr/share/info" "$rootfs/usr/share/lintian" \
  "$rootfs/usr/share/locale" "$rootfs/usr/share/bug"
# Debian's merged /usr: the top-level links base-files makes, so /lib64/ld-linux-x86-64.so.2 (the
# interpreter an amd64 binary names) and /lib/<multiarch> resolve inside the image.
for d in bin sbin lib lib64; do
  [ -e "$rootfs/$d" ] || [ -L "$rootfs/$d" ] || { [ -d "$rootfs/usr/$d" ] && ln -s "usr/$d" "$rootfs/$d"; } || true
done
# /etc/passwd and /etc/group: root and memcache 11211 (the image's USER).
mkdir -p "$rootfs/etc"
printf '%s\n' "root:x:0:0:root:/root:/sbin/nologin" "memcache:x:11211:11211:memcache:/nonexistent:/sbin/nologin" >"$rootfs/etc/passwd"
printf '%s\n' "root:x:0:" "memcache:x:11211:" >"$rootfs/etc/group"

loader=$(find "$rootfs/usr/lib" -maxdepth 2 -name 'ld-linux*.so.*' -type f | head -n1)
[ -n "$loader" ] || die "no dynamic loader (ld-linux*.so.*) in the libc6 of Debian $suite"
libdir=$(dirname "$loader")
# The wrapper names rootfs relative to its own directory, so the directory may move.
cat >"$tmp/memcached" <<EOF
#!/bin/sh
# memcached $version from Debian $suite, run through that suite's loader and libraries
# (hack/images/debian-memcached.sh); exec keeps this PID.
d=\$(dirname "\$(readlink -f "\$0")")
exec "\$d/rootfs${loader#"$rootfs"}" --library-path "\$d/rootfs${libdir#"$rootfs"}" "\$d/rootfs/usr/bin/memcached" "\$@"
EOF
chmod 0755 "$tmp/memcached"

# Every library resolves inside rootfs (the loader prints "not found" otherwise), and the binary runs.
listed=$("$loader" --library-path "$libdir" --list "$rootfs/usr/bin/memcached" 2>&1) || die "the loader cannot resolve memcached's libraries: $listed"
! grep -q 'not found' <<<"$listed" || die "memcached needs libraries the packages (${packages[*]}) do not hold: $(grep 'not found' <<<"$listed" | paste -sd' ')"
! grep -v "$rootfs" <<<"$listed" | grep -q '=> /' || die "the loader took libraries from outside rootfs: $listed"
got=$("$tmp/memcached" -V) || die "memcached -V failed: $got"
[ "$got" = "memcached $upstream" ] || die "memcached -V printed '$got', want 'memcached $upstream'"
if [ "$(id -u)" = 0 ]; then
  got=$(chroot "$rootfs" /usr/bin/memcached -V) || die "memcached -V inside chroot $rootfs failed (the image would not run): $got"
fi
echo "$upstream" >"$tmp/version"
echo "$inputs" >"$tmp/inputs"
rm -rf "$dir"
mv "$tmp" "$dir"
# The apt state serves this assembly only: another pin assembles into a directory of its own.
rm -rf "$apt_dir"
step "assembled $got from Debian $suite ($(du -sh --apparent-size "$dir/rootfs" | cut -f1)): $(paste -sd, "$dir/packages" | sed 's/,/, /g')" >&2
echo "$print"
