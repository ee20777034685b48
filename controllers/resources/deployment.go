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
	"maps"
	"slices"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

const (
	// ContainerName is the name of the memcached container in every operand pod.
	ContainerName = "memcached"
	// memcachedUID is the numeric user and group of the memcache account in the official memcached
	// images. It is set explicitly because the images declare USER by name, which the kubelet
	// cannot check against runAsNonRoot.
	memcachedUID = 11211
	// defaultCPURequest is the CPU request when spec.resources is empty.
	defaultCPURequest = "50m"
	// memoryOverheadMiB is added to maxMemoryMB (plus 25%) for the default memory request and limit:
	// memcached uses memory beyond its item store for connections, threads and the hash table.
	memoryOverheadMiB = 32
)

// image is the memcached image for mc: spec.image, else the operator's default.
func image(mc *cachev1alpha1.Memcached, opts Options) string {
	if mc.Spec.Image != "" {
		return mc.Spec.Image
	}
	return opts.DefaultImage
}

// MemcachedArgs builds the memcached command line (without the program name) from
// mc.Spec.Memcached: -p port, -U 0 (no UDP), -m MiB, -c connections, -t threads, -I bytes when set,
// -v/-vv, the TLS and authentication flags (secretArgs), the sidecars' loopback listener with TLS
// (loopbackListenArgs), then the extra arguments. memcached applies the last value it reads, so
// the operator refuses extra arguments that could replace one of its own (api/v1alpha1's
// extraArgsErrors, through Validate). Flags are documented in `memcached --help`.
func MemcachedArgs(mc *cachev1alpha1.Memcached, opts Options) []string {
	cfg := mc.Spec.Memcached
	args := []string{
		"-p", strconv.Itoa(cachev1alpha1.DefaultPort),
		"-U", "0",
		"-m", strconv.Itoa(int(cfg.MaxMemoryMB)),
		"-c", strconv.Itoa(int(cfg.MaxConnections)),
		"-t", strconv.Itoa(int(cfg.Threads)),
	}
	if cfg.MaxItemSize != nil {
		args = append(args, "-I", strconv.FormatInt(cfg.MaxItemSize.Value(), 10))
	}
	switch {
	case cfg.Verbosity == 1:
		args = append(args, "-v")
	case cfg.Verbosity >= 2:
		args = append(args, "-vv")
	}
	args = append(args, secretArgs(mc)...)
	args = append(args, loopbackListenArgs(mc, opts)...)
	return append(args, cfg.ExtraArgs...)
}

// resources returns the requests and limits of spec.resources, or when it has none the defaults:
// 50m CPU request, and a memory request and limit of maxMemoryMB + 25% + 32 MiB. Claims are never
// written (ValidateResources refuses them): they would name pod resourceClaims the operator does
// not create.
func resources(mc *cachev1alpha1.Memcached) corev1.ResourceRequirements {
	if r := mc.Spec.Resources; r != nil && (len(r.Requests) > 0 || len(r.Limits) > 0) {
		return corev1.ResourceRequirements{Requests: r.Requests.DeepCopy(), Limits: r.Limits.DeepCopy()}
	}
	m := int64(mc.Spec.Memcached.MaxMemoryMB)
	mem := *resource.NewQuantity((m+m/4+memoryOverheadMiB)*1024*1024, resource.BinarySI)
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse(defaultCPURequest),
			corev1.ResourceMemory: mem,
		},
		Limits: corev1.ResourceList{corev1.ResourceMemory: mem},
	}
}

// affinity returns spec.affinity, or the affinity of spec.antiAffinityPreset (nil for None).
func affinity(mc *cachev1alpha1.Memcached) *corev1.Affinity {
	if mc.Spec.Affinity != nil {
		return mc.Spec.Affinity.DeepCopy()
	}
	term := corev1.PodAffinityTerm{
		LabelSelector: &metav1.LabelSelector{MatchLabels: selectorLabels(mc)},
		TopologyKey:   corev1.LabelHostname,
	}
	switch mc.Spec.AntiAffinityPreset {
	case cachev1alpha1.AntiAffinityHard:
		return &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term},
		}}
	case cachev1alpha1.AntiAffinitySoft, "":
		return &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 100, PodAffinityTerm: term}},
		}}
	default:
		return nil
	}
}

