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

package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Condition types reported in MemcachedStatus.Conditions (Kubernetes API conventions: positive
// polarity for Available and Progressing, Degraded set to True only when something is wrong).
const (
	// ConditionAvailable is True when spec.size updated memcached pods are ready to serve.
	ConditionAvailable = "Available"
	// ConditionProgressing is True while a rollout, a scale or the first creation is under way.
	ConditionProgressing = "Progressing"
	// ConditionDegraded is True when the operator cannot converge the instance (reason says why).
	ConditionDegraded = "Degraded"
	// ConditionReady summarizes the three above for tools that read one condition (Argo CD's health
	// checks, an operator that composes a Memcached, kubectl wait --for=condition=Ready): True when
	// the instance has converged (Available, not Progressing, not Degraded); else False with the
	// reason and message of the first of Degraded, Available and Progressing that stands in the way.
	ConditionReady = "Ready"
	// ConditionReconciling is kstatus' "abnormal-true" condition (sigs.k8s.io/cli-utils/pkg/kstatus,
	// read by Flux and kpt): True while the operator is still converging the instance (a rollout,
	// a scale, the first creation, an API error it retries), False otherwise.
	ConditionReconciling = "Reconciling"
	// ConditionStalled is kstatus' other "abnormal-true" condition: True when the operator cannot
	// converge the instance without a change by someone (Degraded for any reason but
	// ReconcileError), False otherwise. kstatus then reports the Memcached Failed.
	ConditionStalled = "Stalled"
)

// Condition reasons (CamelCase, Kubernetes API conventions), the Reason of the conditions above.
const (
	// ReasonAllReplicasReady (Available=True): spec.size pods of the current template are ready.
	ReasonAllReplicasReady = "AllReplicasReady"
	// ReasonReplicasNotReady (Available=False): fewer than spec.size current pods are ready.
	ReasonReplicasNotReady = "ReplicasNotReady"
	// ReasonRolloutInProgress (Progressing=True): the Deployment is creating, scaling or rolling.
	ReasonRolloutInProgress = "RolloutInProgress"
	// ReasonRolloutComplete (Progressing=False): the rollout reached spec.size current ready pods.
	ReasonRolloutComplete = "RolloutComplete"
	// ReasonResourceConflict (Degraded=True; also Available and Progressing False when the instance
	// has no Deployment): an object the operator would create already exists and belongs to
	// someone else; the message names it.
	ReasonResourceConflict = "ResourceConflict"
	// ReasonReconcileError (Degraded=True): an API call failed; the message says which.
	ReasonReconcileError = "ReconcileError"
	// ReasonMonitoringUnavailable (a Warning event, not a condition): the cluster stopped serving
	// the ServiceMonitor or PrometheusRule API (prometheus-operator uninstalled); the operator
	// stops managing that kind until the API returns, then takes it up again.
	ReasonMonitoringUnavailable = "MonitoringUnavailable"
	// ReasonInvalidSpec (Degraded=True, Progressing=False; also Available=False when the instance
	// has no Deployment): the spec breaks a rule (one the CRD enforces, for objects stored under an
	// older CRD, or one it cannot express); the message names the field. The owned objects are left
	// as they are and Available keeps describing them.
	ReasonInvalidSpec = "InvalidSpec"
	// ReasonWaitingForGC (Available=False, Progressing=True): objects of a deleted Memcached of the
	// same name are still being garbage-collected.
	ReasonWaitingForGC = "WaitingForGarbageCollection"
	// ReasonProgressDeadline (Degraded=True): the Deployment exceeded its progress deadline.
	ReasonProgressDeadline = "ProgressDeadlineExceeded"
	// ReasonReplicaFailure (Degraded=True): the Deployment or the StatefulSet cannot create pods
	// (quota, admission).
	ReasonReplicaFailure = "ReplicaFailure"
	// ReasonContainerFailing (Degraded=True): a container of the instance's pods cannot start or
	// keeps failing (crash loop, image pull, a refused container config); the message names the
	// pod and container, the kubelet's reason, the last exit code and termination message and,
	// where the operator can tell, the spec field responsible. The other pods keep serving.
	ReasonContainerFailing = "ContainerFailing"
	// ReasonPodUnschedulable (Degraded=True): a pod of the instance cannot be scheduled (no node
	// has the resources, a taint or affinity excludes every node); the message is the scheduler's.
	ReasonPodUnschedulable = "PodUnschedulable"
	// ReasonPodStuckTerminating (Degraded=True): a pod of the instance is still there well after
	// its grace period ended (its node is unreachable, or a finalizer holds it); a StatefulSet
	// cannot replace it until it is gone.
	ReasonPodStuckTerminating = "PodStuckTerminating"
	// ReasonReady (Ready=True): spec.size pods of the current template are ready, nothing is rolling
	// out and nothing is wrong.
	ReasonReady = "Ready"
	// ReasonAsExpected (Degraded=False, Reconciling=False, Stalled=False): nothing is wrong.
	ReasonAsExpected = "AsExpected"
	// ReasonDeploymentNotFound (Available=False, Progressing=True): the Deployment does not exist yet.
	ReasonDeploymentNotFound = "DeploymentNotFound"
	// ReasonSecretNotFound (Degraded=True, Progressing=False; also Available=False when the
	// instance has no Deployment): a Secret that spec.tls or spec.auth names does not exist; the
	// message names it. The owned objects are left as they are until it appears.
	ReasonSecretNotFound = "SecretNotFound"
	// ReasonInvalidSecret (Degraded=True, Progressing=False; also Available=False when the instance
	// has no Deployment): a Secret that spec.tls or spec.auth names lacks a key or holds data
	// memcached would refuse (a certificate that does not parse, a malformed auth file); the message
	// names the Secret and the key, never the data. The owned objects are left as they are.
	ReasonInvalidSecret = "InvalidSecret"
)

// ImageReferencePattern is the grammar of a container image reference ([host[:port]/]path[:tag][@digest]),
// the anchored ReferenceRegexp of github.com/distribution/reference v0.6.0, the parser container
// runtimes use. spec.image must match it (the Pattern marker on Image repeats it, and a test
// checks that they agree) and so must the operator's RELATED_IMAGE_MEMCACHED.
const ImageReferencePattern = `^((?:(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*|\[(?:[a-fA-F0-9:]+)\])(?::[0-9]+)?/)?[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*)*)(?::([\w][\w.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}))?$`

// DefaultPort is the TCP port memcached listens on in every operand pod and that the headless
// Service exposes (memcached's own default, flag -p).
const DefaultPort = 11211

// AntiAffinityPreset names a ready-made pod anti-affinity that spreads an instance's pods over nodes.
// +kubebuilder:validation:Enum=None;Soft;Hard
type AntiAffinityPreset string

const (
	// AntiAffinityNone adds no anti-affinity.
	AntiAffinityNone AntiAffinityPreset = "None"
	// AntiAffinitySoft prefers (preferredDuringScheduling, weight 100) one pod per node.
	AntiAffinitySoft AntiAffinityPreset = "Soft"
	// AntiAffinityHard requires (requiredDuringScheduling) one pod per node: pods beyond the number
	// of schedulable nodes stay Pending.
	AntiAffinityHard AntiAffinityPreset = "Hard"
)

// ServerIdentity says what identifies a memcached server to clients: what names status.serverList
// gives the servers and what happens to those names when a pod is replaced.
// +kubebuilder:validation:Enum=Ephemeral;Stable
type ServerIdentity string

const (
	// ServerIdentityEphemeral runs the servers in a Deployment: each pod is a new server, named
	// after its pod IP (<ip-dashed>.<service>.<namespace>.svc), so a replaced pod comes back under a
	// new name and a hashing client moves keys of other servers too. The behaviour of every release
	// before serverIdentity existed, and the default.
	ServerIdentityEphemeral ServerIdentity = "Ephemeral"
	// ServerIdentityStable runs the servers in a StatefulSet under the headless Service: server i is
	// <name>-<i>.<service>.<namespace>.svc for good. A replaced pod, a rollout or a node drain
	// brings the server back under the same name and in the same place of status.serverList, so
	// only that server's keys go cold; scaling adds or removes the highest-numbered servers.
	// Requires spec.service.enabled.
	ServerIdentityStable ServerIdentity = "Stable"
)

// MemcachedSpec is the desired state of a memcached cache: how many servers, which image, how each
// server is tuned and where its pods are scheduled.
//
// Rules that relate fields across the spec (spec.auth with spec.memcached.extraArgs' -B,
// spec.monitoring.enabled with spec.service.enabled, spec.serverIdentity
// Stable with spec.service.enabled, spec.warmRestart.enabled with spec.serverIdentity Stable), and the reading of spec.memcached.extraArgs as memcached
// reads them (values, extended options), are checked by the operator, not at admission
// (Validate; the instance turns Degraded/InvalidSpec naming the field, with one Warning event):
// a CEL rule on spec is a change of an existing field's x-kubernetes-validations, which OLM v1's
// CRD upgrade-safety preflight refuses ("unhandled"), so adding one would block every OLM v1
// upgrade from an earlier release. Rules on fields a release adds are safe and stay in the CRD.
type MemcachedSpec struct {
	// Size is the number of memcached servers (Deployment replicas). It defaults to 1 and must be
	// between 1 and 64: 0 is rejected (delete the Memcached, or pause it, to stop serving), so an
	// instance that reports Available always serves. It is the spec path of the scale subresource,
	// so `kubectl scale memcached/<name> --replicas=N` and a HorizontalPodAutoscaler change it.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=64
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Size",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:podCount"}
	Size int32 `json:"size,omitempty"`

	// MinReadySeconds is how long, in seconds, a new memcached pod must be ready before it counts as
	// available (Deployment minReadySeconds). A rollout then waits that long between servers, so
	// clients can re-hash and the new server warm up before the next one restarts. Default 0;
	// changing it never restarts pods. Added in 0.2.0.
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=3600
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Min Ready Seconds",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number","urn:alm:descriptor:com.tectonic.ui:advanced"}
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`

	// Image overrides the memcached container image: a tag or digest reference such as
	// memcached:1.6.38 or registry.example.com/memcached@sha256:<64 hex digits>, in the grammar of
	// github.com/distribution/reference (releases up to 0.2.2 accepted any string without spaces).
	// When empty the operator uses the image in its RELATED_IMAGE_MEMCACHED environment variable.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:Pattern=`^((?:(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*|\[(?:[a-fA-F0-9:]+)\])(?::[0-9]+)?/)?[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*)*)(?::([\w][\w.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}))?$`
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Image",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	Image string `json:"image,omitempty"`

	// Memcached tunes the memcached server process (its command-line flags).
	// +kubebuilder:default={}
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Memcached Settings"
	Memcached MemcachedConfig `json:"memcached,omitempty"`

	// Also refused (InvalidSpec, the Deployment left unchanged): a request above its limit, and
	// claims (the pods have no resourceClaims to name).
	// (Kept out of the doc comment below, which is the field's description in the CRD: OLM v1's
	// CRD upgrade-safety preflight in operator-controller v1.2.0 refuses an upgrade that changes
	// the description of an existing field, so a description stays as its first release wrote it.)

	// Resources are the memcached container's compute requests and limits. When empty the operator
	// sets requests of 50m CPU and memory, and a memory limit, of maxMemoryMB + 25% + 32 MiB.
	// A memory limit, when set, must be larger than memcached.maxMemoryMB; otherwise the operator
	// leaves the Deployment unchanged and reports Degraded with reason InvalidSpec.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Resources",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:resourceRequirements"}
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`

	// NodeSelector restricts the memcached pods to nodes with these labels.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Node Selector",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`

	// Tolerations let the memcached pods run on tainted nodes.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Tolerations",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`

	// Affinity is the pods' full scheduling affinity. When set it replaces antiAffinityPreset.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Affinity",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Affinity *corev1.Affinity `json:"affinity,omitempty"`

	// AntiAffinityPreset spreads the pods over nodes without writing an affinity: Soft (default)
	// prefers one pod per node, Hard requires it, None adds nothing. Ignored when affinity is set.
	// +kubebuilder:default=Soft
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Anti-Affinity Preset",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:None","urn:alm:descriptor:com.tectonic.ui:select:Soft","urn:alm:descriptor:com.tectonic.ui:select:Hard"}
	AntiAffinityPreset AntiAffinityPreset `json:"antiAffinityPreset,omitempty"`

	// TopologySpreadConstraints spread the pods over zones or nodes. A constraint without a
	// labelSelector gets the instance's pod selector.
	// +optional
	// +listType=atomic
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Topology Spread Constraints",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	TopologySpreadConstraints []corev1.TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`

	// PriorityClassName is the PriorityClass of the memcached pods.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Priority Class Name",xDescriptors={"urn:alm:descriptor:io.kubernetes:PriorityClass","urn:alm:descriptor:com.tectonic.ui:advanced"}
	PriorityClassName string `json:"priorityClassName,omitempty"`

	// ImagePullSecrets name Secrets of the instance's namespace (kubernetes.io/dockerconfigjson)
	// with which the kubelet pulls the memcached, exporter and sidecar images from a private
	// registry. Changing them rolls the pods.
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:XValidation:rule="self.all(s, has(s.name) && size(s.name) > 0)",message="every spec.imagePullSecrets entry needs a name"
	// +listType=atomic
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Image Pull Secrets",xDescriptors={"urn:alm:descriptor:io.kubernetes:Secret","urn:alm:descriptor:com.tectonic.ui:advanced"}
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`

	// PodMetadata adds labels and annotations to the memcached pods (a service mesh's, a cost
	// allocation's, a backup tool's). The operator's own keys cannot be set: the
	// app.kubernetes.io/ labels it puts on every object (name, instance, managed-by, component,
	// part-of) and annotations under cache.example.com/. Changing them rolls the pods; removing
	// one removes it from the pods, while labels and annotations others put on the pod template
	// stay.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Pod Metadata",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	PodMetadata *ObjectMetadata `json:"podMetadata,omitempty"`

	// ServerIdentity is what identifies each server to clients: Ephemeral (the default: a
	// Deployment, servers named after their pod IPs) or Stable (a StatefulSet, servers named
	// <name>-0, <name>-1, … under the headless Service, kept when a pod is replaced). Changing it on
	// a running instance moves the servers one at a time: the new workload gets one more server,
	// and once that server is ready the old one gives one up, so spec.size servers keep serving
	// throughout; the old workload is deleted when the new one has spec.size ready servers. Each
	// moved server starts empty. See docs/user-guide.md, "Stable server names".
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Server Identity",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:Ephemeral","urn:alm:descriptor:com.tectonic.ui:select:Stable"}
	ServerIdentity ServerIdentity `json:"serverIdentity,omitempty"`

	// WarmRestart keeps each server's items when its memcached container restarts for a planned
	// change (a new memcached image, a sidecar or operator image, an auth file rotation): memcached
	// keeps its items in a memory file (-e) on a memory-backed volume of the pod, saves them on
	// its way down and restores them when it starts again in the same pod. Requires
	// spec.serverIdentity Stable: the operator then updates each server itself, one at a time, in
	// place where the pod API allows it, and replaces the pod (that server starts empty) only for
	// a change that cannot be made in place, saying which in an event. A crash or a change memcached
	// cannot restore (e.g. spec.memcached.maxMemoryMB) starts that server empty, never in a crash
	// loop. Off by default. See docs/warm-restarts.md.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Warm Restart"
	WarmRestart WarmRestartSpec `json:"warmRestart,omitempty"`

	// PodDisruptionBudget limits voluntary evictions (node drains) of the memcached pods.
	// +kubebuilder:default={}
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Pod Disruption Budget"
	PodDisruptionBudget PodDisruptionBudgetSpec `json:"podDisruptionBudget,omitempty"`

	// Service configures the headless Service through which clients discover the memcached pods.
	// +kubebuilder:default={}
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Service"
	Service ServiceSpec `json:"service,omitempty"`

	// GracefulShutdown is how a memcached pod leaves: how long it keeps serving after it is told to
	// stop (a preStop delay) and how long Kubernetes waits before killing it. Both fields are in the
	// pod template, so changing them rolls the pods.
	// +kubebuilder:default={}
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Graceful Shutdown"
	GracefulShutdown GracefulShutdownSpec `json:"gracefulShutdown,omitempty"`

	// NetworkPolicy, when enabled, restricts who may connect to the memcached pods (a NetworkPolicy
	// named like the Memcached). Off by default.
	// +kubebuilder:default={}
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Network Policy"
	NetworkPolicy NetworkPolicySpec `json:"networkPolicy,omitempty"`

	// TLS turns on memcached's TLS (flag -Z) with the certificate and key of a Secret, and
	// optionally verifies client certificates against a CA. Every connection to port 11211 must
	// then speak TLS. A change of the certificate, key or CA (a renewal) reaches the running servers
	// in place through the cert-reloader sidecar (memcached's refresh_certs), without a restart.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="TLS"
	TLS *TLSSpec `json:"tls,omitempty"`

	// Auth turns on memcached's ASCII protocol authentication (flag -Y) with the users and
	// passwords of a Secret. Changing the Secret's data rolls the pods.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Authentication"
	Auth *AuthSpec `json:"auth,omitempty"`

	// Monitoring adds a Prometheus exporter (memcached_exporter) to every memcached pod, a metrics
	// port to the headless Service and, when the cluster has the ServiceMonitor CRD of the
	// Prometheus Operator, a ServiceMonitor. Off by default. With auth, the exporter reads memcached
	// through a stats-relay sidecar that logs in with the auth file's first entry and passes on
	// only memcached's statistics.
	// +kubebuilder:default={}
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Monitoring"
	Monitoring MonitoringSpec `json:"monitoring,omitempty"`
}

// WarmRestartSpec configures warm restarts (spec.warmRestart).
type WarmRestartSpec struct {
	// Enabled runs memcached with its items in a memory file that outlives a restart of its
	// container (default false). Changing it replaces every server, one at a time, empty.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Enabled",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	Enabled bool `json:"enabled,omitempty"`
}

// MemcachedConfig holds memcached server settings; each maps to one memcached command-line flag
// (see `memcached --help` and https://github.com/memcached/memcached/wiki/ConfiguringServer).
// +kubebuilder:validation:XValidation:rule="!has(self.maxItemSize) || quantity(string(self.maxItemSize)).asApproximateFloat() * 2.0 <= double(self.maxMemoryMB) * 1048576.0",message="spec.memcached.maxItemSize must be at most half of maxMemoryMB (memcached refuses to start otherwise)",fieldPath=".maxItemSize"
type MemcachedConfig struct {
	// MaxMemoryMB is the memory memcached uses for items, in MiB (flag -m). Default 64.
	// +kubebuilder:default=64
	// +kubebuilder:validation:Minimum=8
	// +kubebuilder:validation:Maximum=1048576
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Max Memory (MiB)",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	MaxMemoryMB int32 `json:"maxMemoryMB,omitempty"`

	// MaxConnections is the maximum number of simultaneous client connections per server (flag -c).
	// Default 1024.
	// +kubebuilder:default=1024
	// +kubebuilder:validation:Minimum=10
	// +kubebuilder:validation:Maximum=1048576
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Max Connections",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	MaxConnections int32 `json:"maxConnections,omitempty"`

	// Threads is the number of worker threads per server (flag -t). Default 4.
	// +kubebuilder:default=4
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=256
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Threads",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	Threads int32 `json:"threads,omitempty"`

	// MaxItemSize is the largest item a server stores, as a quantity in bytes such as 1Mi or 1.5Mi
	// (flag -I). memcached's rules apply: a multiple of its slab chunk size (512Ki) between 512Ki and
	// 1Gi, and at most half of maxMemoryMB. When empty memcached's default (1 MiB) applies.
	// +kubebuilder:validation:XValidation:rule="quantity(string(self)).compareTo(quantity('512Ki')) >= 0 && quantity(string(self)).compareTo(quantity('1Gi')) <= 0 && double(int(quantity(string(self)).asApproximateFloat() / 524288.0)) * 524288.0 == quantity(string(self)).asApproximateFloat()",message="must be a multiple of 512Ki between 512Ki and 1Gi (memcached's -I must be a multiple of its slab chunk size, 512 KiB)"
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Max Item Size",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	MaxItemSize *resource.Quantity `json:"maxItemSize,omitempty"`

	// Verbosity is memcached's log verbosity: 0 (errors only, default), 1 (-v) or 2 (-vv).
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=2
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Verbosity",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	Verbosity int32 `json:"verbosity,omitempty"`

	// The operator also reads extraArgs as memcached does and refuses (Degraded/InvalidSpec) a
	// value without its flag, a flag without its value, a value starting with '-', -B other than
	// ascii with spec.auth, and any -o extended option but those that tune memory, the hash table,
	// the LRU, slabs, connections and logging (never TLS, authentication, listeners, privileges,
	// extstore or the proxy): memcached applies the last value it reads, and these come after the
	// operator's own flags (docs/user-guide.md, "extraArgs").
	// (Kept out of the doc comment below, which is the field's description in the CRD: OLM v1's
	// CRD upgrade-safety preflight in operator-controller v1.2.0 refuses an upgrade that changes
	// the description of an existing field, so a description stays as its first release wrote it.)

	// ExtraArgs are appended to the memcached command line, e.g. ["-o", "modern", "-R", "40"].
	// Only these options are allowed, each as its own argument with its value as the next one:
	// -M (no evictions), -R (requests per event), -B (protocol), -f (growth factor), -n (minimum
	// item space), -L (large pages), -C (no CAS), -D (stats prefix delimiter), -b (backlog),
	// -F (no flush_all), -X (no cachedump) and -o (extended options). Long options and bundled
	// flags are refused because memcached accepts abbreviations and bundles of the flags the
	// fields above and the operator own (memory, connections, threads, item size, verbosity, port,
	// listen address, user, daemon mode).
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="self.all(a, !a.startsWith('-') || a.matches('^-[MRBfnLCDbFXo]$'))",message="options must be one of -M, -R, -B, -f, -n, -L, -C, -D, -b, -F, -X, -o, each its own argument (values as separate arguments, e.g. [\"-R\", \"40\"]); long options and bundled flags are not allowed"
	// +listType=atomic
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Extra Arguments",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	ExtraArgs []string `json:"extraArgs,omitempty"`
}

// PodDisruptionBudgetSpec configures the PodDisruptionBudget the operator keeps for an instance.
// +kubebuilder:validation:XValidation:rule="!(has(self.minAvailable) && has(self.maxUnavailable))",message="set at most one of minAvailable and maxUnavailable"
type PodDisruptionBudgetSpec struct {
	// Enabled creates the PodDisruptionBudget (default true); false deletes the operator's one.
	// +kubebuilder:default=true
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Enabled",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	Enabled *bool `json:"enabled,omitempty"`

	// MinAvailable is the number or percentage of pods that must stay up during evictions.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Min Available",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	MinAvailable *intstr.IntOrString `json:"minAvailable,omitempty"`

	// MaxUnavailable is the number or percentage of pods that may be evicted at once. When neither
	// it nor minAvailable is set it is 1, so a one-pod instance never blocks a node drain.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Max Unavailable",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
}

// ServiceSpec configures the headless Service that publishes the memcached pods.
type ServiceSpec struct {
	// Enabled creates a headless Service named like the Memcached, port 11211 (default true); false
	// deletes the operator's one and status.serverList then lists pod IPs.
	// +kubebuilder:default=true
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Enabled",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	Enabled *bool `json:"enabled,omitempty"`

	// Annotations are added to the headless Service (external-dns, a service mesh's). Keys under
	// cache.example.com/ are the operator's and cannot be set. Removing one removes it from the
	// Service; annotations others put on the Service stay.
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="self.all(k, !k.startsWith('cache.example.com/'))",message="annotations under cache.example.com/ are the operator's"
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Service Annotations",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Annotations map[string]string `json:"annotations,omitempty"`
}

// ObjectMetadata is labels and annotations the operator adds to an object it builds, beside its own.
type ObjectMetadata struct {
	// Labels to add. The operator's own (app.kubernetes.io/name, instance, managed-by, component,
	// part-of) cannot be set.
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="self.all(k, !(k in ['app.kubernetes.io/name', 'app.kubernetes.io/instance', 'app.kubernetes.io/managed-by', 'app.kubernetes.io/component', 'app.kubernetes.io/part-of']))",message="the labels app.kubernetes.io/name, instance, managed-by, component and part-of are the operator's"
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// Annotations to add. Keys under cache.example.com/ are the operator's and cannot be set.
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="self.all(k, !k.startsWith('cache.example.com/'))",message="annotations under cache.example.com/ are the operator's"
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
}

// Defaults of GracefulShutdownSpec (the CRD's default markers repeat them).
const (
	// DefaultPreStopDelaySeconds is the default of spec.gracefulShutdown.preStopDelaySeconds: no
	// delay, so an upgrade of the operator leaves the pod template of existing instances as it was.
	DefaultPreStopDelaySeconds = 0
	// DefaultTerminationGracePeriodSeconds is the default of
	// spec.gracefulShutdown.terminationGracePeriodSeconds: the Pod API's own default, 30 s.
	DefaultTerminationGracePeriodSeconds = 30
)

// GracefulShutdownSpec configures how a memcached pod stops, during scale-down, rollouts, node
// drains and deletion. When Kubernetes deletes a pod it removes the pod from the headless
// Service's EndpointSlice (and so from cluster DNS) and from status.serverList at once, and in
// parallel runs the container's preStop hook, then sends SIGTERM, on which memcached exits at once.
// A preStop delay keeps the server answering while clients learn that it is going and re-hash its
// keys onto the remaining servers, so a request already on its way is not refused.
// See https://kubernetes.io/docs/concepts/containers/container-lifecycle-hooks/ and
// https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-termination.
// +kubebuilder:validation:XValidation:rule="!has(self.preStopDelaySeconds) || !has(self.terminationGracePeriodSeconds) || self.terminationGracePeriodSeconds > self.preStopDelaySeconds",message="terminationGracePeriodSeconds must be greater than preStopDelaySeconds (the kubelet kills the container when the grace period ends, preStop delay included)",fieldPath=".terminationGracePeriodSeconds"
type GracefulShutdownSpec struct {
	// PreStopDelaySeconds is how long, in seconds, a memcached container keeps serving after its pod
	// is deleted, before it receives SIGTERM: a preStop hook of the Kubernetes sleep action
	// (lifecycle.preStop.sleep: feature gate PodLifecycleSleepAction, on by default since
	// Kubernetes 1.30, the CSV's minKubeVersion, GA in 1.34; the memcached image has no shell or
	// sleep binary for an exec hook). 0 (the default) adds no hook.
	//
	// Set it to how long your clients take to notice that a server left: the EndpointSlice
	// controller drops a deleted pod within about a second, then a client resolving the Service
	// name holds the old answer for up to cluster DNS's TTL (CoreDNS's kubernetes plugin answers
	// with a 5 s TTL), and a client polling status.serverList for its own interval. 5-10 s covers
	// DNS-based clients. It is 0 by default because adding the hook changes the pod template:
	// a non-zero default would restart the pods of every existing instance when the operator is
	// upgraded. Changing it rolls the pods.
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=300
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="PreStop Delay (seconds)",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	PreStopDelaySeconds *int32 `json:"preStopDelaySeconds,omitempty"`

	// TerminationGracePeriodSeconds is the pods' terminationGracePeriodSeconds: how long, in
	// seconds, Kubernetes waits after deleting a pod (preStop delay included) before it kills the
	// container. It must be greater than preStopDelaySeconds, so memcached always gets SIGTERM
	// before SIGKILL. Default 30, the Pod API's own default (so existing pod templates do not
	// change); range 1-3600. Changing it rolls the pods.
	// +kubebuilder:default=30
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=3600
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Termination Grace Period (seconds)",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number","urn:alm:descriptor:com.tectonic.ui:advanced"}
	TerminationGracePeriodSeconds *int32 `json:"terminationGracePeriodSeconds,omitempty"`
}

// NetworkPolicySpec configures the NetworkPolicy the operator keeps for an instance. The policy
// selects the instance's pods and admits ingress only to the named container ports: "memcached"
// from the peers in from, and "metrics" (when the pods have a port of that name, the exporter
// sidecar's) from the peers in metricsFrom. All other ingress to the pods is denied; egress is not
// restricted. It takes effect only where the cluster's network plugin enforces NetworkPolicies.
// +kubebuilder:validation:XValidation:rule="!has(self.enabled) || !self.enabled || (has(self.from) && size(self.from) > 0)",message="spec.networkPolicy.from must list at least one peer when the policy is enabled (an empty list would admit no client; to admit every pod of the namespace use [{podSelector: {}}])",fieldPath=".from"
type NetworkPolicySpec struct {
	// Enabled creates the NetworkPolicy named like the Memcached (default false); false deletes the
	// operator's one.
	// +kubebuilder:default=false
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Enabled",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	Enabled bool `json:"enabled,omitempty"`

	// From are the peers admitted to memcached's port (the ingress rule's from, in the
	// networking.k8s.io/v1 NetworkPolicyPeer form: a podSelector, a namespaceSelector, both, or an
	// ipBlock). At least one when enabled: `[{podSelector: {}}]` admits every pod of the
	// instance's namespace, `[{namespaceSelector: {}}]` every pod of the cluster.
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:XValidation:rule="has(self.podSelector) || has(self.namespaceSelector) || has(self.ipBlock)",message="a peer must set podSelector, namespaceSelector or ipBlock"
	// +kubebuilder:validation:items:XValidation:rule="!has(self.ipBlock) || (!has(self.podSelector) && !has(self.namespaceSelector))",message="a peer with ipBlock must not set podSelector or namespaceSelector"
	// +listType=atomic
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Clients",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	From []networkingv1.NetworkPolicyPeer `json:"from,omitempty"`

	// MetricsFrom are the peers admitted to the pods' "metrics" port (e.g. the monitoring
	// namespace: `[{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: monitoring}}}]`).
	// The rule is added only when the pods have a container port named "metrics"; when the list is
	// empty, that port admits no one.
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:XValidation:rule="has(self.podSelector) || has(self.namespaceSelector) || has(self.ipBlock)",message="a peer must set podSelector, namespaceSelector or ipBlock"
	// +kubebuilder:validation:items:XValidation:rule="!has(self.ipBlock) || (!has(self.podSelector) && !has(self.namespaceSelector))",message="a peer with ipBlock must not set podSelector or namespaceSelector"
	// +listType=atomic
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Metrics Scrapers",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	MetricsFrom []networkingv1.NetworkPolicyPeer `json:"metricsFrom,omitempty"`
}

// ClientCertificateVerification says how memcached checks client certificates (its ssl_verify_mode).
// +kubebuilder:validation:Enum=Request;Require
type ClientCertificateVerification string

const (
	// ClientCertificateRequest asks clients for a certificate and verifies it against the CA when
	// one is presented; clients without one are accepted (ssl_verify_mode=1).
	ClientCertificateRequest ClientCertificateVerification = "Request"
	// ClientCertificateRequire refuses clients that present no certificate signed by the CA
	// (ssl_verify_mode=2).
	ClientCertificateRequire ClientCertificateVerification = "Require"
)

// TLSSpec configures memcached's TLS: the server certificate and key (ssl_chain_cert, ssl_key)
// from a Secret, and optionally a CA to verify client certificates (ssl_ca_cert, ssl_verify_mode).
// The pods mount only the keys used, read-only.
type TLSSpec struct {
	// SecretName names a Secret in the Memcached's namespace, normally of type kubernetes.io/tls
	// (as cert-manager writes it), whose tls.crt (PEM certificate chain, server certificate first)
	// and tls.key (PEM private key) memcached serves.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Certificate Secret",xDescriptors={"urn:alm:descriptor:io.kubernetes:Secret"}
	SecretName string `json:"secretName"`

	// ClientCA, when set, makes memcached ask clients for a certificate signed by this CA.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Client CA",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	ClientCA *TLSClientCA `json:"clientCA,omitempty"`
}

// TLSClientCA names the CA bundle memcached verifies client certificates against.
type TLSClientCA struct {
	// SecretName names the Secret holding the CA bundle; when empty, tls.secretName (a
	// kubernetes.io/tls Secret written by cert-manager carries its issuer's CA as ca.crt).
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="CA Secret",xDescriptors={"urn:alm:descriptor:io.kubernetes:Secret"}
	SecretName string `json:"secretName,omitempty"`

	// Key is the key of the PEM CA bundle in that Secret. Default ca.crt.
	// +kubebuilder:default=ca.crt
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="CA Key",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Key string `json:"key,omitempty"`

	// Verification is Require (default: a client without a certificate signed by the CA is
	// refused) or Request (a certificate is asked for and verified when presented).
	// +kubebuilder:default=Require
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Verification",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:Require","urn:alm:descriptor:com.tectonic.ui:select:Request"}
	Verification ClientCertificateVerification `json:"verification,omitempty"`
}

// AuthSpec configures memcached's ASCII protocol authentication (flag -Y): a client must send its
// user and password before any other command.
type AuthSpec struct {
	// SecretName names a Secret in the Memcached's namespace whose key (see key) holds memcached's
	// auth file: 1 to 8 "user:password" lines, neither part empty nor holding a space (exact rules:
	// docs/user-guide.md). The pods mount only that key, read-only;
	// the credentials appear in no argument, environment variable or status.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Auth Secret",xDescriptors={"urn:alm:descriptor:io.kubernetes:Secret"}
	SecretName string `json:"secretName"`

	// Key is the key of the auth file in that Secret. Default authfile.
	// +kubebuilder:default=authfile
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Auth Key",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Key string `json:"key,omitempty"`
}

// ExporterPort is the TCP port the memcached_exporter sidecar serves /metrics on (its default,
// flag --web.listen-address), named "metrics" on the container and on the headless Service.
const ExporterPort = 9150

// MonitoringSpec configures Prometheus monitoring of the memcached servers: a memcached_exporter
// sidecar (https://github.com/prometheus/memcached_exporter) in every pod, which reads memcached's
// stats over localhost and serves them on port 9150 ("metrics"), the same port on the headless
// Service, and a ServiceMonitor (monitoring.coreos.com/v1) when that CRD exists in the cluster.
// With spec.tls the exporter reads a plain-text listener on the pod's loopback address
// (127.0.0.1:11212, which only the pod's containers reach). With spec.auth, which memcached_exporter
// cannot do, it reads a stats relay sidecar from the operator's image on 127.0.0.1:11213 that
// authenticates to memcached with the auth file's first entry and forwards only the read-only
// stats commands the exporter sends.
type MonitoringSpec struct {
	// Enabled adds the exporter sidecar, the Service's metrics port and the ServiceMonitor (default
	// false); turning it off removes all three. Changing it rolls the pods.
	// +kubebuilder:default=false
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Enabled",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	Enabled *bool `json:"enabled,omitempty"`

	// Image overrides the exporter image, in the grammar of spec.image (a tag or digest reference).
	// When empty the operator uses its RELATED_IMAGE_MEMCACHED_EXPORTER environment variable
	// (quay.io/prometheus/memcached-exporter:v0.16.0 in the shipped operator).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:Pattern=`^((?:(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*|\[(?:[a-fA-F0-9:]+)\])(?::[0-9]+)?/)?[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*)*)(?::([\w][\w.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}))?$`
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Exporter Image",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	Image string `json:"image,omitempty"`

	// Resources are the exporter container's requests and limits. When unset: 10m CPU requested,
	// 32Mi of memory requested and 64Mi its limit. Changing them rolls the pods.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Exporter Resources",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:resourceRequirements","urn:alm:descriptor:com.tectonic.ui:advanced"}
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`

	// Interval is how often Prometheus scrapes the exporters (the ServiceMonitor's interval), a
	// Prometheus duration such as 30s or 1m. When empty, the Prometheus' own scrape interval.
	// +kubebuilder:validation:Pattern=`^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$`
	// +kubebuilder:validation:MaxLength=32
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Scrape Interval",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	Interval string `json:"interval,omitempty"`

	// Labels are added to the ServiceMonitor and the PrometheusRule, so that a Prometheus'
	// serviceMonitorSelector and ruleSelector select them (kube-prometheus-stack selects
	// release: <its release name>). The operator's own (app.kubernetes.io/name, instance,
	// managed-by, component, part-of) cannot be set.
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="self.all(k, !(k in ['app.kubernetes.io/name', 'app.kubernetes.io/instance', 'app.kubernetes.io/managed-by', 'app.kubernetes.io/component', 'app.kubernetes.io/part-of']))",message="the labels app.kubernetes.io/name, instance, managed-by, component and part-of are the operator's"
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Monitoring Labels",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Labels map[string]string `json:"labels,omitempty"`

	// RunbookBaseURL is where the runbooks of the instance's alerts live: each alert's runbook_url
	// is this URL, "#" and the alert's name in lower case (a heading anchor of a page such as the
	// project's docs/runbooks.md, copied to your own wiki). When empty, the project's
	// docs/runbooks.md on GitHub.
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule="isURL(self) && url(self).getScheme() in ['http', 'https'] && !self.contains('#')",message="spec.monitoring.runbookBaseURL must be an absolute http or https URL without a fragment"
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Runbook Base URL",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	RunbookBaseURL string `json:"runbookBaseURL,omitempty"`
}

