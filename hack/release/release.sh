#!/usr/bin/env bash
# release.sh VERSION — cut release VERSION (make release VERSION=x.y.z): bump, bundle, images by
# digest, candidate. Run from a clean work tree of the release commit's parent; it edits the files
# a release commit holds and prints them; nothing is committed.
#
#   1. Refuses when VERSION is not semver, is already in catalog/ (released bundles are never
#      rewritten), is not newer than every release, or CHANGELOG.md has no "## VERSION" section (the
#      release's author writes it first), or bundle/'s CRDs fail OLM v1's CRD upgrade-safety
#      rules against a released bundle.
#   2. Records the previous release's commit in hack/release/releases (the commit that added its bundle to
#      catalog/), so the OLM upgrade tests can build that release's operator.
#   3. On a connected machine, resolves the memcached image (the operand, RELATED_IMAGE_MEMCACHED)
#      and the exporter's (RELATED_IMAGE_MEMCACHED_EXPORTER) of config/manager/manager.yaml
#      (MEMCACHED_IMAGE, when set, for memcached) to digests with skopeo and writes them back. The
#      local tier cannot reach the public registries and keeps their tags.
#   4. Bumps VERSION in the Makefile, builds the operator image and pushes it as
#      PUSH_TAG_BASE:vVERSION (make docker-build docker-push), resolves its digest and writes
#      IMG_DIGEST (and, when RELEASE_TAG_BASE is not the Makefile's IMAGE_TAG_BASE, IMAGE_TAG_BASE)
#      into the Makefile, so `make bundle` (and bundle-check) reproduce the pinned bundle from the
#      committed sources: the CSV names RELEASE_TAG_BASE@<digest>.
#   5. When every image is pinned (connected), marks the CSV base
#      features.operators.openshift.io/disconnected "true" (`catalog-tool check-disconnected`
#      enforces that the claim holds), regenerates and validates bundle/ (make bundle).
#   6. Builds the bundle image reproducibly (hack/release/catalog-render.sh build VERSION), pushes it to the
#      local registry and as PUSH_TAG_BASE-bundle:vVERSION (same digest, checked), and adds the
#      release to the catalog template as the head of candidate, pinned by that digest under the public
#      name (make catalog BUNDLE_DIGEST=sha256:...), which renders catalog/ with opm and validates it.
#
# CONTAINER_TOOL (hack/images/container-tool.sh: docker, else podman, else buildah; `make release` passes the
# Makefile's) builds and pushes the operator image and builds the bundle image; skopeo copies the
# bundle image to PUSH_TAG_BASE with its digest unchanged. RELEASE_TAG_BASE is what the bundle
# and the catalog name: the Makefile's IMAGE_TAG_BASE (the public names) unless set. PUSH_TAG_BASE
# is where the images are pushed: RELEASE_TAG_BASE on a connected machine (CONTAINER_TOOL docker or
# podman, which build from the public base images); in the local tier (buildah, the local base
# images, no route to the public registries) LOCAL_IMAGE_TAG_BASE, the local registry
# (127.0.0.1:REGISTRY_PORT/memcached-operator). An image is named by its digest, which is its
# content: the local tier's release names the public repository with the digest of the image it
# pushed locally, and publishing it is copying those bytes (`skopeo copy --all` by digest, printed
# at the end; docs/releasing.md). What the local tier cannot do is resolve the public operand
# images (memcached, the exporter) to digests: it keeps their tags from config/manager, and the CSV
# keeps features.operators.openshift.io/disconnected "false" (a connected release pins them).
#
# Stops at the first failure; the files it edited are then undone with `git checkout -- Makefile
# config/manager config/manifests/bases bundle catalog catalog-template hack/release/releases` (it refuses to start when they
# have uncommitted changes). Needs skopeo (digests, the bundle copy) and a CONTAINER_TOOL.
#
# Environment (defaults): MAKE=make  RELEASE_TAG_BASE=see above  REGISTRY_DIR=<repo>/.registry
#   REGISTRY_PORT=5000  MEMCACHED_IMAGE=<RELATED_IMAGE_MEMCACHED of config/manager/manager.yaml> (connected only)
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
MAKE=${MAKE:-make}
REGISTRY_DIR=${REGISTRY_DIR:-$root/.registry}
REGISTRY_PORT=${REGISTRY_PORT:-5000}
t0=$(date +%s%N)
# shellcheck source=../lib/procs.sh
. "$root/hack/lib/procs.sh"
# shellcheck source=../lib/release.sh
. "$root/hack/lib/release.sh"
die() { echo "release: $*" >&2; exit 1; }