// topologySpreadConstraints returns spec.topologySpreadConstraints, giving each constraint without a
// labelSelector the instance's pod selector.
func topologySpreadConstraints(mc *cachev1alpha1.Memcached) []corev1.TopologySpreadConstraint {
	if len(mc.Spec.TopologySpreadConstraints) == 0 {
		return nil
	}
	out := make([]corev1.TopologySpreadConstraint, len(mc.Spec.TopologySpreadConstraints))
	for i, c := range mc.Spec.TopologySpreadConstraints {
		c.DeepCopyInto(&out[i])
		if out[i].LabelSelector == nil {
			out[i].LabelSelector = &metav1.LabelSelector{MatchLabels: selectorLabels(mc)}
		}
	}
	return out
}

// tolerations returns a copy of spec.tolerations.
func tolerations(mc *cachev1alpha1.Memcached) []corev1.Toleration {
	if mc.Spec.Tolerations == nil {
		return nil
	}
	out := make([]corev1.Toleration, len(mc.Spec.Tolerations))
	for i := range mc.Spec.Tolerations {
		mc.Spec.Tolerations[i].DeepCopyInto(&out[i])
	}
	return out
}

// rollingUpdate keeps every server up during a rollout (surge one pod, none unavailable), except with
// the Hard anti-affinity preset, where a surge pod may have no free node: there it replaces one pod
// at a time.
func rollingUpdate(mc *cachev1alpha1.Memcached) *appsv1.RollingUpdateDeployment {
	surge, unavailable := intstr.FromInt32(1), intstr.FromInt32(0)
	if mc.Spec.Affinity == nil && mc.Spec.AntiAffinityPreset == cachev1alpha1.AntiAffinityHard {
		surge, unavailable = intstr.FromInt32(0), intstr.FromInt32(1)
	}
	return &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable}
}

// tcpProbe is a TCP probe on the memcached port with every field set, so the object we build equals
// what the API server stores and the steady state needs no update.
func tcpProbe(initialDelay, period int32) *corev1.Probe {
	return &corev1.Probe{
		ProbeHandler: corev1.ProbeHandler{
			TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromString(portName)},
		},
		InitialDelaySeconds: initialDelay,
		PeriodSeconds:       period,
		TimeoutSeconds:      1,
		SuccessThreshold:    1,
		FailureThreshold:    3,
	}
}

// podSecurityContext is the pods' security context: non-root and the RuntimeDefault seccomp
// profile always; uid and gid memcachedUID (and fsGroup memcachedUID when Secrets are mounted,
// secretFSGroup) unless the platform assigns them (opts.PlatformAssignsUIDs: then none of the
// three is set; OpenShift's restricted-v2 assigns the UID and an fsGroup from the namespace's
// range, so the mounted Secret files, mode 0440 group-owned by that fsGroup, stay readable).
func podSecurityContext(mc *cachev1alpha1.Memcached, opts Options) *corev1.PodSecurityContext {
	sc := &corev1.PodSecurityContext{
		RunAsNonRoot:   ptr.To(true),
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
	if !opts.PlatformAssignsUIDs {
		sc.RunAsUser = ptr.To[int64](memcachedUID)
		sc.RunAsGroup = ptr.To[int64](memcachedUID)
		sc.FSGroup = secretFSGroup(mc)
	}
	return sc
}

// DesiredDeployment builds the Deployment that runs mc's memcached servers: spec.size replicas of a
// memcached container with the args of MemcachedArgs, restricted Pod Security settings (non-root,
// uid 11211 unless the platform assigns UIDs: podSecurityContext; no privilege escalation, all
// capabilities dropped, RuntimeDefault seccomp, read-only root filesystem), TCP readiness and
// liveness probes on port 11211, the graceful shutdown of spec.gracefulShutdown
// (deployment_shutdown.go), the files of spec.tls and spec.auth (deployment_secrets.go), the
// exporter sidecar of spec.monitoring (deployment_monitoring.go), the certificate reloader of
// spec.tls (deployment_certreload.go), the stats relay of spec.monitoring with spec.auth
// (deployment_statsrelay.go) and the scheduling settings of the spec. Every map, slice and pointer it takes from mc or opts is copied: the client writes into the
// object it returns. It sets no owner reference; the caller does.
func DesiredDeployment(mc *cachev1alpha1.Memcached, opts Options) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Name:      DeploymentName(mc),
			Namespace: mc.Namespace,
			Labels:    ObjectLabels(mc),
		},
		Spec: appsv1.DeploymentSpec{
			Replicas:        ptr.To(mc.Spec.Size),
			MinReadySeconds: mc.Spec.MinReadySeconds,
			Selector:        &metav1.LabelSelector{MatchLabels: selectorLabels(mc)},
			Strategy: appsv1.DeploymentStrategy{
				Type:          appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: rollingUpdate(mc),
			},
			Template: podTemplate(mc, opts),
		},
	}
}

