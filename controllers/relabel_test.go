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
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/memcached-operator/controllers/apply"
	"github.com/example/memcached-operator/controllers/resources"
)

// An owned object whose managed-by label someone removed leaves the manager's cache (it selects by
// that label). The operator finds it again by name and owner when its create reports
// AlreadyExists, puts the label back and applies the spec: a spec change made after the label was
// removed reaches the Deployment within seconds, and the Service gets its label back too. One
// Normal event says so; the steady state after it writes nothing.
func TestLostLabelsAreRestored(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-relabel", "cache"
	g.Expect(k8sClient.Create(testCtx, newMemcached(ns, name, 2))).To(Succeed())
	dep, svc := &appsv1.Deployment{}, &corev1.Service{}
	g.Eventually(func() error { return k8sClient.Get(testCtx, key(ns, name), dep) }, timeout, interval).Should(Succeed())
	g.Eventually(func() error { return k8sClient.Get(testCtx, key(ns, name), svc) }, timeout, interval).Should(Succeed())
	settledWritesIn(g, ns, time.Second)

	for _, obj := range []client.Object{&appsv1.Deployment{}, &corev1.Service{}} {
		g.Eventually(func() error {
			if err := k8sClient.Get(testCtx, key(ns, name), obj); err != nil {
				return err
			}
			l := obj.GetLabels()
			delete(l, resources.LabelManagedBy)
			obj.SetLabels(l)
			return k8sClient.Update(testCtx, obj)
		}, timeout, interval).Should(Succeed())
	}
	mc := getMemcached(g, ns, name)
	mc.Spec.Size = 4
	g.Expect(k8sClient.Update(testCtx, mc)).To(Succeed())

	start := time.Now()
	g.Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(testCtx, key(ns, name), dep)).To(Succeed())
		g.Expect(dep.Spec.Replicas).To(HaveValue(Equal(int32(4))))
		g.Expect(dep.Labels).To(HaveKeyWithValue(resources.LabelManagedBy, resources.ManagedBy))
		g.Expect(k8sClient.Get(testCtx, key(ns, name), svc)).To(Succeed())
		g.Expect(svc.Labels).To(HaveKeyWithValue(resources.LabelManagedBy, resources.ManagedBy))
	}, 10*time.Second, interval).Should(Succeed())
	t.Logf("spec applied and labels back %s after the change", time.Since(start).Round(time.Millisecond))

	g.Eventually(func(g Gomega) {
		evs := &eventsv1.EventList{}
		g.Expect(k8sClient.List(testCtx, evs, client.InNamespace(ns))).To(Succeed())
		var restored []string
		for _, e := range evs.Items {
			if e.Regarding.Kind == "Memcached" && e.Regarding.Name == name && e.Reason == string(apply.Restored) {
				g.Expect(e.Type).To(Equal(corev1.EventTypeNormal))
				restored = append(restored, e.Note)
			}
		}
		g.Expect(restored).NotTo(BeEmpty())
	}, timeout, interval).Should(Succeed())

	before := settledWritesIn(g, ns, time.Second)
	g.Consistently(func() map[string]int { return writesIn(ns) }, 2*time.Second, 250*time.Millisecond).Should(Equal(before),
		"the steady state after the restore writes nothing")
}
