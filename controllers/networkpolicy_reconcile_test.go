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
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"

	"github.com/example/memcached-operator/controllers/internal/fixture"
	"github.com/example/memcached-operator/controllers/resources"
)

// getNetworkPolicy reads the NetworkPolicy ns/name from the API server.
func getNetworkPolicy(g Gomega, ns, name string) *networkingv1.NetworkPolicy {
	np := &networkingv1.NetworkPolicy{}
	g.Expect(k8sClient.Get(testCtx, key(ns, name), np)).To(Succeed())
	return np
}

// The NetworkPolicy follows spec.networkPolicy: created owned by the Memcached when enabled, its
// peers updated with the spec, a hand edit reverted, nothing written in steady state, and deleted
// when disabled. The metrics rule is absent: these pods have no "metrics" port.
func TestNetworkPolicyFollowsSpec(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-netpol", "np1"
	mc := newMemcached(ns, name, 2)
	g.Expect(k8sClient.Create(testCtx, mc)).To(Succeed())
	g.Eventually(func(g Gomega) {
		mc := getMemcached(g, ns, name)
		g.Expect(mc.Status.ObservedGeneration).To(Equal(mc.Generation))
	}, timeout, interval).Should(Succeed())
	g.Expect(apierrors.IsNotFound(k8sClient.Get(testCtx, key(ns, name), &networkingv1.NetworkPolicy{}))).To(BeTrue(), "no NetworkPolicy by default")
	stored := getMemcached(g, ns, name)
	g.Expect(stored.Spec.NetworkPolicy.Enabled).To(BeFalse())

	// Enable, admitting role=client pods and (no metrics port) the monitoring namespace.
	patch := client.RawPatch(types.MergePatchType, []byte(`{"spec":{"networkPolicy":{"enabled":true,
		"from":[{"podSelector":{"matchLabels":{"role":"client"}}}],
		"metricsFrom":[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"monitoring"}}}]}}}`))
	g.Expect(k8sClient.Patch(testCtx, getMemcached(g, ns, name), patch)).To(Succeed())
	var np *networkingv1.NetworkPolicy
	g.Eventually(func(g Gomega) {
		np = getNetworkPolicy(g, ns, name)
	}, timeout, interval).Should(Succeed())
	g.Expect(metav1.IsControlledBy(np, getMemcached(g, ns, name))).To(BeTrue(), "owned by the Memcached")
	g.Expect(np.Labels).To(HaveKeyWithValue(resources.LabelManagedBy, resources.ManagedBy))
	g.Expect(np.Spec.PodSelector.MatchLabels).To(Equal(map[string]string{resources.LabelName: resources.AppName, resources.LabelInstance: name}))
	g.Expect(np.Spec.PolicyTypes).To(Equal([]networkingv1.PolicyType{networkingv1.PolicyTypeIngress}))
	g.Expect(np.Spec.Ingress).To(HaveLen(1), "only the memcached rule: the pods have no metrics port")
	g.Expect(np.Spec.Ingress[0].Ports).To(HaveLen(1))
	g.Expect(np.Spec.Ingress[0].Ports[0].Port.StrVal).To(Equal("memcached"))
	g.Expect(*np.Spec.Ingress[0].Ports[0].Protocol).To(Equal(corev1.ProtocolTCP))
	g.Expect(np.Spec.Ingress[0].From).To(HaveLen(1))
	g.Expect(np.Spec.Ingress[0].From[0].PodSelector.MatchLabels).To(Equal(map[string]string{"role": "client"}))

	t.Run("peers updated with the spec", func(t *testing.T) {
		g := NewWithT(t)
		patch := client.RawPatch(types.MergePatchType, []byte(`{"spec":{"networkPolicy":{
			"from":[{"podSelector":{"matchLabels":{"role":"web"}}},{"namespaceSelector":{"matchLabels":{"team":"a"}},"podSelector":{}}]}}}`))
		g.Expect(k8sClient.Patch(testCtx, getMemcached(g, ns, name), patch)).To(Succeed())
		g.Eventually(func(g Gomega) {
			from := getNetworkPolicy(g, ns, name).Spec.Ingress[0].From
			g.Expect(from).To(HaveLen(2))
			g.Expect(from[0].PodSelector.MatchLabels).To(Equal(map[string]string{"role": "web"}))
			g.Expect(from[1].NamespaceSelector.MatchLabels).To(Equal(map[string]string{"team": "a"}))
			g.Expect(from[1].PodSelector).NotTo(BeNil())
		}, timeout, interval).Should(Succeed())
	})

	t.Run("hand edit reverted", func(t *testing.T) {
		g := NewWithT(t)
		g.Eventually(func() error {
			np := &networkingv1.NetworkPolicy{}
			if err := k8sClient.Get(testCtx, key(ns, name), np); err != nil {
				return err
			}
			np.Spec.Ingress[0].From = nil // would admit every source
			np.Spec.PolicyTypes = append(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
			return k8sClient.Update(testCtx, np)
		}, timeout, interval).Should(Succeed())
		g.Eventually(func(g Gomega) {
			np := getNetworkPolicy(g, ns, name)
			g.Expect(np.Spec.Ingress[0].From).To(HaveLen(2))
			g.Expect(np.Spec.PolicyTypes).To(Equal([]networkingv1.PolicyType{networkingv1.PolicyTypeIngress}))
		}, timeout, interval).Should(Succeed())
	})

	t.Run("steady state makes no writes", func(t *testing.T) {
		g := NewWithT(t)
		before := settledWritesIn(g, ns, time.Second)
		rv := getNetworkPolicy(g, ns, name).ResourceVersion
		g.Consistently(func(g Gomega) {
			g.Expect(getNetworkPolicy(g, ns, name).ResourceVersion).To(Equal(rv))
		}, 3*time.Second, 250*time.Millisecond).Should(Succeed())
		g.Expect(writesIn(ns)).To(Equal(before), "no writes in a quiet 3s window")
	})

	t.Run("disabled: deleted", func(t *testing.T) {
		g := NewWithT(t)
		patch := client.RawPatch(types.MergePatchType, []byte(`{"spec":{"networkPolicy":{"enabled":false}}}`))
		g.Expect(k8sClient.Patch(testCtx, getMemcached(g, ns, name), patch)).To(Succeed())
		g.Eventually(func() bool {
			return apierrors.IsNotFound(k8sClient.Get(testCtx, key(ns, name), &networkingv1.NetworkPolicy{}))
		}, timeout, interval).Should(BeTrue())
		g.Eventually(func(g Gomega) {
			g.Expect(conditionOf(getMemcached(g, ns, name), cachev1alpha1.ConditionDegraded).Status).To(Equal(metav1.ConditionFalse))
		}, timeout, interval).Should(Succeed())
	})
}

// A NetworkPolicy of the instance's name that the operator did not create is never overwritten nor
// deleted, as for the Deployment, Service and PodDisruptionBudget: Degraded/ResourceConflict naming
// it while the policy is enabled; disabling it leaves the foreign policy alone and clears the
// condition; once the foreign policy is gone the operator creates its own.
func TestForeignNetworkPolicyIsAConflict(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-netpol-foreign", "np2"
	foreign := &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "other"}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
		},
	}
	g.Expect(k8sClient.Create(testCtx, foreign)).To(Succeed())
	mc := newMemcached(ns, name, 1)
	mc.Spec.NetworkPolicy = cachev1alpha1.NetworkPolicySpec{Enabled: true, From: []networkingv1.NetworkPolicyPeer{fixture.ClientPeer}}
	g.Expect(k8sClient.Create(testCtx, mc)).To(Succeed())

	g.Eventually(func(g Gomega) {
		d := conditionOf(getMemcached(g, ns, name), cachev1alpha1.ConditionDegraded)
		g.Expect(d.Status).To(Equal(metav1.ConditionTrue))
		g.Expect(d.Reason).To(Equal(cachev1alpha1.ReasonResourceConflict))
		g.Expect(d.Message).To(ContainSubstring("NetworkPolicy " + name))
	}, timeout, interval).Should(Succeed())
	g.Eventually(func(g Gomega) {
		evs := &eventsv1.EventList{}
		g.Expect(k8sClient.List(testCtx, evs, client.InNamespace(ns))).To(Succeed())
		g.Expect(slices.ContainsFunc(evs.Items, func(e eventsv1.Event) bool {
			return e.Type == corev1.EventTypeWarning && e.Reason == cachev1alpha1.ReasonResourceConflict && strings.Contains(e.Note, "NetworkPolicy "+name)
		})).To(BeTrue(), "a Warning ResourceConflict event naming the NetworkPolicy")
	}, timeout, interval).Should(Succeed())
	got := getNetworkPolicy(g, ns, name)
	g.Expect(got.ResourceVersion).To(Equal(foreign.ResourceVersion), "the foreign NetworkPolicy must not be written")
	g.Expect(got.OwnerReferences).To(BeEmpty())

	// Disabled: the foreign policy is not the operator's to delete; the conflict clears.
	patch := client.RawPatch(types.MergePatchType, []byte(`{"spec":{"networkPolicy":{"enabled":false}}}`))
	g.Expect(k8sClient.Patch(testCtx, getMemcached(g, ns, name), patch)).To(Succeed())
	g.Eventually(func(g Gomega) {
		mc := getMemcached(g, ns, name)
		g.Expect(mc.Status.ObservedGeneration).To(Equal(mc.Generation))
		g.Expect(conditionOf(mc, cachev1alpha1.ConditionDegraded).Status).To(Equal(metav1.ConditionFalse))
	}, 30*time.Second, interval).Should(Succeed())
	g.Consistently(func(g Gomega) {
		g.Expect(getNetworkPolicy(g, ns, name).ResourceVersion).To(Equal(foreign.ResourceVersion), "the foreign NetworkPolicy is left alone")
	}, 2*time.Second, 250*time.Millisecond).Should(Succeed())

	// Enabled again, then the foreign policy goes: the operator creates its own.
	patch = client.RawPatch(types.MergePatchType, []byte(`{"spec":{"networkPolicy":{"enabled":true}}}`))
	g.Expect(k8sClient.Patch(testCtx, getMemcached(g, ns, name), patch)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(conditionOf(getMemcached(g, ns, name), cachev1alpha1.ConditionDegraded).Reason).To(Equal(cachev1alpha1.ReasonResourceConflict))
	}, timeout, interval).Should(Succeed())
	g.Expect(k8sClient.Delete(testCtx, foreign)).To(Succeed())
	g.Eventually(func(g Gomega) {
		np := getNetworkPolicy(g, ns, name)
		g.Expect(metav1.IsControlledBy(np, getMemcached(g, ns, name))).To(BeTrue())
		g.Expect(np.Spec.Ingress).To(HaveLen(1))
	}, 30*time.Second, interval).Should(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(conditionOf(getMemcached(g, ns, name), cachev1alpha1.ConditionDegraded).Status).To(Equal(metav1.ConditionFalse))
	}, timeout, interval).Should(Succeed())
}
