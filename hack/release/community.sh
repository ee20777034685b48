#!/usr/bin/env bash
# community.sh VERSION OUT — writes the OperatorHub community submission of release VERSION under
# OUT, laid out as both community catalogs' repositories expect a pull request
# (k8s-operatorhub/community-operators for OperatorHub.io, redhat-openshift-ecosystem/
# community-operators-prod for OpenShift's embedded OperatorHub; the same tree for both):
#
#   OUT/operators/memcached-operator/ci.yaml                   the update graph mode and reviewers
#   OUT/operators/memcached-operator/VERSION/manifests/         the release's CSV and CRD
#   OUT/operators/memcached-operator/VERSION/metadata/          annotations.yaml
#   OUT/operators/memcached-operator/VERSION/tests/scorecard/   the scorecard configuration
#
# The bundle is the release's, byte for byte: bundle/ of the commit the release was built from
# (release_commit of hack/lib/release.sh, as for hack/release/catalog-render.sh), or bundle/ as it is for the Makefile's VERSION when that
# is not released yet. Then the tree is validated as `make bundle-validate` validates bundle/
# (operatorframework suite; operatorhubv2, good-practices and alpha-deprecated-apis at the CSV's
# minKubeVersion and at KUBE_VERSION). Environment: OPERATOR_SDK (the pinned binary), KUBE_VERSION,
# HEAD_VERSION (the Makefile's VERSION), COMMUNITY_REVIEWERS (GitHub users, comma-separated; may be
# empty).
set -euo pipefail
die() { echo "community.sh: $*" >&2; exit 1; }
[ $# = 2 ] || die "usage: community.sh VERSION OUT"
version=$1 out=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
: "${OPERATOR_SDK:?OPERATOR_SDK must name the operator-sdk binary}" "${KUBE_VERSION:?KUBE_VERSION must be set}"
pkg=memcached-operator
cd "$root"

# shellcheck source=../lib/release.sh
. hack/lib/release.sh
commit=$(release_commit "$version")
if [ -n "$commit" ]; then
  git cat-file -e "$commit^{commit}" 2>/dev/null || die "commit $commit of $version is not in this clone (git fetch --unshallow)"
elif [ "$version" != "${HEAD_VERSION:-}" ]; then
  die "version $version is neither released (hack/release/releases, catalog/) nor the Makefile's VERSION ${HEAD_VERSION:-}"
fi
dest=$out/operators/$pkg/$version
[ ! -e "$dest" ] || die "$dest exists: a submission is written once, into a new directory"
mkdir -p "$dest"
if [ -n "$commit" ]; then
  git archive "$commit" bundle | tar -x -C "$dest" --strip-components=1
  echo ">> $pkg $version: bundle/ of $commit"
else
  cp -r bundle/. "$dest/"
  echo ">> $pkg $version: bundle/ of the working tree (not released yet)"
fi
for d in manifests metadata; do [ -d "$dest/$d" ] || die "the bundle of $version has no $d/"; done

# semver-mode: each channel holds its bundles ordered by version and any older one upgrades to the
# newest, which is what our catalog's entries say (replaces the previous release, skipRange
# "<VERSION"). The community catalogs take a bundle's channels from its annotations, so a release
# appears in every channel its bundle lists at once: our staged promotion (candidate, then fast,
# then stable) exists only in our own catalog.
{
  echo "# Written by hack/release/community.sh (make community-submission)."
  echo "updateGraph: semver-mode"
  if [ -n "${COMMUNITY_REVIEWERS:-}" ]; then
    echo "reviewers:"
    tr ',' '\n' <<<"$COMMUNITY_REVIEWERS" | sed '/^ *$/d; s/^ *\(.*[^ ]\) *$/  - \1/'
  fi
} >"$out/operators/$pkg/ci.yaml"

KUBE_VERSION=$KUBE_VERSION hack/release/bundle-validate.sh "$OPERATOR_SDK" "$dest" >"$out/validate.log" 2>&1 ||
  { cat "$out/validate.log"; die "the submission of $version does not validate"; }
grep '^>> ' "$out/validate.log"
echo ">> wrote $out/operators/$pkg (open the pull request with its contents; validation log: $out/validate.log)"
