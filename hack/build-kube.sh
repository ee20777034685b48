#!/usr/bin/env bash
# build-kube.sh COMPONENT...
#
# Builds Kubernetes control-plane binaries (kube-apiserver, kube-controller-manager,
# kube-scheduler, kubectl) and etcd from the pinned wrapper modules in hack/tools/{kube,etcd}
# into $LOCALBIN. Each binary is skipped when it is already present at the pinned version.
# Versions: KUBE_VERSION (default v1.37.2), ETCD_VERSION (default v3.7.3) — they must match the
# wrapper modules' go.mod. A cold build of kube-apiserver takes 10-40 minutes on 2 cores.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
KUBE_VERSION=${KUBE_VERSION:-v1.37.2}
ETCD_VERSION=${ETCD_VERSION:-v3.7.3}
export LOCALBIN=${LOCALBIN:-$root/bin}

minor=${KUBE_VERSION#v1.}; minor=${minor%%.*}
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
  ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.gitCommit=0000000000000000000000000000000000000000"
done

for c in "$@"; do
  case $c in
    etcd)
      "$root/hack/build-tool.sh" etcd "$ETCD_VERSION" -- \
        bash -c 'cd "$0/hack/tools/etcd" && go build -ldflags "-s -w" -o "$OUT" .' "$root" ;;
    kube-apiserver|kube-controller-manager|kube-scheduler|kubectl)
      "$root/hack/build-tool.sh" "$c" "$KUBE_VERSION" -- \
        bash -c 'cd "$0/hack/tools/kube" && go build -ldflags "$1" -o "$OUT" "k8s.io/kubernetes/cmd/$2"' "$root" "$ldflags" "$c" ;;
    *) echo "build-kube.sh: unknown component $c" >&2; exit 2 ;;
  esac
done
