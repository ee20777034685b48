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

package status

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/resources"
	"github.com/example/memcached-operator/internal/podview"
)

// Observed is what one reconcile saw and did: the input of ComputeStatus.
type Observed struct {
	// Deployment is the instance's Deployment, nil when it does not exist or is not ours.
	Deployment *appsv1.Deployment
	// StatefulSet is the instance's StatefulSet (spec.serverIdentity Stable, or the workload a
	// change of it leaves), nil when it does not exist or is not ours.
	StatefulSet *appsv1.StatefulSet
	// Pods are the pods matching the instance's selector.
	Pods []podview.Pod
	// Conflicts name objects that block the instance because someone else owns them ("Deployment
	// web").
	Conflicts []string
	// Err is a failure to apply the desired state (other than a conflict) or to read what exists.
	Err error
	// Invalid is why the spec cannot be applied (the reconciler's validateSpec), or a
	// *resources.SecretError (a Secret it names is missing or unusable); nothing was written.
	Invalid error
	// Stopped names the protections a refused spec (Invalid) asks for that the running servers
	// lacked (resources.Protection.Missing): the reconciler stopped them (their workload scaled to
	// zero) rather than let them serve less protected than the spec asks. nil otherwise.
	Stopped []string
	// Terminating is set when the namespace is being deleted (creates are refused).
	Terminating bool
	// Waiting names objects still owned by a deleted Memcached of the same name ("Deployment web").
	Waiting []string
	// ServiceOwned is set when the instance's headless Service exists and is ours, so its DNS
	// names resolve to our pods.
	ServiceOwned bool
	// Applied is set when the desired state was applied (the spec is valid); otherwise the
	// Deployment and Service were only read.
	Applied bool
	// MissingPod is the lowest-ordinal pod the StatefulSet should run and does not ("" when
	// none); the reconciler looks again while one is missing.
	MissingPod string
	// PodCreateFailure is why the StatefulSet cannot create a pod it is missing: the message of
	// the StatefulSet controller's FailedCreate event for the lowest missing ordinal (a StatefulSet
	// has no ReplicaFailure condition to carry it); "" when no pod is missing or no event says why.
	PodCreateFailure string
}

// ComputeStatus returns mc's status for what obs saw. It is pure: the pod counts, the nodes and
// the server list come from obs.pods; each condition is computed by its own function
// (availableCondition, progressingCondition, degradedCondition, one file each, its reasons
// beside it; readyCondition, reconcilingCondition and stalledCondition summarize those three for
// tools that read one condition, in ready.go) and set once, so a condition keeps its lastTransitionTime unless its status
// changes, in which case it becomes now. The caller writes the result in one status patch.
func ComputeStatus(mc *cachev1alpha1.Memcached, obs Observed, now metav1.Time) cachev1alpha1.MemcachedStatus {
	st := cachev1alpha1.MemcachedStatus{
		Selector:           resources.PodSelector(mc).String(),
		ObservedGeneration: mc.Generation,
		Conditions:         append([]metav1.Condition(nil), mc.Status.Conditions...),
	}

	var servers, readyPods []*podview.Pod
	for i := range obs.Pods {
		p := &obs.Pods[i]
		if p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		st.Nodes = append(st.Nodes, p.Name)
		servers = append(servers, p)
		if podReady(p) {
			readyPods = append(readyPods, p)
		}
	}
	sort.Strings(st.Nodes)
	st.Replicas = int32(len(st.Nodes))
	st.ReadyReplicas = int32(len(readyPods))
	st.ServerList = serverList(mc, readyPods, obs.ServiceOwned)
	st.Version = serverVersion(servers)

	ro := rolloutOf(mc, obs, st.Replicas, st.ReadyReplicas)
	available, progressing, degraded := availableCondition(obs, ro), progressingCondition(obs, ro), degradedCondition(mc, obs, now.Time)
	for _, c := range []struct {
		condType string
		state    conditionState
	}{
		{cachev1alpha1.ConditionAvailable, available},
		{cachev1alpha1.ConditionProgressing, progressing},
		{cachev1alpha1.ConditionDegraded, degraded},
		{cachev1alpha1.ConditionReady, readyCondition(available, progressing, degraded)},
		{cachev1alpha1.ConditionReconciling, reconcilingCondition(progressing, degraded)},
		{cachev1alpha1.ConditionStalled, stalledCondition(degraded)},
	} {
		// SetStatusCondition keeps the old lastTransitionTime unless the status changes.
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{
			Type: c.condType, Status: c.state.status, Reason: c.state.reason, Message: c.state.message,
			ObservedGeneration: mc.Generation, LastTransitionTime: now,
		})
	}
	return st
}

