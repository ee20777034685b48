#!/usr/bin/env bash
# operator-group.sh NAMESPACE [TARGETS] — makes sure NAMESPACE holds exactly one OperatorGroup that
# serves TARGETS (comma-separated namespaces; empty: all namespaces) in an install mode the bundle
# supports, and prints its name on stdout. OLM resolves nothing in a namespace with two or more
# OperatorGroups (the CSV fails with TooManyOperatorGroups), so an existing one is never added to:
#   - no OperatorGroup: creates $OPERATOR_GROUP_NAME targeting TARGETS;
#   - one that serves every namespace of TARGETS (it targets them, or all namespaces) in an install
#     mode the CSV supports: reused as it is;
#   - one that does not, or several: stops with a message naming them and what to do.
# Used by `make demo-olm` (hack/demo/demo.sh kwok olm) and the OLM tests (test/olm).
#
# Environment (defaults): KUBECONFIG (the cluster with OLM), KUBECTL (bin/kubectl),
# OPERATOR_GROUP_NAME (memcached), CSV (bundle/manifests/memcached-operator.clusterserviceversion.yaml:
# the install modes it supports).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
KUBECTL=${KUBECTL:-$root/bin/kubectl}
OPERATOR_GROUP_NAME=${OPERATOR_GROUP_NAME:-memcached}
CSV=${CSV:-$root/bundle/manifests/memcached-operator.clusterserviceversion.yaml}
ns=${1:?usage: operator-group.sh NAMESPACE [TARGETS]}
want=${2:-}
# shellcheck source=../lib/procs.sh
. "$root/hack/lib/procs.sh"
k() { "$KUBECTL" "$@"; }

# mode_of NAMESPACE TARGETS: the install mode of an OperatorGroup of NAMESPACE targeting TARGETS
# (space-separated; empty: all namespaces).
mode_of() {
  local -a t
  read -r -a t <<<"$2"
  case ${#t[@]} in
    0) echo AllNamespaces ;;
    1) if [ "${t[0]}" = "$1" ]; then echo OwnNamespace; else echo SingleNamespace; fi ;;
    *) echo MultiNamespace ;;
  esac
}

# The install modes the CSV supports (kubectl parses the YAML: no YAML tool needed).
supported=$(k create --dry-run=client -f "$CSV" -o jsonpath='{range .spec.installModes[?(@.supported==true)]}{.type}{" "}{end}') ||
  die "cannot read the install modes of $CSV (is OLM installed in the cluster of ${KUBECONFIG:-the default kubeconfig}?)"
# supports MODE: the CSV supports install mode MODE.
supports() { [[ " $supported " == *" $1 "* ]]; }
wanted_targets=${want//,/ }
wanted_mode=$(mode_of "$ns" "$wanted_targets")

mapfile -t groups < <(k get operatorgroups.operators.coreos.com -n "$ns" -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}')
case ${#groups[@]} in
  0)
    supports "$wanted_mode" || die "the CSV does not support $wanted_mode (it supports: $supported)"
    targets_yaml="[${want}]"
    [ -n "$want" ] || targets_yaml="[]"
    k apply --server-side --field-manager=memcached-operator-hack -f - >/dev/null <<YAML
apiVersion: operators.coreos.com/v1
kind: OperatorGroup
metadata: {name: $OPERATOR_GROUP_NAME, namespace: $ns}
spec: {targetNamespaces: $targets_yaml}
YAML
    echo "operator-group: created OperatorGroup $ns/$OPERATOR_GROUP_NAME ($wanted_mode${want:+: $want})" >&2
    echo "$OPERATOR_GROUP_NAME"
    ;;
  1)
    og=${groups[0]}
    # Its target namespaces: spec.targetNamespaces, else (a label selector) what OLM resolved into
    # status.namespaces, else all namespaces.
    targets=$(k get operatorgroups.operators.coreos.com "$og" -n "$ns" -o jsonpath='{.spec.targetNamespaces[*]}')
    selector=$(k get operatorgroups.operators.coreos.com "$og" -n "$ns" -o jsonpath='{.spec.selector}')
    if [ -z "$targets" ] && [ -n "$selector" ] && [ "$selector" != "{}" ]; then
      targets=$(k get operatorgroups.operators.coreos.com "$og" -n "$ns" -o jsonpath='{.status.namespaces[*]}')
      [ -n "$targets" ] || die "OperatorGroup $ns/$og selects namespaces by label ($selector) and OLM has not resolved them yet: try again, or delete it"
    fi
    mode=$(mode_of "$ns" "$targets")
    supports "$mode" ||
      die "namespace $ns already has OperatorGroup $og ($mode: ${targets:-all namespaces}), an install mode the CSV does not support ($supported); OLM allows one OperatorGroup per namespace: delete it or install into another namespace"
    if [ "$mode" != AllNamespaces ]; then
      for t in $wanted_targets; do
        [[ " $targets " == *" $t "* ]] || missing="${missing:+$missing }$t"
      done
      [ -n "$wanted_targets" ] || missing="(all namespaces)"
      [ -z "${missing:-}" ] ||
        die "namespace $ns already has OperatorGroup $og targeting ${targets}, not ${missing}; OLM allows one OperatorGroup per namespace: add ${missing} to its spec.targetNamespaces, delete it, or install into another namespace"
    fi
    echo "operator-group: reusing OperatorGroup $ns/$og ($mode: ${targets:-all namespaces})" >&2
    echo "$og"
    ;;
  *)
    die "namespace $ns has ${#groups[@]} OperatorGroups (${groups[*]}): OLM installs nothing there (TooManyOperatorGroups) until all but one are deleted"
    ;;
esac
