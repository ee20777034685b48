# shellcheck shell=bash
# release.sh — what the release scripts share (hack/release/catalog-render.sh, community.sh).
# Source it from the repository root.
#   release_commit VERSION   print the commit release VERSION was built from: its line in
#                            hack/release/releases, else (the newest release is recorded there only
#                            when the next one is cut, by release.sh) the commit that added its
#                            bundle to catalog/; nothing when VERSION is not released

release_commit() {
  local v=$1 commit
  commit=$(awk -v v="$v" '$1 == v { print $2 }' hack/release/releases)
  [ -n "$commit" ] || commit=$(git log --diff-filter=A --format=%H -1 -- "catalog/memcached-operator/bundles/memcached-operator.v$v.yaml")
  printf '%s' "$commit"
}
