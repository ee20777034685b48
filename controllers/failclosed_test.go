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
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// warningsAbout counts the Warning events about instance name in secretsNS whose note contains s.
func warningsAbout(g Gomega, name, s string) int {
	evs := &eventsv1.EventList{}
	g.Expect(k8sClient.List(testCtx, evs, client.InNamespace(secretsNS))).To(Succeed())
	n := 0
	for _, e := range evs.Items {
		if e.Regarding.Name == name && e.Type == corev1.EventTypeWarning && strings.Contains(e.Note, s) {
			n++
		}
	}
	return n
}

// A spec the operator refuses never leaves the servers less protected than it asks: spec.auth
// added while its Secret is missing stops the unauthenticated servers (one write, one Warning
// event naming what they lack), nothing else is written while it stays refused, and the Secret's
// arrival starts them again with authentication. A refused spec that asks for nothing the running
// servers lack leaves them serving.
func TestRefusedSpecFailsClosed(t *testing.T) {
	g := NewWithT(t)
	const name = "closed"
	g.Expect(k8sClient.Create(testCtx, newMemcached(secretsNS, name, 2))).To(Succeed())
	simulateRollout(t, g, secretsNS, name, 2)
	g.Eventually(func(g Gomega) {
		g.Expect(conditionOf(getMemcached(g, secretsNS, name), cachev1alpha1.ConditionAvailable).Status).To(Equal(metav1.ConditionTrue))
	}, timeout, interval).Should(Succeed())

	// spec.auth names a Secret that does not exist yet.
	start := time.Now()
	mc := getMemcached(g, secretsNS, name)
	mc.Spec.Auth = &cachev1alpha1.AuthSpec{SecretName: "closed-users"}
	g.Expect(k8sClient.Update(testCtx, mc)).To(Succeed())
	const lacking = "the servers are stopped (0 replicas) because they lacked authentication (spec.auth)"
	g.Eventually(func(g Gomega) {
		d := deploymentOf(g, name)
		g.Expect(d.Spec.Replicas).To(HaveValue(BeZero()), "the unauthenticated servers are stopped")
		g.Expect(d.Spec.Template.Spec.Containers[0].Args).NotTo(ContainElement("-Y"))
		c := conditionOf(getMemcached(g, secretsNS, name), cachev1alpha1.ConditionDegraded)
		g.Expect(c.Reason).To(Equal(cachev1alpha1.ReasonSecretNotFound))
		g.Expect(c.Message).To(ContainSubstring(lacking))
		a := conditionOf(getMemcached(g, secretsNS, name), cachev1alpha1.ConditionAvailable)
		g.Expect(a.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(a.Message).To(ContainSubstring(lacking))
	}, timeout, 50*time.Millisecond).Should(Succeed())
	t.Logf("servers stopped %v after spec.auth named a missing Secret", time.Since(start).Round(time.Millisecond))
	g.Eventually(func(g Gomega) { g.Expect(warningsAbout(g, name, lacking)).To(Equal(1)) }, timeout, interval).Should(Succeed())

	// While the spec stays refused: no more writes, one event.
	rv := deploymentOf(g, name).ResourceVersion
	mcRV := getMemcached(g, secretsNS, name).ResourceVersion
	g.Consistently(func(g Gomega) {
		g.Expect(deploymentOf(g, name).ResourceVersion).To(Equal(rv))
		g.Expect(getMemcached(g, secretsNS, name).ResourceVersion).To(Equal(mcRV))
		g.Expect(warningsAbout(g, name, lacking)).To(Equal(1))
	}, 2*time.Second, 200*time.Millisecond).Should(Succeed())

	// The Secret arrives: the servers start again, with authentication.
	putSecret(g, "closed-users", corev1.SecretTypeOpaque, map[string][]byte{"authfile": []byte("app:pw-closed\n")})
	g.Eventually(func(g Gomega) {
		d := deploymentOf(g, name)
		g.Expect(d.Spec.Replicas).To(HaveValue(Equal(int32(2))))
		g.Expect(d.Spec.Template.Spec.Containers[0].Args).To(ContainElement("-Y"))
	}, timeout, interval).Should(Succeed())
	simulateRollout(t, g, secretsNS, name, 2)
	g.Eventually(func(g Gomega) {
		g.Expect(conditionOf(getMemcached(g, secretsNS, name), cachev1alpha1.ConditionAvailable).Status).To(Equal(metav1.ConditionTrue))
	}, timeout, interval).Should(Succeed())

	// Refused, but asking for nothing the servers lack (a request above its limit): they serve on.
	mc = getMemcached(g, secretsNS, name)
	mc.Spec.Resources = &corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")},
	}
	g.Expect(k8sClient.Update(testCtx, mc)).To(Succeed())
	g.Eventually(func(g Gomega) {
		c := conditionOf(getMemcached(g, secretsNS, name), cachev1alpha1.ConditionDegraded)
		g.Expect(c.Reason).To(Equal(cachev1alpha1.ReasonInvalidSpec))
		g.Expect(c.Message).NotTo(ContainSubstring("stopped"))
	}, timeout, interval).Should(Succeed())
	g.Consistently(func(g Gomega) {
		g.Expect(deploymentOf(g, name).Spec.Replicas).To(HaveValue(Equal(int32(2))))
	}, time.Second, 200*time.Millisecond).Should(Succeed())
}
