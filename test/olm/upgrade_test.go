//go:build olm

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

package olm

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	operatorsv2 "github.com/operator-framework/api/pkg/operators/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

const (
	fromCSV = "memcached-operator.v0.1.0"
	toCSV   = "memcached-operator.v0.2.0"
	upNS    = "olm-upgrade"
)

// podsOf returns "name/uid/pod-template-hash" of the pods of a Memcached, sorted.
func podsOf(g Gomega, ns, name string) []string {
	pods := &corev1.PodList{}
	g.Expect(k8s.List(context.Background(), pods, client.InNamespace(ns),
		client.MatchingLabels{"app.kubernetes.io/name": "memcached", "app.kubernetes.io/instance": name})).To(Succeed())
	var out []string
	for _, p := range pods.Items {
		out = append(out, p.Name+"/"+string(p.UID)+"/"+p.Labels["pod-template-hash"])
	}
	sort.Strings(out)
	return out
}

// upgradeable returns the Upgradeable condition the operator wrote in its OperatorCondition.
func upgradeable(g Gomega, ns, csv string) *metav1.Condition {
	oc := &operatorsv2.OperatorCondition{}
	g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: csv}, oc)).To(Succeed())
	return meta.FindStatusCondition(oc.Spec.Conditions, operatorsv2.Upgradeable)
}