[ $# = 1 ] || die "usage: release.sh VERSION (make release VERSION=x.y.z)"
version=${1#v}
pkg_dir=catalog/memcached-operator

# ---------------------------------------------------------------------------------- 1. refusals
# catalog-tool check-release refuses a version that is released, not newer than every release in
# semver order (0.3.0-rc.1 < 0.3.0), or without a non-empty CHANGELOG.md section; it prints the
# release this one follows.
previous=$("$root/bin/catalog-tool" check-release -dir "$pkg_dir" -changelog CHANGELOG.md -version "$version") || die "cannot release $version (above)"
# catalog-tool check-crd-upgrade refuses the release when a CRD in bundle/ fails OLM v1's CRD
# upgrade-safety rules against a released bundle (its skipRange covers them all), naming the field
# and the rule, before anything is built or pushed.
"$root/bin/catalog-tool" check-crd-upgrade -dir "$pkg_dir" -bundle-dir bundle || die "cannot release $version: OLM v1 would refuse the upgrade (above)"
edited=(Makefile config/manager config/manifests/bases bundle catalog catalog-template hack/release/releases)
dirty=$(git status --porcelain -- "${edited[@]}")
[ -z "$dirty" ] || die "uncommitted changes in the files a release edits (commit them first, so a failed release is undone by 'git checkout -- ${edited[*]}'):
$dirty"
for c in skopeo git; do command -v "$c" >/dev/null || die "$c not found"; done

CONTAINER_TOOL=${CONTAINER_TOOL:-$("$root/hack/images/container-tool.sh")}
export CONTAINER_TOOL
connected=0
case $CONTAINER_TOOL in docker | podman) connected=1 ;; esac
makefile_base=$(sed -n 's/^IMAGE_TAG_BASE ?= //p' Makefile)
local_base=${LOCAL_IMAGE_TAG_BASE:-127.0.0.1:$REGISTRY_PORT/memcached-operator}
RELEASE_TAG_BASE=${RELEASE_TAG_BASE:-$makefile_base}
if [ -z "${PUSH_TAG_BASE:-}" ]; then
  if [ $connected = 1 ]; then PUSH_TAG_BASE=$RELEASE_TAG_BASE; else PUSH_TAG_BASE=$local_base; fi
fi
step "releasing $version (previous $previous): images named $RELEASE_TAG_BASE, pushed to $PUSH_TAG_BASE"

# digest-of IMAGE: the digest of IMAGE in its registry (plain HTTP on loopback).
digest_of() {
  local tls=()
  case $1 in 127.0.0.1:* | localhost:*) tls=(--tls-verify=false) ;; esac
  skopeo inspect "${tls[@]}" --format '{{.Digest}}' "docker://$1"
}

# ------------------------------------------------------------------- 2. previous release's commit
if [ -n "$previous" ] && ! grep -q "^$previous " hack/release/releases; then
  commit=$(git log --diff-filter=A --format=%H -1 -- "$pkg_dir/bundles/memcached-operator.v$previous.yaml")
  [ -n "$commit" ] || die "cannot find the commit that added release $previous to $pkg_dir"
  echo "$previous $commit" >>hack/release/releases
  step "hack/release/releases: $previous $commit"
fi

