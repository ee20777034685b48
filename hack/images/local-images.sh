#!/usr/bin/env bash
# local-images.sh [SUBCOMMAND...]
#
# Assembles images from files on this host, where no public image can be pulled, and pushes them to
# the local registry (hack/images/registry.sh; `make local-images` starts it):
#
#   static     $REGISTRY/local/static:nonroot, the equivalent of gcr.io/distroless/static:nonroot:
#              /etc/passwd and /etc/group (root, nobody, nonroot 65532), /home/nonroot, /tmp, the
#              host's CA certificates; USER 65532:65532. Base of the manager image (BASE_IMAGE).
#   builder    $REGISTRY/local/golang:$GOLANG_VERSION, the equivalent of docker.io/library/golang:
#              the host's Go toolchain (/usr/local/go, must be Go $GOLANG_VERSION), GOPATH=/go,
#              GOTOOLCHAIN=local, busybox-static as /bin/sh and its applets, CA certificates, root.
#              Builder stage of the manager image (BUILDER_IMAGE).
#   opm        $REGISTRY/local/opm:$OPM_VERSION, the equivalent of quay.io/operator-framework/opm
#              (distroless static:debug + opm): the static base plus busybox in /busybox, /bin/opm
#              (bin/opm, statically linked) and /bin/grpc_health_probe (hack/tools/grpc-health-probe);
#              USER 1001, ENTRYPOINT /bin/opm. Base of the catalog image (OPM_IMAGE).
#   memcached  $REGISTRY/memcached:<Debian's upstream version, e.g. 1.6.45>: the rootfs
#              hack/images/debian-memcached.sh assembles (and first assembles when missing) from the
#              Makefile's pins MEMCACHED_DEBIAN_SUITE and MEMCACHED_DEBIAN_VERSION: Debian's memcached
#              package with its libraries and the loader (at /lib64, as the binary names it) from
#              the same suite, user memcache 11211:11211 in /etc/passwd and /etc/group; USER
#              11211:11211, ENTRYPOINT memcached (the operand of the real tier).
#   pause      $REGISTRY/pause:3.10: hack/images/pause (static Go), USER 65535:65535; containerd's
#              sandbox_image on the real node.
#   all        all of the above, in that order (the default).
#   memcached-previous
#              $REGISTRY/memcached:<version> as memcached, from MEMCACHED_PREVIOUS_DEBIAN_SUITE and
#              _VERSION (the Makefile's pins: trixie's 1.6.38), key MEMCACHED_PREVIOUS_IMAGE: the
#              version a warm restart upgrades from on the real tier.
#   pyclients  $REGISTRY/memcached-pyclients:$PYCLIENTS_TAG: the Python clients the user guide names,
#              from the host's Debian packages, and test/real/pyclients/keys.py as /keys.py, the
#              ENTRYPOINT (#!/usr/bin/python3 -I): /usr/bin/python3.X (python3 a link to it), its
#              standard library without tests, GUI, build, packaging and Python 2 tools (test,
#              idlelib, tkinter, turtledemo, lib2to3, distutils, ensurepip, venv, config-*,
#              pydoc_data, ...), the lib-dynload modules that need no library beyond those below,
#              pylibmc with its _pylibmc module, pymemcache (without its tests) and six from
#              /usr/lib/python3/dist-packages; exactly the libraries `ldd` lists for python3.X and
#              _pylibmc (libmemcached, libhashkit, libsasl2, libcrypto, ...), at the paths it prints;
#              /etc/nsswitch.conf "hosts: files dns"; user nonroot, USER 65532:65532. Key
#              PYCLIENTS_IMAGE. Packages: hack/cluster/host-packages.sh base.
#   pyclients-rootfs DIR
#              stages the pyclients image's files into DIR (empty or missing) without building or
#              pushing anything (no registry needed), e.g. to run them with
#              `chroot --userspec=65532:65532 DIR /keys.py ...`.
#   olm        $REGISTRY/local/olm:$OLM_VERSION, the equivalent of quay.io/operator-framework/olm:$OLM_VERSION
#              (OLM's Dockerfile: distroless static:debug + the release binaries): /bin/olm,
#              /bin/catalog, /bin/package-server, /bin/copy-content and /bin/cpb built statically from
#              OLM's module source as released (not the loopback-patched host build of
#              hack/olm/build-olm-tools.sh), busybox in /busybox and /bin/cp (bundle unpack Jobs run
#              /bin/cp); USER 1001. The olm and catalog operators, packageserver and OLM's util image.
#   opm-index  $REGISTRY/local/opm-index:$OPM_VERSION: the opm image with an empty file-based catalog
#              in /configs and the label operators.operatorframework.io.index.configs.v1=/configs,
#              the local stand-in for `operator-sdk run bundle`'s default index image
#              quay.io/operator-framework/opm:latest (an FBC index with no bundle).
#   ubi        $REGISTRY/ubi9/ubi:9.8, the stand-in for registry.access.redhat.com/ubi9/ubi:9.8, the init
#              image of operator-sdk's registry pods (it runs `sh -c '... gzip -d ...'`): busybox as
#              /bin/sh and its applets, root, as the original. `run bundle` takes
#              --decompression-image, `run bundle-upgrade` has no such flag: the real node's
#              containerd serves registry.access.redhat.com from the local registry (hack/lib/node.sh).
#   olmv1      OLM v1 and cert-manager, each the equivalent of its release image, from the static binaries
#              hack/olm/build-olmv1-tools.sh builds into $LOCALBIN (built there if missing) on the static
#              base: $REGISTRY/local/operator-controller:$OPERATOR_CONTROLLER_VERSION (/operator-controller)
#              and local/catalogd (/catalogd), USER 65532:65532 as their Dockerfiles; local/cert-manager-
#              {controller,cainjector,webhook}:$CERT_MANAGER_VERSION (/app/cmd/NAME/NAME, the path
#              cert-manager's images use), USER 1000. Keys OPERATOR_CONTROLLER_IMAGE, CATALOGD_IMAGE,
#              CERT_MANAGER_{CONTROLLER,CAINJECTOR,WEBHOOK}_IMAGE.
#   prometheus $REGISTRY/local/prometheus:<version>, the equivalent of quay.io/prometheus/prometheus:
#              the Prometheus server of the github.com/prometheus/prometheus module version that
#              hack/tools/prometheus requires (the one prometheus-operator
#              $PROMETHEUS_OPERATOR_VERSION is built against and defaults to: v0.305.0 = v3.5.0),
#              static, as /bin/prometheus on the static base; /etc/prometheus and /prometheus owned
#              by nobody, USER 65534:65534, WORKDIR /prometheus, ENTRYPOINT /bin/prometheus as the
#              release image (prometheus-operator gives every argument). Debian's prometheus
#              package cannot serve here: it is built without Kubernetes service discovery, which
#              every configuration prometheus-operator writes uses. Key PROMETHEUS_IMAGE.
#   prometheus-operator
#              prometheus-operator $PROMETHEUS_OPERATOR_VERSION from its Go module
#              (hack/tools/prometheus-operator), each as its release Dockerfile lays it out, on the
#              static base, USER 65534: $REGISTRY/local/prometheus-operator:$PROMETHEUS_OPERATOR_VERSION
#              (/bin/operator) and local/prometheus-config-reloader (/bin/prometheus-config-reloader,
#              the path prometheus-operator runs in the Prometheus pods). Keys PROMETHEUS_OPERATOR_IMAGE,
#              PROMETHEUS_CONFIG_RELOADER_IMAGE.
#   operator NAME:TAG DIR
#              the operator image of the source tree DIR (a past release's `git archive`) as its
#              Dockerfile builds it: DIR's manager (CGO_ENABLED=0) as /manager on the static base,
#              USER 65532:65532, ENTRYPOINT /manager; pushed as $REGISTRY/NAME:TAG.
#   gobin NAME:TAG PKG [DIR]
#              builds Go package PKG (in the module at DIR, default the repository) as a static
#              binary (CGO_ENABLED=0, -trimpath; extra -ldflags in $GOBIN_LDFLAGS) and wraps it in
#              $REGISTRY/NAME:TAG FROM the static base: /<last element of PKG> is the ENTRYPOINT.
#   record KEY IMAGE
#              resolves IMAGE's digest in its registry and records KEY=<repository>@<digest>.
#   digests    prints the recorded digests.
#
# Every image pushed is recorded as KEY=127.0.0.1:5000/<repository>@sha256:... in
# $REGISTRY_DIR/images.env (keys BASE_IMAGE, BUILDER_IMAGE, OPM_IMAGE, MEMCACHED_IMAGE,
# PAUSE_IMAGE, PYCLIENTS_IMAGE; gobin: NAME upper-cased with _IMAGE, e.g. MEMCACHED_CLIENT_IMAGE), so scripts and
# tests can refer to images by digest (`. $REGISTRY_DIR/images.env`).
#
# Idempotent and cheap when nothing changed: each image's history records a hash of its inputs
# (files, configuration, base image); when the registry already has the tag with that hash, nothing
# is built or pushed. Images are committed with timestamp 0, so the same inputs give the
# same digest.
#
# buildah (Debian's) runs with --storage-driver vfs; its storage is $BUILDAH_DIR/storage (runroot
# $BUILDAH_DIR/run, staging in $BUILDAH_DIR/work); the Makefile's buildah builds use the same.
# Local copies are removed after the push: the registry is the store of record.
#
# Environment (defaults): REGISTRY_DIR=<repo>/.registry  REGISTRY_PORT=5000  BUILDAH_DIR=<repo>/.buildah
#   LOCALBIN=<repo>/bin  GOLANG_VERSION=1.26  OPM_VERSION=v1.74.0  GRPC_HEALTH_PROBE_VERSION=v0.4.53
#   MEMCACHED_DEBIAN_SUITE, MEMCACHED_DEBIAN_VERSION, MEMCACHED_DEBIAN_DIR (the Makefile's; see
#   hack/images/debian-memcached.sh)  MEMCACHED_TAG=<Debian's upstream version>  PAUSE_TAG=3.10
#   PYCLIENTS_TAG=py<X.Y>-pylibmc<version>-pymemcache<version> (from dpkg)
#   OLM_VERSION=v0.46.0  OPERATOR_CONTROLLER_VERSION=v1.2.0  CERT_MANAGER_VERSION=v1.11.5
#   PROMETHEUS_OPERATOR_VERSION=v0.85.0
#   FORCE=1 rebuilds and pushes even when the registry has the same inputs.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
REGISTRY_DIR=${REGISTRY_DIR:-$root/.registry}
REGISTRY_PORT=${REGISTRY_PORT:-5000}
BUILDAH_DIR=${BUILDAH_DIR:-$root/.buildah}
export LOCALBIN=${LOCALBIN:-$root/bin}
GOLANG_VERSION=${GOLANG_VERSION:-1.26}
export OPM_VERSION=${OPM_VERSION:-v1.74.0}
export GRPC_HEALTH_PROBE_VERSION=${GRPC_HEALTH_PROBE_VERSION:-v0.4.53}
PAUSE_TAG=${PAUSE_TAG:-3.10}
export OLM_VERSION=${OLM_VERSION:-v0.46.0}
export OPERATOR_CONTROLLER_VERSION=${OPERATOR_CONTROLLER_VERSION:-v1.2.0} CERT_MANAGER_VERSION=${CERT_MANAGER_VERSION:-v1.11.5}
PROMETHEUS_OPERATOR_VERSION=${PROMETHEUS_OPERATOR_VERSION:-v0.85.0}
registry=127.0.0.1:$REGISTRY_PORT
images_env=$REGISTRY_DIR/images.env
# Bump when a recipe below changes in a way its inputs hash does not see.
recipe_version=1

