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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/resources"
)

// setStatefulSetStatus writes what kube-controller-manager's StatefulSet controller would: n
// replicas, all updated, available of them available.
func setStatefulSetStatus(g Gomega, ns, name string, n, available int32) {
	g.Eventually(func() error {
		sts := &appsv1.StatefulSet{}
		if err := k8sClient.Get(testCtx, key(ns, name), sts); err != nil {
			return err
		}
		sts.Status = appsv1.StatefulSetStatus{
			ObservedGeneration: sts.Generation, Replicas: n, UpdatedReplicas: n, ReadyReplicas: available, AvailableReplicas: available,
			CurrentRevision: "r1", UpdateRevision: "r1",
		}
		return k8sClient.Status().Update(testCtx, sts)
	}, timeout, interval).Should(Succeed())
}

// createStatefulSetPod creates the ready pod of ordinal i of the StatefulSet, as its controller
// and the kubelet would.
func createStatefulSetPod(g Gomega, ns, name string, i int) {
	sts := &appsv1.StatefulSet{}
	g.Expect(k8sClient.Get(testCtx, key(ns, name), sts)).To(Succeed())
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", name, i), Namespace: ns, Labels: sts.Spec.Template.Labels},
		Spec:       *sts.Spec.Template.Spec.DeepCopy(),
	}
	g.Expect(k8sClient.Create(testCtx, pod)).To(Succeed())
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: fmt.Sprintf("10.244.1.%d", 10+i),
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()}}}
	g.Expect(k8sClient.Status().Update(testCtx, pod)).To(Succeed())
}

// A Memcached with spec.serverIdentity Stable runs a StatefulSet (no Deployment) under its headless
// Service, lists its servers under their stable names, and once converged makes no write.
func TestStableIdentityRunsAStatefulSet(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-stable", "st"
	mc := newMemcached(ns, name, 3)
	mc.Spec.ServerIdentity = cachev1alpha1.ServerIdentityStable
	g.Expect(k8sClient.Create(testCtx, mc)).To(Succeed())

	sts := &appsv1.StatefulSet{}
	g.Eventually(func() error { return k8sClient.Get(testCtx, key(ns, name), sts) }, timeout, interval).Should(Succeed())
	g.Expect(sts.Spec.Replicas).To(HaveValue(Equal(int32(3))))
	g.Expect(sts.Spec.ServiceName).To(Equal(name))
	g.Expect(sts.Spec.PodManagementPolicy).To(Equal(appsv1.ParallelPodManagement))
	g.Expect(metav1.IsControlledBy(sts, getMemcached(g, ns, name))).To(BeTrue())
	err := k8sClient.Get(testCtx, key(ns, name), &appsv1.Deployment{})
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "a Stable instance has no Deployment: %v", err)

	for i := range 3 {
		createStatefulSetPod(g, ns, name, i)
	}
	setStatefulSetStatus(g, ns, name, 3, 3)
	g.Eventually(func(g Gomega) {
		mc := getMemcached(g, ns, name)
		g.Expect(conditionOf(mc, cachev1alpha1.ConditionAvailable).Status).To(Equal(metav1.ConditionTrue))
		g.Expect(mc.Status.ServerList).To(Equal([]string{"st-0.st.t-stable.svc:11211", "st-1.st.t-stable.svc:11211", "st-2.st.t-stable.svc:11211"}))
	}, timeout, interval).Should(Succeed())

	// Steady state: the StatefulSet the API server stored (with its defaults) is what the operator
	// wants, so a reconcile writes nothing.
	before := settledWritesIn(g, ns, 2*time.Second)
	g.Expect(k8sClient.Get(testCtx, key(ns, name), sts)).To(Succeed())
	rv := sts.ResourceVersion
	// A change of the Memcached's labels is reconciled (AnnotationChanged does not pass it, but the
	// status-echo path does, after coalesceDelay): poke it twice, each time until it was reconciled.
	for range 2 {
		reconciles := reconcileCount(g)
		mc := getMemcached(g, ns, name)
		mc.Labels = map[string]string{"poke": fmt.Sprint(time.Now().UnixNano())}
		g.Expect(k8sClient.Update(testCtx, mc)).To(Succeed())
		waitIdle(g, reconciles, 2*coalesceDelay)
	}
	g.Expect(settledWritesIn(g, ns, 2*time.Second)).To(Equal(before), "writes in steady state")
	g.Expect(k8sClient.Get(testCtx, key(ns, name), sts)).To(Succeed())
	g.Expect(sts.ResourceVersion).To(Equal(rv), "StatefulSet written in steady state")

	// A replaced pod keeps its place in serverList: st-1 gone, the list still names it.
	g.Expect(k8sClient.Delete(testCtx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name + "-1", Namespace: ns}}, client.GracePeriodSeconds(0))).To(Succeed())
	setStatefulSetStatus(g, ns, name, 2, 2)
	g.Eventually(func(g Gomega) {
		mc := getMemcached(g, ns, name)
		g.Expect(mc.Status.ReadyReplicas).To(Equal(int32(2)))
		g.Expect(mc.Status.ServerList).To(Equal([]string{"st-0.st.t-stable.svc:11211", "st-1.st.t-stable.svc:11211", "st-2.st.t-stable.svc:11211"}))
	}, timeout, interval).Should(Succeed())

	// spec.service.enabled false is refused for a Stable instance, naming the field; the
	// StatefulSet stays as it is.
	mc = getMemcached(g, ns, name)
	mc.Spec.Service.Enabled = ptr.To(false)
	g.Expect(k8sClient.Update(testCtx, mc)).To(Succeed())
	g.Eventually(func(g Gomega) {
		c := conditionOf(getMemcached(g, ns, name), cachev1alpha1.ConditionDegraded)
		g.Expect(c.Reason).To(Equal(cachev1alpha1.ReasonInvalidSpec))
		g.Expect(c.Message).To(ContainSubstring("spec.serverIdentity"))
	}, timeout, interval).Should(Succeed())
	g.Expect(k8sClient.Get(testCtx, key(ns, name), &corev1.Service{})).To(Succeed())
}

