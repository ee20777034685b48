/*
Copyright 2026 The memcached-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package resources

import (
	"fmt"
	"slices"
)

// fieldVersion is when a field the operator writes became usable on a default cluster.
type fieldVersion struct {
	// since is the Kubernetes minor release from which the API server keeps the field without any
	// flag: GA, or beta and on by default. For fields older than their kind's API group version it
	// is that version (apps/v1 1.9, policy/v1 1.21, networking.k8s.io/v1 1.7, core/v1 1.0): no
	// server without the group serves the kind at all. Empty for the kinds of CRDs (crdKinds).
	since string
	// gate is the feature gate (and the stages behind since), or the API group version.
	gate string
	// older says what a server older than since does with the field. Only fields of userSubtrees
	// (written only when the user sets them in the Memcached) may be newer than minKubeVersion,
	// and each of those must say it.
	older string
}

// crdKinds are the kinds served by CRDs (the Prometheus Operator's monitoring.coreos.com/v1):
// their fields depend on the CRD installed, not on the Kubernetes version.
var crdKinds = map[string]bool{"ServiceMonitor": true, "PrometheusRule": true}

// fieldVersions is every field path the builders can write, by kind, with the Kubernetes release
// that made it available and on by default. TestWrittenFieldsExistAtMinKubeVersion checks it
// against what the builders write and the CSV's minKubeVersion.
//
// Sources: the versioned feature specs in kubernetes/kubernetes pkg/features/kube_features.go
// (each gate's {Version, Default, PreRelease} stages) and
// https://kubernetes.io/docs/reference/command-line-tools-reference/feature-gates/ ; for the
// fields without a gate, the release of the API group version.
var fieldVersions = tableOf(
	at("1.9", "apps/v1", "Deployment ",
		"metadata.labels", "metadata.name", "metadata.namespace",
		"spec.minReadySeconds", "spec.replicas", "spec.selector.matchLabels",
		"spec.strategy.type", "spec.strategy.rollingUpdate.maxSurge", "spec.strategy.rollingUpdate.maxUnavailable",
		"spec.template.metadata.annotations", "spec.template.metadata.labels"),
	at("1.9", "apps/v1", "StatefulSet ",
		"metadata.labels", "metadata.name", "metadata.namespace",
		"spec.replicas", "spec.selector.matchLabels", "spec.serviceName", "spec.podManagementPolicy", "spec.updateStrategy.type"),
	at("1.25", "StatefulSetMinReadySeconds: beta on by default 1.23, GA 1.25", "StatefulSet ", "spec.minReadySeconds"),
	at("1.9", "apps/v1", podSpec, "volumes[].emptyDir.medium", "volumes[].downwardAPI.defaultMode",
		"volumes[].downwardAPI.items[].path", "volumes[].downwardAPI.items[].fieldRef.apiVersion", "volumes[].downwardAPI.items[].fieldRef.fieldPath"),
	at("1.10", "LocalStorageCapacityIsolation: beta on by default 1.10, GA 1.25", podSpec, "volumes[].emptyDir.sizeLimit"),
	at("1.9", "apps/v1", podSpec+"initContainers[].",
		"name", "image", "command[]", "resources.limits", "resources.requests",
		"volumeMounts[].mountPath", "volumeMounts[].name",
		"securityContext.allowPrivilegeEscalation", "securityContext.capabilities.drop[]",
		"securityContext.readOnlyRootFilesystem", "securityContext.runAsNonRoot"),
	at("1.9", "apps/v1", podSpec,
		"automountServiceAccountToken", "imagePullSecrets[].name", "nodeSelector", "terminationGracePeriodSeconds",
		"securityContext.fsGroup", "securityContext.runAsNonRoot", "securityContext.runAsUser",
		"volumes[].name", "volumes[].projected.defaultMode", "volumes[].projected.sources[].secret.name",
		"volumes[].projected.sources[].secret.items[].key", "volumes[].projected.sources[].secret.items[].path",
		"tolerations[].effect", "tolerations[].key", "tolerations[].operator", "tolerations[].tolerationSeconds", "tolerations[].value"),
	at("1.9", "apps/v1", container,
		"name", "image", "command[]", "args[]",
		"ports[].containerPort", "ports[].name", "ports[].protocol",
		"resources.limits", "resources.requests",
		"volumeMounts[].mountPath", "volumeMounts[].name", "volumeMounts[].readOnly",
		"securityContext.allowPrivilegeEscalation", "securityContext.capabilities.drop[]",
		"securityContext.readOnlyRootFilesystem", "securityContext.runAsNonRoot"),
	at("1.9", "apps/v1", container+"livenessProbe.", probeFields...),
	at("1.9", "apps/v1", container+"readinessProbe.", slices.DeleteFunc(slices.Clone(probeFields), func(f string) bool { return f == "initialDelaySeconds" })...),
	at("1.30", "PodLifecycleSleepAction: alpha 1.29, beta on by default 1.30, GA 1.34", container,
		"lifecycle.preStop.sleep.seconds"),
	at("1.13", "enableServiceLinks field added in 1.13", podSpec, "enableServiceLinks"),
	at("1.11", "PodPriority: beta on by default 1.11, GA 1.14", podSpec, "priorityClassName"),
	at("1.14", "RunAsGroup: beta on by default 1.14, GA 1.21", podSpec, "securityContext.runAsGroup"),
	at("1.19", "seccompProfile field, seccomp GA 1.19 (KEP-135)", podSpec, "securityContext.seccompProfile.type"),

	// spec.affinity, or the antiAffinityPreset's pod anti-affinity.
	at("1.9", "apps/v1", nodeAffinity+"requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[].",
		"matchExpressions[].key", "matchExpressions[].operator", "matchExpressions[].values[]"),
	at("1.9", "apps/v1", nodeAffinity+"preferredDuringSchedulingIgnoredDuringExecution[].",
		"weight", "preference.matchExpressions[].key", "preference.matchExpressions[].operator", "preference.matchExpressions[].values[]"),
	at("1.11", "NodeSelectorTerm.matchFields added in 1.11", nodeAffinity,
		"requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[].matchFields[].key",
		"requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[].matchFields[].operator",
		"requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[].matchFields[].values[]",
		"preferredDuringSchedulingIgnoredDuringExecution[].preference.matchFields[].key",
		"preferredDuringSchedulingIgnoredDuringExecution[].preference.matchFields[].operator",
		"preferredDuringSchedulingIgnoredDuringExecution[].preference.matchFields[].values[]"),
	podAffinityTerms("podAffinity"),
	podAffinityTerms("podAntiAffinity"),

	// spec.topologySpreadConstraints (a labelSelector added when the user gives none).
	at("1.18", "EvenPodsSpread: beta on by default 1.18, GA 1.19", podSpec+"topologySpreadConstraints[].",
		"maxSkew", "topologyKey", "whenUnsatisfiable", "labelSelector.matchLabels",
		"labelSelector.matchExpressions[].key", "labelSelector.matchExpressions[].operator", "labelSelector.matchExpressions[].values[]"),
	at("1.27", "MinDomainsInPodTopologySpread: beta off 1.25, beta on by default 1.27, GA 1.30", podSpec+"topologySpreadConstraints[].",
		"minDomains"),
	at("1.26", "NodeInclusionPolicyInPodTopologySpread: alpha 1.25, beta on by default 1.26, GA 1.33", podSpec+"topologySpreadConstraints[].",
		"nodeAffinityPolicy", "nodeTaintsPolicy"),
	at("1.27", "MatchLabelKeysInPodTopologySpread: alpha 1.25, beta on by default 1.27", podSpec+"topologySpreadConstraints[].",
		"matchLabelKeys[]"),

	at("1.0", "core/v1", "Service ",
		"metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "spec.clusterIP", "spec.selector",
		"spec.ports[].name", "spec.ports[].port", "spec.ports[].protocol", "spec.ports[].targetPort"),

	at("1.21", "policy/v1", "PodDisruptionBudget ",
		"metadata.labels", "metadata.name", "metadata.namespace",
		"spec.selector.matchLabels", "spec.minAvailable", "spec.maxUnavailable"),

	at("1.7", "networking.k8s.io/v1", "NetworkPolicy ",
		"metadata.labels", "metadata.name", "metadata.namespace", "spec.podSelector.matchLabels",
		"spec.ingress[].ports[].port", "spec.ingress[].ports[].protocol"),
	at("1.7", "networking.k8s.io/v1", "NetworkPolicy spec.ingress[].from[].", selectorFields("podSelector")...),
	at("1.7", "networking.k8s.io/v1", "NetworkPolicy spec.ingress[].from[].", selectorFields("namespaceSelector")...),
	at("1.8", "policyTypes and ipBlock added in networking.k8s.io/v1 in 1.8", "NetworkPolicy ",
		"spec.policyTypes[]", "spec.ingress[].from[].ipBlock.cidr", "spec.ingress[].from[].ipBlock.except[]"),

	at("", "monitoring.coreos.com/v1", "ServiceMonitor ",
		"metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace",
		"spec.selector.matchLabels", "spec.endpoints[].interval", "spec.endpoints[].path", "spec.endpoints[].port"),
	at("", "monitoring.coreos.com/v1", "PrometheusRule ",
		"metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "spec.groups[].name",
		"spec.groups[].rules[].alert", "spec.groups[].rules[].annotations", "spec.groups[].rules[].expr",
		"spec.groups[].rules[].for", "spec.groups[].rules[].labels"),
)

const (
	podSpec      = "Deployment spec.template.spec."
	container    = podSpec + "containers[]."
	nodeAffinity = podSpec + "affinity.nodeAffinity."
)

// probeFields are the fields of the TCP probes (tcpProbe; a field at 0, the readiness probe's
// initialDelaySeconds, is not written).
var probeFields = []string{"tcpSocket.port", "initialDelaySeconds", "periodSeconds", "timeoutSeconds", "successThreshold", "failureThreshold"}

// selectorFields are the fields of the metav1.LabelSelector at path.
func selectorFields(path string) []string {
	return []string{path + ".matchLabels", path + ".matchExpressions[].key", path + ".matchExpressions[].operator", path + ".matchExpressions[].values[]"}
}

// podAffinityTerms are the entries of spec.affinity's podAffinity or podAntiAffinity (kind).
func podAffinityTerms(kind string) map[string]fieldVersion {
	prefix := podSpec + "affinity." + kind + "."
	var old, nsSelector, labelKeys []string
	for _, term := range []string{"requiredDuringSchedulingIgnoredDuringExecution[].", "preferredDuringSchedulingIgnoredDuringExecution[].podAffinityTerm."} {
		old = append(old, term+"topologyKey", term+"namespaces[]")
		old = append(old, selectorFields(term+"labelSelector")...)
		nsSelector = append(nsSelector, selectorFields(term+"namespaceSelector")...)
		labelKeys = append(labelKeys, term+"matchLabelKeys[]", term+"mismatchLabelKeys[]")
	}
	old = append(old, "preferredDuringSchedulingIgnoredDuringExecution[].weight")
	keys := at("1.31", "MatchLabelKeysInPodAffinity: alpha 1.29, beta on by default 1.31, GA 1.33", prefix, labelKeys...)
	for p, v := range keys {
		v.older = "dropped by the API server of 1.30 (alpha, off by default): the term applies without them, and apply.Object writes them once, not on every reconcile"
		keys[p] = v
	}
	return tableOf(
		at("1.9", "apps/v1", prefix, old...),
		at("1.22", "PodAffinityNamespaceSelector: beta on by default 1.22, GA 1.24", prefix, nsSelector...),
		keys,
	)
}

// at returns the entries of prefix+path for each path, all with the same version and gate.
func at(since, gate, prefix string, paths ...string) map[string]fieldVersion {
	out := make(map[string]fieldVersion, len(paths))
	for _, p := range paths {
		out[prefix+p] = fieldVersion{since: since, gate: gate}
	}
	return out
}

// tableOf merges parts; a path listed twice is a mistake in the table.
func tableOf(parts ...map[string]fieldVersion) map[string]fieldVersion {
	out := map[string]fieldVersion{}
	for _, part := range parts {
		for p, v := range part {
			if _, dup := out[p]; dup {
				panic(fmt.Sprintf("fieldVersions lists %s twice", p))
			}
			out[p] = v
		}
	}
	return out
}
