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

package controllers

import (
	"fmt"
	"net"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/internal/podview"
)

// observed is what one reconcile saw and did: the input of computeStatus.
type observed struct {
	// deployment is the instance's Deployment, nil when it does not exist or is not ours.
	deployment *appsv1.Deployment
	// pods are the pods matching the instance's selector.
	pods []podview.Pod
	// conflicts name objects that block the instance because someone else owns them ("Deployment web").
	conflicts []string
	// err is a failure to apply the desired state (other than a conflict) or to read what exists.
	err error
	// invalid is why the spec cannot be applied (validateSpec), or a *SecretError (a Secret it
	// names is missing or unusable); nothing was written.
	invalid error
	// terminating is set when the namespace is being deleted (creates are refused).
	terminating bool
	// waiting names objects still owned by a deleted Memcached of the same name ("Deployment web").
	waiting []string
	// serviceOwned is set when the instance's headless Service exists and is ours, so its DNS
	// names resolve to our pods.
	serviceOwned bool
	// applied is set when the desired state was applied (the spec is valid); otherwise the
	// Deployment and Service were only read.
	applied bool
}

// computeStatus returns mc's status for what obs saw. It is pure: conditions keep their
// lastTransitionTime unless their status changes, in which case it becomes now.
//
// Available is True only when spec.size pods of the current template are ready and no old pod is
// left; Progressing is True while the Deployment has not reached that state; Degraded is True when
// the operator cannot converge (conflict, invalid spec, apply error, rollout stuck or failing to
// create pods).
func computeStatus(mc *cachev1alpha1.Memcached, obs observed, now metav1.Time) cachev1alpha1.MemcachedStatus {
	st := cachev1alpha1.MemcachedStatus{
		Selector:           podSelector(mc).String(),
		ObservedGeneration: mc.Generation,
		Conditions:         append([]metav1.Condition(nil), mc.Status.Conditions...),
	}

	var readyPods []*podview.Pod
	for i := range obs.pods {
		p := &obs.pods[i]
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
	st.ServerList = serverList(mc, readyPods, obs.serviceOwned)

	set := func(condType string, status metav1.ConditionStatus, reason, msg string) {
		// SetStatusCondition keeps the old lastTransitionTime unless the status changes.
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{
			Type: condType, Status: status, Reason: reason, Message: msg,
			ObservedGeneration: mc.Generation, LastTransitionTime: now,
		})
	}

	if len(obs.conflicts) > 0 {
		msg := fmt.Sprintf("%s already exists and is not owned by this Memcached; delete or rename it", strings.Join(obs.conflicts, ", "))
		set(cachev1alpha1.ConditionDegraded, metav1.ConditionTrue, cachev1alpha1.ReasonResourceConflict, msg)
		if obs.deployment == nil {
			set(cachev1alpha1.ConditionAvailable, metav1.ConditionFalse, cachev1alpha1.ReasonResourceConflict, msg)
			set(cachev1alpha1.ConditionProgressing, metav1.ConditionFalse, cachev1alpha1.ReasonResourceConflict, msg)
			return st
		}
	}

	dep := obs.deployment
	switch {
	case obs.invalid != nil && dep == nil:
		set(cachev1alpha1.ConditionAvailable, metav1.ConditionFalse, invalidReason(obs.invalid), obs.invalid.Error())
	case len(obs.waiting) > 0 && dep == nil:
		msg := fmt.Sprintf("%s still belong to a deleted Memcached of the same name; waiting for the garbage collector", strings.Join(obs.waiting, ", "))
		set(cachev1alpha1.ConditionAvailable, metav1.ConditionFalse, cachev1alpha1.ReasonWaitingForGC, msg)
		set(cachev1alpha1.ConditionProgressing, metav1.ConditionTrue, cachev1alpha1.ReasonWaitingForGC, msg)
	case dep == nil:
		msg := "the memcached Deployment does not exist yet"
		set(cachev1alpha1.ConditionAvailable, metav1.ConditionFalse, cachev1alpha1.ReasonDeploymentNotFound, msg)
		set(cachev1alpha1.ConditionProgressing, metav1.ConditionTrue, cachev1alpha1.ReasonRolloutInProgress, msg)
	default:
		want := mc.Spec.Size
		ds := dep.Status
		current := ds.ObservedGeneration >= dep.Generation && dep.Spec.Replicas != nil && *dep.Spec.Replicas == want
		available := current && ds.UpdatedReplicas >= want && ds.Replicas == ds.UpdatedReplicas &&
			ds.AvailableReplicas >= want && st.ReadyReplicas >= want
		done := available && ds.Replicas == want && st.Replicas == want
		progress := fmt.Sprintf("%d of %d updated pods ready (%d pods exist)", min(ds.UpdatedReplicas, st.ReadyReplicas), want, st.Replicas)
		if available {
			set(cachev1alpha1.ConditionAvailable, metav1.ConditionTrue, cachev1alpha1.ReasonAllReplicasReady, fmt.Sprintf("%d of %d pods ready", st.ReadyReplicas, want))
		} else {
			set(cachev1alpha1.ConditionAvailable, metav1.ConditionFalse, cachev1alpha1.ReasonReplicasNotReady, progress)
		}
		if done {
			set(cachev1alpha1.ConditionProgressing, metav1.ConditionFalse, cachev1alpha1.ReasonRolloutComplete, fmt.Sprintf("%d pods of the current template are ready", want))
		} else {
			set(cachev1alpha1.ConditionProgressing, metav1.ConditionTrue, cachev1alpha1.ReasonRolloutInProgress, progress)
		}
	}

	if obs.invalid != nil {
		// Nothing converges until the spec is fixed.
		set(cachev1alpha1.ConditionProgressing, metav1.ConditionFalse, invalidReason(obs.invalid), obs.invalid.Error())
	}
	switch {
	case len(obs.conflicts) > 0:
		// Degraded already set above.
	case obs.invalid != nil:
		set(cachev1alpha1.ConditionDegraded, metav1.ConditionTrue, invalidReason(obs.invalid), obs.invalid.Error())
	case obs.err != nil:
		set(cachev1alpha1.ConditionDegraded, metav1.ConditionTrue, cachev1alpha1.ReasonReconcileError, obs.err.Error())
	case dep != nil && deploymentCondition(dep, appsv1.DeploymentReplicaFailure, corev1.ConditionTrue) != nil:
		c := deploymentCondition(dep, appsv1.DeploymentReplicaFailure, corev1.ConditionTrue)
		set(cachev1alpha1.ConditionDegraded, metav1.ConditionTrue, cachev1alpha1.ReasonReplicaFailure, c.Message)
	case dep != nil && deploymentCondition(dep, appsv1.DeploymentProgressing, corev1.ConditionFalse) != nil:
		c := deploymentCondition(dep, appsv1.DeploymentProgressing, corev1.ConditionFalse)
		set(cachev1alpha1.ConditionDegraded, metav1.ConditionTrue, cachev1alpha1.ReasonProgressDeadline, c.Message)
	default:
		set(cachev1alpha1.ConditionDegraded, metav1.ConditionFalse, cachev1alpha1.ReasonAsExpected, "the instance converges")
	}
	return st
}

// deploymentCondition returns dep's condition of type t when it has status s, else nil.
func deploymentCondition(dep *appsv1.Deployment, t appsv1.DeploymentConditionType, s corev1.ConditionStatus) *appsv1.DeploymentCondition {
	for i := range dep.Status.Conditions {
		if c := &dep.Status.Conditions[i]; c.Type == t && c.Status == s {
			return c
		}
	}
	return nil
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
			host = strings.NewReplacer(".", "-", ":", "-").Replace(ip) + "." + deploymentName(mc) + "." + mc.Namespace + ".svc"
		}
		out = append(out, net.JoinHostPort(host, fmt.Sprint(cachev1alpha1.DefaultPort)))
	}
	return out
}
