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
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/internal/podview"

	"github.com/example/memcached-operator/controllers/internal/fixture"
)

func TestComputeStatus(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	terminating := func(p *podview.Pod) { p.DeletionTimestamp = &now }
	three := []podview.Pod{fixture.Pod("c-2", "10.244.0.2", true), fixture.Pod("c-1", "10.244.0.1", true), fixture.Pod("c-3", "10.244.0.3", true)}
	type want struct {
		nodes                            []string
		ready                            int32
		available, progressing, degraded metav1.ConditionStatus
		degradedReason                   string
		serverList                       []string
	}
	tests := map[string]struct {
		size int32
		obs  Observed
		want want
	}{
		"rolled out and ready": {
			size: 3, obs: Observed{Deployment: fixture.Deployment(3, 3, 3, 3, true), Pods: three, ServiceOwned: true},
			want: want{nodes: []string{"c-1", "c-2", "c-3"}, ready: 3, available: "True", progressing: "False", degraded: "False",
				serverList: []string{"10-244-0-1.c.ns.svc:11211", "10-244-0-2.c.ns.svc:11211", "10-244-0-3.c.ns.svc:11211"}},
		},
		"just created: no pods, deployment not observed": {
			size: 3, obs: Observed{Deployment: fixture.Deployment(3, 0, 0, 0, false)},
			want: want{ready: 0, available: "False", progressing: "True", degraded: "False"},
		},
		"deployment reports ready but pods are not yet (never Available early)": {
			size: 3, obs: Observed{Deployment: fixture.Deployment(3, 3, 3, 3, true), Pods: []podview.Pod{fixture.Pod("c-1", "10.244.0.1", true), fixture.Pod("c-2", "", false), fixture.Pod("c-3", "", false)}, ServiceOwned: true},
			want: want{nodes: []string{"c-1", "c-2", "c-3"}, ready: 1, available: "False", progressing: "True", degraded: "False",
				serverList: []string{"10-244-0-1.c.ns.svc:11211"}},
		},
		"spec changed, deployment status from the old generation": {
			size: 3, obs: Observed{Deployment: fixture.Deployment(3, 3, 3, 3, false), Pods: three, ServiceOwned: true},
			want: want{nodes: []string{"c-1", "c-2", "c-3"}, ready: 3, available: "False", progressing: "True", degraded: "False",
				serverList: []string{"10-244-0-1.c.ns.svc:11211", "10-244-0-2.c.ns.svc:11211", "10-244-0-3.c.ns.svc:11211"}},
		},
		"rolling update with an old pod left": {
			size: 3, obs: Observed{Deployment: fixture.Deployment(3, 4, 3, 3, true), Pods: append(three, fixture.Pod("old-1", "10.244.0.9", true)), ServiceOwned: true},
			want: want{nodes: []string{"c-1", "c-2", "c-3", "old-1"}, ready: 4, available: "False", progressing: "True", degraded: "False",
				serverList: []string{"10-244-0-1.c.ns.svc:11211", "10-244-0-2.c.ns.svc:11211", "10-244-0-3.c.ns.svc:11211", "10-244-0-9.c.ns.svc:11211"}},
		},
		"terminating and finished pods are not nodes": {
			size: 2, obs: Observed{Deployment: fixture.Deployment(2, 2, 2, 2, true), Pods: []podview.Pod{
				fixture.Pod("c-1", "10.244.0.1", true), fixture.Pod("c-2", "10.244.0.2", true),
				fixture.Pod("c-0", "10.244.0.5", true, terminating), fixture.Pod("c-9", "", false, func(p *podview.Pod) { p.Status.Phase = corev1.PodFailed }),
			}, ServiceOwned: true},
			want: want{nodes: []string{"c-1", "c-2"}, ready: 2, available: "True", progressing: "False", degraded: "False",
				serverList: []string{"10-244-0-1.c.ns.svc:11211", "10-244-0-2.c.ns.svc:11211"}},
		},
		"conflict on the Deployment": {
			size: 3, obs: Observed{Conflicts: []string{"Deployment c"}},
			want: want{available: "False", progressing: "False", degraded: "True", degradedReason: cachev1alpha1.ReasonResourceConflict},
		},
		"apply error on the Service: pod IPs in the server list": {
			size: 1, obs: Observed{Deployment: fixture.Deployment(1, 1, 1, 1, true), Pods: three[:1], Err: errors.New("failed to patch Service ns/c: forbidden")},
			want: want{nodes: []string{"c-2"}, ready: 1, available: "True", progressing: "False", degraded: "True", degradedReason: cachev1alpha1.ReasonReconcileError,
				serverList: []string{"10.244.0.2:11211"}},
		},
		"invalid spec of a new instance: nothing progresses": {
			size: 1, obs: Observed{Invalid: errors.New("spec.memcached.maxMemoryMB ...")},
			want: want{available: "False", progressing: "False", degraded: "True", degradedReason: cachev1alpha1.ReasonInvalidSpec},
		},
		"invalid spec of a running instance: still serving": {
			size: 1, obs: Observed{Invalid: errors.New("spec.resources ..."), Deployment: fixture.Deployment(1, 1, 1, 1, true), Pods: three[:1], ServiceOwned: true},
			want: want{nodes: []string{"c-2"}, ready: 1, available: "True", progressing: "False", degraded: "True", degradedReason: cachev1alpha1.ReasonInvalidSpec,
				serverList: []string{"10-244-0-2.c.ns.svc:11211"}},
		},
		"objects of a deleted instance of the same name not yet collected": {
			size: 1, obs: Observed{Waiting: []string{"Deployment c"}},
			want: want{available: "False", progressing: "True", degraded: "False"},
		},
		"rollout stuck": {
			size: 1, obs: Observed{Deployment: func() *appsv1.Deployment {
				d := fixture.Deployment(1, 1, 0, 0, true)
				d.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded", Message: "timed out"}}
				return d
			}()},
			want: want{available: "False", progressing: "True", degraded: "True", degradedReason: cachev1alpha1.ReasonProgressDeadline},
		},
		"pods cannot be created": {
			size: 1, obs: Observed{Deployment: func() *appsv1.Deployment {
				d := fixture.Deployment(1, 0, 0, 0, true)
				d.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue, Message: "exceeded quota"}}
				return d
			}()},
			want: want{available: "False", progressing: "True", degraded: "True", degradedReason: cachev1alpha1.ReasonReplicaFailure},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			mc := fixture.Defaulted("c", func(mc *cachev1alpha1.Memcached) { mc.Spec.Size = tc.size; mc.Generation = 4 })
			st := ComputeStatus(mc, tc.obs, now)
			fixture.Expect(t, "nodes", st.Nodes, tc.want.nodes)
			fixture.Expect(t, "replicas", st.Replicas, int32(len(tc.want.nodes)))
			fixture.Expect(t, "readyReplicas", st.ReadyReplicas, tc.want.ready)
			fixture.Expect(t, "serverList", st.ServerList, tc.want.serverList)
			fixture.Expect(t, "observedGeneration", st.ObservedGeneration, int64(4))
			fixture.Expect(t, "selector", st.Selector, "app.kubernetes.io/instance=c,app.kubernetes.io/name=memcached")
			for typ, s := range map[string]metav1.ConditionStatus{
				cachev1alpha1.ConditionAvailable: tc.want.available, cachev1alpha1.ConditionProgressing: tc.want.progressing,
				cachev1alpha1.ConditionDegraded: tc.want.degraded,
			} {
				c := meta.FindStatusCondition(st.Conditions, typ)
				if c == nil {
					t.Fatalf("condition %s missing", typ)
				}
				fixture.Expect(t, typ, c.Status, s)
				fixture.Expect(t, typ+" observedGeneration", c.ObservedGeneration, int64(4))
				if c.Reason == "" || c.Message == "" {
					t.Errorf("condition %s has no reason or message: %+v", typ, c)
				}
			}
			if tc.want.degradedReason != "" {
				fixture.Expect(t, "Degraded reason", meta.FindStatusCondition(st.Conditions, cachev1alpha1.ConditionDegraded).Reason, tc.want.degradedReason)
			}
		})
	}
}

