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
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// pdbEnabled reports whether mc wants its PodDisruptionBudget (spec.podDisruptionBudget.enabled,
// default true).
func pdbEnabled(mc *cachev1alpha1.Memcached) bool {
	return mc.Spec.PodDisruptionBudget.Enabled == nil || *mc.Spec.PodDisruptionBudget.Enabled
}

// DesiredPodDisruptionBudget builds the PodDisruptionBudget named like mc over its pods:
// minAvailable or maxUnavailable from the spec, maxUnavailable 1 when neither is set.
func DesiredPodDisruptionBudget(mc *cachev1alpha1.Memcached) *policyv1.PodDisruptionBudget {
	spec := mc.Spec.PodDisruptionBudget
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{
			Name:      DeploymentName(mc),
			Namespace: mc.Namespace,
			Labels:    ObjectLabels(mc),
		},
		Spec: policyv1.PodDisruptionBudgetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: selectorLabels(mc)},
		},
	}
	switch {
	case spec.MinAvailable != nil:
		pdb.Spec.MinAvailable = ptr.To(*spec.MinAvailable)
	case spec.MaxUnavailable != nil:
		pdb.Spec.MaxUnavailable = ptr.To(*spec.MaxUnavailable)
	default:
		one := intstr.FromInt32(1)
		pdb.Spec.MaxUnavailable = &one
	}
	return pdb
}

// PDBNeedsUpdate reports whether live differs from desired in what the operator owns.
func PDBNeedsUpdate(live, desired *policyv1.PodDisruptionBudget) bool {
	return !labelsContain(live.Labels, desired.Labels) ||
		!equality.Semantic.DeepEqual(live.Spec.Selector, desired.Spec.Selector) ||
		!equality.Semantic.DeepEqual(live.Spec.MinAvailable, desired.Spec.MinAvailable) ||
		!equality.Semantic.DeepEqual(live.Spec.MaxUnavailable, desired.Spec.MaxUnavailable)
}

// UpdatePodDisruptionBudget copies the fields the operator owns from desired into live.
func UpdatePodDisruptionBudget(live, desired *policyv1.PodDisruptionBudget) {
	live.Labels = MergeLabels(live.Labels, desired.Labels)
	live.Spec.Selector = desired.Spec.Selector
	live.Spec.MinAvailable = desired.Spec.MinAvailable
	live.Spec.MaxUnavailable = desired.Spec.MaxUnavailable
}