// conditionState is one condition as its function computes it.
type conditionState struct {
	status          metav1.ConditionStatus
	reason, message string
}

// rollout is what the workload (the Deployment, or the StatefulSet of spec.serverIdentity Stable)
// and the pods say about reaching spec.size pods of the current template.
type rollout struct {
	// exists: the workload spec.serverIdentity asks for exists and is ours; the rest is read only
	// when it does.
	exists bool
	// kind is that workload's kind.
	kind string
	// want is spec.size; replicas and ready count the instance's non-terminating and ready pods.
	want, replicas, ready int32
	// available: spec.size updated pods are ready and no old pod is left in the workload, nor a
	// workload that a change of spec.serverIdentity is replacing.
	available bool
	// done: available, and exactly spec.size pods exist.
	done bool
	// progress says how far the rollout is ("1 of 3 updated pods ready (2 pods exist)").
	progress string
}

// rolloutOf returns the rollout of mc's workload in obs with replicas pods of which ready are
// ready: the StatefulSet when spec.serverIdentity is Stable, else the Deployment.
func rolloutOf(mc *cachev1alpha1.Memcached, obs Observed, replicas, ready int32) rollout {
	ro := rollout{want: mc.Spec.Size, replicas: replicas, ready: ready, kind: "Deployment"}
	var (
		generation, observed               int64
		specReplicas                       *int32
		statusReplicas, updated, available int32
		moving                             bool
	)
	switch {
	case mc.StableIdentity() && obs.StatefulSet != nil:
		s := obs.StatefulSet
		generation, observed, specReplicas = s.Generation, s.Status.ObservedGeneration, s.Spec.Replicas
		statusReplicas, updated, available = s.Status.Replicas, s.Status.UpdatedReplicas, s.Status.AvailableReplicas
		moving = obs.Deployment != nil
	case !mc.StableIdentity() && obs.Deployment != nil:
		d := obs.Deployment
		generation, observed, specReplicas = d.Generation, d.Status.ObservedGeneration, d.Spec.Replicas
		statusReplicas, updated, available = d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.AvailableReplicas
		moving = obs.StatefulSet != nil
	}
	if mc.StableIdentity() {
		ro.kind = "StatefulSet"
	}
	if specReplicas == nil {
		return ro
	}
	ro.exists = true
	current := observed >= generation && *specReplicas == ro.want && !moving
	ro.available = current && updated >= ro.want && statusReplicas == updated &&
		available >= ro.want && ready >= ro.want
	ro.done = ro.available && statusReplicas == ro.want && replicas == ro.want
	ro.progress = fmt.Sprintf("%d of %d updated pods ready (%d pods exist)", min(updated, ready), ro.want, replicas)
	if moving {
		ro.progress = fmt.Sprintf("moving the servers to a %s (spec.serverIdentity): %d of %d ready (%d pods exist)",
			ro.kind, min(available, ro.want), ro.want, replicas)
	}
	return ro
}

// conflictMessage is the message of the ResourceConflict reason for obs.conflicts.
func conflictMessage(obs Observed) string {
	return fmt.Sprintf("%s already exists and is not owned by this Memcached; delete or rename it", strings.Join(obs.Conflicts, ", "))
}

// waitingMessage is the message of the WaitingForGarbageCollection reason for obs.waiting.
func waitingMessage(obs Observed) string {
	return fmt.Sprintf("%s still belong to a deleted Memcached of the same name; waiting for the garbage collector", strings.Join(obs.Waiting, ", "))
}

