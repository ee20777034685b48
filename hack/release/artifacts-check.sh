#!/usr/bin/env bash
# artifacts-check.sh — make release-artifacts-check: hack/release/artifacts.sh run twice into
# temporary directories, then what a user does with the files ("Verify a release" in
# docs/releasing.md), failing at the first difference:
#   - both runs give the same SHA256SUMS (the artifacts are reproducible from the commit);
#   - sha256sum -c SHA256SUMS passes;
#   - krew's validate-krew-manifest accepts memcached.yaml, and `krew install --manifest
#     --archive` installs the plugin for this platform from it (krew checks the archive's SHA-256
#     against the manifest) into a temporary KREW_ROOT, where `kubectl-memcached --help` runs;
#   - the chart package passes helm lint --strict and names the operator image install.yaml names.
# Environment: VERSION, KREW (its validate-krew-manifest beside it), HELM, KUSTOMIZE.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
VERSION=${VERSION:?VERSION is required}
KREW=${KREW:-$root/bin/krew}
HELM=${HELM:-$root/bin/helm}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "artifacts-check: $*" >&2; exit 1; }

hack/release/artifacts.sh "$tmp/a" >/dev/null
hack/release/artifacts.sh "$tmp/b" >/dev/null
diff "$tmp/a/SHA256SUMS" "$tmp/b/SHA256SUMS" || fail "two runs gave different artifacts (above)"
echo ">> reproducible: $(wc -l <"$tmp/a/SHA256SUMS") files, the same SHA-256 twice"
(cd "$tmp/a" && sha256sum --quiet -c SHA256SUMS) || fail "sha256sum -c SHA256SUMS failed"

# Its own install step runs `kubectl krew install` with the manifest's URIs, which need the
# published release: skipped, as krew install below does it from the local archives.
"$(dirname "$KREW")/validate-krew-manifest" -skip-install -manifest "$tmp/a/memcached.yaml" >"$tmp/validate.log" 2>&1 ||
  { cat "$tmp/validate.log" >&2; fail "validate-krew-manifest refused memcached.yaml"; }
# Every platform installs (KREW_OS, KREW_ARCH select it), the archive checked against the manifest;
# this machine's one also runs.
for a in "$tmp"/a/kubectl-memcached_v"${VERSION}"_*.tar.gz; do
  platform=${a##*_v"${VERSION}"_} platform=${platform%.tar.gz}
  KREW_ROOT=$tmp/krew-$platform KREW_OS=${platform%_*} KREW_ARCH=${platform#*_} "$KREW" install \
    --manifest="$tmp/a/memcached.yaml" --archive="$a" >"$tmp/krew.log" 2>&1 ||
    { cat "$tmp/krew.log" >&2; fail "krew install of $platform from the manifest and its archive failed"; }
  [ -x "$tmp/krew-$platform/bin/kubectl-memcached" ] || fail "krew installed no kubectl-memcached for $platform"
done
native=$(go env GOOS)_$(go env GOARCH)
"$tmp/krew-$native/bin/kubectl-memcached" --help >"$tmp/help.txt" 2>&1 || { cat "$tmp/help.txt" >&2; fail "the plugin krew installed does not run"; }
grep -q "status" "$tmp/help.txt" || fail "the plugin's help names no status command"
echo ">> krew: the manifest is valid; krew installed each platform's plugin from it; the $native one runs"

"$HELM" lint --strict "$tmp/a/memcached-operator-$VERSION.tgz" >"$tmp/lint.log" 2>&1 || { cat "$tmp/lint.log" >&2; fail "helm lint of the chart package failed"; }
want=$(sed -n 's/^ *image: //p' "$tmp/a/install.yaml" | head -n1)
got=$("$HELM" template memcached-operator "$tmp/a/memcached-operator-$VERSION.tgz" | sed -n 's/^ *image: "\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' | head -n1)
[ "$got" = "$want" ] || fail "the chart runs $got, install.yaml $want"
echo ">> chart package: lint-clean, the operator image of install.yaml ($want)"
