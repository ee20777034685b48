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
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

func TestUpgradeable(t *testing.T) {
	mc := func(name string, gen, observed int64, progressing metav1.ConditionStatus, mutate ...func(*cachev1alpha1.Memcached)) cachev1alpha1.Memcached {
		m := cachev1alpha1.Memcached{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Generation: gen}}
		m.Status.ObservedGeneration = observed
		if progressing != "" {
			m.Status.Conditions = []metav1.Condition{{Type: cachev1alpha1.ConditionProgressing, Status: progressing}}
		}
		for _, f := range mutate {
			f(&m)
		}
		return m
	}
	pause := func(m *cachev1alpha1.Memcached) {
		m.Annotations = map[string]string{cachev1alpha1.PauseAnnotation: "true"}
	}
	tests := map[string]struct {
		mcs        []cachev1alpha1.Memcached
		want       metav1.ConditionStatus
		wantReason string
		wantNames  string
	}{
		"no instance":                    {want: metav1.ConditionTrue, wantReason: ReasonNoRolloutInProgress},
		"all settled":                    {mcs: []cachev1alpha1.Memcached{mc("a", 2, 2, metav1.ConditionFalse)}, want: metav1.ConditionTrue, wantReason: ReasonNoRolloutInProgress},
		"one progressing":                {mcs: []cachev1alpha1.Memcached{mc("b", 1, 1, metav1.ConditionTrue), mc("a", 1, 1, metav1.ConditionFalse)}, want: metav1.ConditionFalse, wantReason: ReasonRolloutInProgress, wantNames: "ns/b"},
		"new instance without status":    {mcs: []cachev1alpha1.Memcached{mc("new", 1, 0, "")}, want: metav1.ConditionFalse, wantReason: ReasonRolloutInProgress, wantNames: "ns/new"},
		"spec changed while no operator": {mcs: []cachev1alpha1.Memcached{mc("c", 3, 2, metav1.ConditionFalse)}, want: metav1.ConditionFalse, wantNames: "ns/c", wantReason: ReasonRolloutInProgress},
		"paused instance does not hold":  {mcs: []cachev1alpha1.Memcached{mc("p", 2, 1, metav1.ConditionTrue, pause)}, want: metav1.ConditionTrue, wantReason: ReasonNoRolloutInProgress},
		"deleted instance does not hold": {mcs: []cachev1alpha1.Memcached{mc("d", 1, 1, metav1.ConditionTrue, func(m *cachev1alpha1.Memcached) { m.DeletionTimestamp = ptr.To(metav1.Now()) })}, want: metav1.ConditionTrue, wantReason: ReasonNoRolloutInProgress},
		"several progressing are sorted": {mcs: []cachev1alpha1.Memcached{mc("z", 1, 1, metav1.ConditionTrue), mc("y", 1, 1, metav1.ConditionTrue)}, want: metav1.ConditionFalse, wantReason: ReasonRolloutInProgress, wantNames: "ns/y, ns/z"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			status, reason, msg := upgradeable(tc.mcs)
			g.Expect(status).To(Equal(tc.want))
			g.Expect(reason).To(Equal(tc.wantReason))
			if tc.wantNames != "" {
				g.Expect(msg).To(HaveSuffix(": " + tc.wantNames))
			}
		})
	}
}
