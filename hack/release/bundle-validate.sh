#!/usr/bin/env bash
# bundle-validate.sh OPERATOR_SDK BUNDLE_DIR
# Runs `operator-sdk bundle validate --select-optional suite=operatorframework` on BUNDLE_DIR, then
# OperatorHub's validators (below), and fails on any error or warning (operator-sdk exits 0 on warnings). It first parses every manifest
# as YAML, so a syntax error is reported with its file name instead of "no CSV found"
# (operator-framework/operator-lifecycle-manager#2227).
set -euo pipefail
sdk=$1 dir=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
(cd "$root" && go run ./test/bundle/cmd/yaml-lint "$dir/manifests" "$dir/metadata" "$dir/tests")
out=$("$sdk" bundle validate "$dir" --select-optional suite=operatorframework 2>&1) || { echo "$out"; exit 1; }
echo "$out"
if grep -qiE 'level=(warn|warning|error)|WARN|ERRO' <<<"$out"; then
  echo "bundle validation printed warnings or errors: the bundle must validate cleanly" >&2
  exit 1
fi

# OperatorHub's checks, each at the CSV's minKubeVersion and at the newest Kubernetes we test
# (KUBE_VERSION, the local tiers' version): operatorhubv2 (the CSV's metadata OperatorHub shows),
# good-practices, alpha-deprecated-apis (no API removed by that version). The community validator
# is left out: operator-sdk v1.42 says it is deprecated in favour of the external
# ocp-olm-catalog-validator, and that warning alone would fail this check.
min=$(sed -n 's/^  minKubeVersion: *//p' "$dir/manifests/"*.clusterserviceversion.yaml)
[ -n "$min" ] || { echo "bundle-validate.sh: the CSV in $dir has no spec.minKubeVersion" >&2; exit 1; }
newest=${KUBE_VERSION:?KUBE_VERSION (the newest Kubernetes we test) must be set}
for k8s in "$min" "${newest#v}"; do
  k8s=$(cut -d. -f1,2 <<<"$k8s")
  for v in operatorhubv2 good-practices alpha-deprecated-apis; do
    out=$("$sdk" bundle validate "$dir" --select-optional name=$v --optional-values=k8s-version="$k8s" 2>&1) ||
      { echo "$out"; echo "bundle-validate.sh: $v at Kubernetes $k8s failed" >&2; exit 1; }
    if grep -qiE 'level=(warn|warning|error)|WARN|ERRO' <<<"$out"; then
      echo "$out"; echo "bundle-validate.sh: $v at Kubernetes $k8s printed warnings or errors" >&2; exit 1
    fi
    echo ">> $v at Kubernetes $k8s: passed"
  done
done
