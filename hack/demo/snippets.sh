#!/usr/bin/env bash
# snippets.sh — the YAML and shell blocks of README.md and docs/*.md that a user pastes, tested.
#
# A block is tested when the line right above its opening fence is a marker:
#   <!-- snippet: kwok -->           YAML applied / shell run for real on the kwok tier (make demo's
#                                    cluster, the operator running)
#   <!-- snippet: kwok dry-run -->   YAML applied with --dry-run=server only (objects that need more
#                                    than the kwok tier gives them, e.g. OLM's kinds after make olm-up)
# Fences must be ```yaml or ```sh. Unmarked blocks are not tested.
#
#   hack/demo/snippets.sh extract DIR   write every marked block to DIR/NNN.{yaml,sh} and list them in
#                                  DIR/index (NNN MODE TYPE FILE:LINE); no cluster needed
#   hack/demo/snippets.sh run           extract into a temporary directory, then, in document order,
#                                  apply each YAML block (kubectl apply --server-side, or with
#                                  --dry-run=server) and run each shell block (bash -euo pipefail,
#                                  from the repository root) against the cluster of KUBECONFIG;
#                                  the first failure stops the run, naming the file and line
#
# The envtest suite (controllers/snippets_test.go) checks every marked block without a cluster: the
# Memcacheds pass the API server's validation (dry-run, strict fields) and the operator's, every
# shell block parses.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)

extract() {
  local dir=$1
  mkdir -p "$dir"
  : >"$dir/index"
  (cd "$root" && awk -v dir="$dir" '
    FNR == 1 { mode = ""; inblock = 0 }
    inblock && /^```[[:space:]]*$/ { close(out); inblock = 0; next }
    inblock { print > out; next }
    /^<!-- snippet: [a-z -]+ -->[[:space:]]*$/ {
      m = $0; sub(/^<!-- snippet: /, "", m); sub(/ -->[[:space:]]*$/, "", m)
      if (m != "kwok" && m != "kwok dry-run") { printf "%s:%d: unknown snippet marker %s\n", FILENAME, FNR, m > "/dev/stderr"; bad = 1 }
      mode = m; markline = FNR; next
    }
    mode != "" {
      if ($0 ~ /^```(yaml|sh)[[:space:]]*$/ && FNR == markline + 1) {
        type = $0; sub(/^```/, "", type); sub(/[[:space:]]*$/, "", type)
        n++; out = sprintf("%s/%03d.%s", dir, n, type)
        printf "" > out
        sub(/ /, "-", mode)
        printf "%03d %s %s %s:%d\n", n, mode, type, FILENAME, FNR >> (dir "/index")
        inblock = 1; mode = ""; next
      }
      printf "%s:%d: a snippet marker must be followed by a ```yaml or ```sh fence\n", FILENAME, markline > "/dev/stderr"
      bad = 1; mode = ""
    }
    END { exit bad }
  ' README.md docs/*.md)
}

run() {
  # Global, not local: the EXIT trap runs after run() has returned.
  snippets_dir=$(mktemp -d)
  trap 'rm -rf "$snippets_dir"' EXIT
  local dir=$snippets_dir
  extract "$dir"
  local kubectl=${KUBECTL:-kubectl}
  local n mode type src f applied=()
  # What the blocks applied is deleted at the end (newest first), so a second run starts from the
  # same cluster: a user pastes each block once.
  cleanup_applied() {
    for f in "${applied[@]}"; do "$kubectl" delete --ignore-not-found --wait=false -f "$f" >/dev/null || true; done
  }
  while read -r n mode type src; do
    echo ">> snippet $n ($src, $mode)" >&2
    local ok=0
    case $type in
      yaml)
        if [ "$mode" = kwok-dry-run ]; then
          # A dry run of a namespaced object needs its namespace: the block's Namespaces are created.
          awk 'BEGIN { RS = "\n---\n" } /(^|\n)kind: Namespace(\n|$)/ { print "---"; print }' "$dir/$n.yaml" >"$dir/$n.ns.yaml"
          if [ -s "$dir/$n.ns.yaml" ]; then "$kubectl" apply --server-side -f "$dir/$n.ns.yaml" || ok=1; fi
          "$kubectl" apply --server-side --dry-run=server -f "$dir/$n.yaml" || ok=1
        else
          "$kubectl" apply --server-side -f "$dir/$n.yaml" || ok=1
          applied=("$dir/$n.yaml" "${applied[@]}")
        fi ;;
      sh)
        if [ "$mode" = kwok-dry-run ]; then
          bash -n "$dir/$n.sh" || ok=1
        else
          (cd "$root" && PATH="$(dirname "$(command -v "$kubectl")"):$PATH" bash -euo pipefail "$dir/$n.sh") || ok=1
        fi ;;
    esac
    if [ $ok != 0 ]; then echo "snippet $n of $src failed" >&2; cleanup_applied; exit 1; fi
  done <"$dir/index"
  cleanup_applied
  echo ">> every snippet passed ($(wc -l <"$dir/index") blocks)" >&2
}

case ${1:-} in
  extract) [ $# = 2 ] || { echo "usage: $0 extract DIR" >&2; exit 2; }; extract "$2" ;;
  run) run ;;
  *) echo "usage: $0 extract DIR | run" >&2; exit 2 ;;
esac
