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
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"

	"github.com/example/memcached-operator/controllers/status"
	"github.com/example/memcached-operator/internal/podview"
)

// A missing pod the read phase found stays reported only while the StatefulSet this reconcile
// leaves in the status still misses it: one whose spec the apply or a stop just changed has not
// been acted on by its controller (lowestMissingPod says none), and a StatefulSet that is gone
// (its apply failed) misses nothing.
func TestSettleMissingPod(t *testing.T) {
	sts := func(generation int64) *appsv1.StatefulSet {
		return &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "mc", Generation: generation},
			Spec: appsv1.StatefulSetSpec{Replicas: ptr.To(int32(2))}, Status: appsv1.StatefulSetStatus{ObservedGeneration: 1}}
	}
	pods := []podview.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "mc-0"}}}
	tests := map[string]struct {
		obs         status.Observed
		wantDropped bool
	}{
		"none missing":               {obs: status.Observed{StatefulSet: sts(1), Pods: pods}},
		"the StatefulSet as read":    {obs: status.Observed{StatefulSet: sts(1), Pods: pods, MissingPod: "mc-1", PodCreateFailure: "quota"}},
		"a spec written since":       {obs: status.Observed{StatefulSet: sts(2), Pods: pods, MissingPod: "mc-1", PodCreateFailure: "quota"}, wantDropped: true},
		"no StatefulSet after apply": {obs: status.Observed{Pods: pods, MissingPod: "mc-1", PodCreateFailure: "quota"}, wantDropped: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			obs := tc.obs
			dropped := settleMissingPod(&obs)
			if dropped != tc.wantDropped {
				t.Errorf("settleMissingPod dropped %v, want %v", dropped, tc.wantDropped)
			}
			if want := tc.obs.MissingPod; !tc.wantDropped && (obs.MissingPod != want || obs.PodCreateFailure != tc.obs.PodCreateFailure) {
				t.Errorf("kept: missing %q, failure %q; want them unchanged", obs.MissingPod, obs.PodCreateFailure)
			}
			if tc.wantDropped && (obs.MissingPod != "" || obs.PodCreateFailure != "") {
				t.Errorf("dropped: missing %q, failure %q; want both empty", obs.MissingPod, obs.PodCreateFailure)
			}
		})
	}
}

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

func TestCurrentPodCreateFailure(t *testing.T) {
	since := time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC)
	msg := func(pod, why string) string {
		return fmt.Sprintf("create Pod %s in StatefulSet mc failed error: pods %q is forbidden: %s", pod, pod, why)
	}
	core := func(pod, why string, last time.Time) corev1.Event {
		return corev1.Event{Message: msg(pod, why), LastTimestamp: metav1.NewTime(last)}
	}
	series := func(pod, why string, first, last time.Time) corev1.Event {
		return corev1.Event{Message: msg(pod, why), EventTime: metav1.NewMicroTime(first), Series: &corev1.EventSeries{LastObservedTime: metav1.NewMicroTime(last)}}
	}
	tests := map[string]struct {
		events   []corev1.Event
		reported string
		want     string
	}{
		"none":                       {},
		"recorded after the absence": {events: []corev1.Event{core("mc-0", "quota", since.Add(time.Second))}, want: msg("mc-0", "quota")},
		"recorded just before the operator saw it": {
			events: []corev1.Event{core("mc-0", "quota", since.Add(-podEventSlack))}, want: msg("mc-0", "quota")},
		"an hour old: an earlier absence": {events: []corev1.Event{core("mc-0", "quota", since.Add(-time.Hour))}},
		"an hour old, already reported (a restart mid-failure)": {
			events: []corev1.Event{core("mc-0", "quota", since.Add(-time.Hour))}, reported: "StatefulSet mc: " + msg("mc-0", "quota"), want: msg("mc-0", "quota")},
		"an hour old, another failure reported": {
			events: []corev1.Event{core("mc-0", "quota", since.Add(-time.Hour))}, reported: "StatefulSet mc: " + msg("mc-0", "policy")},
		"the newest current one": {
			events: []corev1.Event{core("mc-0", "old", since.Add(-time.Hour)), core("mc-0", "policy", since.Add(3*time.Second)), core("mc-0", "quota", since.Add(time.Second))},
			want:   msg("mc-0", "policy")},
		"another pod's": {events: []corev1.Event{core("mc-1", "quota", since.Add(time.Second))}},
		"a series first seen long ago, observed since": {
			events: []corev1.Event{series("mc-0", "quota", since.Add(-time.Hour), since.Add(time.Second))}, want: msg("mc-0", "quota")},
		"a series last observed long ago": {events: []corev1.Event{series("mc-0", "quota", since.Add(-2*time.Hour), since.Add(-time.Hour))}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := currentPodCreateFailure(tc.events, "mc", "mc-0", since, tc.reported); got != tc.want {
				t.Errorf("currentPodCreateFailure = %q, want %q", got, tc.want)
			}
		})
	}
}

