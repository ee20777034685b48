#!/usr/bin/env bash
# install-yaml.sh CONFIG IMG — prints install.yaml: the kustomize build of CONFIG/default (a
# config/ directory: this repository's, or a past release's) with the manager image set to IMG, in
# a temporary copy so CONFIG stays as it is. The one recipe of `make build-installer`, the Helm
# chart's input (hack/helm/chart.sh) and the release's install.yaml (hack/release/artifacts.sh).
# Environment: KUSTOMIZE (default bin/kustomize).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
config=${1:?usage: install-yaml.sh CONFIG IMG}
img=${2:?usage: install-yaml.sh CONFIG IMG}
KUSTOMIZE=${KUSTOMIZE:-$root/bin/kustomize}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$config" "$tmp/config"
(cd "$tmp/config/manager" && "$KUSTOMIZE" edit set image controller="$img")
"$KUSTOMIZE" build "$tmp/config/default"
