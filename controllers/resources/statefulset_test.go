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

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/utils/ptr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/internal/fixture"
)

// The StatefulSet runs exactly the Deployment's pods, under the headless Service, started and
// scaled in parallel, rolled one server at a time.
func TestDesiredStatefulSet(t *testing.T) {
	mc := fixture.Defaulted("c", func(mc *cachev1alpha1.Memcached) {
		mc.Spec.Size = 4
		mc.Spec.MinReadySeconds = 5
		mc.Spec.ServerIdentity = cachev1alpha1.ServerIdentityStable
	})
	opts := Options{DefaultImage: testImage}
	sts, dep := DesiredStatefulSet(mc, opts), DesiredDeployment(mc, opts)
	fixture.Expect(t, "pod template", sts.Spec.Template, dep.Spec.Template)
	fixture.Expect(t, "selector", sts.Spec.Selector, dep.Spec.Selector)
	fixture.Expect(t, "labels", sts.Labels, dep.Labels)
	fixture.Expect(t, "replicas", *sts.Spec.Replicas, int32(4))
	fixture.Expect(t, "minReadySeconds", sts.Spec.MinReadySeconds, int32(5))
	fixture.Expect(t, "serviceName", sts.Spec.ServiceName, DesiredService(mc).Name)
	fixture.Expect(t, "podManagementPolicy", sts.Spec.PodManagementPolicy, appsv1.ParallelPodManagement)
	fixture.Expect(t, "updateStrategy", sts.Spec.UpdateStrategy.Type, appsv1.RollingUpdateStatefulSetStrategyType)
	if len(sts.Spec.VolumeClaimTemplates) != 0 {
		t.Errorf("volumeClaimTemplates = %v, want none", sts.Spec.VolumeClaimTemplates)
	}

	live := sts.DeepCopy()
	if StatefulSetNeedsUpdate(live, sts) {
		t.Error("a StatefulSet equal to the desired one needs an update")
	}
	for name, drift := range map[string]func(*appsv1.StatefulSet){
		"replicas":        func(s *appsv1.StatefulSet) { s.Spec.Replicas = ptr.To[int32](2) },
		"minReadySeconds": func(s *appsv1.StatefulSet) { s.Spec.MinReadySeconds = 0 },
		"image":           func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "other" },
		"strategy":        func(s *appsv1.StatefulSet) { s.Spec.UpdateStrategy.Type = appsv1.OnDeleteStatefulSetStrategyType },
		"our label":       func(s *appsv1.StatefulSet) { delete(s.Labels, LabelInstance) },
	} {
		l := sts.DeepCopy()
		drift(l)
		if !StatefulSetNeedsUpdate(l, sts) {
			t.Errorf("%s: drift not seen", name)
		}
		UpdateStatefulSet(l, sts)
		if StatefulSetNeedsUpdate(l, sts) {
			t.Errorf("%s: still drifting after UpdateStatefulSet", name)
		}
	}
}

// A change of spec.serverIdentity moves one server at a time: the new workload never has more
// than one server that is not yet available, the old one gives up a server only for one the new
// one has available, so size servers keep serving, and neither ever takes back a step.
func TestHandoverReplicas(t *testing.T) {
	tests := map[string]struct {
		size         int32
		h            Handover
		newer, older int32
		deleteOld    bool
	}{
		"nothing to move":                {size: 3, h: Handover{NewReplicas: 3, NewAvailable: 1}, newer: 3},
		"new instance":                   {size: 3, newer: 3},
		"move starts":                    {size: 3, h: Handover{OldExists: true, OldReplicas: 3}, newer: 1, older: 3},
		"first server not yet ready":     {size: 3, h: Handover{OldExists: true, OldReplicas: 3, NewReplicas: 1}, newer: 1, older: 3},
		"first server ready":             {size: 3, h: Handover{OldExists: true, OldReplicas: 3, NewReplicas: 1, NewAvailable: 1}, newer: 2, older: 2},
		"a moved server turns unready":   {size: 3, h: Handover{OldExists: true, OldReplicas: 2, NewReplicas: 2, NewAvailable: 0}, newer: 2, older: 2},
		"last server ready":              {size: 3, h: Handover{OldExists: true, OldReplicas: 1, NewReplicas: 3, NewAvailable: 3}, newer: 3, deleteOld: true},
		"all ready, replicas not yet":    {size: 3, h: Handover{OldExists: true, OldReplicas: 1, NewReplicas: 2, NewAvailable: 3}, newer: 3, older: 0},
		"scaled down during the move":    {size: 2, h: Handover{OldExists: true, OldReplicas: 3, NewReplicas: 1, NewAvailable: 1}, newer: 2, older: 1},
		"scaled up during the move":      {size: 5, h: Handover{OldExists: true, OldReplicas: 2, NewReplicas: 2, NewAvailable: 1}, newer: 2, older: 2},
		"new one above size after scale": {size: 2, h: Handover{OldExists: true, OldReplicas: 1, NewReplicas: 3, NewAvailable: 1}, newer: 2, older: 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			newer, older, del := HandoverReplicas(tc.size, tc.h)
			fixture.Expect(t, "replicas (new, old, delete old)", []any{newer, older, del}, []any{tc.newer, tc.older, tc.deleteOld})
		})
	}
}

// Stepping HandoverReplicas as the workload controllers would (every server of the new workload
// becomes available before the next step) moves 5 servers in 5 steps and never has fewer than
// 5 servers serving.
func TestHandoverKeepsSizeServing(t *testing.T) {
	const size = 5
	h := Handover{OldExists: true, OldReplicas: size}
	for step := 0; step < 2*size; step++ {
		newer, older, del := HandoverReplicas(size, h)
		if del {
			if step != size {
				t.Errorf("old workload deleted after %d steps, want %d", step, size)
			}
			return
		}
		// The new servers start; the old ones the old workload no longer wants stop at once.
		if serving := h.NewAvailable + older; serving < size {
			t.Fatalf("step %d: %d servers serving, want at least %d", step, serving, size)
		}
		h = Handover{OldExists: true, OldReplicas: older, NewReplicas: newer, NewAvailable: newer}
	}
	t.Fatalf("the move did not end in %d steps", 2*size)
}
