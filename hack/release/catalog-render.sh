#!/usr/bin/env bash
# catalog-render.sh [render|check|build VERSION [TAG]] — the catalog rendered from its template.
#
#   render (make catalog-render)        renders catalog-template/memcached-operator.yaml into
#                                       catalog/memcached-operator (replacing it).
#   check  (make catalog-check-render)  renders into a temporary directory and fails when it differs
#                                       from the committed catalog/memcached-operator (freshness check).
#   build VERSION [TAG]                 builds and pushes the bundle image of VERSION (as TAG, default
#                                       vVERSION) and prints its digest (what `make catalog` pins in the
#                                       template).
#
# Each release's bundle image is built reproducibly from its source: `git archive` of its commit
# (bundle.Dockerfile and bundle/ only, modes normalised to 0644/0755) — the one in hack/release/releases,
# else the commit that added its bundle to catalog/ — or, for the Makefile's VERSION when no commit
# has it yet (a release being cut), the work tree's;
# built with --timestamp 0, so the same sources always give the same digest. It is pushed to the
# local registry as $REGISTRY/memcached-operator-bundle:vVERSION, and its digest must be the one the
# template pins for that release (registry.example.com/memcached-operator-bundle@sha256:...),
# otherwise the script fails: the release's published bundle is not what its commit builds.
#
# Then `catalog-tool render` runs `opm alpha render-template basic --use-http` on the template with
# the bundle images renamed to the local registry (same digests) and maps the names back to the
# public ones (why: see ImageMap in hack/catalog/template.go), checks the result (catalog-tool
# check's rules) and writes it in our layout (package.yaml, channels.yaml, deprecations.yaml,
# bundles/<bundle>.yaml).
#
# The build uses CONTAINER_TOOL (hack/images/container-tool.sh) when it is buildah or podman (buildah's
# library; `podman build --timestamp 0`). The pinned digests are buildah's builds: its
# io.buildah.version label is in each image's config, so they match only a buildah of the version
# the releases were built with (the check names the digest it got). docker cannot reproduce them (no
# --timestamp, no such label): with docker the build falls back to buildah, and fails without it.
#
# Needs the local registry (hack/images/registry.sh start; make registry-up), buildah or podman and git
# history of every release commit. Environment (defaults): CONTAINER_TOOL=see above
#   REGISTRY_PORT=5000 BUILDAH_DIR=<repo>/.buildah (buildah's storage)
#   OPM=<repo>/bin/opm CATALOG_TOOL=<repo>/bin/catalog-tool VERSION=<the Makefile's VERSION>
#   CATALOG_TEMPLATE=catalog-template/memcached-operator.yaml
#   CATALOG_BUNDLE_REPO=registry.example.com/memcached-operator-bundle
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
REGISTRY_PORT=${REGISTRY_PORT:-5000}
BUILDAH_DIR=${BUILDAH_DIR:-$root/.buildah}
OPM=${OPM:-$root/bin/opm}
CATALOG_TOOL=${CATALOG_TOOL:-$root/bin/catalog-tool}
head_version=${VERSION:-$(sed -n 's/^VERSION ?= //p' Makefile)}
template=${CATALOG_TEMPLATE:-catalog-template/memcached-operator.yaml}
pkg_dir=catalog/memcached-operator
public_repo=${CATALOG_BUNDLE_REPO:-registry.example.com/memcached-operator-bundle}
local_repo=127.0.0.1:$REGISTRY_PORT/memcached-operator-bundle
t0=$(date +%s%N)
# shellcheck source=../lib/procs.sh
. "$root/hack/lib/procs.sh"
# shellcheck source=../lib/release.sh
. "$root/hack/lib/release.sh"
buildah() { command buildah --root "$BUILDAH_DIR/storage" --runroot "$BUILDAH_DIR/run" --storage-driver vfs "$@"; }
CONTAINER_TOOL=${CONTAINER_TOOL:-$("$root/hack/images/container-tool.sh")}
case $CONTAINER_TOOL in
  buildah | podman) bundle_tool=$CONTAINER_TOOL ;;
  *)
    command -v buildah >/dev/null || die "the bundle images must be built reproducibly with buildah or podman (--timestamp 0); CONTAINER_TOOL=$CONTAINER_TOOL cannot, and neither is installed"
    bundle_tool=buildah
    echo ">> bundle images: buildah, not CONTAINER_TOOL=$CONTAINER_TOOL (reproducible builds need --timestamp 0)" >&2 ;;
