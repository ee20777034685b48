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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// Pods that turn ready a moment before their Deployment says so, and the Available that follows,
// are one status write; a Deployment that never catches up delays the pods' news by at most
// statusHoldMax.
func TestStatusWaitsForTheWorkload(t *testing.T) {
	g := NewWithT(t)
	const ns = "t-hold"
	wc, err := client.NewWithWatch(cfg, client.Options{Scheme: k8sClient.Scheme()})
	g.Expect(err).NotTo(HaveOccurred())
	firstStatus := func(name string) {
		g.Expect(k8sClient.Create(testCtx, newMemcached(ns, name, 2))).To(Succeed())
		g.Eventually(func(g Gomega) {
			g.Expect(getMemcached(g, ns, name).Status.Conditions).NotTo(BeEmpty())
		}, timeout, interval).Should(Succeed())
	}

	// The Deployment catches up after the operator has reconciled the pods' readiness (and held
	// its status): one status write carries both.
	firstStatus("caught")
	w, err := wc.Watch(testCtx, &cachev1alpha1.MemcachedList{}, client.InNamespace(ns),
		client.MatchingFieldsSelector{Selector: fields.OneTermEqualSelector("metadata.name", "caught")})
	g.Expect(err).NotTo(HaveOccurred())
	defer w.Stop()
	// Idle first, so that the reconcile awaited below is the one the pods' readiness triggers.
	reconciles := waitIdle(g, -1, 2*coalesceDelay)
	readyPods(g, ns, "caught", 2)
	g.Eventually(func() float64 { return reconcileCount(g) }, timeout, 10*time.Millisecond).Should(BeNumerically(">", reconciles),
		"the pods' readiness was never reconciled")
	setDeploymentStatus(g, ns, "caught", 2)
	var writes []string
	g.Eventually(func() bool {
		for {
			select {
			case ev := <-w.ResultChan():
				if ev.Type != watch.Modified {
					continue
				}
				mc := ev.Object.(*cachev1alpha1.Memcached)
				writes = append(writes, fmt.Sprintf("ready %d, Available %s", mc.Status.ReadyReplicas, conditionOf(mc, cachev1alpha1.ConditionAvailable).Status))
				if conditionOf(mc, cachev1alpha1.ConditionAvailable).Status == metav1.ConditionTrue {
					return true
				}
			case <-time.After(interval):
				return false
			}
		}
	}, timeout, interval).Should(BeTrue())
	g.Expect(writes).To(Equal([]string{"ready 2, Available True"}), "the pods' readiness and Available in one status write")

	// The Deployment never catches up: the pods' news is written anyway, about statusHoldMax later.
	firstStatus("behind")
	start := time.Now()
	readyPods(g, ns, "behind", 2)
	g.Eventually(func(g Gomega) {
		g.Expect(getMemcached(g, ns, "behind").Status.ReadyReplicas).To(Equal(int32(2)))
	}, statusHoldMax+timeout, 20*time.Millisecond).Should(Succeed())
	g.Expect(time.Since(start)).To(BeNumerically(">=", statusHoldMax), "held until statusHoldMax")
	mc := getMemcached(g, ns, "behind")
	g.Expect(mc.Status.ServerList).To(HaveLen(2))
	g.Expect(conditionOf(mc, cachev1alpha1.ConditionAvailable).Status).To(Equal(metav1.ConditionFalse), "the Deployment has not said so")
}
