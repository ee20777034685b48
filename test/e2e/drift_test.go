//go:build e2e

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

package e2e

import (
	"regexp"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/test/utils"
)

// TestDriftIsCorrected changes the operator's Deployment by hand the way users do (kubectl scale,
// kubectl set image, kubectl label, kubectl delete) and checks that replicas and image are
// restored, a foreign label is left alone without any write to the spec, a deleted Deployment is
// recreated, and the operator never tries to change an immutable field.
//
// Sources: operator-framework/java-operator-plugins#44 (replicas scaled by hand never
// restored; ManageIQ/manageiq-pods#542; operator-framework/operator-sdk#432: `spec.selector ...
// field is immutable` on update).
func TestDriftIsCorrected(t *testing.T) {
	expectHealthyOperator(t)
	logStart := operatorLogSize()
	g := NewWithT(t)
	ctx := utils.TestContext(t)
	ns := newNamespace(t, "drift")
	key := createMemcached(t, ns, "drift", 3)
	waitConverged(t, key, 3, 60*time.Second)
	dep, err := getDeployment(ctx, key)
	g.Expect(err).NotTo(HaveOccurred())
	selector := dep.Spec.Selector.DeepCopy()
	uid := dep.UID
	deploy := "deploy/" + key.Name

	// 1. Replicas scaled by hand are restored.
	start := time.Now()
	kubectl(t, "scale", deploy, "-n", ns, "--replicas=1")
	g.Eventually(func() (int32, error) {
		d, err := getDeployment(ctx, key)
		if err != nil || d.Spec.Replicas == nil {
			return -1, err
		}
		return *d.Spec.Replicas, nil
	}, 30*time.Second, poll).Should(Equal(int32(3)))
	restored := time.Since(start)
	waitConverged(t, key, 3, 30*time.Second)
	t.Logf("replicas scaled to 1 by hand: restored to 3 in %s, converged in %s", utils.Ms(restored), utils.Ms(time.Since(start)))

	// 2. An image edited by hand is restored.
	start = time.Now()
	kubectl(t, "set", "image", deploy, "-n", ns, "memcached=registry.example.com/not-memcached:1")
	g.Eventually(func() (string, error) {
		d, err := getDeployment(ctx, key)
		if err != nil {
			return "", err
		}
		return d.Spec.Template.Spec.Containers[0].Image, nil
	}, 30*time.Second, poll).Should(Equal(suite.memcachedImage))
	restored = time.Since(start)
	waitConverged(t, key, 3, 60*time.Second)
	t.Logf("image edited by hand: restored in %s, converged in %s", utils.Ms(restored), utils.Ms(time.Since(start)))

	// 3. A label added by someone else is not drift: no write to the spec, the label stays.
	dep, err = getDeployment(ctx, key)
	g.Expect(err).NotTo(HaveOccurred())
	generation := dep.Generation
	kubectl(t, "label", deploy, "-n", ns, "extra=1")
	g.Consistently(func(g Gomega) {
		d, err := getDeployment(ctx, key)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(d.Generation).To(Equal(generation), "the Deployment spec must not be written")
		g.Expect(d.Labels).To(HaveKeyWithValue("extra", "1"), "a foreign label must be kept")
		g.Expect(d.Spec.Selector).To(Equal(selector))
		_, err = converged(ctx, key, 3)
		g.Expect(err).NotTo(HaveOccurred())
	}, 5*time.Second, 250*time.Millisecond).Should(Succeed())

	// 4. A deleted Deployment is recreated under the same name, and the instance recovers.
	start = time.Now()
	kubectl(t, "delete", deploy, "-n", ns)
	deleted := time.Since(start)
	g.Eventually(func() (types.UID, error) {
		d, err := getDeployment(ctx, key)
		if apierrors.IsNotFound(err) {
			return "", nil
		}
		return d.UID, err
	}, 30*time.Second, poll).ShouldNot(Or(BeEmpty(), Equal(uid)), "a new Deployment must be created")
	recreated := time.Since(start)
	waitConverged(t, key, 3, 60*time.Second)
	t.Logf("Deployment deleted (kubectl delete returned after %s): recreated after %s, Available with 3 nodes after %s",
		utils.Ms(deleted), utils.Ms(recreated), utils.Ms(time.Since(start)))
	dep, err = getDeployment(ctx, key)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(dep.Spec.Selector).To(Equal(selector), "the recreated Deployment has the same selector")

	bad := operatorLogLines(logStart, regexp.MustCompile(`field is immutable|panic`), nil)
	g.Expect(bad).To(BeEmpty(), "operator log lines with `field is immutable` or `panic`")
}