// A FailedCreate event from an earlier absence of a pod (an hour-old quota failure; the pod was
// created after it) is not reported when the pod goes missing again: no Degraded, no Warning. A
// failure recorded now is named within seconds.
func TestOldPodCreateEventIsNotCurrent(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-oldevent", "mc"
	mc := newMemcached(ns, name, 1)
	mc.Spec.ServerIdentity = cachev1alpha1.ServerIdentityStable
	g.Expect(k8sClient.Create(testCtx, mc)).To(Succeed())
	sts := &appsv1.StatefulSet{}
	g.Eventually(func() error { return k8sClient.Get(testCtx, key(ns, name), sts) }, timeout, interval).Should(Succeed())
	record := func(why string, last time.Time) {
		pod := name + "-0"
		g.Expect(k8sClient.Create(testCtx, &corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{GenerateName: name + ".", Namespace: ns},
			InvolvedObject: corev1.ObjectReference{Kind: "StatefulSet", APIVersion: "apps/v1", Namespace: ns, Name: name, UID: sts.UID},
			Reason:         "FailedCreate", Type: corev1.EventTypeWarning, Count: 1,
			Message:        fmt.Sprintf("create Pod %s in StatefulSet %s failed error: pods %q is forbidden: %s", pod, name, pod, why),
			FirstTimestamp: metav1.NewTime(last), LastTimestamp: metav1.NewTime(last), Source: corev1.EventSource{Component: "statefulset-controller"},
		})).To(Succeed())
	}
	record("exceeded quota", time.Now().Add(-time.Hour))
	createStatefulSetPod(g, ns, name, 0)
	setStatefulSetStatus(g, ns, name, 1, 1)
	g.Eventually(func(g Gomega) {
		g.Expect(conditionOf(getMemcached(g, ns, name), cachev1alpha1.ConditionAvailable).Status).To(Equal(metav1.ConditionTrue))
	}, timeout, interval).Should(Succeed())

	// The pod goes (a node drained); the StatefulSet controller has not recreated it yet.
	g.Expect(k8sClient.Delete(testCtx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-0"}}, client.GracePeriodSeconds(0))).To(Succeed())
	setStatefulSetStatus(g, ns, name, 0, 0)
	g.Eventually(func(g Gomega) {
		g.Expect(getMemcached(g, ns, name).Status.Nodes).To(BeEmpty())
	}, timeout, interval).Should(Succeed())
	g.Consistently(func(g Gomega) {
		g.Expect(conditionOf(getMemcached(g, ns, name), cachev1alpha1.ConditionDegraded).Status).To(Equal(metav1.ConditionFalse))
	}, 3*time.Second, interval).Should(Succeed(), "an hour-old event is not the current failure")

	record("violates PodSecurity", time.Now())
	g.Eventually(func(g Gomega) {
		d := conditionOf(getMemcached(g, ns, name), cachev1alpha1.ConditionDegraded)
		g.Expect(d.Reason).To(Equal(cachev1alpha1.ReasonReplicaFailure))
		g.Expect(d.Message).To(ContainSubstring("violates PodSecurity"))
	}, missingPodRetry+timeout, interval).Should(Succeed())
	evs := &eventsv1.EventList{}
	g.Expect(k8sClient.List(testCtx, evs, client.InNamespace(ns))).To(Succeed())
	for _, e := range evs.Items {
		if e.Regarding.Kind == "Memcached" {
			g.Expect(e.Note).NotTo(ContainSubstring("exceeded quota"), "no Warning for the old event")
		}
	}
}
