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
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// A new instance turning Available is no event (its Created event and the condition say it); the
// recovery from a failure a Warning reported is one Normal event.
func TestAvailableIsAnEventOnlyAfterAFailure(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-avail-event", "ae"
	g.Expect(k8sClient.Create(testCtx, newMemcached(ns, name, 1))).To(Succeed())
	reasons := func(g Gomega) []string {
		evs := &eventsv1.EventList{}
		g.Expect(k8sClient.List(testCtx, evs, client.InNamespace(ns))).To(Succeed())
		var out []string
		for _, e := range evs.Items {
			if e.Regarding.Kind == "Memcached" && e.Regarding.Name == name {
				out = append(out, e.Type+" "+e.Reason)
			}
		}
		return out
	}
	available := func(want metav1.ConditionStatus) {
		g.Eventually(func(g Gomega) {
			g.Expect(conditionOf(getMemcached(g, ns, name), cachev1alpha1.ConditionAvailable).Status).To(Equal(want))
		}, timeout, interval).Should(Succeed())
	}

	pods := simulateRollout(t, g, ns, name, 1)
	available(metav1.ConditionTrue)
	g.Consistently(reasons, 2*time.Second, interval).Should(ConsistOf("Normal Created"))

	// The pod is gone and the Deployment cannot create another: Degraded, with a Warning.
	g.Expect(k8sClient.Delete(testCtx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: pods[0]}})).To(Succeed())
	g.Eventually(func() error {
		dep := &appsv1.Deployment{}
		if err := k8sClient.Get(testCtx, key(ns, name), dep); err != nil {
			return err
		}
		dep.Status = appsv1.DeploymentStatus{ObservedGeneration: dep.Generation, Replicas: 0, UnavailableReplicas: 1,
			Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue,
				Reason: "FailedCreate", Message: `pods "ae-x" is forbidden: exceeded quota`}}}
		return k8sClient.Status().Update(testCtx, dep)
	}, timeout, interval).Should(Succeed())
	available(metav1.ConditionFalse)
	g.Eventually(reasons, timeout, interval).Should(ConsistOf("Normal Created", "Warning "+cachev1alpha1.ReasonReplicaFailure))

	// Back: one Normal event says so.
	simulateRollout(t, g, ns, name, 1)
	available(metav1.ConditionTrue)
	g.Eventually(reasons, timeout, interval).Should(ConsistOf("Normal Created", "Warning "+cachev1alpha1.ReasonReplicaFailure, "Normal "+cachev1alpha1.ReasonAllReplicasReady))
	g.Consistently(reasons, 2*time.Second, interval).Should(HaveLen(3))
}
