#!/usr/bin/env bash
# previous.sh VERSION OUT — the Helm chart and operator image of release VERSION, for the real tier's
# chart upgrade test (make test-helm-real). The chart is first published with the release after
# VERSION, so VERSION's chart is what hack/helm/chart.sh writes from VERSION's source (`git archive`
# of release_commit, hack/lib/release.sh): its config/, its CRD, its operator image name. The
# operator image is that source's manager as hack/images/local-images.sh builds it, under the name
# and key hack/olm/olm-real-images.sh uses for it (memcached-operator:vVERSION,
# OPERATOR_IMAGE_V<X_Y_Z> in $REGISTRY_DIR/images.env), so the OLM tier reuses it.
# Writes OUT/chart-VERSION/ and OUT/previous.env (HELM_PREVIOUS_VERSION, HELM_PREVIOUS_CHART,
# HELM_PREVIOUS_OPERATOR_IMAGE).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
v=${1:?usage: previous.sh VERSION OUT}
out=${2:?usage: previous.sh VERSION OUT}
REGISTRY_DIR=${REGISTRY_DIR:-$root/.registry}
# shellcheck source=../lib/release.sh
. hack/lib/release.sh
commit=$(release_commit "$v")
[ -n "$commit" ] || { echo "previous.sh: $v is not a release of this repository" >&2; exit 1; }
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
git archive "$commit" | tar -x -C "$src"
mkdir -p "$out"
hack/images/local-images.sh operator "memcached-operator:v$v" "$src" >"$out/operator-$v.log" 2>&1 ||
  { tail -n 20 "$out/operator-$v.log" >&2; echo "previous.sh: building the operator image of $v failed" >&2; exit 1; }
key=V$(tr '.' '_' <<<"$v")
image=$(sed -n "s/^MEMCACHED_OPERATOR_${key}_IMAGE=//p" "$REGISTRY_DIR/images.env")
[[ $image == *@sha256:* ]] || { echo "previous.sh: no operator image recorded for $v" >&2; exit 1; }
hack/images/local-images.sh record "OPERATOR_IMAGE_$key" "$image" >/dev/null
SRC=$src VERSION=$v CHART_DIR="$out/chart-$v" hack/helm/chart.sh
printf 'HELM_PREVIOUS_VERSION=%s\nHELM_PREVIOUS_CHART=%s\nHELM_PREVIOUS_OPERATOR_IMAGE=%s\n' "$v" "$out/chart-$v" "$image" >"$out/previous.env"
echo "release $v (commit ${commit:0:12}): chart $out/chart-$v, operator image $image"
