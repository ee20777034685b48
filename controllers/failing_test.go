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
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"

	"github.com/example/memcached-operator/controllers/resources"
)

// A memcached container that crash-loops (as the kubelet reports it: waiting CrashLoopBackOff,
// last terminated with memcached's exit code 71 and its message) turns the instance Degraded with
// reason ContainerFailing within seconds, naming the pod, the exit code, memcached's message and
// spec.memcached.maxConnections, with one Warning event; the restarts that follow (a new restart
// count and back-off delay each time) write neither the status nor another event; once the
// container runs and is ready again, Degraded turns False.
func TestCrashLoopIsNamed(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-crashloop", "mc"
	g.Expect(k8sClient.Create(testCtx, newMemcached(ns, name, 2))).To(Succeed())
	pods := simulateRollout(t, g, ns, name, 2)

	crash := func(restarts int32) {
		g.Eventually(func() error {
			p := &corev1.Pod{}
			if err := k8sClient.Get(testCtx, key(ns, pods[1]), p); err != nil {
				return err
			}
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: metav1.Now()}}
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{
				Name: resources.ContainerName, Image: testImage, RestartCount: restarts,
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff",
					Message: fmt.Sprintf("back-off %ds restarting failed container=memcached pod=%s", 10*restarts, pods[1])}},
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
					ExitCode: 71, Reason: "Error", Message: "failed to set rlimit for open files. Try starting as root or requesting smaller maxconns value.",
					StartedAt: metav1.Now(), FinishedAt: metav1.Now(),
				}},
			}}
			return k8sClient.Status().Update(testCtx, p)
		}, timeout, interval).Should(Succeed())
	}
	start := time.Now()
	crash(1)
	var degraded metav1.Condition
	g.Eventually(func(g Gomega) {
		degraded = conditionOf(getMemcached(g, ns, name), cachev1alpha1.ConditionDegraded)
		g.Expect(degraded.Reason).To(Equal(cachev1alpha1.ReasonContainerFailing))
	}, timeout, interval).Should(Succeed())
	t.Logf("Degraded/ContainerFailing %s after the pod's status said so: %s", time.Since(start).Round(time.Millisecond), degraded.Message)
	g.Expect(degraded.Status).To(Equal(metav1.ConditionTrue))
	g.Expect(degraded.Message).To(And(
		ContainSubstring("pod "+pods[1]+": container memcached CrashLoopBackOff; last exit code 71 (Error): failed to set rlimit for open files."),
		ContainSubstring("spec.memcached.maxConnections (1024)"),
		Not(ContainSubstring("back-off")),
	))

	warnings := func(g Gomega) []string { return eventNotes(g, ns, name, cachev1alpha1.ReasonContainerFailing) }
	g.Eventually(warnings, timeout, interval).Should(ConsistOf(degraded.Message), "one Warning event")

	// More restarts of the same failure: no status write, no second event.
	before := settledWritesIn(g, ns, time.Second)
	for r := int32(2); r <= 4; r++ {
		crash(r)
	}
	g.Consistently(func() map[string]int { return writesIn(ns) }, 2*time.Second, 250*time.Millisecond).Should(Equal(before),
		"a retry of the same failure writes nothing")
	g.Expect(warnings(g)).To(HaveLen(1))

	// Running and ready again: not Degraded.
	g.Eventually(func() error {
		p := &corev1.Pod{}
		if err := k8sClient.Get(testCtx, key(ns, pods[1]), p); err != nil {
			return err
		}
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()}}
		p.Status.ContainerStatuses[0].Ready = true
		p.Status.ContainerStatuses[0].State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Now()}}
		return k8sClient.Status().Update(testCtx, p)
	}, timeout, interval).Should(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(conditionOf(getMemcached(g, ns, name), cachev1alpha1.ConditionDegraded).Status).To(Equal(metav1.ConditionFalse))
	}, timeout, interval).Should(Succeed())
}

