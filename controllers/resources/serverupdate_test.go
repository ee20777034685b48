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
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/internal/fixture"
)

// warmOpts are the options of an operator that knows its image (the launcher's).
var warmOpts = Options{DefaultImage: testImage, DefaultExporterImage: DefaultExporterImage, CertReloaderImage: "registry.example.com/memcached-operator:v1"}

// warmMemcached is a Stable instance with warm restarts, changed by mutate.
func warmMemcached(mutate ...func(*cachev1alpha1.Memcached)) *cachev1alpha1.Memcached {
	return fixture.Defaulted("a", append([]func(*cachev1alpha1.Memcached){func(mc *cachev1alpha1.Memcached) {
		mc.Spec.ServerIdentity = cachev1alpha1.ServerIdentityStable
		mc.Spec.WarmRestart.Enabled = true
		mc.Spec.Size = 3
	}}, mutate...)...)
}

// rolloutOf returns the StatefulSet of mc at update revision "a-new", and its pods at revision
// rev[i], ready since ready ago, with their restart counts 0.
func rolloutOf(mc *cachev1alpha1.Memcached, revs []string, ready time.Duration, now time.Time) (*appsv1.StatefulSet, []corev1.Pod) {
	sts := DesiredStatefulSet(mc, warmOpts)
	sts.Generation = 2
	sts.Status = appsv1.StatefulSetStatus{ObservedGeneration: 2, UpdateRevision: "a-new"}
	var pods []corev1.Pod
	for i, rev := range revs {
		pods = append(pods, corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "a-" + string(rune('0'+i)), Labels: map[string]string{appsv1.ControllerRevisionHashLabelKey: rev}},
			Status: corev1.PodStatus{
				Conditions:        []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(now.Add(-ready))}},
				ContainerStatuses: []corev1.ContainerStatus{{Name: ContainerName, Ready: true, RestartCount: 0}},
			},
		})
	}
	return sts, pods
}

