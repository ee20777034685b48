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
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/status"
)

// A spec that turns invalid leaves the running objects alone, and the status keeps describing
// them: status.serverList keeps the DNS names of the headless Service, which still exists, instead
// of falling back to pod IPs (the invalid branch once observed only the Deployment).
func TestInvalidSpecKeepsServerList(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-status", "running"
	g.Expect(k8sClient.Create(testCtx, newMemcached(ns, name, 2))).To(Succeed())
	simulateRollout(t, g, ns, name, 2)
	dnsNames := ConsistOf(MatchRegexp(`^10-244-0-\d\.running\.t-status\.svc:11211$`), MatchRegexp(`^10-244-0-\d\.running\.t-status\.svc:11211$`))
	g.Eventually(func(g Gomega) {
		mc := getMemcached(g, ns, name)
		g.Expect(conditionOf(mc, cachev1alpha1.ConditionAvailable).Status).To(Equal(metav1.ConditionTrue))
		g.Expect(mc.Status.ServerList).To(dnsNames)
	}, timeout, interval).Should(Succeed())

	// Admission accepts it; validateSpec refuses it (a memory limit not above maxMemoryMB).
	// A merge patch, not an update: the operator's status patch may land between a read and an
	// update and make it fail with a conflict.
	mc := getMemcached(g, ns, name)
	base := mc.DeepCopy()
	mc.Spec.Resources = &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")}}
	g.Expect(k8sClient.Patch(testCtx, mc, client.MergeFrom(base))).To(Succeed())
	g.Eventually(func(g Gomega) {
		mc := getMemcached(g, ns, name)
		g.Expect(mc.Status.ObservedGeneration).To(Equal(mc.Generation))
		g.Expect(conditionOf(mc, cachev1alpha1.ConditionDegraded).Reason).To(Equal(cachev1alpha1.ReasonInvalidSpec))
	}, timeout, interval).Should(Succeed())
	g.Consistently(func(g Gomega) {
		mc := getMemcached(g, ns, name)
		g.Expect(mc.Status.ServerList).To(dnsNames)
		g.Expect(mc.Status.ReadyReplicas).To(Equal(int32(2)))
	}, 2*time.Second, 100*time.Millisecond).Should(Succeed())
}

// A reconciler whose pod cache was never set up (SetupWithManager not called) reports that as the
// observation's error, with no pods, instead of panicking on the nil reader.
func TestObserveWithoutPodCache(t *testing.T) {
	mc := &cachev1alpha1.Memcached{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"}}
	obs := status.Observed{Applied: true}
	(&MemcachedReconciler{}).observe(t.Context(), mc, &obs)
	if obs.Err == nil || !strings.Contains(obs.Err.Error(), "the pod cache is not set up") || obs.Pods != nil {
		t.Errorf("observe without a pod cache: err %v, pods %v; want the pod cache named and no pods", obs.Err, obs.Pods)
	}
}