// Setting spec.serverIdentity Stable on a running instance moves its servers from the Deployment to
// a StatefulSet one at a time: the StatefulSet gets one server more than it has available, the
// Deployment gives up one server for each that becomes available, so the instance never has fewer
// than spec.size servers; the Deployment is deleted when the StatefulSet has them all. An operator
// upgrade alone moves nothing: an instance without the field keeps its Deployment.
func TestChangingServerIdentityMovesOneServerAtATime(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-stable-move", "mv"
	g.Expect(k8sClient.Create(testCtx, newMemcached(ns, name, 3))).To(Succeed())
	simulateRollout(t, g, ns, name, 3)
	g.Eventually(func(g Gomega) {
		g.Expect(conditionOf(getMemcached(g, ns, name), cachev1alpha1.ConditionAvailable).Status).To(Equal(metav1.ConditionTrue))
	}, timeout, interval).Should(Succeed())
	err := k8sClient.Get(testCtx, key(ns, name), &appsv1.StatefulSet{})
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "an instance without spec.serverIdentity has no StatefulSet: %v", err)

	mc := getMemcached(g, ns, name)
	mc.Spec.ServerIdentity = cachev1alpha1.ServerIdentityStable
	g.Expect(k8sClient.Update(testCtx, mc)).To(Succeed())

	replicas := func(g Gomega) (sts, dep int32) {
		s := &appsv1.StatefulSet{}
		g.Expect(k8sClient.Get(testCtx, key(ns, name), s)).To(Succeed())
		d := &appsv1.Deployment{}
		if err := k8sClient.Get(testCtx, key(ns, name), d); apierrors.IsNotFound(err) {
			return *s.Spec.Replicas, -1
		} else {
			g.Expect(err).NotTo(HaveOccurred())
		}
		return *s.Spec.Replicas, *d.Spec.Replicas
	}
	expectReplicas := func(sts, dep int32) {
		t.Helper()
		g.Eventually(func(g Gomega) {
			s, d := replicas(g)
			g.Expect([]int32{s, d}).To(Equal([]int32{sts, dep}), "StatefulSet and Deployment replicas (-1: deleted)")
		}, timeout, interval).Should(Succeed())
	}
	expectReplicas(1, 3)
	g.Eventually(func(g Gomega) {
		p := conditionOf(getMemcached(g, ns, name), cachev1alpha1.ConditionProgressing)
		g.Expect(p.Message).To(ContainSubstring("moving the servers to a StatefulSet"))
	}, timeout, interval).Should(Succeed())
	// Not yet available: nothing moves further, whatever the reconciles.
	g.Consistently(func(g Gomega) {
		s, d := replicas(g)
		g.Expect([]int32{s, d}).To(Equal([]int32{1, 3}))
	}, time.Second, 200*time.Millisecond).Should(Succeed())

	for i := range int32(3) {
		createStatefulSetPod(g, ns, name, int(i))
		setStatefulSetStatus(g, ns, name, i+1, i+1)
		if i < 2 {
			expectReplicas(i+2, 2-i)
			setDeploymentStatus(g, ns, name, 2-i)
		}
	}
	expectReplicas(3, -1)
	// The Deployment's deletion is one event that says why.
	g.Eventually(func(g Gomega) {
		evs := &eventsv1.EventList{}
		g.Expect(k8sClient.List(testCtx, evs, client.InNamespace(ns))).To(Succeed())
		var deleted []string
		for _, e := range evs.Items {
			if e.Regarding.Name == name && e.Regarding.Kind == "Memcached" && e.Reason == "Deleted" {
				deleted = append(deleted, e.Note)
			}
		}
		g.Expect(deleted).To(ConsistOf("Deployment " + name + " deleted: replaced by the StatefulSet of spec.serverIdentity"))
	}, timeout, interval).Should(Succeed())
	g.Eventually(func(g Gomega) {
		mc := getMemcached(g, ns, name)
		g.Expect(mc.Status.ServerList).To(ContainElements("mv-0.mv.t-stable-move.svc:11211", "mv-1.mv.t-stable-move.svc:11211", "mv-2.mv.t-stable-move.svc:11211"))
	}, timeout, interval).Should(Succeed())
	g.Expect(resources.StatefulSetName(mc)).To(Equal(name))
}