export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}" no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"
t0=$(date +%s%N)
# shellcheck source=../lib/procs.sh
. "$root/hack/lib/procs.sh"
usage() { sed -n '2,/^set -euo pipefail$/p' "$0" | sed '$d' >&2; exit 2; }

buildah() { command buildah --root "$BUILDAH_DIR/storage" --runroot "$BUILDAH_DIR/run" --storage-driver vfs "$@"; }
skopeo_inspect() { skopeo inspect --tls-verify=false --retry-times 0 "$@"; }

# record KEY REF DIGEST: KEY=<REF without tag or digest>@DIGEST in images.env (replacing KEY's line).
record() {
  local key=$1 ref=$2 digest=$3 repo
  repo=${ref%@*}
  [[ ${repo##*/} == *:* ]] && repo=${repo%:*}
  mkdir -p "$REGISTRY_DIR"
  (
    flock 8
    { grep -v "^$key=" "$images_env" 2>/dev/null || true; echo "$key=$repo@$digest"; } | LC_ALL=C sort >"$images_env.tmp"
    mv "$images_env.tmp" "$images_env"
  ) 8>"$images_env.lock"
  step "recorded $key=$repo@$digest"
}

# tree_hash DIR: a hash of the names, types, modes, owners, link targets and contents under DIR.
tree_hash() {
  (
    cd "$1"
    find . -printf '%p %y %m %U %G %l\n' | LC_ALL=C sort
    find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum
  ) | sha256sum | cut -d' ' -f1
}

# assemble KEY REF FROM DESCRIPTION: commits the staged $rootfs on top of FROM (an image reference
# or "scratch") with the `buildah config` flags in the array $cfg, pushes it as REF and records KEY.
# Skips the build when REF in the registry carries the same inputs hash (FROM, $cfg, $rootfs and
# $extra_inputs, which stands for what the function $late_stage adds to $rootfs only when the image
# is really built).
assemble() {
  local key=$1 ref=$2 from=$3 desc=$4 inputs created_by digest ctr mnt start
  start=$(date +%s%N)
  inputs=$( { echo "recipe $recipe_version from $from"; printf '%s\n' "${cfg[@]}"; tree_hash "$rootfs"; echo "$extra_inputs"; } | sha256sum | cut -d' ' -f1)
  if [ -z "${FORCE:-}" ] &&
    created_by=$(skopeo_inspect --config --format '{{range .History}}{{println .CreatedBy}}{{end}}' "docker://$ref" 2>/dev/null | sed '/^$/d' | tail -n1) &&
    [ "$created_by" = "$(created_by "$inputs" "$desc")" ] && digest=$(skopeo_inspect --format '{{.Digest}}' "docker://$ref"); then
    step "$ref is up to date (inputs ${inputs:0:12}): not rebuilt"
    record "$key" "$ref" "$digest"
    return 0
  fi
  step "building $ref ($desc)"
  [ -z "$late_stage" ] || "$late_stage"
  ctr=$(buildah from --quiet --tls-verify=false --pull=false --name "local-images-$key-$$" "$from")
  trap 'buildah rm "'"$ctr"'" >/dev/null 2>&1 || true' EXIT
  mnt=$(buildah mount "$ctr")
  cp -a "$rootfs/." "$mnt/"
  buildah umount "$ctr" >/dev/null
  # The inputs hash goes into the image's last history entry, not a label or an annotation, which
  # images built FROM this one would inherit (buildah 1.28 copies both).
  buildah config "${cfg[@]}" --created-by "$(created_by "$inputs" "$desc")" "$ctr"
  buildah commit --quiet --rm --timestamp 0 "$ctr" "$ref" >/dev/null
  trap - EXIT
  buildah push --quiet --tls-verify=false --digestfile "$work/$key.digest" "$ref" "docker://$ref"
  digest=$(cat "$work/$key.digest")
  buildah rmi "$ref" >/dev/null 2>&1 || true
  step "pushed $ref@$digest ($(du -sh --apparent-size "$rootfs" | cut -f1) of files; $(( ($(date +%s%N) - start) / 1000000 )) ms)"
  record "$key" "$ref" "$digest"
}

# created_by INPUTS DESCRIPTION: the created_by of the history entry of an image's own layer. Its
# prefix names this script where it stood when the prefix was chosen (hack/, before hack/images/):
# the up-to-date check compares the whole string, so a new prefix would rebuild every local image.
created_by() { echo "hack/local-images.sh: $2 (inputs $1)"; }

# new_rootfs KEY: an empty staging directory in $rootfs; resets $cfg.
new_rootfs() {
  rootfs=$work/$1/rootfs
  rm -rf "$work/$1"
  mkdir -p "$rootfs"
  extra_inputs='' late_stage=''
  cfg=(--env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)
}

# etc_files USER:UID ...: /etc/passwd and /etc/group with root and the given users (group = user).
etc_files() {
  local u
  mkdir -p "$rootfs/etc"
  echo "root:x:0:0:root:/root:/sbin/nologin" >"$rootfs/etc/passwd"
  echo "root:x:0:" >"$rootfs/etc/group"
  for u in "$@"; do
    echo "${u%%:*}:x:${u#*:}:${u#*:}:${u%%:*}:${home[${u%%:*}]:-/nonexistent}:/sbin/nologin" >>"$rootfs/etc/passwd"
    echo "${u%%:*}:x:${u#*:}:" >>"$rootfs/etc/group"
  done
}
declare -A home=([nonroot]=/home/nonroot [root]=/root)

ca_certs() {
  install -D -m 0644 /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
}

# busybox_into DIR: busybox-static as DIR/busybox plus a link per applet (existing files kept).
busybox_into() {
  local dir=$1 applet
  is_static /bin/busybox || die "/bin/busybox (a static busybox) not found: install busybox-static (hack/cluster/host-packages.sh real)"
  install -D -m 0755 /bin/busybox "$rootfs$dir/busybox"
  for applet in $(/bin/busybox --list); do
    [ -e "$rootfs$dir/$applet" ] || ln -s busybox "$rootfs$dir/$applet"
  done
}

# is_static FILE: FILE is an executable that needs no shared library.
is_static() {
  local out
  [ -x "$1" ] || return 1
  out=$(ldd "$1" 2>&1 || true)
  [[ $out == *"not a dynamic executable"* || $out == *"statically linked"* ]]
}

# static_binary FILE: fails unless FILE is a statically linked executable.
static_binary() {
  [ -x "$1" ] || die "$1 not found"
  is_static "$1" || die "$1 is not statically linked: it would not run in the image"
}

base_ref() { echo "$registry/local/static:nonroot"; }
# digest_of KEY: the recorded image of KEY (repo@digest).
digest_of() { sed -n "s/^$1=//p" "$images_env" 2>/dev/null | tail -n1; }

img_static() {
  [ -z "${static_done:-}" ] || return 0
  static_done=1
  new_rootfs static
  etc_files nobody:65534 nonroot:65532
  install -d -m 0700 -o 0 -g 0 "$rootfs/root"
  install -d -m 0700 -o 65532 -g 65532 "$rootfs/home/nonroot"
  install -d -m 1777 "$rootfs/tmp"
  ca_certs
  cfg+=(--env SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt --user 65532:65532 --workingdir /home/nonroot)
  assemble BASE_IMAGE "$(base_ref)" scratch "local equivalent of gcr.io/distroless/static:nonroot"
}

img_builder() {
  local goroot gover
  goroot=$(go env GOROOT)
  gover=$(go env GOVERSION)
  [[ $gover == "go$GOLANG_VERSION" || $gover == "go$GOLANG_VERSION".* ]] ||
    die "the host's Go is $gover, the builder image must be Go $GOLANG_VERSION (as docker.io/library/golang:$GOLANG_VERSION)"
  new_rootfs builder
  etc_files nobody:65534
  install -d -m 0700 "$rootfs/root"
  install -d -m 1777 "$rootfs/tmp"
  install -d -m 0755 "$rootfs/usr/local" "$rootfs/bin" "$rootfs/usr/bin"
  install -d -m 1777 "$rootfs/go" "$rootfs/go/bin" "$rootfs/go/src"
  ca_certs
  busybox_into /bin
  # The toolchain (~270 MB) is copied only when the image is built; its listing (names, sizes,
  # modes, times) stands for it in the inputs hash.
  extra_inputs="$gover $( (cd "$goroot" && find . -printf '%p %y %m %s %T@ %l\n' | LC_ALL=C sort) | sha256sum)"
  copy_goroot() { step "copying the host's Go toolchain ($gover, $goroot)"; cp -a "$goroot" "$rootfs/usr/local/go"; }
  late_stage=copy_goroot
  cfg=(--env PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
    --env GOLANG_VERSION="${gover#go}" --env GOTOOLCHAIN=local --env GOPATH=/go
    --workingdir /go --cmd /bin/sh)
  assemble BUILDER_IMAGE "$registry/local/golang:$GOLANG_VERSION" scratch \
    "local equivalent of docker.io/library/golang:$GOLANG_VERSION: the host's $gover"
}

img_opm() {
  local base
  "$root/hack/olm/build-olm-tools.sh" opm grpc-health-probe
  static_binary "$LOCALBIN/opm"
  static_binary "$LOCALBIN/grpc_health_probe"
  img_static
  base=$(digest_of BASE_IMAGE)
  new_rootfs opm
  busybox_into /busybox
  install -D -m 0755 "$LOCALBIN/opm" "$rootfs/bin/opm"
  install -D -m 0755 "$LOCALBIN/grpc_health_probe" "$rootfs/bin/grpc_health_probe"
  # As operator-registry's image: hosts before DNS for Go's resolver.
  install -D -m 0644 /dev/stdin "$rootfs/etc/nsswitch.conf" <<<"hosts: files dns"
  cfg=(--env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/busybox
    --user 1001 --workingdir / --entrypoint '["/bin/opm"]')
  assemble OPM_IMAGE "$registry/local/opm:$OPM_VERSION" "$base" \
    "local equivalent of quay.io/operator-framework/opm:$OPM_VERSION: opm and grpc_health_probe $GRPC_HEALTH_PROBE_VERSION"
}

img_memcached() {
  local key=${1:-MEMCACHED_IMAGE} dir tag package
  dir=$("$root/hack/images/debian-memcached.sh") || die "assembling Debian's memcached failed (hack/images/debian-memcached.sh)"
  tag=${MEMCACHED_TAG:-$(cat "$dir/version")}
  [ "$key" = MEMCACHED_IMAGE ] || tag=$(cat "$dir/version")
  package=$(sed -n 's/^memcached //p' "$dir/packages")
  new_rootfs memcached
  cp -a "$dir/rootfs/." "$rootfs/"
  cfg+=(--user 11211:11211 --workingdir / --entrypoint '["memcached"]' --port 11211/tcp
    --label "org.opencontainers.image.version=$tag")
  assemble "$key" "$registry/memcached:$tag" scratch \
    "memcached $package from Debian $(sed -n 's/.*suite=\([^ ]*\).*/\1/p' "$dir/inputs") with its libraries and loader"
}

# ldd_paths FILE...: the absolute paths `ldd` prints for FILEs (the loader included), one a line.
ldd_paths() {
  local f
  for f in "$@"; do ldd "$f" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }'; done | LC_ALL=C sort -u
}

# pyclients_rootfs DIR: stages the pyclients image's files into DIR (see the header). Sets
# $pyclients_desc and $pyclients_tag.
pyclients_rootfs() {
  local dir=$1 py ver stdlib dist ext lib mod pylibmc_v pymemcache_v
  py=$(readlink -f /usr/bin/python3) || die "/usr/bin/python3 not found: install Debian's python3"
  ver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  stdlib=/usr/lib/python$ver dist=/usr/lib/python3/dist-packages
  ext=$(ls "$dist"/_pylibmc.cpython-*.so 2>/dev/null | head -n1)
  [ -n "$ext" ] && [ -d "$dist/pylibmc" ] && [ -d "$dist/pymemcache" ] && [ -f "$dist/six.py" ] ||
    die "pylibmc, pymemcache or six missing in $dist: install python3-pylibmc and python3-pymemcache (hack/cluster/host-packages.sh base)"
  pylibmc_v=$(dpkg-query -W -f '${Version}' python3-pylibmc) pymemcache_v=$(dpkg-query -W -f '${Version}' python3-pymemcache)
  pylibmc_v=${pylibmc_v#*:} pymemcache_v=${pymemcache_v#*:}
  pyclients_tag=${PYCLIENTS_TAG:-py$ver-pylibmc${pylibmc_v%%-*}-pymemcache${pymemcache_v%%-*}}
  pyclients_desc="Python $ver, pylibmc $pylibmc_v (libmemcached $(dpkg-query -W -f '${Version}' libmemcached11)), pymemcache $pymemcache_v from Debian; test/real/pyclients/keys.py"
  mkdir -p "$dir"
  [ -z "$(ls -A "$dir")" ] || die "$dir is not empty"
  rootfs=$dir
  etc_files nonroot:65532
  install -D -m 0644 /dev/stdin "$rootfs/etc/nsswitch.conf" <<<"hosts: files dns"
  install -D -m 0755 "$py" "$rootfs/usr/bin/python$ver"
  ln -s "python$ver" "$rootfs/usr/bin/python3"
  # The standard library without what a client script never imports; sitecustomize.py is a link
  # to /etc (Debian's hook), left out.
  mkdir -p "$rootfs$stdlib/lib-dynload" "$rootfs$dist"
  tar -C "$stdlib" -cf - --exclude=./test --exclude=./idlelib --exclude=./tkinter --exclude=./turtledemo \
    --exclude=./lib2to3 --exclude=./distutils --exclude=./ensurepip --exclude=./venv --exclude='./config-*' \
    --exclude=./pydoc_data --exclude=./sqlite3 --exclude=./curses --exclude=./dbm --exclude=./unittest \
    --exclude=./turtle.py --exclude=./sitecustomize.py --exclude=./lib-dynload --exclude='./__pycache__/turtle.*' . |
    tar -C "$rootfs$stdlib" -xf -
  (cd "$dist" && tar -cf - --exclude=pymemcache/test pylibmc "$(basename "$ext")" pymemcache six.py __pycache__/six.cpython-*.pyc) |
    tar -C "$rootfs$dist" -xf -
  # Exactly what the loader resolves for the interpreter and pylibmc's extension module.
  for lib in $(ldd_paths "$py" "$ext"); do
    install -D -m 0755 "$(readlink -f "$lib")" "$rootfs$lib"
  done
  # lib-dynload modules that need nothing more (no test modules): _json, _queue, _typing, ...
  for mod in "$stdlib"/lib-dynload/*.so; do
    case $(basename "$mod") in _test* | _ctypes_test* | _xx* | xx*) continue ;; esac
    for lib in $(ldd_paths "$mod"); do [ -e "$rootfs$lib" ] || continue 2; done
    install -m 0644 "$mod" "$rootfs$stdlib/lib-dynload/"
  done
  install -m 0755 "$root/test/real/pyclients/keys.py" "$rootfs/keys.py"
}

img_pyclients() {
  new_rootfs pyclients
  rmdir "$rootfs"
  pyclients_rootfs "$rootfs"
  cfg+=(--user 65532:65532 --workingdir / --entrypoint '["/keys.py"]' --cmd idle
    --label "org.opencontainers.image.version=$pyclients_tag")
  assemble PYCLIENTS_IMAGE "$registry/memcached-pyclients:$pyclients_tag" scratch "$pyclients_desc"
}

# prometheus_version MODULE_VERSION: the Prometheus release of a github.com/prometheus/prometheus
# module version (v0.305.0 is Prometheus 3.5.0: v0.<major><minor, two digits>.<patch>).
prometheus_version() {
  local v=${1#v0.} mm
  mm=${v%%.*}
  echo "v$((mm / 100)).$((10#${mm: -2})).${v#*.}"
}

img_prometheus() {
  local base dir=$root/hack/tools/prometheus modver version
  modver=$(cd "$dir" && go list -m -f '{{.Version}}' github.com/prometheus/prometheus) ||
    die "hack/tools/prometheus/go.mod does not require github.com/prometheus/prometheus"
  version=$(prometheus_version "$modver")
  img_static
  base=$(digest_of BASE_IMAGE)
  new_rootfs prometheus
  step "building Prometheus $version (github.com/prometheus/prometheus $modver)"
  (cd "$dir" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X github.com/prometheus/common/version.Version=${version#v} -X github.com/prometheus/common/version.Branch=HEAD -X github.com/prometheus/common/version.Revision=$modver" \
    -o "$rootfs/bin/prometheus" github.com/prometheus/prometheus/cmd/prometheus)
  static_binary "$rootfs/bin/prometheus"
  install -d -m 0755 -o 65534 -g 65534 "$rootfs/etc/prometheus" "$rootfs/prometheus"
  cfg=(--user 65534:65534 --workingdir /prometheus --entrypoint '["/bin/prometheus"]' --port 9090/tcp
    --label "org.opencontainers.image.version=$version")
  assemble PROMETHEUS_IMAGE "$registry/local/prometheus:$version" "$base" \
    "local equivalent of quay.io/prometheus/prometheus:$version, from its Go module"
}

img_prometheus_operator() {
  local base dir=$root/hack/tools/prometheus-operator pkg=github.com/prometheus-operator/prometheus-operator/cmd c ldflags
  grep -q "github.com/prometheus-operator/prometheus-operator $PROMETHEUS_OPERATOR_VERSION$" "$dir/go.mod" ||
    die "hack/tools/prometheus-operator/go.mod does not require prometheus-operator $PROMETHEUS_OPERATOR_VERSION"
  # As its Makefile stamps a release (the operator derives its default reloader image from Version).
  ldflags="-s -w -X github.com/prometheus/common/version.Version=${PROMETHEUS_OPERATOR_VERSION#v} -X github.com/prometheus/common/version.Branch=HEAD -X github.com/prometheus/common/version.Revision=$PROMETHEUS_OPERATOR_VERSION"
  img_static
  base=$(digest_of BASE_IMAGE)
  for c in operator prometheus-config-reloader; do
    new_rootfs "prometheus-operator-$c"
    step "building prometheus-operator $PROMETHEUS_OPERATOR_VERSION's $c"
    (cd "$dir" && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$rootfs/bin/$c" "$pkg/$c")
    static_binary "$rootfs/bin/$c"
    cfg=(--user 65534 --workingdir / --entrypoint "[\"/bin/$c\"]")
    if [ "$c" = operator ]; then
      assemble PROMETHEUS_OPERATOR_IMAGE "$registry/local/prometheus-operator:$PROMETHEUS_OPERATOR_VERSION" "$base" \
        "local equivalent of quay.io/prometheus-operator/prometheus-operator:$PROMETHEUS_OPERATOR_VERSION, from its Go module"
    else
      assemble PROMETHEUS_CONFIG_RELOADER_IMAGE "$registry/local/prometheus-config-reloader:$PROMETHEUS_OPERATOR_VERSION" "$base" \
        "local equivalent of quay.io/prometheus-operator/prometheus-config-reloader:$PROMETHEUS_OPERATOR_VERSION, from its Go module"
    fi
  done
}

img_pause() {
  new_rootfs pause
  (cd "$root" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$rootfs/pause" ./hack/images/pause)
  static_binary "$rootfs/pause"
  cfg=(--user 65535:65535 --entrypoint '["/pause"]')
  assemble PAUSE_IMAGE "$registry/pause:$PAUSE_TAG" scratch "pause $PAUSE_TAG (hack/images/pause)"
}

img_olm() {
  local base src pristine ovl b
  # The writable copy of OLM's module source (hack/olm/build-olm-tools.sh) has its health listener
  # patched to 127.0.0.1 for the host processes of the kwok tier; in a pod it must listen on the
  # pod's address as released: build with the module cache's original file overlaid.
  src=$LOCALBIN/.src/operator-lifecycle-manager-$OLM_VERSION
  [ -f "$src/.complete" ] || "$root/hack/olm/build-olm-tools.sh" olm >/dev/null
  pristine=$(cd "$root/hack/tools/opm" && GOFLAGS=-mod=mod go mod download -json "github.com/operator-framework/operator-lifecycle-manager@$OLM_VERSION" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')/pkg/lib/server/server.go
  [ -f "$pristine" ] || die "OLM $OLM_VERSION's pkg/lib/server/server.go not found in the module cache"
  img_static
  base=$(digest_of BASE_IMAGE)
  new_rootfs olm
  mkdir -p "$work/olm/go"
  ovl=$work/olm/go/overlay.json
  printf '{"Replace":{"%s":"%s"}}\n' "$src/pkg/lib/server/server.go" "$pristine" >"$ovl"
  step "building OLM $OLM_VERSION's olm, catalog, package-server, copy-content and cpb (static)"
  (cd "$src" && CGO_ENABLED=0 go build -overlay "$ovl" -trimpath -ldflags "-s -w" -o "$rootfs/bin/" \
    ./cmd/olm ./cmd/catalog ./cmd/package-server ./cmd/copy-content ./util/cpb)
  for b in olm catalog package-server copy-content cpb; do static_binary "$rootfs/bin/$b"; done
  busybox_into /busybox
  ln -s /busybox/cp "$rootfs/bin/cp"
  cfg=(--env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/busybox
    --user 1001 --workingdir / --entrypoint '["/bin/olm"]' --port 8080/tcp --port 5443/tcp)
  assemble OLM_IMAGE "$registry/local/olm:$OLM_VERSION" "$base" \
    "local equivalent of quay.io/operator-framework/olm:$OLM_VERSION: OLM's binaries from its module source"
}

# img_prebuilt KEY NAME:TAG BINARY PATH USER DESCRIPTION: the static BINARY of $LOCALBIN as PATH (the
# ENTRYPOINT) on the static base, run as USER.
img_prebuilt() {
  local key=$1 name=$2 bin=$3 path=$4 user=$5 desc=$6 base
  img_static
  base=$(digest_of BASE_IMAGE)
  new_rootfs "prebuilt-$bin"
  static_binary "$LOCALBIN/$bin"
  install -D -m 0755 "$LOCALBIN/$bin" "$rootfs$path"
  cfg=(--user "$user" --workingdir / --entrypoint "[\"$path\"]")
  assemble "$key" "$registry/$name" "$base" "$desc"
}

img_olmv1() {
  local c
  "$root/hack/olm/build-olmv1-tools.sh" operator-controller catalogd cert-manager-controller cert-manager-cainjector cert-manager-webhook
  img_prebuilt OPERATOR_CONTROLLER_IMAGE "local/operator-controller:$OPERATOR_CONTROLLER_VERSION" operator-controller /operator-controller 65532:65532 \
    "local equivalent of quay.io/operator-framework/operator-controller:$OPERATOR_CONTROLLER_VERSION"
  img_prebuilt CATALOGD_IMAGE "local/catalogd:$OPERATOR_CONTROLLER_VERSION" catalogd /catalogd 65532:65532 \
    "local equivalent of quay.io/operator-framework/catalogd:$OPERATOR_CONTROLLER_VERSION"
  for c in controller cainjector webhook; do
    img_prebuilt "CERT_MANAGER_$(echo "$c" | tr '[:lower:]' '[:upper:]')_IMAGE" "local/cert-manager-$c:$CERT_MANAGER_VERSION" \
      "cert-manager-$c" "/app/cmd/$c/$c" 1000 "local equivalent of quay.io/jetstack/cert-manager-$c:$CERT_MANAGER_VERSION"
  done
}

img_opm_index() {
  local base
  img_opm
  base=$(digest_of OPM_IMAGE)
  new_rootfs opm-index
  install -d -m 0755 "$rootfs/configs"
  cfg=(--label operators.operatorframework.io.index.configs.v1=/configs)
  assemble OPM_INDEX_IMAGE "$registry/local/opm-index:$OPM_VERSION" "$base" \
    "local equivalent of quay.io/operator-framework/opm:latest as operator-sdk's empty FBC index"
}

img_ubi() {
  new_rootfs ubi
  etc_files nobody:65534
  install -d -m 0700 "$rootfs/root"
  install -d -m 1777 "$rootfs/tmp"
  install -d -m 0755 "$rootfs/bin"
  busybox_into /bin
  cfg+=(--user 0:0 --workingdir / --cmd /bin/sh)
  assemble UBI_IMAGE "$registry/ubi9/ubi:9.8" scratch \
    "stand-in for registry.access.redhat.com/ubi9/ubi:9.8 (operator-sdk's registry pod init image): busybox"
}

# img_operator NAME:TAG DIR
img_operator() {
  [ $# -eq 2 ] && [[ $1 == *:* ]] && [ -f "$2/main.go" ] || die "usage: operator NAME:TAG DIR (DIR: the operator's source tree)"
  local name=$1 dir=$2 base
  img_static
  base=$(digest_of BASE_IMAGE)
  new_rootfs "operator-${name##*:}"
  step "building the manager of $dir"
  (cd "$dir" && CGO_ENABLED=0 go build -trimpath -o "$rootfs/manager" .)
  static_binary "$rootfs/manager"
  # The sidecars' binaries (certificate reloader, stats relay, warm-restart launcher), in the releases that have them (as the Dockerfile).
  local sidecar
  for sidecar in cert-reloader stats-relay memcached-launcher; do
    if [ -d "$dir/cmd/$sidecar" ]; then
      (cd "$dir" && CGO_ENABLED=0 go build -trimpath -o "$rootfs/$sidecar" "./cmd/$sidecar")
      static_binary "$rootfs/$sidecar"
    fi
  done
  cfg=(--user 65532:65532 --workingdir / --entrypoint '["/manager"]')
  assemble "$(echo "${name%:*}_${name##*:}" | tr '[:lower:]' '[:upper:]' | tr -c 'A-Z0-9\n' '_')_IMAGE" "$registry/$name" "$base" \
    "the manager of $(basename "$dir") (static Go binary, /manager, and /cert-reloader, /stats-relay and /memcached-launcher where present) on the local static base"
}

# img_gobin NAME:TAG PKG [DIR]
img_gobin() {
  [ $# -ge 2 ] && [ $# -le 3 ] && [[ $1 == *:* ]] || die "usage: gobin NAME:TAG PKG [MODULE_DIR]"
  local name=$1 pkg=$2 dir=${3:-$root} bin key base
  bin=$(basename "$pkg")
  key=$(echo "${name%:*}" | tr '[:lower:]' '[:upper:]' | tr -c 'A-Z0-9\n' '_')_IMAGE
  img_static
  base=$(digest_of BASE_IMAGE)
  new_rootfs "gobin-$bin"
  step "building $pkg"
  (cd "$dir" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w ${GOBIN_LDFLAGS:-}" -o "$rootfs/$bin" "$pkg")
  static_binary "$rootfs/$bin"
  cfg=(--entrypoint "[\"/$bin\"]")
  assemble "$key" "$registry/$name" "$base" "$pkg (static Go binary) on the local static base"
}

cmd_record() {
  [ $# -eq 2 ] || die "usage: record KEY IMAGE"
  local digest tls=()
  case $2 in 127.0.0.1[:/]* | localhost[:/]*) tls=(--tls-verify=false) ;; esac
  digest=$(skopeo inspect "${tls[@]}" --format '{{.Digest}}' "docker://$2") || die "cannot inspect $2"
  record "$1" "$2" "$digest"
}

[ $# -gt 0 ] || set -- all
case $1 in
  -h | --help) usage ;;
  digests) cat "$images_env"; exit 0 ;;
  record) shift; cmd_record "$@"; exit 0 ;;
  pyclients-rootfs) [ $# -eq 2 ] || die "usage: pyclients-rootfs DIR"; pyclients_rootfs "$2"; step "staged the pyclients image's files in $2 ($(du -sh --apparent-size "$2" | cut -f1))"; exit 0 ;;
esac

for c in buildah skopeo; do command -v "$c" >/dev/null || die "$c not found (hack/cluster/host-packages.sh real)"; done
curl -fsS -o /dev/null --max-time 2 "http://$registry/v2/" 2>/dev/null ||
  die "no registry answers on $registry: start it (hack/images/registry.sh start, or make registry-up)"
mkdir -p "$BUILDAH_DIR"
work=$BUILDAH_DIR/work
exec 9>"$BUILDAH_DIR/local-images.lock"
flock -n 9 || { step "waiting for another local-images.sh to finish"; flock 9; }

case $1 in
  gobin) shift; img_gobin "$@" ;;
  operator) shift; img_operator "$@" ;;
  *)
    for c in "$@"; do
      case $c in
        all) img_static; img_builder; img_opm; img_memcached; img_pause ;;
        static) img_static ;;
        builder) img_builder ;;
        opm) img_opm ;;
        memcached) img_memcached ;;
        memcached-previous)
          MEMCACHED_DEBIAN_SUITE=${MEMCACHED_PREVIOUS_DEBIAN_SUITE:-trixie} MEMCACHED_DEBIAN_VERSION=${MEMCACHED_PREVIOUS_DEBIAN_VERSION:-1.6.38-1} \
            MEMCACHED_DEBIAN_DIR=${MEMCACHED_PREVIOUS_DEBIAN_DIR:-} img_memcached MEMCACHED_PREVIOUS_IMAGE ;;
        pyclients) img_pyclients ;;
        pause) img_pause ;;
        olm) img_olm ;;
        olmv1) img_olmv1 ;;
        opm-index) img_opm_index ;;
        ubi) img_ubi ;;
        prometheus) img_prometheus ;;
        prometheus-operator) img_prometheus_operator ;;
        *) usage ;;
      esac
    done ;;
esac
rm -rf "$work"
step "done; digests in $images_env"
