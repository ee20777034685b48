#!/usr/bin/env bash
# build-kwok.sh
#
# Builds kwok (sigs.k8s.io/kwok/cmd/kwok) into $LOCALBIN (default ./bin); skipped when it is
# already present at the pinned version. Version: KWOK_VERSION (default v0.8.0).
# A cold build takes ~2-3 minutes.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
KWOK_VERSION=${KWOK_VERSION:-v0.8.0}
export LOCALBIN=${LOCALBIN:-$root/bin}

"$root/hack/tools/build-tool.sh" kwok "$KWOK_VERSION" -- \
  bash -c 'GOBIN=$(dirname "$OUT") go install "sigs.k8s.io/kwok/cmd/kwok@$0"' "$KWOK_VERSION"
