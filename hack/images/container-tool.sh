#!/usr/bin/env bash
# container-tool.sh — prints the container tool that builds, pushes and copies our images, the
# Makefile's CONTAINER_TOOL default, and says on stderr why it was chosen:
#   docker   when a Docker engine answers (`docker info`)
#   podman   else, when podman is installed (daemonless; CLI-compatible with docker for build/push)
#   buildah  else, when buildah is installed (daemonless; with the local base images of
#            hack/images/local-images.sh, `make local-images`)
# It fails when none is there. CONTAINER_TOOL set in the environment wins (printed, not checked).
set -euo pipefail

if [ -n "${CONTAINER_TOOL:-}" ]; then
  echo ">> CONTAINER_TOOL=$CONTAINER_TOOL (set by you)" >&2
  echo "$CONTAINER_TOOL"
  exit 0
fi
if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
  echo ">> CONTAINER_TOOL=docker (a Docker engine answers)" >&2
  echo docker
  exit 0
fi
why="no Docker engine answers"
if command -v podman >/dev/null 2>&1; then
  echo ">> CONTAINER_TOOL=podman ($why)" >&2
  echo podman
elif command -v buildah >/dev/null 2>&1; then
  echo ">> CONTAINER_TOOL=buildah ($why, no podman)" >&2
  echo buildah
else
  echo "container-tool.sh: no container tool: install docker (with a running engine), podman or buildah" >&2
  exit 1
fi
