#!/usr/bin/env bash
# build-tool.sh NAME VERSION -- BUILD COMMAND...
#
# Builds one tool into $LOCALBIN (default ./bin) only when it is missing or was built at another
# version. The version a binary was built at is recorded in $LOCALBIN/.versions/NAME, so bumping
# a pin in the Makefile rebuilds exactly that tool. BUILD COMMAND runs with $OUT set to the
# binary's path and must write the binary there. Progress and timing go to stderr.
#
# Built tools are also kept in TOOLS_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/memcached-operator/tools),
# keyed by what decides the binary: NAME, VERSION, the Go version, BUILD COMMAND (with the
# repository's and LOCALBIN's paths taken out) and the content of each tools module under hack/tools
# that BUILD COMMAND names (so adding or changing one module rebuilds only the tools built from it). A
# new clone, or a `rm -rf bin`, then copies a tool built from the same inputs instead of building it
# again (with a warm Go build cache a rebuild still costs a link of each binary: minutes for the
# whole set). TOOLS_CACHE= (empty) turns the cache off.
set -euo pipefail

name=$1 version=$2
shift 2
[ "${1:-}" = "--" ] && shift

root=$(cd "$(dirname "$0")/../.." && pwd)
LOCALBIN=${LOCALBIN:-$root/bin}
mkdir -p "$LOCALBIN/.versions"
OUT=$LOCALBIN/$name
stamp=$LOCALBIN/.versions/$name

if [ -x "$OUT" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ]; then
  exit 0
fi

TOOLS_CACHE=${TOOLS_CACHE-${XDG_CACHE_HOME:-$HOME/.cache}/memcached-operator/tools}
cached=
if [ -n "$TOOLS_CACHE" ]; then
  key=$({
    printf '%s\n' "$name" "$version" "$(go env GOVERSION)"
    printf '%s\n' "$@" | sed -e "s#$LOCALBIN#LOCALBIN#g" -e "s#$root#ROOT#g"
    cd "$root"
    for m in $(printf '%s\n' "$@" | grep -o 'hack/tools/[A-Za-z0-9._-]*' | sort -u); do
      find "$m" -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum
    done
  } | sha256sum | cut -c1-32)
  cached=$TOOLS_CACHE/$name-$key
  if [ -x "$cached" ]; then
    cp "$cached" "$OUT.tmp" && mv "$OUT.tmp" "$OUT"
    echo "$version" >"$stamp"
    echo ">> $name $version: copied from the tool cache ($cached)" >&2
    exit 0
  fi
fi

start=$(date +%s)
echo ">> building $name $version (first build of a tool can take minutes; later runs skip it)" >&2
# A build that takes longer than BUILD_TICK seconds (default 30) says so every BUILD_TICK seconds.
# The ticker is killed when the build ends, fails or this script is interrupted (the EXIT trap);
# its sleep is killed with it, and should this script be killed outright, it ends at its next tick.
tick=${BUILD_TICK:-30}
(
  trap 'kill "$sp" 2>/dev/null; exit 0' TERM
  while :; do
    sleep "$tick" & sp=$!
    wait "$sp"
    kill -0 "$$" 2>/dev/null || exit 0
    echo ">> still building $name $version: $(($(date +%s) - start))s" >&2
  done
) >/dev/null &
ticker=$!
stop_ticker() { kill "$ticker" 2>/dev/null || true; wait "$ticker" 2>/dev/null || true; }
trap stop_ticker EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
export OUT
"$@"
stop_ticker
trap - EXIT INT TERM
echo "$version" >"$stamp"
if [ -n "$cached" ]; then
  mkdir -p "$TOOLS_CACHE"
  cp "$OUT" "$cached.tmp.$$" && mv "$cached.tmp.$$" "$cached"
fi
echo ">> built $name $version in $(( $(date +%s) - start ))s -> $OUT" >&2
