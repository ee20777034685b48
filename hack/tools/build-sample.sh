#!/usr/bin/env bash
# build-sample.sh: generates the operator-sdk Memcached sample with operator-sdk itself and builds
# its manager into $LOCALBIN/sample-manager (default ./bin): the subject make bench-scale compares
# the operator with (BENCH_SAMPLE).
#
# Nothing of the sample is kept in this repository. The project is scaffolded at build time into
# $SAMPLE_DIR (default $LOCALBIN/sample/memcached-operator, not committed) by $OPERATOR_SDK (the
# Makefile's pinned OPERATOR_SDK_VERSION, `make operator-sdk`) the way operator-sdk produces its own
# testdata/go/v4/memcached-operator (hack/generate/samples/internal/go/memcached-with-customization
# in operator-sdk): `operator-sdk init` (go/v4), then `operator-sdk create api` with kubebuilder's
# deploy-image/v1-alpha plugin, which writes the sample's controller, with the same image, command,
# port and run-as-user. Then `go mod tidy` and the scaffold's own `make generate manifests` (its own
# pinned controller-gen v0.18.0, built into the scaffold's bin/ and removed after) write the deepcopy
# code, the CRD (config/crd/bases) and the ClusterRole (config/rbac/role.yaml) the benchmark applies.
# Compared with operator-sdk v1.42.3's testdata: the same controller and main.go but for comments
# and the webhook's setup, the same ClusterRole; the CRD differs only in two field descriptions.
#
# Left out of operator-sdk's generator, on purpose: the defaulting webhook (`create webhook`; the
# benchmark registers no webhook, so the testdata sample runs with ENABLE_WEBHOOKS=false there
# anyway), the comments and CSV markers it inserts, the bundle and kustomize edits: none of them
# changes what the manager does. The generated sources are built unmodified: the manager already
# takes what running out of the cluster needs (KUBECONFIG, --metrics-bind-address,
# --metrics-secure=false, --health-probe-bind-address; MEMCACHED_IMAGE, read by its controller).
#
# Dependencies come from the Go module proxy at the exact versions the scaffold pins
# (controller-runtime v0.21.0, k8s.io v0.33.0, controller-gen v0.18.0); `go mod tidy` needs no
# version list, so the proxy's refusal of lists for github.com/operator-framework/* does not apply.
#
# Skipped when bin/sample-manager and $SAMPLE_DIR were generated from the same inputs: the
# operator-sdk version and the generator flags below (hack/tools/build-tool.sh's stamp). Generating and
# building took 9 s here with warm Go caches (longer on cold ones: controller-gen and the manager's
# dependencies to download and build); a skipped run takes a fraction of a second.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
export LOCALBIN=${LOCALBIN:-$root/bin}
OPERATOR_SDK=${OPERATOR_SDK:-$LOCALBIN/operator-sdk}
OPERATOR_SDK_VERSION=${OPERATOR_SDK_VERSION:-v1.42.3}
SAMPLE_DIR=${SAMPLE_DIR:-$LOCALBIN/sample/memcached-operator}

# The generator's flags, as operator-sdk's sample generator passes them.
init_flags=(--plugins go/v4 --project-version 3 --repo github.com/example/memcached-operator --domain example.com)
api_flags=(--group cache --version v1alpha1 --kind Memcached --plugins deploy-image/v1-alpha
  --image memcached:1.4.36-alpine --image-container-command "memcached,-m=64,-o,modern,-v"
  --image-container-port 11211 --run-as-user 1001 --make=false --manifests=false)

[ -x "$OPERATOR_SDK" ] || { echo "$OPERATOR_SDK not found: run make operator-sdk" >&2; exit 1; }
have=$("$OPERATOR_SDK" version | sed -n 's/^operator-sdk version: "\([^"]*\)".*/\1/p')
[ "$have" = "$OPERATOR_SDK_VERSION" ] || { echo "$OPERATOR_SDK is $have, want $OPERATOR_SDK_VERSION: run make operator-sdk" >&2; exit 1; }

