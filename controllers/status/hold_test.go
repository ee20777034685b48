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

package status

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

func TestWorthWaiting(t *testing.T) {
	progressing := func(ready int32, servers ...string) cachev1alpha1.MemcachedStatus {
		return cachev1alpha1.MemcachedStatus{
			ReadyReplicas: ready, Replicas: 3, ServerList: servers, Nodes: []string{"p0", "p1", "p2"},
			Conditions: []metav1.Condition{
				{Type: cachev1alpha1.ConditionAvailable, Status: metav1.ConditionFalse, Reason: cachev1alpha1.ReasonReplicasNotReady, Message: "x"},
				{Type: cachev1alpha1.ConditionProgressing, Status: metav1.ConditionTrue, Reason: cachev1alpha1.ReasonRolloutInProgress},
				{Type: cachev1alpha1.ConditionDegraded, Status: metav1.ConditionFalse, Reason: cachev1alpha1.ReasonAsExpected},
			},
		}
	}
	available := progressing(3, "a", "b", "c")
	available.Conditions[0] = metav1.Condition{Type: cachev1alpha1.ConditionAvailable, Status: metav1.ConditionTrue, Reason: cachev1alpha1.ReasonAllReplicasReady}
	dep := func(ready int32) *appsv1.Deployment {
		return &appsv1.Deployment{Status: appsv1.DeploymentStatus{ReadyReplicas: ready}}
	}
	sts := &appsv1.StatefulSet{Status: appsv1.StatefulSetStatus{ReadyReplicas: 1}}
	fewerNodes := progressing(3, "a", "b", "c")
	fewerNodes.Nodes = []string{"p0", "p1"}
	cases := map[string]struct {
		before, now cachev1alpha1.MemcachedStatus
		obs         Observed
		want        bool
	}{
		"pods ready before the Deployment says so":      {progressing(1, "a"), progressing(3, "a", "b", "c"), Observed{Deployment: dep(1)}, true},
		"the first ready pod, Deployment still at 0":    {progressing(0), progressing(1, "a"), Observed{Deployment: dep(0)}, true},
		"the StatefulSet behind its pods":               {progressing(1, "a"), progressing(2, "a", "b"), Observed{StatefulSet: sts}, true},
		"the Deployment caught up":                      {progressing(1, "a"), progressing(3, "a", "b", "c"), Observed{Deployment: dep(3)}, false},
		"a first status is never held":                  {cachev1alpha1.MemcachedStatus{}, progressing(1, "a"), Observed{Deployment: dep(0)}, false},
		"Available turns True":                          {progressing(1, "a"), available, Observed{Deployment: dep(1)}, false},
		"a server left":                                 {progressing(2, "a", "b"), progressing(2, "a", "c"), Observed{Deployment: dep(1)}, false},
		"a pod left":                                    {progressing(2, "a", "b"), fewerNodes, Observed{Deployment: dep(1)}, false},
		"fewer ready":                                   {progressing(3, "a", "b", "c"), progressing(2, "a", "b", "c"), Observed{Deployment: dep(1)}, false},
		"moving between a Deployment and a StatefulSet": {progressing(1, "a"), progressing(2, "a", "b"), Observed{Deployment: dep(1), StatefulSet: sts}, false},
		"no workload":                                   {progressing(1, "a"), progressing(2, "a", "b"), Observed{}, false},
	}
	for name, tc := range cases {
		if got := WorthWaiting(tc.before, tc.now, tc.obs); got != tc.want {
			t.Errorf("%s: WorthWaiting = %v, want %v", name, got, tc.want)
		}
	}
}