// Upgrade by a channel bump: 0.1.0 is installed from a catalog whose stable head is 0.1.0; then the
// served catalog's stable head moves to 0.2.0. While a Memcached is mid-rollout the 0.1.0 operator
// reports Upgradeable=False and OLM holds the upgrade; once it clears, OLM installs 0.2.0, removes
// 0.1.0, the runner runs the 0.2.0 binary, memcached pods are not restarted (0.2.0 does not change
// their template) and the Memcacheds stay Available throughout.
func TestUpgradeByChannelBump(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	serveCatalog(t, "0.1.0")
	t.Cleanup(func() { serveCatalog(t, "") })

	createNamespace(t, g, upNS)
	og := &operatorsv1.OperatorGroup{ObjectMeta: metav1.ObjectMeta{Name: "memcached", Namespace: upNS},
		Spec: operatorsv1.OperatorGroupSpec{TargetNamespaces: []string{upNS}}}
	g.Expect(k8s.Create(ctx, og)).To(Succeed())
	csv := subscribe(t, g, upNS, "stable", fromCSV)
	g.Expect(csv.Name).To(Equal(fromCSV))
	t.Cleanup(func() {
		g := NewWithT(t)
		uninstall(t, g, upNS, toCSV)
		deleteNamespaces(t, g, upNS)
	})
	r := startRunner(t, g, upNS, csv)
	g.Expect(r.Image()).To(HaveSuffix(":v0.1.0"))

	for _, name := range []string{"cache-a", "cache-b"} {
		newMemcached(t, g, upNS, name, 2)
	}
	for _, name := range []string{"cache-a", "cache-b"} {
		waitAvailable(t, g, upNS, name)
	}
	before := map[string][]string{}
	for _, name := range []string{"cache-a", "cache-b"} {
		before[name] = podsOf(g, upNS, name)
		g.Expect(before[name]).To(HaveLen(2))
	}

	// A rollout that cannot finish (no node matches) makes the operator report Upgradeable=False.
	start := time.Now()
	newMemcached(t, g, upNS, "stuck", 1, func(mc *cachev1alpha1.Memcached) {
		mc.Spec.NodeSelector = map[string]string{"example.com/no-such-node": "true"}
	})
	g.Eventually(func(g Gomega) {
		c := upgradeable(g, upNS, fromCSV)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(c.Message).To(ContainSubstring(upNS + "/stuck"))
	}, 30*time.Second, 250*time.Millisecond).Should(Succeed())
	step(t, "operator reports Upgradeable=False while olm-upgrade/stuck rolls out", start)

	// Watch availability of the existing caches for the rest of the test.
	var mu sync.Mutex
	var unavailable []string
	stopWatch := make(chan struct{})
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		for {
			select {
			case <-stopWatch:
				return
			case <-time.After(200 * time.Millisecond):
			}
			for _, name := range []string{"cache-a", "cache-b"} {
				mc := &cachev1alpha1.Memcached{}
				if err := k8s.Get(ctx, client.ObjectKey{Namespace: upNS, Name: name}, mc); err != nil {
					continue
				}
				if !meta.IsStatusConditionTrue(mc.Status.Conditions, cachev1alpha1.ConditionAvailable) {
					mu.Lock()
					unavailable = append(unavailable, name+" at "+time.Now().Format(time.RFC3339Nano))
					mu.Unlock()
				}
			}
		}
	}()

	// The stable head moves to 0.2.0; OLM must hold the upgrade while Upgradeable is False.
	start = time.Now()
	serveCatalog(t, "")
	step(t, "catalog now serves 0.2.0 as the stable head", start)
	g.Consistently(func(g Gomega) {
		old := &operatorsv1alpha1.ClusterServiceVersion{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: upNS, Name: fromCSV}, old)).To(Succeed())
		g.Expect(old.Status.Phase).To(Equal(operatorsv1alpha1.CSVPhaseSucceeded))
		next := &operatorsv1alpha1.ClusterServiceVersion{}
		err := k8s.Get(ctx, client.ObjectKey{Namespace: upNS, Name: toCSV}, next)
		if err == nil {
			g.Expect(next.Status.Phase).NotTo(Equal(operatorsv1alpha1.CSVPhaseSucceeded), "0.2.0 installed while Upgradeable=False")
		} else {
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue())
		}
		g.Expect(r.Image()).To(HaveSuffix(":v0.1.0"))
	}, 25*time.Second, time.Second).Should(Succeed())
	step(t, "OLM held the upgrade while Upgradeable=False", start)

	// The stuck instance goes away: Upgradeable turns True and OLM upgrades.
	start = time.Now()
	g.Expect(k8s.Delete(ctx, &cachev1alpha1.Memcached{ObjectMeta: metav1.ObjectMeta{Namespace: upNS, Name: "stuck"}})).To(Succeed())
	g.Eventually(func(g Gomega) {
		sub := &operatorsv1alpha1.Subscription{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: upNS, Name: packageName}, sub)).To(Succeed())
		g.Expect(sub.Status.InstalledCSV).To(Equal(toCSV))
		g.Expect(sub.Status.InstallPlanRef).NotTo(BeNil())
		ip := &operatorsv1alpha1.InstallPlan{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: upNS, Name: sub.Status.InstallPlanRef.Name}, ip)).To(Succeed())
		g.Expect(ip.Spec.ClusterServiceVersionNames).To(ContainElement(toCSV), "a new InstallPlan for 0.2.0")
		g.Expect(ip.Status.Phase).To(Equal(operatorsv1alpha1.InstallPlanPhaseComplete))
	}, 120*time.Second, 250*time.Millisecond).Should(Succeed())
	waitCSV(t, g, upNS, toCSV)
	step(t, "CSV 0.2.0 Succeeded after Upgradeable cleared", start)
	g.Eventually(func() bool {
		return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKey{Namespace: upNS, Name: fromCSV}, &operatorsv1alpha1.ClusterServiceVersion{}))
	}, 60*time.Second, 250*time.Millisecond).Should(BeTrue(), "CSV 0.1.0 removed")
	step(t, "CSV 0.1.0 gone", start)
	g.Eventually(r.Image, 30*time.Second, 100*time.Millisecond).Should(HaveSuffix(":v0.2.0"), "runner follows the upgraded Deployment")
	waitReady(t, g, r)
	step(t, "runner runs the 0.2.0 operator", start)

	// Let the new operator reconcile everything, then compare.
	time.Sleep(3 * time.Second)
	close(stopWatch)
	<-watchDone
	for _, name := range []string{"cache-a", "cache-b"} {
		g.Expect(available(g, upNS, name)).To(BeTrue())
		g.Expect(podsOf(g, upNS, name)).To(Equal(before[name]), "memcached pods of %s not restarted (same names, UIDs and pod-template-hash)", name)
	}
	mu.Lock()
	g.Expect(unavailable).To(BeEmpty(), "Memcacheds stayed Available throughout the upgrade")
	mu.Unlock()
	g.Expect(forbiddenLines(t, r)).To(BeEmpty(), "operator log %s", r.Log())
	g.Expect(upgradeable(g, upNS, toCSV)).NotTo(BeNil(), "0.2.0 reports Upgradeable too")
}
