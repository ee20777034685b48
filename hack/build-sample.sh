#!/usr/bin/env bash
# build-sample.sh: builds the operator-sdk Memcached sample's manager into $LOCALBIN/sample-manager
# (default ./bin), the subject make bench-scale compares the operator with (BENCH_SAMPLE).
#
# The sample is operator-sdk v1.42.3's testdata/go/v4/memcached-operator (the release the Makefile
# pins as OPERATOR_SDK_VERSION), copied unchanged into test/bench/sample: it is a module of its own
# (github.com/example/memcached-operator), which the Go module zip of operator-sdk leaves out and the
# Go proxy does not serve (403), so it cannot be fetched as a module. It is built in a temporary copy
# with its own go.mod and go.sum (dependencies from the Go proxy: controller-runtime v0.21.0,
# k8s.io v0.33.0), and skipped when bin/sample-manager was built from the same sources
# (hack/build-tool.sh). test/bench/sample/README.md says what was copied and from which commit.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
src=$root/test/bench/sample
sample_version=v1.42.3 # the operator-sdk release test/bench/sample was copied from
# The stamp names the release and the copied sources, so an edited copy is rebuilt.
sum=$(cd "$src" && find . -type f \( -name '*.go' -o -name 'go.mod' -o -name 'go.sum' \) -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-12)

exec "$root/hack/build-tool.sh" sample-manager "$sample_version+$sum" -- bash -c '
  set -euo pipefail
  tmp=$(mktemp -d)
  trap "chmod -R u+w \"$tmp\"; rm -rf \"$tmp\"" EXIT
  cp -r "$1/." "$tmp/"
  cd "$tmp"
  GOWORK=off GOFLAGS=-mod=readonly CGO_ENABLED=0 go build -trimpath -o "$OUT" ./cmd
' _ "$src"
