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
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// How a live workload changes: the move between the Deployment and the StatefulSet when
// spec.serverIdentity changes (Handover, HandoverReplicas), and the pod template a live workload
// is compared with and updated to (templateTarget), so that an operator upgrade restarts no server.

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

// deploymentUpdate returns DeploymentNeedsUpdate and UpdateDeployment comparing the live
// Deployment with the desired one whose template is target's choice (templateTarget).
func deploymentUpdate(target func(live, desired *corev1.PodTemplateSpec) *corev1.PodTemplateSpec) (func(live, desired *appsv1.Deployment) bool, func(live, desired *appsv1.Deployment)) {
	return withTargetTemplate(target, DeploymentNeedsUpdate, UpdateDeployment,
		func(d *appsv1.Deployment) *corev1.PodTemplateSpec { return &d.Spec.Template },
		func(d *appsv1.Deployment, t *corev1.PodTemplateSpec) *appsv1.Deployment {
			c := *d
			c.Spec.Template = *t
			return &c
		})
}

// statefulSetUpdate is deploymentUpdate for the StatefulSet of spec.serverIdentity Stable.
func statefulSetUpdate(target func(live, desired *corev1.PodTemplateSpec) *corev1.PodTemplateSpec) (func(live, desired *appsv1.StatefulSet) bool, func(live, desired *appsv1.StatefulSet)) {
	return withTargetTemplate(target, StatefulSetNeedsUpdate, UpdateStatefulSet,
		func(s *appsv1.StatefulSet) *corev1.PodTemplateSpec { return &s.Spec.Template },
		func(s *appsv1.StatefulSet, t *corev1.PodTemplateSpec) *appsv1.StatefulSet {
			c := *s
			c.Spec.Template = *t
			return &c
		})
}

// withTargetTemplate wraps a workload's needsUpdate and update so that they compare with, and
// update to, the desired workload carrying the template target picks (target nil: the desired one
// as it is). template reads a workload's pod template; withTemplate returns a shallow copy of a
// workload with another one.
func withTargetTemplate[T any](target func(live, desired *corev1.PodTemplateSpec) *corev1.PodTemplateSpec,
	needsUpdate func(live, desired T) bool, update func(live, desired T),
	template func(T) *corev1.PodTemplateSpec, withTemplate func(T, *corev1.PodTemplateSpec) T) (func(live, desired T) bool, func(live, desired T)) {
	if target == nil {
		return needsUpdate, update
	}
	with := func(live, desired T) T {
		t := target(template(live), template(desired))
		if t == template(desired) {
			return desired
		}
		return withTemplate(desired, t)
	}
	return func(live, desired T) bool { return needsUpdate(live, with(live, desired)) },
		func(live, desired T) { update(live, with(live, desired)) }
}

// templateTarget returns, when mc's pods run a sidecar from the operator's image (the certificate
// reloader, the stats relay), the function that picks the pod template a live workload is compared
// with and updated to: the desired one, or one of two more forms of the live template, so that an
// operator upgrade restarts no memcached server:
//   - the template an operator without the reloader built (no sidecar, no loopback listener unless
//     monitoring needs it, every Secret's data in the hash);
//   - the template with the sidecars of another operator release (their image is the operator's,
//     which changes with every release).
//
// While the live template is one of those and nothing else in it differs, it is what the
// workload is compared with and updated to, so a change outside the template (a scale) rolls no
// pod either. The pods move to the desired template at their next roll for another reason: a
// change of the template's inputs in the spec, an auth file change, or (for the first form) the
// first renewal after the upgrade, which rolls them as it did before; renewals after that are
// applied in place. Without such a sidecar it returns nil: the desired template is the only one.
func templateTarget(mc *cachev1alpha1.Memcached, opts Options, hashes SecretHashes) func(live, desired *corev1.PodTemplateSpec) *corev1.PodTemplateSpec {
	if !certReloadEnabled(mc, opts) && !statsRelayEnabled(mc, opts) {
		return nil
	}
	// The other forms are built only when the live template is not the desired one (after an
	// upgrade, until the next roll): a steady-state reconcile builds nothing more.
	var prior *corev1.PodTemplateSpec
	return func(live, desired *corev1.PodTemplateSpec) *corev1.PodTemplateSpec {
		if templateMatches(live, desired) {
			return desired
		}
		if prior == nil {
			before := opts
			before.CertReloaderImage = ""
			t := podTemplate(mc, before)
			SetSecretHash(&t, hashes.rollout(mc, before))
			prior = &t
		}
		if templateMatches(live, prior) {
			return prior
		}
		if img := sidecarImage(&live.Spec); img != "" && img != opts.CertReloaderImage {
			other := desired.DeepCopy()
			for i := range other.Spec.Containers {
				if c := &other.Spec.Containers[i]; isOperatorSidecar(c.Name) {
					c.Image = img
				}
			}
			if templateMatches(live, other) {
				return other
			}
		}
		return desired
	}
}

// isOperatorSidecar reports whether the container named name runs the operator's image.
func isOperatorSidecar(name string) bool {
	return name == CertReloaderContainerName || name == StatsRelayContainerName
}

// sidecarImage returns the image of pod's first container that runs the operator's image
// (isOperatorSidecar), "" without one.
func sidecarImage(pod *corev1.PodSpec) string {
	for _, c := range pod.Containers {
		if isOperatorSidecar(c.Name) {
			return c.Image
		}
	}
	return ""
}
