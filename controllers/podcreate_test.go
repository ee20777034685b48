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
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/example/memcached-operator/internal/podview"
)

func TestLowestMissingPod(t *testing.T) {
	sts := func(replicas int32, observed int64) *appsv1.StatefulSet {
		return &appsv1.StatefulSet{
			ObjectMeta: metav1.ObjectMeta{Name: "mc", Generation: 2},
			Spec:       appsv1.StatefulSetSpec{Replicas: ptr.To(replicas)},
			Status:     appsv1.StatefulSetStatus{ObservedGeneration: observed},
		}
	}
	pods := func(names ...string) []podview.Pod {
		var out []podview.Pod
		for _, n := range names {
			out = append(out, podview.Pod{ObjectMeta: metav1.ObjectMeta{Name: n}})
		}
		return out
	}
	tests := map[string]struct {
		sts  *appsv1.StatefulSet
		pods []podview.Pod
		want string
	}{
		"all there":                        {sts(3, 2), pods("mc-0", "mc-1", "mc-2"), ""},
		"none yet":                         {sts(3, 2), nil, "mc-0"},
		"a hole":                           {sts(3, 2), pods("mc-0", "mc-2"), "mc-1"},
		"the last one":                     {sts(3, 2), pods("mc-0", "mc-1"), "mc-2"},
		"others' pods do not count":        {sts(2, 2), pods("mc-7c9f-abcde", "mc-1"), "mc-0"},
		"above the replicas do not count":  {sts(1, 2), pods("mc-1"), "mc-0"},
		"the controller has not acted yet": {sts(3, 1), nil, ""},
		"scaled to zero":                   {sts(0, 2), nil, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := lowestMissingPod(tc.sts, tc.pods); got != tc.want {
				t.Errorf("lowestMissingPod = %q, want %q", got, tc.want)
			}
		})
	}
}
