#!/usr/bin/env bash
# scorecard-real.sh images | config OUT | run [BUNDLE_DIR]
#
# `operator-sdk scorecard` against the real-node cluster (hack/cluster/cluster-up.sh NODE=real), its tests run
# as pods from images of the local registry (127.0.0.1:5000), which stand in for public ones:
#
#   local image                                     stands for                                         built from
#   local/scorecard-test:v1.42.3                    quay.io/operator-framework/scorecard-test:v1.42.3  bin/scorecard-test (operator-sdk v1.42.3's images/scorecard-test,
#                                                                                                      hack/olm/build-olm-tools.sh), laid out as its Dockerfile does: /usr/local/bin,
#                                                                                                      user 1001, HOME /opt/scorecard-test, on the busybox ubi stand-in
#   memcached-operator-scorecard-tests:v0.1.0       registry.example.com/memcached-operator-scorecard-tests:v0.1.0
#                                                                                                      test/scorecard/cmd/memcached-scorecard-tests (static), the same layout
#   local/scorecard-untar:v1.42.3                   quay.io/operator-framework/scorecard-untar@sha256:2e728c5e… (--untar-image: runs `tar xvzf`)
#   local/scorecard-storage:v1.42.3                 quay.io/operator-framework/scorecard-storage@sha256:a3bfda71… (--storage-image: runs `/bin/sh -c`)
#                                                   both: the busybox image hack/images/local-images.sh builds as the ubi9/ubi stand-in
#
#   images      build and push the images above (skipped when their inputs did not change) and record
#               SCORECARD_TEST_IMAGE, SCORECARD_CUSTOM_IMAGE, SCORECARD_UNTAR_IMAGE and
#               SCORECARD_STORAGE_IMAGE (by digest) in $REGISTRY_DIR/images.env.
#   config OUT  write to OUT the scorecard configuration of config/scorecard-local (config/scorecard
#               with the images above, pinned by digest in a temporary copy; checked to differ from
#               config/scorecard only by those image references).
#   run [DIR]   images, config, then `operator-sdk scorecard` on a temporary copy of the bundle DIR
#               (default bundle/) whose tests/scorecard/config.yaml is that configuration, in a new
#               namespace (Pod Security baseline: the untar init container runs as root), with
#               -w 120s -o json; keeps the JSON in $SCORECARD_OUT, prints one line per test, deletes
#               the namespace and exits with operator-sdk's status (non-zero when a test failed).
#
# Environment (defaults): REGISTRY_DIR=<repo>/.registry  REGISTRY_PORT=5000  BUILDAH_DIR=<repo>/.buildah
#   LOCALBIN=<repo>/bin  KUBECONFIG=<repo>/.cluster-real/kubeconfig  OPERATOR_SDK_VERSION=v1.42.3
#   SCORECARD_WAIT=120s  SCORECARD_OUT=<repo>/.cluster-real/scorecard/scorecard.json
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
REGISTRY_DIR=${REGISTRY_DIR:-$root/.registry}
REGISTRY_PORT=${REGISTRY_PORT:-5000}
BUILDAH_DIR=${BUILDAH_DIR:-$root/.buildah}
LOCALBIN=${LOCALBIN:-$root/bin}
OPERATOR_SDK_VERSION=${OPERATOR_SDK_VERSION:-v1.42.3}
SCORECARD_WAIT=${SCORECARD_WAIT:-120s}
SCORECARD_OUT=${SCORECARD_OUT:-$root/.cluster-real/scorecard/scorecard.json}
export KUBECONFIG=${KUBECONFIG:-$root/.cluster-real/kubeconfig}
export REGISTRY_DIR REGISTRY_PORT BUILDAH_DIR
registry=127.0.0.1:$REGISTRY_PORT
images_env=$REGISTRY_DIR/images.env

