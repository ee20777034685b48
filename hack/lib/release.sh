# shellcheck shell=bash
# release.sh — what the release scripts share (hack/release/catalog-render.sh, community.sh, release.sh).
# Source it from the repository root.
#   release_commit VERSION   print the commit release VERSION was built from: its line in
#                            hack/release/releases, else (the newest release is recorded there only
#                            when the next one is cut, by release.sh) the newest commit that added
#                            its bundle to catalog/; nothing when HEAD has no such bundle
#   related_image FILE NAME  print the value of the variable RELATED_IMAGE_NAME in FILE (the manager's
#                            Deployment, config/manager/manager.yaml)
#   pin_related_image FILE NAME REF
#                            set RELATED_IMAGE_NAME in FILE to REF, and only that variable
#                            (RELATED_IMAGE_MEMCACHED is a prefix of RELATED_IMAGE_MEMCACHED_EXPORTER);
#                            fails, saying why, when FILE has no such variable

release_commit() {
  local v=$1 commit
  commit=$(awk -v v="$v" '$1 == v { print $2 }' hack/release/releases)
  # The newest commit that added it, and only while HEAD has it: a release cut, withdrawn before
  # publication and cut again is the last cut's.
  local file=catalog/memcached-operator/bundles/memcached-operator.v$v.yaml
  if [ -z "$commit" ] && git cat-file -e "HEAD:$file" 2>/dev/null; then
    commit=$(git log --diff-filter=A --format=%H -1 -- "$file")
  fi
  printf '%s' "$commit"
}

related_image() { sed -n "/- name: RELATED_IMAGE_$2\$/{n;s/^ *value: //p}" "$1"; }

pin_related_image() {
  local file=$1 name=$2 ref=$3
  grep -q -- "- name: RELATED_IMAGE_$name\$" "$file" || { echo "no RELATED_IMAGE_$name in $file" >&2; return 1; }
  sed -i "/- name: RELATED_IMAGE_$name\$/{n;s#^\( *value: \).*#\1$ref#}" "$file"
  [ "$(related_image "$file" "$name")" = "$ref" ] || { echo "could not set RELATED_IMAGE_$name in $file" >&2; return 1; }
}
