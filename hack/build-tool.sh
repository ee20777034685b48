#!/usr/bin/env bash
# build-tool.sh NAME VERSION -- BUILD COMMAND...
#
# Builds one tool into $LOCALBIN (default ./bin) only when it is missing or was built at another
# version. The version a binary was built at is recorded in $LOCALBIN/.versions/NAME, so bumping
# a pin in the Makefile rebuilds exactly that tool. BUILD COMMAND runs with $OUT set to the
# binary's path and must write the binary there. Progress and timing go to stderr.
set -euo pipefail

name=$1 version=$2
shift 2
[ "${1:-}" = "--" ] && shift

root=$(cd "$(dirname "$0")/.." && pwd)
LOCALBIN=${LOCALBIN:-$root/bin}
mkdir -p "$LOCALBIN/.versions"
OUT=$LOCALBIN/$name
stamp=$LOCALBIN/.versions/$name

if [ -x "$OUT" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ]; then
  exit 0
fi

start=$(date +%s)
echo ">> building $name $version (first build of a tool can take minutes; later runs skip it)" >&2
export OUT
"$@"
echo "$version" >"$stamp"
echo ">> built $name $version in $(( $(date +%s) - start ))s -> $OUT" >&2
