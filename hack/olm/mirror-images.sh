#!/usr/bin/env bash
# mirror-images.sh VERSION — fill the local registry as a disconnected cluster's mirror registry is
# filled (oc-mirror, skopeo copy --preserve-digests) for release VERSION of the committed catalog
# (make olm-real-images passes MIRROR_VERSION), under the paths the real node's containerd serves
# the public hosts from (hack/lib/node.sh: registry.example.com/P and docker.io/P are $REGISTRY/P),
# so the committed catalog and that release run on the node unchanged, every public name and digest
# untouched (test/olmreal and test/olmv1real TestMirroredCatalog). VERSION must be a release of
# hack/release/releases, built wholly from its own commit (the Makefile's VERSION is served from
# HEAD by the other OLM tests), whose images all have a stand-in here (step 3).
#
#   1. The catalog image of catalog/ as committed in HEAD (git archive, catalog.Dockerfile on the
#      local opm image) under its public name, the Makefile's CATALOG_IMG
#      (registry.example.com/memcached-operator-catalog:latest). The steps below read that catalog.
#   2. Every bundle image it pins (registry.example.com/memcached-operator-bundle@sha256:...), each
#      rebuilt reproducibly from its release's commit (hack/release/catalog-render.sh build, tag
#      mirror-vX.Y.Z, beside the tags the other tests push) with the pinned digest: OLM v0 unpacks the
#      bundle a channel offers next even while a Subscription's manual approval holds the upgrade.
#   3. Every other image VERSION's bundle names (its relatedImages: the operator image and the
#      memcached image), copied with its digest kept from what stands in for the public image here:
#      the operator image that release's commit builds (OPERATOR_IMAGE_V<X_Y_Z> of images.env, pushed
#      by hack/olm/olm-real-images.sh) and memcached's local stand-in (MEMCACHED_IMAGE,
#      hack/images/local-images.sh memcached): the official image cannot be pulled here, so that
#      digest is the stand-in's (the released CSVs up to 0.2.3 name both by tag).
# Then every image VERSION needs is checked under its public name as containerd resolves it through
# the mirror (the local registry must serve that path, tag or digest), and $REGISTRY_DIR/mirror.env
# records what the tests check: MIRROR_VERSION, MIRROR_CATALOG_IMAGE/_DIGEST, MIRROR_BUNDLE_IMAGE,
# MIRROR_OPERATOR_IMAGE/_DIGEST, MIRROR_MEMCACHED_IMAGE/_DIGEST.
#
# Environment (defaults): REGISTRY_DIR=<repo>/.registry  REGISTRY_PORT=5000  BUILDAH_DIR=<repo>/.buildah
#   OPM=<repo>/bin/opm  CATALOG_IMG=registry.example.com/memcached-operator-catalog:latest
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
REGISTRY_DIR=${REGISTRY_DIR:-$root/.registry}
REGISTRY_PORT=${REGISTRY_PORT:-5000}
BUILDAH_DIR=${BUILDAH_DIR:-$root/.buildah}
OPM=${OPM:-$root/bin/opm}
CATALOG_IMG=${CATALOG_IMG:-registry.example.com/memcached-operator-catalog:latest}
export REGISTRY_DIR REGISTRY_PORT BUILDAH_DIR
registry=127.0.0.1:$REGISTRY_PORT
t0=$(date +%s%N)
# shellcheck source=../lib/procs.sh
. "$root/hack/lib/procs.sh"
buildah() { command buildah --root "$BUILDAH_DIR/storage" --runroot "$BUILDAH_DIR/run" --storage-driver vfs "$@"; }
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}" no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"

[ $# = 1 ] || die "usage: mirror-images.sh VERSION (make olm-real-images passes MIRROR_VERSION)"
version=${1#v}
awk -v v="$version" '$1 == v && NF == 2 { found = 1 } END { exit !found }' hack/release/releases ||
  die "$version is not a release of hack/release/releases (one built from its own commit)"
[ -x "$OPM" ] || die "no $OPM (make opm)"
env_of() { { sed -n "s/^$1=//p" "$REGISTRY_DIR/images.env" 2>/dev/null || true; } | tail -n1; }
key=V$(tr '.' '_' <<<"$version")

# local_ref PUBLIC: the local registry's reference containerd pulls PUBLIC from (hack/lib/node.sh).
local_ref() {
  case $1 in
    registry.example.com/* | docker.io/*) echo "$registry/${1#*/}" ;;
    *) die "$1: no mirror of its host on the node (hack/lib/node.sh serves registry.example.com and docker.io)" ;;
  esac
}
digest_of() { skopeo inspect --tls-verify=false --format '{{.Digest}}' "docker://$1"; }

work=$(mktemp -d "${TMPDIR:-/tmp}/mirror-images.XXXXXX")
trap 'rm -rf "$work"' EXIT

