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
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"

	"github.com/example/memcached-operator/controllers/internal/fixture"
)

// The builders copy every map, slice and pointer they take from the spec and the options: the
// client writes into the objects they return (defaults, server response), which must never reach
// the Memcached in the cache or the operator's Options.
func TestBuildersDoNotShareSpecMemory(t *testing.T) {
	tests := map[string]struct {
		mutate func(*cachev1alpha1.Memcached)
		write  func(t *testing.T, mc *cachev1alpha1.Memcached, opts Options)
	}{
		"deployment": {
			mutate: func(mc *cachev1alpha1.Memcached) {
				fixture.Tuned(mc)
				mc.Spec.NodeSelector = map[string]string{"disk": "ssd"}
				mc.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}}
				mc.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: corev1.ScheduleAnyway}}
				mc.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{}}
				mc.Spec.Resources = &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}}
			},
			write: func(t *testing.T, mc *cachev1alpha1.Memcached, opts Options) {
				ps := &DesiredDeployment(mc, opts).Spec.Template.Spec
				ps.NodeSelector["disk"] = "written"
				ps.Tolerations[0].Key = "written"
				ps.TopologySpreadConstraints[0].MaxSkew = 9
				ps.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{}
				c := &ps.Containers[0]
				c.Args[len(c.Args)-1] = "written"
				c.Resources.Limits[corev1.ResourceMemory] = resource.MustParse("1Mi")
			},
		},
		"pdb minAvailable": {
			mutate: func(mc *cachev1alpha1.Memcached) {
				mc.Spec.PodDisruptionBudget.MinAvailable = ptr.To(intstr.FromInt32(1))
			},
			write: func(t *testing.T, mc *cachev1alpha1.Memcached, _ Options) {
				DesiredPodDisruptionBudget(mc).Spec.MinAvailable.IntVal = 9
			},
		},
		"pdb maxUnavailable": {
			mutate: func(mc *cachev1alpha1.Memcached) {
				mc.Spec.PodDisruptionBudget.MaxUnavailable = ptr.To(intstr.FromString("50%"))
			},
			write: func(t *testing.T, mc *cachev1alpha1.Memcached, _ Options) {
				DesiredPodDisruptionBudget(mc).Spec.MaxUnavailable.StrVal = "written"
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			mc := fixture.Defaulted("a", tc.mutate)
			opts := Options{DefaultImage: "memcached:1.6"}
			specBefore := mc.DeepCopy()
			tc.write(t, mc, opts)
			if !equality.Semantic.DeepEqual(specBefore, mc) {
				t.Errorf("writing into the built object changed the Memcached:\nbefore %+v\nafter  %+v", specBefore.Spec, mc.Spec)
			}
		})
	}
}