// A StatefulSet has no ReplicaFailure condition: when its controller cannot create a pod (here
// the restricted Pod Security admission refuses it), the reason is only in its FailedCreate events.
// The operator names it in Degraded/ReplicaFailure, for the lowest missing ordinal, once; a retry
// of the same failure writes nothing; the event is found even when it arrives after the
// StatefulSet's status (no watch event: the operator looks again while a pod is missing); once
// the pods exist the instance is not Degraded.
func TestStatefulSetPodCreateFailureIsNamed(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-stsfail", "mc"
	mc := newMemcached(ns, name, 2)
	mc.Spec.ServerIdentity = cachev1alpha1.ServerIdentityStable
	g.Expect(k8sClient.Create(testCtx, mc)).To(Succeed())
	sts := &appsv1.StatefulSet{}
	g.Eventually(func() error { return k8sClient.Get(testCtx, key(ns, name), sts) }, timeout, interval).Should(Succeed())

	refused := func(pod string) string {
		return fmt.Sprintf(`Create Pod %s in StatefulSet %s failed error: pods %q is forbidden: violates PodSecurity "restricted:latest": runAsNonRoot != true`, pod, name, pod)
	}
	// What kube-controller-manager's StatefulSet controller records (core/v1, aggregated by count).
	record := func(pod string, count int32) {
		ev := &corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{Name: name + "." + pod, Namespace: ns},
			InvolvedObject: corev1.ObjectReference{Kind: "StatefulSet", APIVersion: "apps/v1", Namespace: ns, Name: name, UID: sts.UID},
			Reason:         "FailedCreate", Type: corev1.EventTypeWarning, Message: refused(pod), Count: count,
			FirstTimestamp: metav1.Now(), LastTimestamp: metav1.Now(), Source: corev1.EventSource{Component: "statefulset-controller"},
		}
		existing := &corev1.Event{}
		if err := k8sClient.Get(testCtx, key(ns, ev.Name), existing); err == nil {
			existing.Count, existing.LastTimestamp = count, metav1.Now()
			g.Expect(k8sClient.Update(testCtx, existing)).To(Succeed())
			return
		}
		g.Expect(k8sClient.Create(testCtx, ev)).To(Succeed())
	}

	// The StatefulSet controller acted on the spec and created no pod; its events come later,
	// once the operator has reconciled that status.
	reconciles := reconcileCount(g)
	setStatefulSetStatus(g, ns, name, 0, 0)
	waitIdle(g, reconciles, 2*coalesceDelay)
	start := time.Now()
	record(name+"-1", 1)
	record(name+"-0", 1)
	var degraded metav1.Condition
	g.Eventually(func(g Gomega) {
		degraded = conditionOf(getMemcached(g, ns, name), cachev1alpha1.ConditionDegraded)
		g.Expect(degraded.Reason).To(Equal(cachev1alpha1.ReasonReplicaFailure))
	}, missingPodRetry+timeout, interval).Should(Succeed())
	t.Logf("Degraded/ReplicaFailure %s after the events: %s", time.Since(start).Round(time.Millisecond), degraded.Message)
	g.Expect(degraded.Status).To(Equal(metav1.ConditionTrue))
	g.Expect(degraded.Message).To(Equal("StatefulSet " + name + ": " + refused(name+"-0")))

	// The controller retries both pods: same failure, nothing written.
	before := settledWritesIn(g, ns, time.Second)
	for c := int32(2); c <= 4; c++ {
		record(name+"-1", c)
		record(name+"-0", c)
	}
	g.Consistently(func() map[string]int { return writesIn(ns) }, 2*time.Second, 250*time.Millisecond).Should(Equal(before),
		"a retry of the same failure writes nothing")

	// The pods exist (the cause was fixed): not Degraded.
	createStatefulSetPod(g, ns, name, 0)
	createStatefulSetPod(g, ns, name, 1)
	setStatefulSetStatus(g, ns, name, 2, 2)
	g.Eventually(func(g Gomega) {
		g.Expect(conditionOf(getMemcached(g, ns, name), cachev1alpha1.ConditionDegraded).Status).To(Equal(metav1.ConditionFalse))
	}, timeout, interval).Should(Succeed())
}

// eventNotes returns the notes of the events in ns about the object named name with reason.
func eventNotes(g Gomega, ns, name, reason string) []string {
	evs := &eventsv1.EventList{}
	g.Expect(k8sClient.List(testCtx, evs, client.InNamespace(ns))).To(Succeed())
	var notes []string
	for _, e := range evs.Items {
		if e.Regarding.Name == name && e.Reason == reason {
			notes = append(notes, e.Note)
		}
	}
	return notes
}