# ------------------------------------------------------------------ 3. memcached and exporter images
# pin_related NAME KEY HINT: resolve the image of RELATED_IMAGE_<NAME> in config/manager/manager.yaml
# to a digest and write it back: on a connected machine the public image it names resolved with
# skopeo; in the local tier the local stand-in recorded as KEY in images.env (built by HINT).
pin_related() {
  local name=$1 key=$2 hint=$3 public repo pinned
  public=$(related_image config/manager/manager.yaml "$name")
  [ -n "$public" ] || die "no RELATED_IMAGE_$name in config/manager/manager.yaml"
  if [ $connected = 1 ]; then
    repo=${public%%@*}
    [[ ${repo##*/} == *:* ]] && repo=${repo%:*} # drop the tag (a ':' after the last '/')
    pinned="$repo@$(digest_of "$public")"
    [[ $pinned == *@sha256:* ]] || die "could not resolve $public to a digest"
  else
    pinned=$(sed -n "s/^$key=//p" "$REGISTRY_DIR/images.env" 2>/dev/null || true)
    [[ $pinned == *@sha256:* ]] || die "no $key by digest in $REGISTRY_DIR/images.env: run $hint"
  fi
  pin_related_image config/manager/manager.yaml "$name" "$pinned" || die "cannot pin RELATED_IMAGE_$name (above)"
  step "RELATED_IMAGE_$name=$pinned"
}
if [ $connected = 1 ] && [ -n "${MEMCACHED_IMAGE:-}" ]; then
  pin_related_image config/manager/manager.yaml MEMCACHED "$MEMCACHED_IMAGE" || die "cannot set RELATED_IMAGE_MEMCACHED (above)"
fi
if [ $connected = 1 ]; then
  pin_related MEMCACHED MEMCACHED_IMAGE "hack/images/local-images.sh memcached"
  pin_related MEMCACHED_EXPORTER MEMCACHED_EXPORTER_IMAGE "make real-images"
else
  step "RELATED_IMAGE_MEMCACHED=$(related_image config/manager/manager.yaml MEMCACHED) and RELATED_IMAGE_MEMCACHED_EXPORTER=$(related_image config/manager/manager.yaml MEMCACHED_EXPORTER) stay by tag: their digests need the public registries (a connected release pins them)"
fi

# ----------------------------------------------------------------------- 4. the operator image
sed -i "s/^VERSION ?= .*/VERSION ?= $version/; s/^IMG_DIGEST ?=.*/IMG_DIGEST ?=/" Makefile
[ "$RELEASE_TAG_BASE" = "$makefile_base" ] || sed -i "s#^IMAGE_TAG_BASE ?= .*#IMAGE_TAG_BASE ?= $RELEASE_TAG_BASE#" Makefile
"$MAKE" --no-print-directory docker-build docker-push IMG="$PUSH_TAG_BASE:v$version" CONTAINER_TOOL="$CONTAINER_TOOL"
img_digest=$(digest_of "$PUSH_TAG_BASE:v$version")
sed -i "s/^IMG_DIGEST ?=.*/IMG_DIGEST ?= $img_digest/; s#^IMG_DIGEST_BASE ?=.*#IMG_DIGEST_BASE ?= $RELEASE_TAG_BASE#" Makefile
step "operator image $RELEASE_TAG_BASE@$img_digest (pushed as $PUSH_TAG_BASE:v$version)"

# ------------------------------------------------------------------------------------ 5. bundle
if [ $connected = 1 ]; then
  sed -i 's/^\(    features.operators.openshift.io\/disconnected: \).*/\1"true"/' config/manifests/bases/memcached-operator.clusterserviceversion.yaml
fi
"$MAKE" --no-print-directory bundle
"$root/bin/catalog-tool" check-disconnected -bundle-dir bundle

# -------------------------------------------------------------------------- 6. bundle, catalog
# The bundle image is built reproducibly (hack/release/catalog-render.sh build: the same build
# `make catalog-render` repeats for every release), pushed to the local registry, then published
# under RELEASE_TAG_BASE-bundle; the template pins its digest.
bundle_digest=$(REGISTRY_PORT=$REGISTRY_PORT "$root/hack/release/catalog-render.sh" build "$version")
local_bundle=127.0.0.1:$REGISTRY_PORT/memcached-operator-bundle
if [ "$PUSH_TAG_BASE-bundle" != "$local_bundle" ]; then
  # skopeo copies registry to registry without recompressing, so the digest stays the one pinned
  # (a docker pull/tag/push could recompress the layer); it reads docker's and podman's logins.
  tls=()
  case $PUSH_TAG_BASE in 127.0.0.1:* | localhost:*) tls=(--dest-tls-verify=false) ;; esac
  skopeo copy --quiet --src-tls-verify=false "${tls[@]}" "docker://$local_bundle:v$version" "docker://$PUSH_TAG_BASE-bundle:v$version"
  [ "$(digest_of "$PUSH_TAG_BASE-bundle:v$version")" = "$bundle_digest" ] ||
    die "$PUSH_TAG_BASE-bundle:v$version does not have the digest of the reproducible build ($bundle_digest)"
fi
"$MAKE" --no-print-directory catalog BUNDLE_DIGEST="$bundle_digest"
step "bundle image $RELEASE_TAG_BASE-bundle@$bundle_digest is the head of candidate (catalog-template/, catalog/)"

if [ "$PUSH_TAG_BASE" != "$RELEASE_TAG_BASE" ]; then
  step "publish (same bytes, same digests) from a machine that reaches the public registry:"
  echo "  skopeo copy --all docker://$PUSH_TAG_BASE@$img_digest docker://$RELEASE_TAG_BASE:v$version"
  echo "  skopeo copy --all docker://$local_bundle@$bundle_digest docker://$RELEASE_TAG_BASE-bundle:v$version"
fi
step "released $version into candidate; review and commit:"
git status --short -- Makefile config bundle catalog catalog-template hack/release/releases CHANGELOG.md
echo "promote it after soak: make promote VERSION=$version CHANNEL=fast, later CHANNEL=stable"
