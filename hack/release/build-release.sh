#!/usr/bin/env bash
# build-release.sh VERSION — builds the manager of a past release into $LOCALBIN/manager-vVERSION
# from the commit listed for it in hack/release/releases (git archive of that commit; needs the repository
# history, i.e. not a shallow clone). Skipped when already built from that commit.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export LOCALBIN=${LOCALBIN:-$root/bin}
version=${1:?usage: build-release.sh VERSION}
commit=$(awk -v v="$version" '$1 == v { print $2 }' "$root/hack/release/releases")
[ -n "$commit" ] || { echo "build-release.sh: version $version is not in hack/release/releases" >&2; exit 1; }
git -C "$root" cat-file -e "$commit^{commit}" 2>/dev/null || {
  echo "build-release.sh: commit $commit of release $version is not in this clone (shallow clone? run 'git fetch --unshallow')" >&2; exit 1; }
"$root/hack/tools/build-tool.sh" "manager-v$version" "$commit" -- bash -c '
  src=$(mktemp -d); trap "rm -rf $src" EXIT
  git -C "$0" archive "$1" | tar -x -C "$src"
  cd "$src" && go build -o "$OUT" .' "$root" "$commit"