// lastTransitionTime moves only when a condition's status changes; a message change alone does not.
func TestComputeStatusKeepsTransitionTimes(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Minute))
	mc := fixture.Defaulted("c", func(mc *cachev1alpha1.Memcached) { mc.Spec.Size = 2 })
	pods := []podview.Pod{fixture.Pod("c-1", "10.244.0.1", true), fixture.Pod("c-2", "10.244.0.2", false)}
	mc.Status = ComputeStatus(mc, Observed{Deployment: fixture.Deployment(2, 2, 2, 1, true), Pods: pods}, t0)

	// One more pod ready: Available flips, Degraded stays False.
	pods[1] = fixture.Pod("c-2", "10.244.0.2", true)
	st := ComputeStatus(mc, Observed{Deployment: fixture.Deployment(2, 2, 2, 2, true), Pods: pods}, t1)
	fixture.Expect(t, "Available transition", meta.FindStatusCondition(st.Conditions, cachev1alpha1.ConditionAvailable).LastTransitionTime, t1)
	fixture.Expect(t, "Degraded unchanged", meta.FindStatusCondition(st.Conditions, cachev1alpha1.ConditionDegraded).LastTransitionTime, t0)

	// Same observation again: the status is identical, so nothing is written.
	mc.Status = st
	again := ComputeStatus(mc, Observed{Deployment: fixture.Deployment(2, 2, 2, 2, true), Pods: pods}, metav1.NewTime(t1.Add(time.Hour)))
	fixture.Expect(t, "status on a repeated observation", again, st)
}

