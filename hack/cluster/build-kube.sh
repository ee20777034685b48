#!/usr/bin/env bash
# build-kube.sh COMPONENT...
#
# Builds Kubernetes binaries (kube-apiserver, kube-controller-manager, kube-scheduler, kubectl,
# and the real node's kubelet and kube-proxy), etcd and CoreDNS from the pinned wrapper modules in
# hack/tools/{kube,etcd,coredns}, and crictl (go install), into $LOCALBIN. Each binary is skipped when it is already present
# at the pinned version. Versions: KUBE_VERSION (default v1.37.2), ETCD_VERSION (default v3.7.3),
# COREDNS_VERSION (default v1.15.0), CRICTL_VERSION (default v1.37.0) — the first three must match the wrapper modules' go.mod. Cold builds on
# 2 cores: kube-apiserver 10-40 minutes, kubelet ~5, CoreDNS ~3, kube-proxy ~1.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
KUBE_VERSION=${KUBE_VERSION:-v1.37.2}
ETCD_VERSION=${ETCD_VERSION:-v3.7.3}
COREDNS_VERSION=${COREDNS_VERSION:-v1.15.0}
CRICTL_VERSION=${CRICTL_VERSION:-v1.37.0}
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
      "$root/hack/tools/build-tool.sh" etcd "$ETCD_VERSION" -- \
        bash -c 'cd "$0/hack/tools/etcd" && go build -ldflags "-s -w" -o "$OUT" .' "$root" ;;
    coredns)
      "$root/hack/tools/build-tool.sh" coredns "$COREDNS_VERSION" -- \
        bash -c 'cd "$0/hack/tools/coredns" && go build -ldflags "-s -w" -o "$OUT" .' "$root" ;;
    crictl)
      # The CRI's own client (sigs.k8s.io/cri-tools): cluster-up asks containerd's CRI whether it
      # is initialized before the kubelet starts.
      "$root/hack/tools/build-tool.sh" crictl "$CRICTL_VERSION" -- \
        bash -c 'GOBIN=$(dirname "$OUT") go install "sigs.k8s.io/cri-tools/cmd/crictl@$0"' "$CRICTL_VERSION" ;;
    kube-apiserver|kube-controller-manager|kube-scheduler|kubectl|kubelet|kube-proxy)
      "$root/hack/tools/build-tool.sh" "$c" "$KUBE_VERSION" -- \
        bash -c 'cd "$0/hack/tools/kube" && go build -ldflags "$1" -o "$OUT" "k8s.io/kubernetes/cmd/$2"' "$root" "$ldflags" "$c" ;;
    *) echo "build-kube.sh: unknown component $c" >&2; exit 2 ;;
  esac
done