t0=$(date +%s%N)
# shellcheck source=../lib/procs.sh
. "$root/hack/lib/procs.sh"
buildah() { command buildah --root "$BUILDAH_DIR/storage" --runroot "$BUILDAH_DIR/run" --storage-driver vfs "$@"; }
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}" no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"
recorded() { sed -n "s/^$1=//p" "$images_env" 2>/dev/null | tail -n1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/scorecard-real.XXXXXX")
trap 'rm -rf "$work"' EXIT

# test_image NAME:TAG KEY BINARY: BINARY as /usr/local/bin/<its name> on the busybox base, laid out
# as operator-sdk's images/scorecard-test/Dockerfile lays out scorecard-test.
test_image() {
  local ref=$registry/$1 key=$2 bin=$3 name ctx inputs base
  name=$(basename "$bin")
  base=$(recorded UBI_IMAGE)
  [[ $base == *@sha256:* ]] || die "no UBI_IMAGE in $images_env (hack/images/local-images.sh ubi)"
  ctx=$work/ctx-$name
  mkdir -p "$ctx"
  cp "$bin" "$ctx/$name"
  cat >"$ctx/Dockerfile" <<EOF
FROM $base
ENV HOME=/opt/scorecard-test USER_NAME=scorecard-test USER_UID=1001
RUN echo "\${USER_NAME}:x:\${USER_UID}:0:\${USER_NAME} user:\${HOME}:/sbin/nologin" >> /etc/passwd && mkdir -p \${HOME}
WORKDIR \${HOME}
COPY $name /usr/local/bin/$name
ENTRYPOINT ["/usr/local/bin/$name"]
USER 1001
EOF
  inputs=$(cd "$ctx" && sha256sum Dockerfile "$name" | sha256sum | cut -c1-64)
  if [ "$(skopeo inspect --tls-verify=false --format '{{index .Labels "local.inputs"}}' "docker://$ref" 2>/dev/null)" = "$inputs" ]; then
    step "$ref is up to date"
  else
    buildah bud --quiet --isolation chroot --timestamp 0 --tls-verify=false --label "local.inputs=$inputs" \
      -f "$ctx/Dockerfile" -t "$ref" "$ctx" >"$work/build-$name.log" 2>&1 ||
      { tail -n 20 "$work/build-$name.log" >&2; die "building $ref failed"; }
    buildah push --quiet --tls-verify=false "$ref" "docker://$ref"
    buildah rmi "$ref" >/dev/null 2>&1 || true
    step "pushed $ref"
  fi
  "$root/hack/images/local-images.sh" record "$key" "$ref" | sed 's/^\[ *[0-9.]*s\] //'
}

cmd_images() {
  "$root/hack/images/local-images.sh" ubi | tail -n 1
  [ -x "$LOCALBIN/scorecard-test" ] || "$root/hack/olm/build-olm-tools.sh" scorecard-test
  step "building test/scorecard/cmd/memcached-scorecard-tests (static)"
  (cd "$root" && CGO_ENABLED=0 go build -trimpath -o "$work/memcached-scorecard-tests" ./test/scorecard/cmd/memcached-scorecard-tests)
  test_image "local/scorecard-test:$OPERATOR_SDK_VERSION" SCORECARD_TEST_IMAGE "$LOCALBIN/scorecard-test"
  test_image "memcached-operator-scorecard-tests:v0.1.0" SCORECARD_CUSTOM_IMAGE "$work/memcached-scorecard-tests"
  local ubi
  ubi=$(recorded UBI_IMAGE)
  for what in untar storage; do
    skopeo copy --quiet --src-tls-verify=false --dest-tls-verify=false "docker://$ubi" \
      "docker://$registry/local/scorecard-$what:$OPERATOR_SDK_VERSION"
    "$root/hack/images/local-images.sh" record "SCORECARD_$(tr '[:lower:]' '[:upper:]' <<<"$what")_IMAGE" \
      "$registry/local/scorecard-$what:$OPERATOR_SDK_VERSION" | sed 's/^\[ *[0-9.]*s\] //'
  done
}

cmd_config() {
  local out=$1 test custom
  test=$(recorded SCORECARD_TEST_IMAGE) custom=$(recorded SCORECARD_CUSTOM_IMAGE)
  [[ $test == *@sha256:* && $custom == *@sha256:* ]] || die "no scorecard images recorded: run '$0 images' first"
  cp -r "$root/config" "$work/config"
  (cd "$work/config/scorecard-local" &&
    "$LOCALBIN/kustomize" edit set image "quay.io/operator-framework/scorecard-test=$test" \
      "registry.example.com/memcached-operator-scorecard-tests=$custom")
  mkdir -p "$(dirname "$out")"
  "$LOCALBIN/kustomize" build "$work/config/scorecard-local" >"$out"
  # Only the image references may differ from config/scorecard (which `make bundle` ships as the
  # bundle's tests/scorecard/config.yaml; make verify checks that one).
  "$LOCALBIN/kustomize" build "$root/config/scorecard" | sed -e "s#quay.io/operator-framework/scorecard-test:$OPERATOR_SDK_VERSION\$#$test#" \
    -e "s#registry.example.com/memcached-operator-scorecard-tests:v0.1.0\$#$custom#" | diff - "$out" >"$work/config.diff" ||
    { cat "$work/config.diff" >&2; die "config/scorecard-local differs from config/scorecard beyond its images"; }
  step "wrote $out ($(grep -c 'image: ' "$out") tests; images $test, $custom)"
}

cmd_run() {
  local bundle=${1:-$root/bundle} rc=0
  cmd_images
  cmd_config "$work/config.yaml"
  cp -r "$bundle" "$work/bundle"
  cp "$work/config.yaml" "$work/bundle/tests/scorecard/config.yaml"
  ns=scorecard-real-$(date +%s)
  "$LOCALBIN/kubectl" create namespace "$ns" >/dev/null
  "$LOCALBIN/kubectl" label namespace "$ns" pod-security.kubernetes.io/enforce=baseline pod-security.kubernetes.io/warn=restricted >/dev/null
  trap '"$LOCALBIN/kubectl" delete namespace "$ns" --wait=false >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
  for _ in $(seq 1 100); do "$LOCALBIN/kubectl" get serviceaccount default -n "$ns" >/dev/null 2>&1 && break; sleep 0.1; done
  step "operator-sdk scorecard $bundle -n $ns -w $SCORECARD_WAIT -o json"
  "$LOCALBIN/operator-sdk" scorecard "$work/bundle" -n "$ns" -s default -w "$SCORECARD_WAIT" -o json \
    -u "$(recorded SCORECARD_UNTAR_IMAGE)" -b "$(recorded SCORECARD_STORAGE_IMAGE)" >"$work/out.json" 2>"$work/err.log" || rc=$?
  mkdir -p "$(dirname "$SCORECARD_OUT")"
  cp "$work/out.json" "$SCORECARD_OUT"
  step "operator-sdk's JSON output in $SCORECARD_OUT"
  jq -r '.items[] | .status.results[] | "  \(.state)\t\(.name)\(if (.errors // []) | length > 0 then ": " + (.errors | join("; ")) else "" end)"' "$work/out.json" 2>/dev/null || cat "$work/err.log" >&2
  step "scorecard exit status $rc"
  return "$rc"
}

case ${1:-} in
  images) cmd_images ;;
  config) [ $# -eq 2 ] || die "usage: $0 config OUT"; cmd_config "$2" ;;
  run) shift; cmd_run "$@" ;;
  *) echo "usage: $0 images | config OUT | run [BUNDLE_DIR]" >&2; exit 2 ;;
esac
