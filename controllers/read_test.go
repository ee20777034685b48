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
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
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
// read phase's error, with no pods, instead of panicking on the nil reader.
func TestReadWithoutPodCache(t *testing.T) {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(cachev1alpha1.AddToScheme(scheme))
	c := fake.NewClientBuilder().WithScheme(scheme).Build()
	mc := &cachev1alpha1.Memcached{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"}}
	s := &scope{mc: mc, key: client.ObjectKeyFromObject(mc)}
	if err := (&MemcachedReconciler{Client: c, APIReader: c, Scheme: scheme}).readPhase(t.Context(), s); err != nil {
		t.Fatalf("readPhase: %v", err)
	}
	if s.obs.Err == nil || !strings.Contains(s.obs.Err.Error(), "the pod cache is not set up") || s.obs.Pods != nil {
		t.Errorf("read without a pod cache: err %v, pods %v; want the pod cache named and no pods", s.obs.Err, s.obs.Pods)
	}
}
