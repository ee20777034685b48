#!/usr/bin/env bash
# build-olmv1-tools.sh TOOL...
#
# Builds OLM v1's components into $LOCALBIN, each skipped when already built at its pinned version
# (hack/tools/build-tool.sh):
#   operator-controller, catalogd  OPERATOR_CONTROLLER_VERSION (v1.2.0), from the tools module
#                   hack/tools/operator-controller, static (CGO_ENABLED=0), with the module's own
#                   build tag containers_image_openpgp and its version stamped as its release does
#   cert-manager-controller, cert-manager-cainjector, cert-manager-webhook
#                   CERT_MANAGER_VERSION (v1.11.5), from the wrapper module hack/tools/cert-manager
#                   (its mains call cert-manager's cmd/*/app), static
# The proxy refuses version lists for github.com/operator-framework/*, so the version is exact.
# Measured (2026-12-03): all five compile and run as pods on the real node (hack/olm/olmv1-up.sh,
# make test-olmv1-real).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
export LOCALBIN=${LOCALBIN:-$root/bin}
OPERATOR_CONTROLLER_VERSION=${OPERATOR_CONTROLLER_VERSION:-v1.2.0}
CERT_MANAGER_VERSION=${CERT_MANAGER_VERSION:-v1.11.5}
build=$root/hack/tools/build-tool.sh

# pinned MODULE VERSION DIR: the tools module DIR must require MODULE at VERSION (the Makefile pin).
pinned() {
  grep -Eq "^[[:space:]]*(require )?$1 $2\$" "$root/$3/go.mod" ||
    { echo "$3/go.mod does not require $1 $2" >&2; exit 1; }
}

for t in "$@"; do
  case $t in
    operator-controller|catalogd)
      pinned github.com/operator-framework/operator-controller "$OPERATOR_CONTROLLER_VERSION" hack/tools/operator-controller
      "$build" "$t" "$OPERATOR_CONTROLLER_VERSION" -- bash -c 'cd "$0/hack/tools/operator-controller" &&
        CGO_ENABLED=0 go build -tags containers_image_openpgp -ldflags "-s -w -X github.com/operator-framework/operator-controller/internal/shared/version.version=$1" -o "$OUT" "github.com/operator-framework/operator-controller/cmd/$2"' \
        "$root" "$OPERATOR_CONTROLLER_VERSION" "$t" ;;
    cert-manager-controller|cert-manager-cainjector|cert-manager-webhook)
      pinned github.com/cert-manager/cert-manager "$CERT_MANAGER_VERSION" hack/tools/cert-manager
      "$build" "$t" "$CERT_MANAGER_VERSION" -- bash -c 'cd "$0/hack/tools/cert-manager" &&
        CGO_ENABLED=0 go build -ldflags "-s -w -X github.com/cert-manager/cert-manager/pkg/util.AppVersion=$1" -o "$OUT" "./$2"' \
        "$root" "$CERT_MANAGER_VERSION" "${t#cert-manager-}" ;;
    *) echo "build-olmv1-tools.sh: unknown tool $t" >&2; exit 2 ;;
  esac
done
