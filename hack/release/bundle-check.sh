#!/usr/bin/env bash
# bundle-check.sh — fails when bundle/ or bundle.Dockerfile differ from what `make bundle`
# generates from the committed sources (API markers, config/, Makefile VERSION and CHANNELS).
# It regenerates in a temporary copy of the repository (so nothing here changes) and diffs,
# ignoring the createdAt annotation that operator-sdk stamps with the current time.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The sources as git sees them (tracked and new files, nothing ignored: no bin/, no cluster state).
(cd "$root" && git ls-files -z --cached --others --exclude-standard | xargs -0 tar --ignore-failed-read -cf - 2>/dev/null) | tar -C "$tmp" -xf -
make -C "$tmp" --no-print-directory bundle LOCALBIN="$root/bin" >"$tmp/.bundle.log" 2>&1 || { cat "$tmp/.bundle.log"; exit 1; }
strip() { grep -v '^    createdAt: ' "$1"; }
status=0
while IFS= read -r -d '' f; do
  rel=${f#"$tmp"/}
  if [ ! -f "$root/$rel" ]; then echo "missing in the repository: $rel"; status=1; continue; fi
  diff -u <(strip "$root/$rel") <(strip "$f") --label "committed $rel" --label "generated $rel" || status=1
done < <(find "$tmp/bundle" "$tmp/bundle.Dockerfile" -type f -print0)
while IFS= read -r -d '' f; do
  rel=${f#"$root"/}
  [ -f "$tmp/$rel" ] || { echo "not generated any more: $rel"; status=1; }
done < <(find "$root/bundle" -type f -print0 2>/dev/null)
if [ $status != 0 ]; then echo "bundle/ is stale: run 'make bundle' and commit the result" >&2; fi
exit $status
