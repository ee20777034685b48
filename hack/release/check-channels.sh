#!/usr/bin/env bash
# check-channels.sh CHANNELS DEFAULT_CHANNEL
# Fails fast, before any bundle or catalog is generated, when DEFAULT_CHANNEL is empty or not one
# of CHANNELS, or when a channel is not one of the project's channels candidate, fast and stable.
# (operator-framework/operator-registry#928, medik8s/self-node-remediation#311: an empty or unknown
# default channel otherwise fails much later, in opm.)
set -euo pipefail
channels=${1:-} default=${2:-}
[ -n "$channels" ] || { echo "CHANNELS is empty: set CHANNELS=candidate,fast,stable (or a subset)" >&2; exit 1; }
[ -n "$default" ] || { echo "DEFAULT_CHANNEL is empty: set DEFAULT_CHANNEL to one of CHANNELS ($channels)" >&2; exit 1; }
found=0
IFS=, read -ra list <<<"$channels"
for c in "${list[@]}"; do
  case $c in
    candidate|fast|stable) ;;
    *) echo "CHANNELS contains \"$c\": the channels are candidate, fast and stable" >&2; exit 1 ;;
  esac
  [ "$c" = "$default" ] && found=1
done
[ $found = 1 ] || { echo "DEFAULT_CHANNEL=$default is not one of CHANNELS=$channels" >&2; exit 1; }