// MemcachedStatus is the observed state of a Memcached, computed by the operator.
type MemcachedStatus struct {
	// Nodes are the names of the instance's memcached pods that are not terminating, sorted.
	// +listType=atomic
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Nodes",xDescriptors={"urn:alm:descriptor:text"}
	Nodes []string `json:"nodes,omitempty"`

	// Replicas is the number of memcached pods that exist and are not terminating (status path of the
	// scale subresource).
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Replicas",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:podCount"}
	Replicas int32 `json:"replicas,omitempty"`

	// ReadyReplicas is the number of memcached pods whose Ready condition is True.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Ready Replicas",xDescriptors={"urn:alm:descriptor:text"}
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`

	// Selector is the label selector of the instance's pods in string form (selector path of the
	// scale subresource, used by HorizontalPodAutoscalers).
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Selector",xDescriptors={"urn:alm:descriptor:text"}
	Selector string `json:"selector,omitempty"`

	// With spec.serverIdentity Stable the servers are listed under their stable names
	// (<name>-<i>.<service>.<namespace>.svc), in ordinal order, each keeping its place while its pod
	// restarts or is replaced (docs/user-guide.md, "Server identities").
	// (Kept out of the doc comment below, which is the field's description in the CRD: OLM v1's
	// CRD upgrade-safety preflight in operator-controller v1.2.0 refuses an upgrade that changes
	// the description of an existing field, so a description stays as its first release wrote it.)

	// ServerList is the host:port of every ready memcached pod, sorted by pod name, for client
	// configuration. Hosts are the pods' DNS names under the headless Service
	// (<pod-ip-dashed>.<service>.<namespace>.svc), or pod IPs when the Service is disabled.
	// +listType=atomic
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Server List",xDescriptors={"urn:alm:descriptor:text"}
	ServerList []string `json:"serverList,omitempty"`

	// Version is the memcached version the servers run: the version in the tag of the image each
	// server's memcached container runs, as the kubelet reports it ("1.6.46-alpine" is 1.6.46; for
	// an image named by digest the kubelet reports a digest, whose start is shown). While the
	// servers differ, as in a rollout, every version with the number of servers running it:
	// "1.6.38 (1), 1.6.46 (2)".
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Version",xDescriptors={"urn:alm:descriptor:text"}
	Version string `json:"version,omitempty"`

	// ObservedGeneration is the metadata.generation of the Memcached this status describes.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Observed Generation",xDescriptors={"urn:alm:descriptor:text"}
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions are Available, Progressing and Degraded, each with reason, message and
	// observedGeneration.
	// +listType=map
	// +listMapKey=type
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Conditions",xDescriptors={"urn:alm:descriptor:io.kubernetes.conditions"}
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Note: the CSV "resources" list every kind the operator creates or reads for a Memcached, Events included
// (listing Event also keeps operator-sdk v1.42's bundle validator from flagging the events.k8s.io
// RBAC rule as a removed API, operator-framework/api#378).

// With spec.serverIdentity Stable the servers run in a StatefulSet instead, and spec.networkPolicy
// adds a NetworkPolicy. (Kept out of the doc comment below, the CRD's description: operator-controller
// v1.2.0's CRD upgrade-safety preflight refuses an upgrade that changes an existing description.)

// Memcached is a memcached cache: a Deployment of memcached servers, a headless Service for client
// discovery and a PodDisruptionBudget, kept in the state its spec describes.
// +kubebuilder:object:root=true
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 63 && self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",message="metadata.name must be a DNS-1035 label of at most 63 characters: it names the Service and labels the pods"
// +kubebuilder:resource:shortName=mc,categories=all
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.size,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:printcolumn:name="Size",type=integer,JSONPath=`.spec.size`
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyReplicas`
// +kubebuilder:printcolumn:name="Version",type=string,JSONPath=`.status.version`,description="The memcached version the servers run (status.version)"
// +kubebuilder:printcolumn:name="Available",type=string,JSONPath=`.status.conditions[?(@.type=="Available")].status`
// +kubebuilder:printcolumn:name="Degraded",type=string,JSONPath=`.status.conditions[?(@.type=="Degraded")].reason`,description="Reason of the Degraded condition: AsExpected, or why the operator cannot converge (InvalidSpec, SecretNotFound, ResourceConflict, ...)"
// +kubebuilder:printcolumn:name="Message",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="Degraded")].message`,description="Message of the Degraded condition (kubectl get -o wide)"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +operator-sdk:csv:customresourcedefinitions:displayName="Memcached",resources={{Deployment,v1,""},{StatefulSet,v1,""},{Service,v1,""},{PodDisruptionBudget,v1,""},{NetworkPolicy,v1,""},{Pod,v1,""},{Secret,v1,""},{Event,v1,""},{ServiceMonitor,v1,""}}
type Memcached struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state.
	// +kubebuilder:default={}
	// +optional
	Spec MemcachedSpec `json:"spec,omitempty"`
	// Status is the observed state, written by the operator.
	// +optional
	Status MemcachedStatus `json:"status,omitempty"`
}

// MemcachedList is a list of Memcached.
// +kubebuilder:object:root=true
type MemcachedList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the Memcached objects of the list.
	Items []Memcached `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Memcached{}, &MemcachedList{})
}
