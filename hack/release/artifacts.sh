#!/usr/bin/env bash
# artifacts.sh OUT — the files a release publishes beside its images, written to OUT for the
# Makefile's VERSION (make release-artifacts):
#   install.yaml                          config/default with the operator image the bundle's CSV
#                                         names (its containerImage: by digest once released)
#   memcached-operator-crds.yaml          the CRD alone (config/crd/bases)
#   memcached-operator-VERSION.tgz        the Helm chart dist/chart (helm package)
#   kubectl-memcached_vVERSION_OS_ARCH.tar.gz
#                                         the kubectl plugin (cmd/kubectl-memcached) for linux and
#                                         darwin on amd64 and arm64, with LICENSE
#   memcached.yaml                        the plugin's krew manifest (a Plugin of krew's index),
#                                         every platform with its archive's URL and SHA-256
#   SHA256SUMS                            the SHA-256 of every file above (sha256sum -c SHA256SUMS)
# Archives are reproducible (sorted names, mtime 0, owner 0, gzip -n) and the binaries are built
# with -trimpath, so the same commit gives the same checksums.
# Environment: VERSION (the Makefile's), KUSTOMIZE, HELM, RELEASE_URL (default
# https://github.com/example/memcached-operator/releases/download/vVERSION: where the archives are
# published, the krew manifest's URIs).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=${1:?usage: artifacts.sh OUT}
VERSION=${VERSION:?VERSION is required}
KUSTOMIZE=${KUSTOMIZE:-$root/bin/kustomize}
HELM=${HELM:-$root/bin/helm}
RELEASE_URL=${RELEASE_URL:-https://github.com/example/memcached-operator/releases/download/v$VERSION}
csv=bundle/manifests/memcached-operator.clusterserviceversion.yaml
image=$(sed -n 's/^    containerImage: //p' "$csv")
[ -n "$image" ] || { echo "artifacts.sh: $csv has no containerImage" >&2; exit 1; }
grep -q "^  version: $VERSION\$" "$csv" || { echo "artifacts.sh: bundle/ is not version $VERSION: run make bundle" >&2; exit 1; }
grep -q "^version: $VERSION\$" dist/chart/Chart.yaml || { echo "artifacts.sh: dist/chart is not version $VERSION: run make helm-chart" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

KUSTOMIZE=$KUSTOMIZE hack/release/install-yaml.sh config "$image" >"$out/install.yaml"
cp config/crd/bases/cache.example.com_memcacheds.yaml "$out/memcached-operator-crds.yaml"
"$HELM" package dist/chart -d "$out" >/dev/null

platforms=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64)
for p in "${platforms[@]}"; do
  os=${p%/*} arch=${p#*/}
  name=kubectl-memcached_v${VERSION}_${os}_${arch}
  mkdir -p "$tmp/$name"
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags '-s -w' -o "$tmp/$name/kubectl-memcached" ./cmd/kubectl-memcached
  cp LICENSE "$tmp/$name/LICENSE"
  tar -C "$tmp/$name" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - kubectl-memcached LICENSE |
    gzip -n -9 >"$out/$name.tar.gz"
done

{
  cat <<YAML
apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: memcached
spec:
  version: v$VERSION
  homepage: https://github.com/example/memcached-operator
  shortDescription: Status and diagnostics of memcached-operator's Memcacheds
  description: |
    kubectl memcached status NAME shows one Memcached's servers, versions, conditions and last
    events; kubectl memcached report NAME writes a diagnostics bundle (the Memcached, its objects,
    events, pod statuses and the operator's logs, never Secret data).
  platforms:
YAML
  for p in "${platforms[@]}"; do
    os=${p%/*} arch=${p#*/}
    name=kubectl-memcached_v${VERSION}_${os}_${arch}.tar.gz
    cat <<YAML
  - selector:
      matchLabels:
        os: $os
        arch: $arch
    uri: $RELEASE_URL/$name
    sha256: $(sha256sum "$out/$name" | cut -d' ' -f1)
    bin: kubectl-memcached
    files:
    - from: kubectl-memcached
      to: .
    - from: LICENSE
      to: .
YAML
  done
} >"$out/memcached.yaml"

(cd "$out" && sha256sum -- * >"$tmp/SHA256SUMS" && mv "$tmp/SHA256SUMS" SHA256SUMS)
echo "wrote the release artifacts of $VERSION to $out (operator image $image):"
(cd "$out" && ls -1)