func TestPlanServerUpdate(t *testing.T) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	oldMC := warmMemcached(func(mc *cachev1alpha1.Memcached) { mc.Spec.Image = "memcached:1.6.38" })
	oldTemplate := DesiredStatefulSet(oldMC, warmOpts).Spec.Template
	tests := map[string]struct {
		newMC     *cachev1alpha1.Memcached
		revs      []string
		ready     time.Duration
		mutate    func(sts *appsv1.StatefulSet, pods []corev1.Pod)
		noHistory bool
		// want: the pod changed ("" none), in place or not, a change its event names, a wait.
		pod, change, wait string
		inPlace           bool
	}{
		"image change: highest ordinal in place": {
			newMC: warmMemcached(func(mc *cachev1alpha1.Memcached) { mc.Spec.Image = "memcached:1.6.45" }),
			revs:  []string{"a-old", "a-old", "a-old"}, ready: time.Minute,
			pod: "a-2", inPlace: true, change: "image of memcached: memcached:1.6.38 → memcached:1.6.45",
		},
		"the next one once the last is current": {
			newMC: warmMemcached(func(mc *cachev1alpha1.Memcached) { mc.Spec.Image = "memcached:1.6.45" }),
			revs:  []string{"a-old", "a-old", "a-new"}, ready: time.Minute,
			pod: "a-1", inPlace: true, change: "image of memcached",
		},
		"all current": {
			newMC: warmMemcached(func(mc *cachev1alpha1.Memcached) { mc.Spec.Image = "memcached:1.6.45" }),
			revs:  []string{"a-new", "a-new", "a-new"}, ready: time.Minute,
		},
		"a pod patched in place but not restarted yet holds the rest": {
			newMC: warmMemcached(func(mc *cachev1alpha1.Memcached) { mc.Spec.Image = "memcached:1.6.45" }),
			revs:  []string{"a-old", "a-old", "a-new"}, ready: time.Minute,
			mutate: func(_ *appsv1.StatefulSet, pods []corev1.Pod) {
				pods[2].Annotations = map[string]string{InPlaceUpdateAnnotation: "memcached=0"}
			},
			wait: "container memcached is restarting",
		},
		"restarted and ready: done": {
			newMC: warmMemcached(func(mc *cachev1alpha1.Memcached) { mc.Spec.Image = "memcached:1.6.45" }),
			revs:  []string{"a-old", "a-old", "a-new"}, ready: time.Minute,
			mutate: func(_ *appsv1.StatefulSet, pods []corev1.Pod) {
				pods[2].Annotations = map[string]string{InPlaceUpdateAnnotation: "memcached=0"}
				pods[2].Status.ContainerStatuses[0].RestartCount = 1
			},
			pod: "a-1", inPlace: true, change: "image of memcached",
		},
		"a server not ready holds the rollout": {
			newMC: warmMemcached(func(mc *cachev1alpha1.Memcached) { mc.Spec.Image = "memcached:1.6.45" }),
			revs:  []string{"a-old", "a-old", "a-old"}, ready: time.Minute,
			mutate: func(_ *appsv1.StatefulSet, pods []corev1.Pod) {
				pods[0].Status.Conditions[0].Status = corev1.ConditionFalse
			},
			wait: "server a-0 is not ready",
		},
		"a missing server holds the rollout": {
			newMC: warmMemcached(func(mc *cachev1alpha1.Memcached) { mc.Spec.Image = "memcached:1.6.45" }),
			revs:  []string{"a-old", "a-old"}, ready: time.Minute,
			wait: "2 of 3 servers",
		},
		"minReadySeconds not yet passed": {
			newMC: warmMemcached(func(mc *cachev1alpha1.Memcached) { mc.Spec.Image = "memcached:1.6.45"; mc.Spec.MinReadySeconds = 30 }),
			revs:  []string{"a-old", "a-old", "a-new"}, ready: 10 * time.Second,
			wait: "minReadySeconds",
		},
		"the StatefulSet controller has not seen the template": {
			newMC: warmMemcached(func(mc *cachev1alpha1.Memcached) { mc.Spec.Image = "memcached:1.6.45" }),
			revs:  []string{"a-old", "a-old", "a-old"}, ready: time.Minute,
			mutate: func(sts *appsv1.StatefulSet, _ []corev1.Pod) { sts.Generation = 3 },
			wait:   "has not read the new pod template",
		},
		"a setting memcached restores changes in place": {
			newMC: warmMemcached(func(mc *cachev1alpha1.Memcached) { mc.Spec.Image = "memcached:1.6.38"; mc.Spec.Memcached.Threads = 8 }),
			revs:  []string{"a-old", "a-old", "a-old"}, ready: time.Minute,
			pod: "a-2", inPlace: true, change: "arguments of memcached: -t 4 → 8; memcached restores its items",
		},
		"a setting memcached does not restore changes in place, and says the server starts empty": {
			newMC: warmMemcached(func(mc *cachev1alpha1.Memcached) {
				mc.Spec.Image = "memcached:1.6.38"
				mc.Spec.Memcached.MaxItemSize = ptr.To(resource.MustParse("2Mi"))
			}),
			revs: []string{"a-old", "a-old", "a-old"}, ready: time.Minute,
			pod: "a-2", inPlace: true, change: "arguments of memcached: -I unset → 2097152; memcached starts empty (-I changed)",
		},
		"a memory change replaces the pod": {
			newMC: warmMemcached(func(mc *cachev1alpha1.Memcached) {
				mc.Spec.Image = "memcached:1.6.38"
				mc.Spec.Memcached.MaxMemoryMB = 128
			}),
			revs: []string{"a-old", "a-old", "a-old"}, ready: time.Minute,
			pod: "a-2", change: "pod spec (volumes, scheduling or security); resources of memcached",
		},
		"pod labels change in place": {
			newMC: warmMemcached(func(mc *cachev1alpha1.Memcached) {
				mc.Spec.Image = "memcached:1.6.38"
				mc.Spec.PodMetadata = &cachev1alpha1.ObjectMetadata{Labels: map[string]string{"team": "a"}}
			}),
			revs: []string{"a-old", "a-old", "a-old"}, ready: time.Minute,
			pod: "a-2", inPlace: true, change: "label team",
		},
		"an operator upgrade changes the launcher's and sidecars' images in place": {
			newMC: warmMemcached(func(mc *cachev1alpha1.Memcached) { mc.Spec.Image = "memcached:1.6.38" }),
			revs:  []string{"a-old", "a-old", "a-old"}, ready: time.Minute,
			mutate: func(sts *appsv1.StatefulSet, _ []corev1.Pod) {
				sts.Spec.Template.Spec.InitContainers[0].Image = "registry.example.com/memcached-operator:v2"
			},
			pod: "a-2", inPlace: true, change: "image of install-launcher",
		},
		"a revision pruned from the history replaces the pod": {
			newMC: warmMemcached(func(mc *cachev1alpha1.Memcached) { mc.Spec.Image = "memcached:1.6.45" }),
			revs:  []string{"a-old", "a-old", "a-old"}, ready: time.Minute, noHistory: true,
			pod: "a-2", change: "no longer in the StatefulSet's history",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			sts, pods := rolloutOf(tc.newMC, tc.revs, tc.ready, now)
			if tc.mutate != nil {
				tc.mutate(sts, pods)
			}
			templates := map[string]*corev1.PodTemplateSpec{"a-old": &oldTemplate, "a-new": &sts.Spec.Template}
			if tc.noHistory {
				delete(templates, "a-old")
			}
			got := PlanServerUpdate(sts, pods, templates, now)
			if got.Pod != tc.pod || got.InPlace != tc.inPlace {
				t.Fatalf("PlanServerUpdate() = pod %q in place %v (%+v), want pod %q in place %v", got.Pod, got.InPlace, got, tc.pod, tc.inPlace)
			}
			if !strings.Contains(strings.Join(got.Changes, "; "), tc.change) {
				t.Errorf("changes = %q, want one with %q", got.Changes, tc.change)
			}
			if !strings.Contains(got.Wait, tc.wait) || (tc.wait == "") != (got.Wait == "") {
				t.Errorf("wait = %q, want %q", got.Wait, tc.wait)
			}
			if got.InPlace {
				if rev := got.Labels[appsv1.ControllerRevisionHashLabelKey]; rev == nil || *rev != "a-new" {
					t.Errorf("revision label = %v, want a-new", rev)
				}
				if rec := got.Annotations[InPlaceUpdateAnnotation]; rec == nil {
					t.Error("no in-place record")
				} else if _, memcached := got.Images[ContainerName]; (memcached || strings.Contains(tc.change, "arguments")) && *rec != "memcached=0" {
					t.Errorf("in-place record = %q, want memcached=0", *rec)
				}
			}
		})
	}
}

// A StatefulSet that is not OnDelete (warm restarts off) is left to its controller.
func TestPlanServerUpdateLeavesRollingUpdates(t *testing.T) {
	mc := fixture.Defaulted("a", func(mc *cachev1alpha1.Memcached) { mc.Spec.ServerIdentity = cachev1alpha1.ServerIdentityStable })
	sts, pods := rolloutOf(mc, []string{"a-old"}, time.Minute, time.Now())
	if sts.Spec.UpdateStrategy.Type != appsv1.RollingUpdateStatefulSetStrategyType {
		t.Fatalf("update strategy = %s, want RollingUpdate without warm restarts", sts.Spec.UpdateStrategy.Type)
	}
	if got := PlanServerUpdate(sts, pods, nil, time.Now()); got.Pod != "" || got.Wait != "" {
		t.Errorf("PlanServerUpdate() = %+v, want nothing", got)
	}
	if warm := DesiredStatefulSet(warmMemcached(), warmOpts); warm.Spec.UpdateStrategy.Type != appsv1.OnDeleteStatefulSetStrategyType {
		t.Errorf("update strategy with warm restarts = %s, want OnDelete", warm.Spec.UpdateStrategy.Type)
	}
}