// podTemplate is the pod template of mc's servers, the same in the Deployment and the StatefulSet
// (DesiredDeployment says what it holds).
func podTemplate(mc *cachev1alpha1.Memcached, opts Options) corev1.PodTemplateSpec {
	var podAdded added
	if m := mc.Spec.PodMetadata; m != nil {
		podAdded = added{labels: m.Labels, annotations: m.Annotations}
	}
	labels, annotations := withAdded(ObjectLabels(mc), podAdded)
	for k, v := range warmArgsAnnotation(mc, opts) {
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[k] = v
	}
	command, args := memcachedCommand(mc, opts)
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: annotations},
		Spec: corev1.PodSpec{
			ImagePullSecrets:             slices.Clone(mc.Spec.ImagePullSecrets),
			AutomountServiceAccountToken: ptr.To(false),
			EnableServiceLinks:           ptr.To(false),
			SecurityContext:              podSecurityContext(mc, opts),
			NodeSelector:                 maps.Clone(mc.Spec.NodeSelector),
			Tolerations:                  tolerations(mc),
			Affinity:                     affinity(mc),
			TopologySpreadConstraints:    topologySpreadConstraints(mc),
			PriorityClassName:            mc.Spec.PriorityClassName,
			Volumes:                      append(secretVolumes(mc), warmVolumes(mc, opts)...),
			InitContainers:               warmInitContainers(mc, opts),
			Containers: append([]corev1.Container{{
				Name:    ContainerName,
				Image:   image(mc, opts),
				Command: command,
				Args:    args,
				Ports: []corev1.ContainerPort{{
					Name:          portName,
					ContainerPort: cachev1alpha1.DefaultPort,
					Protocol:      corev1.ProtocolTCP,
				}},
				Resources:       resources(mc),
				VolumeMounts:    append(secretMounts(mc), warmMounts(mc, opts)...),
				ReadinessProbe:  tcpProbe(0, 5),
				LivenessProbe:   tcpProbe(10, 10),
				Lifecycle:       lifecycle(mc),
				SecurityContext: restrictedContainerSecurityContext(),
			}}, slices.Concat(exporterContainers(mc, opts), certReloaderContainers(mc, opts), statsRelayContainers(mc, opts))...),
			TerminationGracePeriodSeconds: terminationGracePeriodSeconds(mc),
		},
	}
}

// restrictedContainerSecurityContext is the container security context of every operand
// container: the restricted Pod Security profile's settings plus a read-only root filesystem.
func restrictedContainerSecurityContext() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr.To(false),
		ReadOnlyRootFilesystem:   ptr.To(true),
		RunAsNonRoot:             ptr.To(true),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
}

// DeploymentNeedsUpdate reports whether live differs from desired in a field the operator owns:
// replicas, minReadySeconds, our labels, the rollout strategy, the pod template's labels and pod
// spec. Fields the user may clear (scheduling, resources, args, env) are compared exactly; the rest
// with DeepDerivative, so values the API server defaults and we leave unset never count as drift.
// Labels and annotations others add are not drift.
func DeploymentNeedsUpdate(live, desired *appsv1.Deployment) bool {
	return !ptr.Equal(live.Spec.Replicas, desired.Spec.Replicas) ||
		live.Spec.MinReadySeconds != desired.Spec.MinReadySeconds ||
		!labelsContain(live.Labels, desired.Labels) ||
		!equality.Semantic.DeepDerivative(desired.Spec.Strategy, live.Spec.Strategy) ||
		!templateMatches(&live.Spec.Template, &desired.Spec.Template)
}

// templateMatches reports whether the live pod template has every field of desired's that the
// operator owns (DeploymentNeedsUpdate's comparison of the template).
func templateMatches(live, desired *corev1.PodTemplateSpec) bool {
	return addedMatches(live.Labels, live.Annotations, desired.Labels, desired.Annotations) &&
		!ownAnnotationsNeedUpdate(live, desired) &&
		!podSpecNeedsUpdate(&live.Spec, &desired.Spec)
}