// Without our Service (disabled, or its name taken by a foreign Service) the DNS names would not
// resolve to our pods: the list holds pod IPs.
func TestServerListWithoutService(t *testing.T) {
	mc := fixture.Defaulted("c", func(mc *cachev1alpha1.Memcached) { mc.Spec.Service.Enabled = ptr.To(false) })
	b, a := fixture.Pod("b", "10.244.0.2", true), fixture.Pod("a", "fd00::1", true)
	fixture.Expect(t, "serverList", serverList(mc, []*podview.Pod{&b, &a}, false), []string{"[fd00::1]:11211", "10.244.0.2:11211"})
	fixture.Expect(t, "serverList via Service", serverList(mc, []*podview.Pod{&b, &a}, true), []string{"fd00--1.c.ns.svc:11211", "10-244-0-2.c.ns.svc:11211"})
}

// With spec.serverIdentity Stable the servers are the StatefulSet's, listed under their stable
// names in ordinal order; a server keeps its place while its pod is replaced, so the list changes
// only with spec.size; during a move from a Deployment both workloads' ready servers are listed.
func TestComputeStatusStableIdentity(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC))
	sts := func(replicas, statusReplicas, updated, available int32) *appsv1.StatefulSet {
		return &appsv1.StatefulSet{
			ObjectMeta: metav1.ObjectMeta{Generation: 2},
			Spec:       appsv1.StatefulSetSpec{Replicas: ptr.To(replicas)},
			Status: appsv1.StatefulSetStatus{ObservedGeneration: 2, Replicas: statusReplicas, UpdatedReplicas: updated,
				AvailableReplicas: available, ReadyReplicas: available},
		}
	}
	server := func(i int) string { return fmt.Sprintf("c-%d.c.ns.svc:11211", i) }
	all3 := []string{server(0), server(1), server(2)}
	tests := map[string]struct {
		size             int32
		previous         []string
		obs              Observed
		serverList       []string
		available        metav1.ConditionStatus
		progressingMatch string
	}{
		"all ready": {
			size: 3, obs: Observed{StatefulSet: sts(3, 3, 3, 3), ServiceOwned: true, Pods: []podview.Pod{
				fixture.Pod("c-2", "10.244.0.7", true), fixture.Pod("c-0", "10.244.0.5", true), fixture.Pod("c-1", "10.244.0.6", true)}},
			serverList: all3, available: "True", progressingMatch: "3 pods of the current template are ready",
		},
		"first start: a server not ready yet is not listed": {
			size: 3, obs: Observed{StatefulSet: sts(3, 3, 3, 2), ServiceOwned: true, Pods: []podview.Pod{
				fixture.Pod("c-0", "10.244.0.5", true), fixture.Pod("c-1", "", false), fixture.Pod("c-2", "10.244.0.7", true)}},
			serverList: []string{server(0), server(2)}, available: "False", progressingMatch: "2 of 3 updated pods ready",
		},
		"a replaced server keeps its place": {
			size: 3, previous: all3, obs: Observed{StatefulSet: sts(3, 2, 2, 2), ServiceOwned: true, Pods: []podview.Pod{
				fixture.Pod("c-0", "10.244.0.5", true), fixture.Pod("c-2", "10.244.0.7", true)}},
			serverList: all3, available: "False", progressingMatch: "2 of 3 updated pods ready",
		},
		"scaled down: the removed server leaves the list at once": {
			size: 2, previous: all3, obs: Observed{StatefulSet: sts(2, 3, 3, 3), ServiceOwned: true, Pods: []podview.Pod{
				fixture.Pod("c-0", "10.244.0.5", true), fixture.Pod("c-1", "10.244.0.6", true), fixture.Pod("c-2", "10.244.0.7", true)}},
			serverList: []string{server(0), server(1)}, available: "True", progressingMatch: "(3 pods exist)",
		},
		"moving from a Deployment": {
			size: 3, obs: Observed{StatefulSet: sts(2, 2, 2, 1), Deployment: fixture.Deployment(2, 2, 2, 2, true), ServiceOwned: true, Pods: []podview.Pod{
				fixture.Pod("c-0", "10.244.0.5", true), fixture.Pod("c-1", "", false),
				fixture.Pod("c-6d9f7c5b8-abcde", "10.244.0.2", true), fixture.Pod("c-6d9f7c5b8-fghij", "10.244.0.3", true)}},
			serverList: []string{server(0), "10-244-0-2.c.ns.svc:11211", "10-244-0-3.c.ns.svc:11211"}, available: "False",
			progressingMatch: "moving the servers to a StatefulSet (spec.serverIdentity): 1 of 3 ready (4 pods exist)",
		},
		"no Service of ours: pod IPs": {
			size: 1, obs: Observed{StatefulSet: sts(1, 1, 1, 1), Pods: []podview.Pod{fixture.Pod("c-0", "10.244.0.5", true)}},
			serverList: []string{"10.244.0.5:11211"}, available: "True", progressingMatch: "1 pods of the current template are ready",
		},
		"no StatefulSet yet": {
			size: 1, obs: Observed{ServiceOwned: true},
			available: "False", progressingMatch: "the memcached StatefulSet does not exist yet",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			mc := fixture.Defaulted("c", func(mc *cachev1alpha1.Memcached) {
				mc.Spec.Size = tc.size
				mc.Spec.ServerIdentity = cachev1alpha1.ServerIdentityStable
				mc.Generation = 4
				mc.Status.ServerList = tc.previous
			})
			st := ComputeStatus(mc, tc.obs, now)
			fixture.Expect(t, "serverList", st.ServerList, tc.serverList)
			fixture.Expect(t, "Available", meta.FindStatusCondition(st.Conditions, cachev1alpha1.ConditionAvailable).Status, tc.available)
			if p := meta.FindStatusCondition(st.Conditions, cachev1alpha1.ConditionProgressing); !strings.Contains(p.Message, tc.progressingMatch) {
				t.Errorf("Progressing message %q does not contain %q", p.Message, tc.progressingMatch)
			}
		})
	}
}
