#!/usr/bin/env bash
# olm-real-images.sh [VERSION...] — the images OLM pulls on the real node, for every release in
# catalog/ (default: each catalog/memcached-operator/bundles/memcached-operator.v*.yaml), pushed to the
# local registry under local names; the committed bundle/ and catalog/ keep their public names.
#
# catalog/ here is catalog/ with the working tree's bundle/ as the Makefile's VERSION (catalog-tool
# with-head): that release replaced, or the next version added as the head of the channels.
# For each VERSION, from the source of that release (`git archive` of its commit: release_commit,
# hack/lib/release.sh; for the Makefile's VERSION when it is not released, the commit HEAD):
#   - the operator image $REGISTRY/memcached-operator:vVERSION: that release's manager built as its
#     Dockerfile builds it (hack/images/local-images.sh operator);
#   - the bundle image $REGISTRY/memcached-operator-bundle:vVERSION: that release's bundle/ and
#     bundle.Dockerfile, built with buildah, after rewriting in a temporary copy only the CSV's operator
#     image (registry.example.com/memcached-operator:vVERSION or @sha256:..., in the Deployment and the
#     containerImage annotation) and its memcached image (RELATED_IMAGE_MEMCACHED and relatedImages)
#     to the local registry's images by digest. Nothing else of the bundle changes (checked).
# Digests are recorded in $REGISTRY_DIR/images.env as OPERATOR_IMAGE_V<X_Y_Z> and
# BUNDLE_IMAGE_V<X_Y_Z>. Needs the registry (hack/images/registry.sh) and the memcached image
# (hack/images/local-images.sh memcached); skips a bundle whose inputs did not change.
#
# Then the catalog images, built from catalog.Dockerfile on the local opm image (local/opm, for
# quay.io/operator-framework/opm) from a temporary copy of catalog/ in which each bundle of the
# versions above is re-rendered from its local bundle image (`opm render --use-http`, as `make
# catalog` renders a release, so the bundle's image, its inline objects and relatedImages name the
# local images by digest; checked: the inline objects differ from the committed ones only by those
# image references, except for the Makefile's VERSION built from HEAD, whose bundle is the working
# tree's bundle/ and may be ahead of its committed release); package, channels and deprecations are
# the committed ones:
#   - $REGISTRY/memcached-operator-catalog:olm-real: every version above (the newest is the head of
#     the channels that hold it), recorded as OLM_REAL_CATALOG_IMAGE;
#   - $REGISTRY/memcached-operator-catalog:olm-real-v<OLDEST>: the same catalog cut at the oldest
#     version (newer bundles, their channel entries and deprecations left out), so that pushing the
#     first one over it moves every channel's head forward (recorded as OLM_REAL_CATALOG_IMAGE_OLDEST);
#   - $REGISTRY/memcached-operator-catalog:olm-real-v<PREVIOUS>: the same cut at the version before
#     the newest (the upgrade users of the last release take; OLM_REAL_CATALOG_IMAGE_PREVIOUS).
# A catalog is only built from all the versions of catalog/ up to the newest one given (opm
# validate checks the result). Skips an image whose inputs did not change.
#
# Environment (defaults): REGISTRY_DIR=<repo>/.registry  REGISTRY_PORT=5000  BUILDAH_DIR=<repo>/.buildah
#   VERSION=<the Makefile's VERSION>  OPM=<repo>/bin/opm  OPM_VERSION=v1.74.0
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
REGISTRY_DIR=${REGISTRY_DIR:-$root/.registry}
REGISTRY_PORT=${REGISTRY_PORT:-5000}
BUILDAH_DIR=${BUILDAH_DIR:-$root/.buildah}
export REGISTRY_DIR REGISTRY_PORT BUILDAH_DIR
registry=127.0.0.1:$REGISTRY_PORT
head_version=${VERSION:-$(sed -n 's/^VERSION ?= //p' "$root/Makefile")}
public_repo=registry.example.com/memcached-operator
# csv_memcached CSV: the memcached image the CSV names (RELATED_IMAGE_MEMCACHED), the one each
# release's bundle has rewritten to the local stand-in (releases name different upstream tags).
csv_memcached() { awk '/name: RELATED_IMAGE_MEMCACHED$/ { getline; sub(/^ *value: */, ""); print; exit }' "$1"; }
# operator_ref V: the pattern (sed -E) of the operator image release V's CSV names: by tag up to
# 0.2.3 (registry.example.com/memcached-operator:vV), by digest from the first release `make
# release` pinned (registry.example.com/memcached-operator@sha256:...).
operator_ref() { printf '%s(:v%s|@sha256:[0-9a-f]{64})' "${public_repo//./\\.}" "${1//./\\.}"; }