// podSpecNeedsUpdate compares the pod spec fields the operator owns (see DeploymentNeedsUpdate).
func podSpecNeedsUpdate(live, desired *corev1.PodSpec) bool {
	if len(live.Containers) != len(desired.Containers) || len(live.InitContainers) != len(desired.InitContainers) ||
		!equality.Semantic.DeepEqual(live.NodeSelector, desired.NodeSelector) ||
		!equality.Semantic.DeepEqual(live.Tolerations, desired.Tolerations) ||
		!equality.Semantic.DeepEqual(live.Affinity, desired.Affinity) ||
		!equality.Semantic.DeepEqual(live.TopologySpreadConstraints, desired.TopologySpreadConstraints) ||
		live.PriorityClassName != desired.PriorityClassName ||
		!equality.Semantic.DeepEqual(live.ImagePullSecrets, desired.ImagePullSecrets) ||
		!ptr.Equal(live.TerminationGracePeriodSeconds, desired.TerminationGracePeriodSeconds) ||
		!equality.Semantic.DeepDerivative(desired.SecurityContext, live.SecurityContext) ||
		!ptr.Equal(live.AutomountServiceAccountToken, desired.AutomountServiceAccountToken) ||
		!ptr.Equal(live.EnableServiceLinks, desired.EnableServiceLinks) ||
		!ptr.Equal(fsGroup(live), fsGroup(desired)) ||
		!ptr.Equal(runAsUser(live), runAsUser(desired)) ||
		len(live.Volumes) != len(desired.Volumes) ||
		!equality.Semantic.DeepDerivative(desired.Volumes, live.Volumes) {
		return true
	}
	return containersNeedUpdate(live.InitContainers, desired.InitContainers) ||
		containersNeedUpdate(live.Containers, desired.Containers)
}

// containersNeedUpdate compares the containers (or init containers) of a live pod spec with the
// desired ones, as many of each (see DeploymentNeedsUpdate).
func containersNeedUpdate(live, desired []corev1.Container) bool {
	for i := range desired {
		l, d := &live[i], &desired[i]
		if l.Name != d.Name || l.Image != d.Image ||
			!equality.Semantic.DeepEqual(l.Command, d.Command) ||
			!equality.Semantic.DeepEqual(l.Args, d.Args) ||
			!equality.Semantic.DeepEqual(l.Env, d.Env) ||
			!equality.Semantic.DeepEqual(l.Resources, d.Resources) ||
			len(l.VolumeMounts) != len(d.VolumeMounts) ||
			!equality.Semantic.DeepDerivative(d.VolumeMounts, l.VolumeMounts) ||
			len(l.Ports) != len(d.Ports) ||
			!equality.Semantic.DeepDerivative(d.Ports, l.Ports) ||
			!equality.Semantic.DeepDerivative(d.ReadinessProbe, l.ReadinessProbe) ||
			!equality.Semantic.DeepDerivative(d.LivenessProbe, l.LivenessProbe) ||
			!equality.Semantic.DeepEqual(l.Lifecycle, d.Lifecycle) ||
			!equality.Semantic.DeepDerivative(d.SecurityContext, l.SecurityContext) {
			return true
		}
	}
	return false
}

// runAsUser returns the pod's runAsUser, nil when it has none or no security context. Compared
// exactly: a pinned UID left on a template whose platform assigns UIDs is drift (restricted-v2
// refuses the pods).
func runAsUser(p *corev1.PodSpec) *int64 {
	if p.SecurityContext == nil {
		return nil
	}
	return p.SecurityContext.RunAsUser
}

// fsGroup returns the pod's fsGroup, nil when it has none or no security context.
func fsGroup(p *corev1.PodSpec) *int64 {
	if p.SecurityContext == nil {
		return nil
	}
	return p.SecurityContext.FSGroup
}

// UpdateDeployment copies the fields the operator owns from desired into live. The selector is
// immutable and never touched; labels and template annotations that others added are kept (of
// the template's annotations the operator owns OwnTemplateAnnotations, and those of
// spec.podMetadata with their record, AddedMetadataAnnotation).
func UpdateDeployment(live, desired *appsv1.Deployment) {
	live.Labels = MergeLabels(live.Labels, desired.Labels)
	live.Spec.Replicas = desired.Spec.Replicas
	live.Spec.MinReadySeconds = desired.Spec.MinReadySeconds
	live.Spec.Strategy = desired.Spec.Strategy
	updateAdded(&live.Spec.Template.Labels, &live.Spec.Template.Annotations, desired.Spec.Template.Labels, desired.Spec.Template.Annotations)
	updateOwnAnnotations(&live.Spec.Template, &desired.Spec.Template)
	live.Spec.Template.Spec = desired.Spec.Template.Spec
}