// TestForeignDeploymentIsNotHijacked pre-creates a Deployment with the name the operator needs,
// then a Memcached of that name: the foreign Deployment stays untouched, the Memcached reports
// Degraded=True with reason ResourceConflict naming it (and a Warning event), and once the foreign
// Deployment is deleted the operator creates its own and the instance becomes Available.
//
// Sources: kubernetes-sigs/mcp-lifecycle-operator#85 (and its fix #91: reject foreign-owned
// and unowned resources instead of overwriting them; the operator-sdk sample looks the Deployment up
// by name only).
func TestForeignDeploymentIsNotHijacked(t *testing.T) {
	expectHealthyOperator(t)
	g := NewWithT(t)
	ctx := utils.TestContext(t)
	ns := newNamespace(t, "foreign")
	const foreignImage = "registry.example.com/nginx:1"
	key := client.ObjectKey{Namespace: ns, Name: "web"}

	kubectl(t, "create", "deployment", "web", "-n", ns, "--image="+foreignImage, "--replicas=1")
	foreign, err := getDeployment(ctx, key)
	g.Expect(err).NotTo(HaveOccurred())
	createMemcached(t, ns, "web", 3)

	start := time.Now()
	g.Eventually(func(g Gomega) {
		mc, err := utils.GetMemcached(ctx, suite.k8s, key)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(utils.CheckCondition(mc, cachev1alpha1.ConditionDegraded, metav1.ConditionTrue)).To(Succeed())
		c := meta.FindStatusCondition(mc.Status.Conditions, cachev1alpha1.ConditionDegraded)
		g.Expect(c.Reason).To(Equal("ResourceConflict"))
		g.Expect(c.Message).To(ContainSubstring("web"))
		g.Expect(utils.CheckCondition(mc, cachev1alpha1.ConditionAvailable, metav1.ConditionFalse)).To(Succeed())
	}, 30*time.Second, poll).Should(Succeed())
	t.Logf("conflict reported (Degraded=True, ResourceConflict) after %s", utils.Ms(time.Since(start)))

	g.Eventually(func() ([]eventsv1.Event, error) {
		events := &eventsv1.EventList{}
		if err := suite.k8s.List(ctx, events, client.InNamespace(ns)); err != nil {
			return nil, err
		}
		var hits []eventsv1.Event
		for _, e := range events.Items {
			if e.Regarding.Kind == "Memcached" && e.Regarding.Name == "web" && e.Type == "Warning" && e.Reason == "ResourceConflict" {
				hits = append(hits, e)
			}
		}
		return hits, nil
	}, 10*time.Second, poll).ShouldNot(BeEmpty(), "a Warning event with reason ResourceConflict about Memcached web")

	g.Consistently(func(g Gomega) {
		d, err := getDeployment(ctx, key)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(d.UID).To(Equal(foreign.UID))
		g.Expect(d.Generation).To(Equal(foreign.Generation), "the foreign Deployment's spec must not be written")
		g.Expect(d.Spec.Replicas).To(HaveValue(Equal(int32(1))))
		g.Expect(d.Spec.Template.Spec.Containers).To(HaveLen(1))
		g.Expect(d.Spec.Template.Spec.Containers[0].Image).To(Equal(foreignImage))
		g.Expect(d.OwnerReferences).To(BeEmpty())
		g.Expect(d.Labels).To(Equal(foreign.Labels))
	}, 15*time.Second, 500*time.Millisecond).Should(Succeed())
	t.Logf("foreign Deployment untouched for 15s")

	start = time.Now()
	kubectl(t, "delete", "deployment", "web", "-n", ns)
	var own *appsv1.Deployment
	g.Eventually(func(g Gomega) {
		mc, err := utils.GetMemcached(ctx, suite.k8s, key)
		g.Expect(err).NotTo(HaveOccurred())
		d, err := getDeployment(ctx, key)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(d.UID).NotTo(Equal(foreign.UID))
		ref := metav1.GetControllerOf(d)
		g.Expect(ref).NotTo(BeNil())
		g.Expect(ref.Kind).To(Equal("Memcached"))
		g.Expect(ref.UID).To(Equal(mc.UID))
		g.Expect(d.Spec.Replicas).To(HaveValue(Equal(int32(3))))
		own = d
	}, 30*time.Second, poll).Should(Succeed())
	t.Logf("foreign Deployment deleted: own Deployment %s created after %s", own.Name, utils.Ms(time.Since(start)))
	waitConverged(t, key, 3, 60*time.Second)
	t.Logf("instance Available after %s", utils.Ms(time.Since(start)))
}
