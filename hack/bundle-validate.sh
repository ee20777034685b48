#!/usr/bin/env bash
# bundle-validate.sh OPERATOR_SDK BUNDLE_DIR
# Runs `operator-sdk bundle validate --select-optional suite=operatorframework` on BUNDLE_DIR and
# fails on any error or warning (operator-sdk exits 0 on warnings). It first parses every manifest
# as YAML, so a syntax error is reported with its file name instead of "no CSV found"
# (operator-framework/operator-lifecycle-manager#2227).
set -euo pipefail
sdk=$1 dir=$2
root=$(cd "$(dirname "$0")/.." && pwd)
(cd "$root" && go run ./test/bundle/cmd/yaml-lint "$dir/manifests" "$dir/metadata" "$dir/tests")
out=$("$sdk" bundle validate "$dir" --select-optional suite=operatorframework 2>&1) || { echo "$out"; exit 1; }
echo "$out"
if grep -qiE 'level=(warn|warning|error)|WARN|ERRO' <<<"$out"; then
  echo "bundle validation printed warnings or errors: the bundle must validate cleanly" >&2
  exit 1
fi
