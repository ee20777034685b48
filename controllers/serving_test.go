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
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/status"
)

// What keeps a server from serving is named in Degraded, as the kubelet and the scheduler report
// it: an init container injected at admission that crash-loops, then a pod no node can take, then
// a pod that outlives its grace period (a finalizer holds it; nothing else happens, so the
// operator must look again by itself when it becomes stuck).
func TestWhatKeepsAServerFromServingIsNamed(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-serving", "mc"
	g.Expect(k8sClient.Create(testCtx, newMemcached(ns, name, 2))).To(Succeed())
	pods := simulateRollout(t, g, ns, name, 2)
	g.Eventually(func(g Gomega) {
		g.Expect(conditionOf(getMemcached(g, ns, name), cachev1alpha1.ConditionDegraded).Reason).To(Equal(cachev1alpha1.ReasonAsExpected))
	}, timeout, interval).Should(Succeed())
	setStatus := func(pod string, f func(*corev1.PodStatus)) {
		g.Eventually(func() error {
			p := &corev1.Pod{}
			if err := k8sClient.Get(testCtx, key(ns, pod), p); err != nil {
				return err
			}
			f(&p.Status)
			return k8sClient.Status().Update(testCtx, p)
		}, timeout, interval).Should(Succeed())
	}
	degraded := func(reason, msg string) {
		t.Helper()
		g.Eventually(func(g Gomega) {
			d := conditionOf(getMemcached(g, ns, name), cachev1alpha1.ConditionDegraded)
			g.Expect(d.Reason).To(Equal(reason))
			g.Expect(d.Message).To(ContainSubstring(msg))
		}, timeout, interval).Should(Succeed())
	}

	setStatus(pods[1], func(s *corev1.PodStatus) {
		s.Phase = corev1.PodPending
		s.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: metav1.Now()}}
		s.InitContainerStatuses = []corev1.ContainerStatus{{Name: "istio-init", Image: "istio/proxyv2", RestartCount: 2,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 20s"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", Message: "iptables: permission denied"}}}}
	})
	degraded(cachev1alpha1.ReasonContainerFailing, "pod "+pods[1]+": init container istio-init CrashLoopBackOff; last exit code 1 (Error): iptables: permission denied")

	setStatus(pods[1], func(s *corev1.PodStatus) {
		s.InitContainerStatuses = nil
		s.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
			Message: "0/3 nodes are available: 3 Insufficient memory.", LastTransitionTime: metav1.Now()}}
	})
	degraded(cachev1alpha1.ReasonPodUnschedulable, "pod "+pods[1]+" cannot be scheduled: 0/3 nodes are available: 3 Insufficient memory.")

	// The pod is deleted; a finalizer holds it past its grace period (0 s: it was never scheduled).
	g.Eventually(func() error {
		p := &corev1.Pod{}
		if err := k8sClient.Get(testCtx, key(ns, pods[0]), p); err != nil {
			return err
		}
		p.Finalizers = append(p.Finalizers, "example.com/hold")
		return k8sClient.Update(testCtx, p)
	}, timeout, interval).Should(Succeed())
	t.Cleanup(func() {
		p := &corev1.Pod{}
		if k8sClient.Get(testCtx, key(ns, pods[0]), p) == nil {
			p.Finalizers = nil
			_ = k8sClient.Update(testCtx, p)
		}
	})
	setStatus(pods[1], func(s *corev1.PodStatus) {
		s.Phase = corev1.PodRunning
		s.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()}}
	})
	g.Expect(k8sClient.Delete(testCtx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: pods[0]}}, client.GracePeriodSeconds(0))).To(Succeed())
	deleted := time.Now()
	degraded(cachev1alpha1.ReasonAsExpected, "")
	g.Eventually(func(g Gomega) {
		d := conditionOf(getMemcached(g, ns, name), cachev1alpha1.ConditionDegraded)
		g.Expect(d.Reason).To(Equal(cachev1alpha1.ReasonPodStuckTerminating))
		g.Expect(d.Message).To(HavePrefix("pod " + pods[0] + " has not terminated"))
	}, status.TerminatingSlack+timeout, interval).Should(Succeed())
	t.Logf("PodStuckTerminating %s after the deletion (slack %s)", time.Since(deleted).Round(time.Millisecond), status.TerminatingSlack)
}
