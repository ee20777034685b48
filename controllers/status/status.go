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
}

// ComputeStatus returns mc's status for what obs saw. It is pure: the pod counts, the nodes and
// the server list come from obs.pods; each condition is computed by its own function
// (availableCondition, progressingCondition, degradedCondition, one file each, its reasons
// beside it) and set once, so a condition keeps its lastTransitionTime unless its status
// changes, in which case it becomes now. The caller writes the result in one status patch.
func ComputeStatus(mc *cachev1alpha1.Memcached, obs Observed, now metav1.Time) cachev1alpha1.MemcachedStatus {
	st := cachev1alpha1.MemcachedStatus{
		Selector:           resources.PodSelector(mc).String(),
		ObservedGeneration: mc.Generation,
		Conditions:         append([]metav1.Condition(nil), mc.Status.Conditions...),
	}

	var readyPods []*podview.Pod
	for i := range obs.Pods {
		p := &obs.Pods[i]
		if p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		st.Nodes = append(st.Nodes, p.Name)
		if podReady(p) {
			readyPods = append(readyPods, p)
		}
	}
	sort.Strings(st.Nodes)
	st.Replicas = int32(len(st.Nodes))
	st.ReadyReplicas = int32(len(readyPods))
	st.ServerList = serverList(mc, readyPods, obs.ServiceOwned)

	ro := rolloutOf(mc, obs.Deployment, st.Replicas, st.ReadyReplicas)
	for _, c := range []struct {
		condType string
		state    conditionState
	}{
		{cachev1alpha1.ConditionAvailable, availableCondition(obs, ro)},
		{cachev1alpha1.ConditionProgressing, progressingCondition(obs, ro)},
		{cachev1alpha1.ConditionDegraded, degradedCondition(mc, obs)},
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

// rollout is what the Deployment and the pods say about reaching spec.size pods of the current
// template; it is read only when obs.deployment is set.
type rollout struct {
	// want is spec.size; replicas and ready count the instance's non-terminating and ready pods.
	want, replicas, ready int32
	// available: spec.size updated pods are ready and no old pod is left in the Deployment.
	available bool
	// done: available, and exactly spec.size pods exist.
	done bool
	// progress says how far the rollout is ("1 of 3 updated pods ready (2 pods exist)").
	progress string
}

// rolloutOf returns the rollout of mc's Deployment dep (nil: the zero rollout) with replicas pods
// of which ready are ready.
func rolloutOf(mc *cachev1alpha1.Memcached, dep *appsv1.Deployment, replicas, ready int32) rollout {
	ro := rollout{want: mc.Spec.Size, replicas: replicas, ready: ready}
	if dep == nil {
		return ro
	}
	ds := dep.Status
	current := ds.ObservedGeneration >= dep.Generation && dep.Spec.Replicas != nil && *dep.Spec.Replicas == ro.want
	ro.available = current && ds.UpdatedReplicas >= ro.want && ds.Replicas == ds.UpdatedReplicas &&
		ds.AvailableReplicas >= ro.want && ready >= ro.want
	ro.done = ro.available && ds.Replicas == ro.want && replicas == ro.want
	ro.progress = fmt.Sprintf("%d of %d updated pods ready (%d pods exist)", min(ds.UpdatedReplicas, ready), ro.want, replicas)
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

// noDeploymentMessage is the message of Available and Progressing while the Deployment does not
// exist.
const noDeploymentMessage = "the memcached Deployment does not exist yet"

// invalidReason is the condition reason for Observed.Invalid: a *resources.SecretError's reason
// (SecretNotFound, InvalidSecret), otherwise InvalidSpec.
func invalidReason(err error) string {
	var se *resources.SecretError
	if errors.As(err, &se) {
		return se.Reason
	}
	return cachev1alpha1.ReasonInvalidSpec
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
func serverList(mc *cachev1alpha1.Memcached, ready []*podview.Pod, viaService bool) []string {
	sorted := append([]*podview.Pod(nil), ready...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	var out []string
	for _, p := range sorted {
		ip := p.Status.PodIP
		if ip == "" {
			continue
		}
		host := ip
		if viaService {
			host = strings.NewReplacer(".", "-", ":", "-").Replace(ip) + "." + resources.DeploymentName(mc) + "." + mc.Namespace + ".svc"
		}
		out = append(out, net.JoinHostPort(host, fmt.Sprint(cachev1alpha1.DefaultPort)))
	}
	return out
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
