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

	warnings := func(g Gomega) []string {
		evs := &eventsv1.EventList{}
		g.Expect(k8sClient.List(testCtx, evs, client.InNamespace(ns))).To(Succeed())
		var notes []string
		for _, e := range evs.Items {
			if e.Regarding.Name == name && e.Reason == cachev1alpha1.ReasonContainerFailing {
				notes = append(notes, e.Note)
			}
		}
		return notes
	}
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