sum=$(printf '%s\n' "${init_flags[@]}" -- "${api_flags[@]}" | sha256sum | cut -c1-12)
SAMPLE_STAMP="$OPERATOR_SDK_VERSION+$sum"
# The binary's stamp alone would skip the build while the generated tree is gone or from other
# inputs: the tree carries the same stamp, and a mismatch forces the build.
if [ "$(cat "$SAMPLE_DIR/.stamp" 2>/dev/null)" != "$SAMPLE_STAMP" ]; then
  rm -f "$LOCALBIN/.versions/sample-manager"
fi

export OPERATOR_SDK SAMPLE_DIR SAMPLE_STAMP
"$root/hack/tools/build-tool.sh" sample-manager "$SAMPLE_STAMP" -- bash -c '
  set -euo pipefail
  n=$1 && shift
  init_flags=("${@:1:n}") && shift "$n"
  api_flags=("$@")
  # The project is named after its directory (memcached-operator, as in operator-sdk testdata).
  tmp=$SAMPLE_DIR.new
  new=$tmp/memcached-operator
  rm -rf "$tmp" && mkdir -p "$new"
  cd "$new"
  echo ">> operator-sdk init ${init_flags[*]}" >&2
  GOWORK=off "$OPERATOR_SDK" init "${init_flags[@]}"
  echo ">> operator-sdk create api ${api_flags[*]}" >&2
  GOWORK=off "$OPERATOR_SDK" create api "${api_flags[@]}"
  GOWORK=off go mod tidy
  # The scaffolded Makefile must use its own bin/ and controller-gen: ours exports LOCALBIN
  # and passes its command-line variables down in MAKEFLAGS, which would point it at ours.
  GOWORK=off env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make generate manifests LOCALBIN="$PWD/bin" CONTROLLER_GEN="$PWD/bin/controller-gen"
  rm -rf bin # controller-gen, as operator-sdk cleans the built binaries out of its samples
  GOWORK=off CGO_ENABLED=0 go build -trimpath -o "$OUT" ./cmd
  echo "$SAMPLE_STAMP" >.stamp
  rm -rf "$SAMPLE_DIR" && mv "$new" "$SAMPLE_DIR" && rmdir "$tmp"
' _ "${#init_flags[@]}" "${init_flags[@]}" "${api_flags[@]}"

# bin/sample-manager-samedeps: the same generated sources built with this project's versions (this
# go.mod's) of controller-runtime and the k8s.io modules below; the other modules both use move only
# as far as these require. A comparison can then tell the code from the library versions (measured
# from cold copies of both binaries, the two idle within 0.7 MiB of each other in RSS; see the
# README's "The binary's pages and the page cache"). Skipped when built from the same generated
# tree and versions.
shared_mods=(sigs.k8s.io/controller-runtime k8s.io/api k8s.io/apimachinery k8s.io/client-go
  k8s.io/apiextensions-apiserver k8s.io/apiserver k8s.io/component-base)
SAME_DEPS=$(cd "$root" && for m in "${shared_mods[@]}"; do echo "$m@$(go list -m -f '{{.Version}}' "$m")"; done | tr '\n' ' ')
export SAME_DEPS
"$root/hack/tools/build-tool.sh" sample-manager-samedeps "$SAMPLE_STAMP+$(echo "$SAME_DEPS" | sha256sum | cut -c1-12)" -- bash -c '
  set -euo pipefail
  work=$(mktemp -d)
  trap "rm -rf \"$work\"" EXIT
  cp -r "$SAMPLE_DIR/." "$work"
  cd "$work"
  echo ">> go get $SAME_DEPS" >&2
  # shellcheck disable=SC2086 # one module@version per word
  GOWORK=off go get $SAME_DEPS
  GOWORK=off go mod tidy
  GOWORK=off CGO_ENABLED=0 go build -trimpath -o "$OUT" ./cmd
'
