#!/usr/bin/env bash
# chart.sh — writes the Helm chart dist/chart from config/default's kustomize output, so the chart,
# install.yaml and the bundle have one source (config/). kubebuilder's helm/v2-alpha plugin
# (KUBEBUILDER, pinned by the Makefile) does the conversion; this script only feeds it and keeps
# it away from the tree:
#   - its input is what `make build-installer IMG=$IMG` writes to dist/install.yaml (config/default
#     with the manager image set in a copy of config/; $IMG is the release's public image name, as
#     bundle/ names it); the plugin runs in a temporary directory holding PROJECT, that file and a
#     Makefile whose targets do nothing (the plugin runs `make manifests` and `make
#     build-installer` itself, and appends helm-* targets to the Makefile it finds);
#   - --force: every file is regenerated from the input, so a stale values.yaml cannot survive;
#   - Chart.yaml is written here (the plugin writes version 0.1.0): the chart's version is the
#     operator's VERSION, as the bundle's is;
#   - the plugin's default ServiceMonitor for the operator's metrics is removed with its values
#     block: without cert-manager it sets insecureSkipVerify, which nothing we ship may
#     (docs/security.md). The operator's ServiceMonitor that verifies the certificate is
#     config/prometheus (docs/user-guide.md, "Monitoring").
# SRC (default: this repository) is the source tree whose config/, PROJECT and bundle/ are read:
# the real tier's Helm upgrade test writes the chart of a past release from that release's source.
# Environment: VERSION, IMG (default registry.example.com/memcached-operator:vVERSION), KUBEBUILDER,
# KUSTOMIZE, SRC, CHART_DIR (default dist/chart, relative to this repository).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
VERSION=${VERSION:?VERSION is required}
IMG=${IMG:-registry.example.com/memcached-operator:v$VERSION}
KUBEBUILDER=${KUBEBUILDER:-$root/bin/kubebuilder}
KUSTOMIZE=${KUSTOMIZE:-$root/bin/kustomize}
SRC=$(cd "${SRC:-$root}" && pwd)
CHART_DIR=${CHART_DIR:-dist/chart}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/dist"
KUSTOMIZE=$KUSTOMIZE hack/release/install-yaml.sh "$SRC/config" "$IMG" >"$tmp/dist/install.yaml"
cp "$SRC/PROJECT" "$tmp/PROJECT"
printf 'manifests:\n\t@:\nbuild-installer:\n\t@:\n' >"$tmp/Makefile"
(cd "$tmp" && "$KUBEBUILDER" edit --plugins=helm.kubebuilder.io/v2-alpha --force >"$tmp/kubebuilder.log" 2>&1) || {
  cat "$tmp/kubebuilder.log" >&2; exit 1; }
chart=$tmp/dist/chart

rm -r "$chart/templates/prometheus"
# values.yaml: drop the block from its "## Prometheus ServiceMonitor" comment to the next "## "
# comment at column 0 that starts another block.
awk '
  /^## Prometheus ServiceMonitor/ { skip = 1; next }
  skip && /^## / && !/^## Requires prometheus-operator/ { skip = 0 }
  !skip' "$chart/values.yaml" >"$chart/values.yaml.tmp"
mv "$chart/values.yaml.tmp" "$chart/values.yaml"
# certManager.enabled is what makes the plugin's Deployment pass --metrics-cert-path, which
# config/default always passes: the operator serves the Secret memcached-operator-metrics-cert once
# it exists (cert-manager or OpenShift's service-ca write it) and a self-signed certificate until
# then. On by default, so the chart runs the operator as install.yaml does.
awk '
  /^## Cert-manager integration/ {
    print "## The metrics endpoint serves the certificate in Secret memcached-operator-metrics-cert (written"
    print "## by a cert-manager Certificate or by OpenShift service-ca) once it exists, a self-signed one"
    print "## until then (--metrics-cert-path, as install.yaml passes it)."
    skip = 1; next }
  skip && /^certManager:/ { print; getline; sub(/false/, "true"); print; skip = 0; next }
  skip && /^##/ { next }
  { skip = 0; print }' "$chart/values.yaml" >"$chart/values.yaml.tmp"
mv "$chart/values.yaml.tmp" "$chart/values.yaml"
grep -q '^  enabled: true$' <(sed -n '/^certManager:/,/^$/p' "$chart/values.yaml") || {
  echo "chart.sh: values.yaml has no certManager block to turn on" >&2; exit 1; }
# manager.envOverrides replaces a variable of manager.env by name. The plugin's template lists
# both, and Helm 4 applies server-side, where two entries of one name are refused ("duplicate
# entries for key [name=...]"): the override of a RELATED_IMAGE_* or of WATCH_NAMESPACE, which
# every mirror or one-namespace install sets, failed to install. The template now leaves out of
# manager.env the names envOverrides sets (TestChartValues renders no duplicate).
manager=$chart/templates/manager/manager.yaml
awk '
  $0 == "          {{- toYaml .Values.manager.env | nindent 10 }}" {
    print "          {{- $overrides := .Values.manager.envOverrides | default dict }}"
    print "          {{- range .Values.manager.env }}"
    print "          {{- if not (and (kindIs \"map\" $overrides) (hasKey $overrides .name)) }}"
    print "          {{- toYaml (list .) | nindent 10 }}"
    print "          {{- end }}"
    print "          {{- end }}"
    done = 1; next }
  { print }
  END { if (!done) { print "chart.sh: the manager template has no manager.env line to replace" > "/dev/stderr"; exit 1 } }' \
  "$manager" >"$manager.tmp"
mv "$manager.tmp" "$manager"
if grep -rq 'insecureSkipVerify\|\.Values\.prometheus' "$chart"; then
  echo "chart.sh: the chart still skips TLS verification or reads .Values.prometheus" >&2; exit 1
fi

cat >"$chart/Chart.yaml" <<YAML
# Generated by hack/helm/chart.sh (make helm-chart) from config/default: do not edit.
apiVersion: v2
name: memcached-operator
description: Kubernetes operator for memcached (the Memcached API, cache.example.com/v1alpha1)
type: application
version: $VERSION
appVersion: "v$VERSION"
kubeVersion: ">= $(sed -n 's/^  minKubeVersion: //p' "$SRC"/bundle/manifests/memcached-operator.clusterserviceversion.yaml)-0"
keywords:
  - memcached
  - cache
  - operator
annotations:
  kubebuilder.io/generated-by: kubebuilder
YAML

# PROJECT records the plugin (the plugin adds it on the first run).
[ "$SRC" != "$root" ] || cp "$tmp/PROJECT" PROJECT
rm -rf "$CHART_DIR"
mkdir -p "$(dirname "$CHART_DIR")"
cp -r "$chart" "$CHART_DIR"
echo "wrote $CHART_DIR (chart $VERSION, operator image $IMG)"
