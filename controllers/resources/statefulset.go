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
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// StatefulSetName is the name of mc's StatefulSet (spec.serverIdentity Stable): mc's own, as its
// Deployment's. The pods are <name>-0 … <name>-<size-1>.
func StatefulSetName(mc *cachev1alpha1.Memcached) string { return DeploymentName(mc) }

// DesiredStatefulSet builds the StatefulSet that runs mc's servers under stable names
// (spec.serverIdentity Stable): spec.size replicas of the pod template of DesiredDeployment,
// serviceName the headless Service, so server i is <name>-<i>.<service>.<namespace>.svc.
//   - podManagementPolicy Parallel: the servers are independent, so they start (and a scale adds
//     or removes them) at once, as a Deployment's, rather than one after the other;
//   - updateStrategy RollingUpdate: a rollout replaces one server at a time, highest ordinal first,
//     each under its own name, waiting for it to be ready (and minReadySeconds) before the next;
//     a replaced server's keys go cold, no other key moves;
//   - no volumeClaimTemplates: memcached keeps nothing on disk.
//
// The selector is the Deployment's: during a change of spec.serverIdentity the Service, the
// PodDisruptionBudget and the NetworkPolicy cover the servers of both workloads. Neither controller
// takes the other's pods: each adopts only pods without a controller, and a ReplicaSet's selector
// also requires its pod-template-hash label.
func DesiredStatefulSet(mc *cachev1alpha1.Memcached, opts Options) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{
			Name:      StatefulSetName(mc),
			Namespace: mc.Namespace,
			Labels:    ObjectLabels(mc),
		},
		Spec: appsv1.StatefulSetSpec{
			Replicas:            ptr.To(mc.Spec.Size),
			MinReadySeconds:     mc.Spec.MinReadySeconds,
			Selector:            &metav1.LabelSelector{MatchLabels: selectorLabels(mc)},
			ServiceName:         ServiceName(mc),
			PodManagementPolicy: appsv1.ParallelPodManagement,
			UpdateStrategy:      appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType},
			Template:            podTemplate(mc, opts),
		},
	}
}

// StatefulSetNeedsUpdate reports whether live differs from desired in a field the operator owns:
// replicas, minReadySeconds, our labels, the update strategy and the pod template (compared as
// DeploymentNeedsUpdate compares a Deployment's). The selector, serviceName and
// podManagementPolicy are immutable and set at creation.
func StatefulSetNeedsUpdate(live, desired *appsv1.StatefulSet) bool {
	return !ptr.Equal(live.Spec.Replicas, desired.Spec.Replicas) ||
		live.Spec.MinReadySeconds != desired.Spec.MinReadySeconds ||
		!labelsContain(live.Labels, desired.Labels) ||
		!equality.Semantic.DeepDerivative(desired.Spec.UpdateStrategy, live.Spec.UpdateStrategy) ||
		!templateMatches(&live.Spec.Template, &desired.Spec.Template)
}

// UpdateStatefulSet copies the fields the operator owns from desired into live (as
// UpdateDeployment does for a Deployment).
func UpdateStatefulSet(live, desired *appsv1.StatefulSet) {
	live.Labels = MergeLabels(live.Labels, desired.Labels)
	live.Spec.Replicas = desired.Spec.Replicas
	live.Spec.MinReadySeconds = desired.Spec.MinReadySeconds
	live.Spec.UpdateStrategy = desired.Spec.UpdateStrategy
	live.Spec.Template.Labels = MergeLabels(live.Spec.Template.Labels, desired.Spec.Template.Labels)
	updateSecretHash(&live.Spec.Template, &desired.Spec.Template)
	live.Spec.Template.Spec = desired.Spec.Template.Spec
}

// Handover is what the reconciler read of an instance's two possible workloads, the input of
// the move between them when spec.serverIdentity changes (HandoverReplicas). The zero value: no
// other workload exists.
type Handover struct {
	// OldExists: the workload spec.serverIdentity does not ask for (the Deployment when Stable, the
	// StatefulSet when Ephemeral) exists and is ours.
	OldExists bool
	// OldReplicas is the old workload's spec.replicas.
	OldReplicas int32
	// NewReplicas is the spec.replicas of the workload spec.serverIdentity asks for, 0 when it does
	// not exist yet.
	NewReplicas int32
	// NewAvailable is the number of available servers of that workload (status.availableReplicas).
	NewAvailable int32
}

// NewHandover returns the Handover of mc from its Deployment and StatefulSet (nil: absent or not
// mc's).
func NewHandover(mc *cachev1alpha1.Memcached, dep *appsv1.Deployment, sts *appsv1.StatefulSet) Handover {
	var h Handover
	newer, older := replicasOf(dep), replicasOf(sts)
	if mc.StableIdentity() {
		newer, older = older, newer
	}
	if older != nil {
		h.OldExists, h.OldReplicas = true, older.spec
	}
	if newer != nil {
		h.NewReplicas, h.NewAvailable = newer.spec, newer.available
	}
	return h
}

// workloadReplicas are a workload's spec.replicas and status.availableReplicas.
type workloadReplicas struct{ spec, available int32 }

// replicasOf returns the replicas of a Deployment or StatefulSet, nil for a nil one.
func replicasOf[T *appsv1.Deployment | *appsv1.StatefulSet](w T) *workloadReplicas {
	switch w := any(w).(type) {
	case *appsv1.Deployment:
		if w != nil {
			return &workloadReplicas{ptr.Deref(w.Spec.Replicas, 1), w.Status.AvailableReplicas}
		}
	case *appsv1.StatefulSet:
		if w != nil {
			return &workloadReplicas{ptr.Deref(w.Spec.Replicas, 1), w.Status.AvailableReplicas}
		}
	}
	return nil
}

// HandoverReplicas returns the replicas of the workload spec.serverIdentity asks for (newer) and
// of the other one (older), and whether the other one is to be deleted, for an instance of size
// servers. With no other workload: size, and nothing to delete. During a move the servers go over
// one at a time, so size servers keep serving throughout:
//   - the new workload gets one server more than it has available (never fewer than it has, so a
//     server that turns unready for a moment is not taken away), up to size;
//   - the old one keeps size minus the new one's available servers (never more than it has, so
//     it never starts a server again);
//   - once the new workload has size available servers, the old one is deleted.
func HandoverReplicas(size int32, h Handover) (newer, older int32, deleteOld bool) {
	if !h.OldExists {
		return size, 0, false
	}
	if h.NewAvailable >= size && h.NewReplicas == size {
		return size, 0, true
	}
	newer = min(size, max(h.NewReplicas, h.NewAvailable+1))
	older = min(h.OldReplicas, max(0, size-h.NewAvailable))
	return newer, older, false
}
