#!/usr/bin/env bash
# build-olm-tools.sh TOOL...
#
# Builds the Operator Framework tools into $LOCALBIN, each skipped when already built at its pinned
# version (hack/tools/build-tool.sh):
#   operator-sdk    OPERATOR_SDK_VERSION (v1.42.3), from the tools module hack/tools/operator-sdk
#   scorecard-test  the scorecard test program of the same operator-sdk version
#   opm             OPM_VERSION (v1.74.0), from the tools module hack/tools/opm; statically linked
#                   (it also runs inside the local opm base image of hack/images/local-images.sh)
#   grpc-health-probe  GRPC_HEALTH_PROBE_VERSION (v0.4.53, what operator-registry pins), from the
#                   tools module hack/tools/grpc-health-probe, static: the probe of OLM's catalog
#                   pods, for the local opm base image (hack/images/local-images.sh)
#   helm-template   renders a Helm chart as `helm template` does (OLM's olm.yaml, cert-manager's
#                   cert-manager.yaml) with Helm's engine (the Helm version operator-sdk pins), from
#                   hack/tools/operator-sdk/helm-template
#   olm, catalog    OLM_VERSION (v0.46.0): OLM's olm and catalog operators, built in a writable copy
#                   of the module source (the module cannot be `go install`ed), patched to bind
#                   their health listener to 127.0.0.1
# The proxy refuses version lists for github.com/operator-framework/*, so every version is exact.
# Cold builds take 5-20 minutes each on 2 cores; warm ones seconds.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
export LOCALBIN=${LOCALBIN:-$root/bin}
OPERATOR_SDK_VERSION=${OPERATOR_SDK_VERSION:-v1.42.3}
OPM_VERSION=${OPM_VERSION:-v1.74.0}
OLM_VERSION=${OLM_VERSION:-v0.46.0}
GRPC_HEALTH_PROBE_VERSION=${GRPC_HEALTH_PROBE_VERSION:-v0.4.53}
build=$root/hack/tools/build-tool.sh

sdk_ldflags() {
  local p=github.com/operator-framework/operator-sdk/internal/version
  echo "-s -w -X $p.Version=$OPERATOR_SDK_VERSION -X $p.GitVersion=$OPERATOR_SDK_VERSION -X $p.KubernetesVersion=v1.33.1 -X $p.ImageVersion=$OPERATOR_SDK_VERSION"
}

# olm_source prints a writable copy of the OLM module source, made once per version.
olm_source() {
  local dst=$LOCALBIN/.src/operator-lifecycle-manager-$OLM_VERSION
  if [ ! -f "$dst/.complete" ]; then
    echo ">> downloading github.com/operator-framework/operator-lifecycle-manager@$OLM_VERSION" >&2
    local src
    src=$(cd "$root/hack/tools/opm" && GOFLAGS=-mod=mod go mod download -json "github.com/operator-framework/operator-lifecycle-manager@$OLM_VERSION" |
      sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
    [ -d "$src" ] || { echo "could not download OLM $OLM_VERSION" >&2; exit 1; }
    rm -rf "$dst" && mkdir -p "$(dirname "$dst")" && cp -r "$src" "$dst" && chmod -R u+w "$dst"
    touch "$dst/.complete"
  fi
  # OLM's health/metrics listener is hard-coded to ":8080" (":8443" with TLS) on all interfaces;
  # the local operators must listen on loopback only.
  sed -i 's#return ":8443"#return "127.0.0.1:8443"#; s#return ":8080"#return "127.0.0.1:8080"#' "$dst/pkg/lib/server/server.go"
  grep -q 'return "127.0.0.1:8080"' "$dst/pkg/lib/server/server.go" || { echo "could not patch OLM's listen address" >&2; exit 1; }
  echo "$dst"
}

for t in "$@"; do
  case $t in
    operator-sdk)
      "$build" operator-sdk "$OPERATOR_SDK_VERSION" -- bash -c 'cd "$0/hack/tools/operator-sdk" &&
        CGO_ENABLED=0 go build -tags containers_image_openpgp -ldflags "$1" -o "$OUT" github.com/operator-framework/operator-sdk/cmd/operator-sdk' \
        "$root" "$(sdk_ldflags)" ;;
    scorecard-test)
      "$build" scorecard-test "$OPERATOR_SDK_VERSION" -- bash -c 'cd "$0/hack/tools/operator-sdk" &&
        CGO_ENABLED=0 go build -ldflags "$1" -o "$OUT" github.com/operator-framework/operator-sdk/images/scorecard-test' \
        "$root" "$(sdk_ldflags)" ;;
    helm-template)
      "$build" helm-template "$OPERATOR_SDK_VERSION+2" -- bash -c 'cd "$0/hack/tools/operator-sdk" && go build -o "$OUT" ./helm-template' "$root" ;;
    opm)
      # Built like upstream's release binary (operator-registry release/goreleaser.linux.yaml):
      # cgo for SQLite, linked statically, so the same file also runs in the local opm base image.
      "$build" opm "$OPM_VERSION+static" -- bash -c 'cd "$0/hack/tools/opm" &&
        CGO_ENABLED=1 go build -tags json1,netgo,osusergo,containers_image_openpgp -ldflags "-s -w -extldflags=-static -X github.com/operator-framework/operator-registry/cmd/opm/version.opmVersion=$1" -o "$OUT" github.com/operator-framework/operator-registry/cmd/opm' \
        "$root" "$OPM_VERSION" ;;
    grpc-health-probe)
      grep -q "github.com/grpc-ecosystem/grpc-health-probe $GRPC_HEALTH_PROBE_VERSION\$" "$root/hack/tools/grpc-health-probe/go.mod" ||
        { echo "hack/tools/grpc-health-probe/go.mod does not require grpc-health-probe $GRPC_HEALTH_PROBE_VERSION" >&2; exit 1; }
      "$build" grpc_health_probe "$GRPC_HEALTH_PROBE_VERSION" -- bash -c 'cd "$0/hack/tools/grpc-health-probe" &&
        CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.versionTag=$1" -o "$OUT" github.com/grpc-ecosystem/grpc-health-probe' "$root" "$GRPC_HEALTH_PROBE_VERSION" ;;
    olm|catalog)
      src=$(olm_source)
      "$build" "$t" "$OLM_VERSION+loopback" -- bash -c 'cd "$0" && go build -ldflags "-s -w" -o "$OUT" "./cmd/$1"' "$src" "$t" ;;
    *) echo "build-olm-tools.sh: unknown tool $t" >&2; exit 2 ;;
  esac
done