t0=$(date +%s%N)
# shellcheck source=../lib/procs.sh
. "$root/hack/lib/procs.sh"
# shellcheck source=../lib/release.sh
. "$root/hack/lib/release.sh"
buildah() { command buildah --root "$BUILDAH_DIR/storage" --runroot "$BUILDAH_DIR/run" --storage-driver vfs "$@"; }
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}" no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"

OPM=${OPM:-$root/bin/opm}
OPM_VERSION=${OPM_VERSION:-v1.74.0}
CATALOG_TOOL=${CATALOG_TOOL:-$root/bin/catalog-tool}
[ -x "$OPM" ] || die "no $OPM (make opm)"
[ -x "$CATALOG_TOOL" ] || die "no $CATALOG_TOOL (make catalog-tool)"

work=$(mktemp -d "${TMPDIR:-/tmp}/olm-real-images.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The catalog the tests serve: catalog/ with the working tree's bundle/ as the Makefile's VERSION,
# in place of its release or, built as the next version, as the head of the channels
# (catalog-tool with-head).
catalog=$work/catalog-head/memcached-operator
did=$("$CATALOG_TOOL" with-head -in "$root/catalog/memcached-operator" -out "$catalog" -bundle-dir "$root/bundle" -opm "$OPM") ||
  die "catalog-tool with-head failed"
step "$did"

versions=("$@")
if [ ${#versions[@]} -eq 0 ]; then
  mapfile -t versions < <(ls "$catalog/bundles" | sed -n 's/^memcached-operator\.v\(.*\)\.yaml$/\1/p' | sort -V)
fi
[ ${#versions[@]} -gt 0 ] || die "no release in catalog/memcached-operator/bundles"

"$root/hack/images/local-images.sh" memcached | tail -n 1
memcached=$(sed -n 's/^MEMCACHED_IMAGE=//p' "$REGISTRY_DIR/images.env")
[[ $memcached == *@sha256:* ]] || die "no MEMCACHED_IMAGE by digest in $REGISTRY_DIR/images.env"

# source_tree VERSION DIR: the sources of release VERSION in DIR.
source_tree() {
  local v=$1 dir=$2 commit
  mkdir -p "$dir"
  commit=$(cd "$root" && release_commit "$v")
  if [ -n "$commit" ]; then
    git -C "$root" cat-file -e "$commit^{commit}" 2>/dev/null || die "commit $commit of $v is not in this clone (git fetch --unshallow)"
    git -C "$root" archive "$commit" | tar -x -C "$dir"
    echo "commit ${commit:0:12}"
  elif [ "$v" = "$head_version" ]; then
    git -C "$root" archive HEAD | tar -x -C "$dir"
    echo "HEAD ($(git -C "$root" rev-parse --short=12 HEAD))"
  else
    die "version $v is neither in hack/release/releases nor the Makefile's VERSION $head_version"
  fi
}

for v in "${versions[@]}"; do
  key=V$(tr '.' '_' <<<"$v")
  dir=$work/$v
  from=$(source_tree "$v" "$dir")
  step "$v: sources from $from"
  "$root/hack/images/local-images.sh" operator "memcached-operator:v$v" "$dir" >"$work/operator-$v.log" 2>&1 ||
    { tail -n 20 "$work/operator-$v.log" >&2; die "$v: building the operator image failed"; }
  grep -E 'pushed|up to date' "$work/operator-$v.log" || true
  operator=$(sed -n "s/^MEMCACHED_OPERATOR_V$(tr '.' '_' <<<"$v")_IMAGE=//p" "$REGISTRY_DIR/images.env")
  [[ $operator == *@sha256:* ]] || die "no operator image recorded for $v"
  "$root/hack/images/local-images.sh" record "OPERATOR_IMAGE_$key" "$operator" >/dev/null

  csv=$dir/bundle/manifests/memcached-operator.clusterserviceversion.yaml
  [ -f "$csv" ] && [ -f "$dir/bundle.Dockerfile" ] || die "$v has no bundle/ or bundle.Dockerfile"
  cp "$csv" "$work/csv-$v.orig"
  public_memcached=$(csv_memcached "$csv")
  [ -n "$public_memcached" ] || die "$v: no RELATED_IMAGE_MEMCACHED in its CSV"
  echo "$v $public_memcached" >>"$work/memcached-images"
  sed -i -E -e "s#$(operator_ref "$v")\$#$operator#" -e "s#${public_memcached//./\\.}\$#$memcached#" "$csv"
  # The operator's image is named by the Deployment and the containerImage annotation, and from the
  # release with the certificate reloader also by RELATED_IMAGE_CERT_RELOADER and relatedImages;
  # the memcached image by RELATED_IMAGE_MEMCACHED and relatedImages. Every one of them, and nothing
  # else, is rewritten.
  ops=$(grep -cE "$(operator_ref "$v")\$" "$work/csv-$v.orig" || true)
  changed=$(diff "$work/csv-$v.orig" "$csv" | grep -c '^>' || true)
  { [ "$ops" = 2 ] || [ "$ops" = 4 ]; } && [ "$changed" = $((ops + 2)) ] && [ "$(grep -c "$operator" "$csv")" = "$ops" ] &&
    [ "$(grep -c "$memcached" "$csv")" = 2 ] && ! grep -qE "$public_repo[:@]" "$csv" ||
    die "$v: expected 2 or 4 operator and 2 memcached image references in the CSV, the rewrite changed $changed lines"
  ref=$registry/memcached-operator-bundle:v$v
  inputs=$( (cd "$dir" && find bundle bundle.Dockerfile -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-64)
  if [ "$(skopeo inspect --tls-verify=false --format '{{index .Labels "local.inputs"}}' "docker://$ref" 2>/dev/null)" = "$inputs" ]; then
    step "$v: $ref is up to date"
  else
    buildah bud --quiet --isolation chroot --timestamp 0 --ignorefile /dev/null --label "local.inputs=$inputs" \
      -f "$dir/bundle.Dockerfile" -t "$ref" "$dir" >/dev/null
    buildah push --quiet --tls-verify=false "$ref" "docker://$ref"
    buildah rmi "$ref" >/dev/null 2>&1 || true
    step "$v: pushed $ref (CSV: operator $operator, memcached $memcached)"
  fi
  "$root/hack/images/local-images.sh" record "BUNDLE_IMAGE_$key" "$ref" | sed 's/^\[ *[0-9.]*s\] //'
done

# The catalog images (see the header). Versions compare as X.Y.Z (the catalog has no pre-release).
mapfile -t sorted < <(printf '%s\n' "${versions[@]}" | sort -V)
oldest=${sorted[0]} newest=${sorted[-1]}
mapfile -t wanted < <(ls "$catalog/bundles" | sed -n 's/^memcached-operator\.v\(.*\)\.yaml$/\1/p' | sort -V |
  awk -v max="$newest" '{ print } $0 == max { exit }')
[ "${wanted[*]}" = "${sorted[*]}" ] || die "a catalog needs every release of catalog/ up to $newest (${wanted[*]}), got ${sorted[*]}"
"$root/hack/images/local-images.sh" opm | tail -n 1

cat_dir=$work/catalog
mkdir -p "$cat_dir"
"$OPM" render "$catalog" -o json | jq -c . >"$work/committed.json"
jq -c 'select(.schema != "olm.bundle")' "$work/committed.json" >"$cat_dir/meta.json"
# objects BLOB: the bundle's inline objects (olm.bundle.object), decoded, one sorted JSON per line.
objects() { jq -c '.properties[] | select(.type == "olm.bundle.object") | .value.data | @base64d | fromjson' "$1" | jq -cS . | LC_ALL=C sort; }
for v in "${versions[@]}"; do
  bundle=$(sed -n "s/^BUNDLE_IMAGE_V$(tr '.' '_' <<<"$v")=//p" "$REGISTRY_DIR/images.env")
  operator=$(sed -n "s/^OPERATOR_IMAGE_V$(tr '.' '_' <<<"$v")=//p" "$REGISTRY_DIR/images.env")
  "$OPM" render --use-http "$bundle" -o json >"$cat_dir/bundle-$v.json" 2>"$work/render-$v.log" ||
    { cat "$work/render-$v.log" >&2; die "$v: opm render $bundle failed"; }
  jq -c --arg name "memcached-operator.v$v" 'select(.schema == "olm.bundle" and .name == $name)' "$work/committed.json" >"$work/committed-$v.json"
  [ -s "$work/committed-$v.json" ] || die "$v: no bundle memcached-operator.v$v in catalog/"
  public_memcached=$(awk -v v="$v" '$1 == v { print $2 }' "$work/memcached-images")
  objects "$work/committed-$v.json" | sed -E -e "s#$(operator_ref "$v")\"#$operator\"#g" -e "s#${public_memcached//./\\.}\"#$memcached\"#g" >"$work/want-$v"
  objects "$cat_dir/bundle-$v.json" >"$work/got-$v"
  if diff -q "$work/want-$v" "$work/got-$v" >/dev/null; then
    continue
  fi
  # The Makefile's VERSION built from HEAD is the working tree's bundle/: once the code changes what
  # the bundle holds (a CRD field, an RBAC rule) it differs from the committed release of that
  # version until the next release, and the tests must run the code under its own CSV (make
  # test-olm does the same on the kwok tier: CATALOG_HEAD_BUNDLE). A release from hack/release/releases
  # must match catalog/ exactly.
  if [ "$v" = "$head_version" ] && ! awk -v v="$v" '$1 == v { found = 1 } END { exit !found }' "$root/hack/release/releases"; then
    step "$v: served from HEAD's bundle/, which differs from the committed release in $(diff "$work/want-$v" "$work/got-$v" | grep -c '^>' || true) of its objects"
    continue
  fi
  { diff "$work/want-$v" "$work/got-$v" | head -c 3000 >&2 || true; }
  die "$v: the local bundle's objects differ from catalog/ beyond the image references"
done

# catalog_image TAG MAX KEY: the catalog of the versions up to MAX, built and pushed as TAG.
catalog_image() {
  local tag=$1 max=$2 key=$3 ctx=$work/ctx-$1 ref=$registry/memcached-operator-catalog:$1 inputs
  mkdir -p "$ctx/catalog/memcached-operator"
  cat "$cat_dir"/bundle-*.json "$cat_dir/meta.json" | jq -cs --arg max "$max" '
    def ver: split(".") | map(tonumber);
    ([.[] | select(.schema == "olm.bundle") | select((.properties[] | select(.type == "olm.package") | .value.version | ver) <= ($max | ver)) | .name]) as $keep
    | .[]
    | select(.schema != "olm.bundle" or (.name | IN($keep[])))
    | if .schema == "olm.channel" then
        .entries |= map(select(.name | IN($keep[]))
          | if (.replaces // "") != "" and (.replaces | IN($keep[]) | not) then del(.replaces) else . end
          | if .skips then .skips |= map(select(IN($keep[]))) else . end)
        | select(.entries | length > 0)
      elif .schema == "olm.deprecations" then
        .entries |= map(select(.reference.schema != "olm.bundle" or (.reference.name | IN($keep[]))))
      else . end' >"$ctx/catalog/memcached-operator/catalog.json"
  "$OPM" validate "$ctx/catalog" || die "the local catalog $tag does not validate"
  cp "$root/catalog.Dockerfile" "$ctx/"
  inputs=$( (cd "$ctx" && sha256sum catalog.Dockerfile catalog/memcached-operator/catalog.json; echo "$OPM_IMAGE_REF") | sha256sum | cut -c1-64)
  if [ "$(skopeo inspect --tls-verify=false --format '{{index .Labels "local.inputs"}}' "docker://$ref" 2>/dev/null)" = "$inputs" ]; then
    step "catalog $ref is up to date"
  else
    buildah bud --quiet --isolation chroot --timestamp 0 --tls-verify=false --build-arg "OPM_IMAGE=$OPM_IMAGE_REF" \
      --label "local.inputs=$inputs" -f "$ctx/catalog.Dockerfile" -t "$ref" "$ctx" >"$work/catalog-$tag.log" 2>&1 ||
      { tail -n 20 "$work/catalog-$tag.log" >&2; die "building the catalog image $ref failed"; }
    buildah push --quiet --tls-verify=false "$ref" "docker://$ref"
    buildah rmi "$ref" >/dev/null 2>&1 || true
    step "pushed catalog $ref: $(jq -r 'select(.schema == "olm.channel") | "\(.name) -> \(.entries[-1].name)"' "$ctx/catalog/memcached-operator/catalog.json" | paste -sd' ')"
  fi
  "$root/hack/images/local-images.sh" record "$key" "$ref" | sed 's/^\[ *[0-9.]*s\] //'
}
OPM_IMAGE_REF=$(sed -n 's/^OPM_IMAGE=//p' "$REGISTRY_DIR/images.env")
[[ $OPM_IMAGE_REF == *@sha256:* ]] || die "no OPM_IMAGE by digest in $REGISTRY_DIR/images.env"
catalog_image olm-real "$newest" OLM_REAL_CATALOG_IMAGE
catalog_image "olm-real-v$oldest" "$oldest" OLM_REAL_CATALOG_IMAGE_OLDEST
if [ ${#sorted[@]} -gt 1 ]; then
  catalog_image "olm-real-v${sorted[-2]}" "${sorted[-2]}" OLM_REAL_CATALOG_IMAGE_PREVIOUS
fi
step "done: ${versions[*]}; digests in $REGISTRY_DIR/images.env"