# ------------------------------------------------------------------------ 1. the catalog image
mkdir -p "$work/ctx"
git archive HEAD catalog catalog.Dockerfile | tar -x -C "$work/ctx"
git diff --quiet HEAD -- catalog catalog.Dockerfile || step "note: catalog/ differs from HEAD in the work tree; the mirror holds HEAD's"
opm_image=$(env_of OPM_IMAGE)
[[ $opm_image == *@sha256:* ]] || die "no OPM_IMAGE in $REGISTRY_DIR/images.env: run hack/images/local-images.sh opm"
catalog_local=$(local_ref "$CATALOG_IMG")
buildah bud --quiet --isolation chroot --timestamp 0 --tls-verify=false --build-arg "OPM_IMAGE=$opm_image" \
  -f "$work/ctx/catalog.Dockerfile" -t "$catalog_local" "$work/ctx" >"$work/catalog.log" 2>&1 ||
  { tail -n 20 "$work/catalog.log" >&2; die "building the catalog image failed"; }
buildah push --quiet --tls-verify=false "$catalog_local" "docker://$catalog_local"
buildah rmi "$catalog_local" >/dev/null 2>&1 || true
step "catalog: $CATALOG_IMG is $catalog_local, catalog/ of HEAD ($(git rev-parse --short=12 HEAD))"

# ----------------------------------------------------------------------------- 2. the bundles
"$OPM" render "$work/ctx/catalog/memcached-operator" -o json | jq -c 'select(.schema == "olm.bundle")' >"$work/bundles.json"
jq -c --arg name "memcached-operator.v$version" 'select(.name == $name)' "$work/bundles.json" >"$work/bundle.json"
[ -s "$work/bundle.json" ] || die "no bundle memcached-operator.v$version in catalog/"
bundle_image=$(jq -r .image "$work/bundle.json")
while read -r v image; do
  [[ $image == registry.example.com/memcached-operator-bundle@sha256:* ]] ||
    die "the catalog names bundle $image, not registry.example.com/memcached-operator-bundle@sha256:..."
  got=$(REGISTRY_PORT=$REGISTRY_PORT hack/release/catalog-render.sh build "$v" "mirror-v$v")
  [ "$got" = "${image#*@}" ] || die "the bundle of $v built from its commit has digest $got, the catalog pins ${image#*@}"
done < <(jq -r '[(.properties[] | select(.type == "olm.package") | .value.version), .image] | @tsv' "$work/bundles.json")
step "bundles: $(jq -s length "$work/bundles.json") rebuilt from their commits with the digests the catalog pins; $version's is $bundle_image"

# ------------------------------------------------------------- 3. the images VERSION's bundle names
mapfile -t related < <(jq -r '.relatedImages[].image' "$work/bundle.json" | grep -vxF "$bundle_image")
for public in "${related[@]}"; do
  case $public in
    registry.example.com/memcached-operator:* | registry.example.com/memcached-operator@*) src=$(env_of "OPERATOR_IMAGE_$key") hint="hack/olm/olm-real-images.sh $version" ;;
    docker.io/library/memcached:* | docker.io/library/memcached@*) src=$(env_of MEMCACHED_IMAGE) hint="hack/images/local-images.sh memcached" ;;
    *) die "release $version names $public, which this script has no stand-in for" ;;
  esac
  [[ $src == *@sha256:* ]] || die "no local image for $public in $REGISTRY_DIR/images.env: run $hint"
  dest=$(local_ref "$public")
  # A reference by digest is served under that digest (a mirror keeps digests); by tag, under the tag.
  if [[ $dest == *@sha256:* ]] && [ "${dest#*@}" != "${src#*@}" ]; then
    die "$public is pinned by a digest the local stand-in $src does not have"
  fi
  skopeo copy --quiet --preserve-digests --src-tls-verify=false --dest-tls-verify=false "docker://$src" "docker://$dest"
  step "$public: $dest (from $src)"
done

# ---------------------------------------------------------------------- what the node will pull
for public in "$CATALOG_IMG" "$bundle_image" "${related[@]}"; do
  d=$(digest_of "$(local_ref "$public")") || die "$public: the local registry does not serve $(local_ref "$public")"
  printf '  %-72s %s\n' "$public" "$d"
done
operator=$(printf '%s\n' "${related[@]}" | grep -m1 '^registry\.example\.com/memcached-operator[:@]' || true)
memcached=$(printf '%s\n' "${related[@]}" | grep -m1 '^docker\.io/library/memcached[:@]' || true)
[ -n "$operator" ] && [ -n "$memcached" ] || die "release $version's bundle names no operator or no memcached image: ${related[*]}"
{
  echo "MIRROR_VERSION=$version"
  echo "MIRROR_CATALOG_IMAGE=$CATALOG_IMG"
  echo "MIRROR_CATALOG_DIGEST=$(digest_of "$catalog_local")"
  echo "MIRROR_BUNDLE_IMAGE=$bundle_image"
  echo "MIRROR_OPERATOR_IMAGE=$operator"
  echo "MIRROR_OPERATOR_DIGEST=$(digest_of "$(local_ref "$operator")")"
  echo "MIRROR_MEMCACHED_IMAGE=$memcached"
  echo "MIRROR_MEMCACHED_DIGEST=$(digest_of "$(local_ref "$memcached")")"
} >"$REGISTRY_DIR/mirror.env"
step "done: $REGISTRY_DIR/mirror.env"
