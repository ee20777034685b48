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
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
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
	// fromVersion is the first release; the upgrade goes from it to the head of stable (headVersion).
	fromVersion = "v0.1.0"
	fromCSV     = packageName + "." + fromVersion
	upNS        = "olm-upgrade"
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
// served catalog's stable head moves to the current release (headVersion, reachable from 0.1.0
// through its skipRange). While a Memcached is mid-rollout the 0.1.0 operator
// reports Upgradeable=False and OLM holds the upgrade; once it clears, OLM installs the head, removes
// 0.1.0, the runner runs the new binary, memcached pods are not restarted (no release since 0.1.0
// changes their template) and the Memcacheds stay Available throughout.
func TestUpgradeByChannelBump(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	toCSV := packageName + "." + headVersion
	serveCatalog(t, strings.TrimPrefix(fromVersion, "v"))
	t.Cleanup(func() { serveCatalog(t, "") })

	deleteNamespaces(t, g, upNS) // leftovers of an interrupted run
	createNamespace(t, g, upNS)
	ensureOperatorGroup(t, g, upNS, []string{upNS})
	csv := subscribe(t, g, upNS, "stable", fromCSV)
	g.Expect(csv.Name).To(Equal(fromCSV))
	// 0.1.0 is deprecated in the catalog (catalog/memcached-operator/deprecations.yaml).
	expectBundleDeprecated(t, g, upNS, true, "0.1.0 is deprecated", "Upgrade to 0.2.1 or later")
	t.Cleanup(func() {
		g := NewWithT(t)
		uninstall(t, g, upNS, toCSV)
		deleteNamespaces(t, g, upNS)
	})
	r := startRunner(t, g, upNS, csv)
	g.Expect(r.Image()).To(HaveSuffix(":" + fromVersion))

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
	// OLM reads the condition from the OperatorCondition's status, which its operatorcondition
	// controller copies from spec with the current generation.
	g.Eventually(func(g Gomega) {
		oc := &operatorsv2.OperatorCondition{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: upNS, Name: fromCSV}, oc)).To(Succeed())
		c := meta.FindStatusCondition(oc.Status.Conditions, operatorsv2.Upgradeable)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(c.ObservedGeneration).To(Equal(oc.Generation))
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

	// The stable head moves to headVersion; OLM must hold the upgrade while Upgradeable is False.
	start = time.Now()
	serveCatalog(t, "")
	step(t, "catalog now serves "+headVersion+" as the stable head", start)
	// OLM creates the new CSV and marks the old one Replacing, but keeps the new one Pending
	// (reason OperatorConditionNotUpgradeable) and the old Deployment running.
	g.Eventually(func(g Gomega) {
		next := &operatorsv1alpha1.ClusterServiceVersion{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: upNS, Name: toCSV}, next)).To(Succeed())
		g.Expect(next.Status.Reason).To(Equal(operatorsv1alpha1.CSVReasonOperatorConditionNotUpgradeable))
	}, 60*time.Second, 250*time.Millisecond).Should(Succeed())
	step(t, "CSV "+toCSV+" Pending: OperatorConditionNotUpgradeable", start)
	g.Consistently(func(g Gomega) {
		old := &operatorsv1alpha1.ClusterServiceVersion{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: upNS, Name: fromCSV}, old)).To(Succeed())
		g.Expect(old.Status.Phase).To(BeElementOf(operatorsv1alpha1.CSVPhaseSucceeded, operatorsv1alpha1.CSVPhaseReplacing))
		next := &operatorsv1alpha1.ClusterServiceVersion{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: upNS, Name: toCSV}, next)).To(Succeed())
		g.Expect(next.Status.Phase).To(Equal(operatorsv1alpha1.CSVPhasePending), "the new CSV is held")
		g.Expect(r.Image()).To(HaveSuffix(":" + fromVersion))
	}, 15*time.Second, time.Second).Should(Succeed())
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
		g.Expect(ip.Spec.ClusterServiceVersionNames).To(ContainElement(toCSV), "a new InstallPlan for the head")
		g.Expect(ip.Status.Phase).To(Equal(operatorsv1alpha1.InstallPlanPhaseComplete))
	}, 120*time.Second, 250*time.Millisecond).Should(Succeed())
	waitCSV(t, g, upNS, toCSV)
	step(t, "CSV "+toCSV+" Succeeded after Upgradeable cleared", start)
	g.Eventually(func() bool {
		return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKey{Namespace: upNS, Name: fromCSV}, &operatorsv1alpha1.ClusterServiceVersion{}))
	}, 60*time.Second, 250*time.Millisecond).Should(BeTrue(), "CSV 0.1.0 removed")
	step(t, "CSV "+fromCSV+" gone", start)
	g.Eventually(r.Image, 30*time.Second, 100*time.Millisecond).Should(HaveSuffix(":"+headVersion), "runner follows the upgraded Deployment")
	waitReady(t, g, r)
	step(t, "runner runs the "+headVersion+" operator", start)

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
	// The new operator leads once 0.1.0's lease expires (0.1.0 did not release it on shutdown;
	// later releases do) and then reports Upgradeable on its own OperatorCondition.
	start = time.Now()
	g.Eventually(func(g Gomega) {
		c := upgradeable(g, upNS, toCSV)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
	}, 45*time.Second, 250*time.Millisecond).Should(Succeed(), "the new version reports Upgradeable=True")
	step(t, "the new operator leads and reports Upgradeable=True", start)
	// The head is not deprecated: OLM removes the deprecation conditions.
	expectBundleDeprecated(t, g, upNS, false)
	// 0.1.0 lacked RBAC for the core Event leader election records (fixed in 0.2.1): only the
	// upgraded operator's log must be free of "forbidden".
	g.Expect(forbiddenLinesSinceStart(t, r)).To(BeEmpty(), "operator log %s", r.Log())
}
