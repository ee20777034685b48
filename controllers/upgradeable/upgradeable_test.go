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

package upgradeable

import (
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

func TestUpgradeable(t *testing.T) {
	now := time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC)
	mc := func(name string, gen, observed int64, progressing metav1.ConditionStatus, mutate ...func(*cachev1alpha1.Memcached)) cachev1alpha1.Memcached {
		m := cachev1alpha1.Memcached{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Generation: gen, UID: types.UID("uid-" + name)}}
		m.Status.ObservedGeneration = observed
		if progressing != "" {
			reason := cachev1alpha1.ReasonRolloutInProgress
			if progressing == metav1.ConditionFalse {
				reason = cachev1alpha1.ReasonRolloutComplete
			}
			m.Status.Conditions = []metav1.Condition{{Type: cachev1alpha1.ConditionProgressing, Status: progressing, Reason: reason}}
		}
		for _, f := range mutate {
			f(&m)
		}
		return m
	}
	pause := func(m *cachev1alpha1.Memcached) {
		m.Annotations = map[string]string{cachev1alpha1.PauseAnnotation: "true"}
	}
	degraded := func(reason string) func(*cachev1alpha1.Memcached) {
		return func(m *cachev1alpha1.Memcached) {
			meta.SetStatusCondition(&m.Status.Conditions, metav1.Condition{Type: cachev1alpha1.ConditionDegraded, Status: metav1.ConditionTrue, Reason: reason})
		}
	}
	progressingFor := func(reason string) func(*cachev1alpha1.Memcached) {
		return func(m *cachev1alpha1.Memcached) {
			m.Status.Conditions = []metav1.Condition{{Type: cachev1alpha1.ConditionProgressing, Status: metav1.ConditionTrue, Reason: reason}}
		}
	}
	invalid := func(m *cachev1alpha1.Memcached) {
		m.Status.Conditions = []metav1.Condition{
			{Type: cachev1alpha1.ConditionProgressing, Status: metav1.ConditionFalse, Reason: cachev1alpha1.ReasonInvalidSpec},
			{Type: cachev1alpha1.ConditionDegraded, Status: metav1.ConditionTrue, Reason: cachev1alpha1.ReasonInvalidSpec},
		}
	}
	many := func(n int) []cachev1alpha1.Memcached {
		var out []cachev1alpha1.Memcached
		for i := range n {
			out = append(out, mc(fmt.Sprintf("m%02d", i), 1, 1, metav1.ConditionTrue))
		}
		return out
	}
	tests := map[string]struct {
		mcs         []cachev1alpha1.Memcached
		lagSince    map[types.UID]lag
		want        metav1.ConditionStatus
		wantReason  string
		wantNames   string
		wantRecheck time.Duration
	}{
		"no instance":                    {want: metav1.ConditionTrue, wantReason: ReasonNoRolloutInProgress},
		"all settled":                    {mcs: []cachev1alpha1.Memcached{mc("a", 2, 2, metav1.ConditionFalse)}, want: metav1.ConditionTrue, wantReason: ReasonNoRolloutInProgress},
		"one progressing":                {mcs: []cachev1alpha1.Memcached{mc("b", 1, 1, metav1.ConditionTrue), mc("a", 1, 1, metav1.ConditionFalse)}, want: metav1.ConditionFalse, wantReason: ReasonRolloutInProgress, wantNames: "ns/b"},
		"new instance without status":    {mcs: []cachev1alpha1.Memcached{mc("new", 1, 0, "")}, want: metav1.ConditionFalse, wantReason: ReasonRolloutInProgress, wantNames: "ns/new", wantRecheck: GenerationLagHold},
		"spec changed while no operator": {mcs: []cachev1alpha1.Memcached{mc("c", 3, 2, metav1.ConditionFalse)}, want: metav1.ConditionFalse, wantNames: "ns/c", wantReason: ReasonRolloutInProgress, wantRecheck: GenerationLagHold},
		"a lag seen a minute ago holds for the rest": {
			mcs:      []cachev1alpha1.Memcached{mc("c", 3, 2, metav1.ConditionFalse)},
			lagSince: map[types.UID]lag{"uid-c": {generation: 3, since: now.Add(-time.Minute)}},
			want:     metav1.ConditionFalse, wantNames: "ns/c", wantReason: ReasonRolloutInProgress, wantRecheck: GenerationLagHold - time.Minute,
		},
		"a lag that lasts is a failure: no hold": {
			mcs:      []cachev1alpha1.Memcached{mc("c", 3, 2, metav1.ConditionTrue)},
			lagSince: map[types.UID]lag{"uid-c": {generation: 3, since: now.Add(-GenerationLagHold)}},
			want:     metav1.ConditionTrue, wantReason: ReasonNoRolloutInProgress,
		},
		"the lag of an older generation does not count": {
			mcs:      []cachev1alpha1.Memcached{mc("c", 4, 2, metav1.ConditionFalse)},
			lagSince: map[types.UID]lag{"uid-c": {generation: 3, since: now.Add(-time.Hour)}},
			want:     metav1.ConditionFalse, wantNames: "ns/c", wantReason: ReasonRolloutInProgress, wantRecheck: GenerationLagHold,
		},
		"crash loop mid-rollout does not hold":    {mcs: []cachev1alpha1.Memcached{mc("crash", 2, 2, metav1.ConditionTrue, degraded(cachev1alpha1.ReasonContainerFailing))}, want: metav1.ConditionTrue, wantReason: ReasonNoRolloutInProgress},
		"pods that cannot be created do not hold": {mcs: []cachev1alpha1.Memcached{mc("quota", 2, 2, metav1.ConditionTrue, degraded(cachev1alpha1.ReasonReplicaFailure))}, want: metav1.ConditionTrue, wantReason: ReasonNoRolloutInProgress},
		"invalid spec does not hold":              {mcs: []cachev1alpha1.Memcached{mc("inv", 2, 2, "", invalid)}, want: metav1.ConditionTrue, wantReason: ReasonNoRolloutInProgress},
		"a failing lagging spec does not hold":    {mcs: []cachev1alpha1.Memcached{mc("f", 3, 2, metav1.ConditionFalse, degraded(cachev1alpha1.ReasonReconcileError))}, want: metav1.ConditionTrue, wantReason: ReasonNoRolloutInProgress},
		"waiting for the garbage collector":       {mcs: []cachev1alpha1.Memcached{mc("gc", 1, 1, "", progressingFor(cachev1alpha1.ReasonWaitingForGC))}, want: metav1.ConditionTrue, wantReason: ReasonNoRolloutInProgress},
		"a failing one beside a rolling one":      {mcs: []cachev1alpha1.Memcached{mc("crash", 1, 1, metav1.ConditionTrue, degraded(cachev1alpha1.ReasonContainerFailing)), mc("roll", 1, 1, metav1.ConditionTrue)}, want: metav1.ConditionFalse, wantReason: ReasonRolloutInProgress, wantNames: "ns/roll"},
		"paused instance does not hold":           {mcs: []cachev1alpha1.Memcached{mc("p", 2, 1, metav1.ConditionTrue, pause)}, want: metav1.ConditionTrue, wantReason: ReasonNoRolloutInProgress},
		"deleted instance does not hold":          {mcs: []cachev1alpha1.Memcached{mc("d", 1, 1, metav1.ConditionTrue, func(m *cachev1alpha1.Memcached) { m.DeletionTimestamp = ptr.To(metav1.Now()) })}, want: metav1.ConditionTrue, wantReason: ReasonNoRolloutInProgress},
		"several progressing are sorted":          {mcs: []cachev1alpha1.Memcached{mc("z", 1, 1, metav1.ConditionTrue), mc("y", 1, 1, metav1.ConditionTrue)}, want: metav1.ConditionFalse, wantReason: ReasonRolloutInProgress, wantNames: "ns/y, ns/z"},
		"many are cut":                            {mcs: many(12), want: metav1.ConditionFalse, wantReason: ReasonRolloutInProgress, wantNames: "ns/m00, ns/m01, ns/m02, ns/m03, ns/m04, ns/m05, ns/m06, ns/m07, ns/m08, ns/m09 and 2 more"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			status, reason, msg, recheck := upgradeable(tc.mcs, tc.lagSince, now, "memcached-operator.v0.3.0")
			g.Expect(status).To(Equal(tc.want))
			g.Expect(reason).To(Equal(tc.wantReason))
			g.Expect(recheck).To(Equal(tc.wantRecheck))
			if tc.wantNames != "" {
				g.Expect(msg).To(HavePrefix("Memcached instances are rolling out: " + tc.wantNames + ". "))
				// How to release the hold: pause, or override the OperatorCondition it names.
				g.Expect(msg).To(ContainSubstring(cachev1alpha1.PauseAnnotation + "=true"))
				g.Expect(msg).To(ContainSubstring("kubectl patch operatorcondition memcached-operator.v0.3.0 "))
			}
		})
	}
}

// The time a lag was first seen is kept while the generation stays, restarted for a new one, and
// dropped once the status catches up.
func TestTrackLag(t *testing.T) {
	g := NewWithT(t)
	t0 := time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC)
	m := cachev1alpha1.Memcached{ObjectMeta: metav1.ObjectMeta{Name: "a", UID: "u", Generation: 2}}
	r := &Reconciler{}
	r.trackLag([]cachev1alpha1.Memcached{m}, t0)
	r.trackLag([]cachev1alpha1.Memcached{m}, t0.Add(time.Minute))
	g.Expect(r.lagSince).To(Equal(map[types.UID]lag{"u": {generation: 2, since: t0}}))
	m.Generation = 3
	r.trackLag([]cachev1alpha1.Memcached{m}, t0.Add(2*time.Minute))
	g.Expect(r.lagSince).To(Equal(map[types.UID]lag{"u": {generation: 3, since: t0.Add(2 * time.Minute)}}))
	m.Status.ObservedGeneration = 3
	r.trackLag([]cachev1alpha1.Memcached{m}, t0.Add(3*time.Minute))
	g.Expect(r.lagSince).To(BeEmpty())
}