esac
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}" no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"

mode=${1:-render}
case $mode in
  render | check) [ $# -le 1 ] || die "usage: catalog-render.sh [render|check|build VERSION [TAG]]" ;;
  build) [ $# = 2 ] || [ $# = 3 ] || die "usage: catalog-render.sh build VERSION [TAG]" ;;
  *) die "usage: catalog-render.sh [render|check|build VERSION [TAG]]" ;;
esac
curl -fsS -o /dev/null "http://127.0.0.1:$REGISTRY_PORT/v2/" ||
  die "no registry on 127.0.0.1:$REGISTRY_PORT: start it (make registry-up, or REGISTRY_PORT=$REGISTRY_PORT hack/images/registry.sh start)"

work=$(mktemp -d "${TMPDIR:-/tmp}/catalog-render.XXXXXX")
trap 'rm -rf "$work"' EXIT

# build_bundle VERSION [TAG]: builds and pushes the bundle image of VERSION as TAG (default
# vVERSION); prints its digest.
build_bundle() {
  local v=$1 tag=${2:-v$1} ctx=$work/ctx-$1 commit
  mkdir -p "$ctx"
  commit=$(release_commit "$v")
  if [ -n "$commit" ]; then
    git cat-file -e "$commit^{commit}" 2>/dev/null || die "commit $commit of $v is not in this clone (git fetch --unshallow)"
    git archive "$commit" bundle.Dockerfile bundle | tar -x -C "$ctx"
  elif [ "$v" = "$head_version" ]; then
    cp -r bundle.Dockerfile bundle "$ctx/"
  else
    die "version $v is neither in hack/release/releases nor the Makefile's VERSION $head_version"
  fi
  # The same modes whatever the umask or checkout (COPY keeps them, and they are in the digest).
  find "$ctx" -type d -exec chmod 0755 {} +
  find "$ctx" -type f -exec chmod 0644 {} +
  if [ "$bundle_tool" = podman ]; then
    podman build --timestamp 0 --quiet -f "$ctx/bundle.Dockerfile" -t "$local_repo:$tag" "$ctx" >/dev/null
    podman push --quiet --tls-verify=false --digestfile "$ctx.digest" "$local_repo:$tag" >/dev/null
  else
    buildah bud --isolation chroot --timestamp 0 --quiet -f "$ctx/bundle.Dockerfile" -t "$local_repo:$tag" "$ctx" >/dev/null
    buildah push --quiet --tls-verify=false --digestfile "$ctx.digest" "$local_repo:$tag" >/dev/null
  fi
  cat "$ctx.digest"
}

if [ "$mode" = build ]; then
  build_bundle "${2#v}" ${3:+"$3"}
  exit 0
fi

[ -x "$CATALOG_TOOL" ] || die "$CATALOG_TOOL not found (make catalog-tool)"
n=0
while read -r name version image; do
  want=${image#"$public_repo@"}
  [ "$want" != "$image" ] || die "$template: bundle $name has image $image, not $public_repo@sha256:..."
  got=$(build_bundle "$version")
  [ "$got" = "$want" ] || die "bundle $name: the image built from its source has digest $got, but $template pins $want.
  The template must pin the digest of the reproducible build of that release (hack/release/releases gives its commit);
  a released bundle is never rewritten."
  n=$((n + 1))
done < <("$CATALOG_TOOL" template-bundles -template "$template")
step "built and pushed $n bundle images to $local_repo; digests match the template"

"$CATALOG_TOOL" render -template "$template" -opm "$OPM" -image-map "$public_repo=$local_repo" -use-http -out "$work/out" >/dev/null
step "rendered $template with opm alpha render-template basic"

if [ "$mode" = check ]; then
  diff -ru "$pkg_dir" "$work/out" >"$work/diff" || {
    cat "$work/diff" | cut -c1-300
    die "$pkg_dir is stale: it is not what $template renders to (run make catalog-render and commit; edit the template, not catalog/)"
  }
  step "$pkg_dir is what $template renders to"
else
  rm -rf "$pkg_dir"
  mkdir -p "$(dirname "$pkg_dir")"
  cp -r "$work/out" "$pkg_dir"
  step "wrote $pkg_dir"
fi
