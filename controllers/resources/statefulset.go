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
//   - updateStrategy RollingUpdate (OnDelete with warm restarts: updateStrategy): a rollout
//     replaces one server at a time, highest ordinal first,
//     each under its own name, waiting for it to be ready (and minReadySeconds) before the next;
//     a replaced server's keys go cold, no other key moves;
//   - no volumeClaimTemplates: memcached keeps nothing on disk.
//
// The selector is the Deployment's: during a change of spec.serverIdentity the Service, the
// PodDisruptionBudget and the NetworkPolicy cover the servers of both workloads. Neither controller
// takes the other's pods: each adopts only pods without a controller, and a ReplicaSet's selector
// also requires its pod-template-hash label.
func DesiredStatefulSet(mc *cachev1alpha1.Memcached, opts Options) *appsv1.StatefulSet {
	return statefulSetWith(mc, podTemplate(mc, opts))
}

// statefulSetWith is DesiredStatefulSet with the pod template built already (DesiredState builds
// it once for both workloads).
func statefulSetWith(mc *cachev1alpha1.Memcached, template corev1.PodTemplateSpec) *appsv1.StatefulSet {
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
			UpdateStrategy:      updateStrategy(template),
			Template:            template,
		},
	}
}

// updateStrategy is the StatefulSet's update strategy for its pod template: RollingUpdate, or
// with warm restarts (the template runs the launcher) OnDelete, which leaves each pod to the
// operator: it changes what the pod API allows in place and replaces the pod otherwise, one
// server at a time (PlanServerUpdate).
func updateStrategy(template corev1.PodTemplateSpec) appsv1.StatefulSetUpdateStrategy {
	for _, c := range template.Spec.InitContainers {
		if c.Name == LauncherInitContainerName {
			return appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
		}
	}
	return appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType}
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
	updateAdded(&live.Spec.Template.Labels, &live.Spec.Template.Annotations, desired.Spec.Template.Labels, desired.Spec.Template.Annotations)
	updateOwnAnnotations(&live.Spec.Template, &desired.Spec.Template)
	live.Spec.Template.Spec = desired.Spec.Template.Spec
}