// missingMessage is the message of Available and Progressing while the workload does not exist.
func (ro rollout) missingMessage() string {
	return "the memcached " + ro.kind + " does not exist yet"
}

// invalidReason is the condition reason for Observed.Invalid: a *resources.SecretError's reason
// (SecretNotFound, InvalidSecret), otherwise InvalidSpec.
func invalidReason(err error) string {
	var se *resources.SecretError
	if errors.As(err, &se) {
		return se.Reason
	}
	return cachev1alpha1.ReasonInvalidSpec
}

// invalidMessage is the message of every condition that reports Observed.Invalid: why the spec
// was refused and, when the servers were stopped for it (Observed.Stopped), what they lacked and
// when they start again.
func invalidMessage(obs Observed) string {
	if len(obs.Stopped) == 0 {
		return obs.Invalid.Error()
	}
	return obs.Invalid.Error() + "; the servers are stopped (0 replicas) because they lacked " +
		strings.Join(obs.Stopped, ", ") + ", which the spec asks for: they start with it once the spec is accepted"
}

// podReady reports whether p's Ready condition is True.
func podReady(p *podview.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// serverList returns host:11211 for every ready pod with an IP, sorted by pod name. When our
// headless Service exists (viaService) the host is the DNS name the cluster DNS gives each endpoint
// of a headless Service whose pods set no hostname: the pod IP with '.' or ':' replaced by '-',
// under <service>.<namespace>.svc (CoreDNS kubernetes plugin, "endpoint_pod_names" off).
// Otherwise (Service disabled, or its name taken by a foreign Service) the host is the pod IP.
//
// With spec.serverIdentity Stable and the Service, the servers of the StatefulSet come first, in
// ordinal order, under their stable names <name>-<i>.<service>.<namespace>.svc (the DNS name of a
// StatefulSet pod whose serviceName is a headless Service): server i < spec.size is listed when its
// pod is ready, and keeps its place while its pod restarts or is replaced once it was listed (it is
// in the previous status.serverList), so a client's list changes only when spec.size does and
// hashing moves no key of another server. Pods of a Deployment that a change of
// spec.serverIdentity is replacing follow, as above.
func serverList(mc *cachev1alpha1.Memcached, ready []*podview.Pod, viaService bool) []string {
	sorted := append([]*podview.Pod(nil), ready...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	var out []string
	if mc.StableIdentity() && viaService {
		readyNames := map[string]bool{}
		for _, p := range ready {
			readyNames[p.Name] = true
		}
		for i := range mc.Spec.Size {
			name := fmt.Sprintf("%s-%d", resources.StatefulSetName(mc), i)
			server := net.JoinHostPort(name+"."+resources.ServiceName(mc)+"."+mc.Namespace+".svc", fmt.Sprint(cachev1alpha1.DefaultPort))
			if readyNames[name] || slices.Contains(mc.Status.ServerList, server) {
				out = append(out, server)
			}
		}
	}
	for _, p := range sorted {
		ip := p.Status.PodIP
		if ip == "" || (mc.StableIdentity() && viaService && ordinalPod(mc, p.Name)) {
			continue
		}
		host := ip
		if viaService {
			host = strings.NewReplacer(".", "-", ":", "-").Replace(ip) + "." + resources.ServiceName(mc) + "." + mc.Namespace + ".svc"
		}
		out = append(out, net.JoinHostPort(host, fmt.Sprint(cachev1alpha1.DefaultPort)))
	}
	return out
}

// ordinalPod reports whether name is a pod name of mc's StatefulSet, <name>-<ordinal>. A
// Deployment's pods never are: theirs end in -<pod-template-hash>-<random suffix>.
func ordinalPod(mc *cachev1alpha1.Memcached, name string) bool {
	n, ok := strings.CutPrefix(name, resources.StatefulSetName(mc)+"-")
	if !ok || n == "" {
		return false
	}
	for _, c := range n {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Truncate returns s cut to at most n bytes, on a character boundary.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
