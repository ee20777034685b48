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
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// For each install mode the CSV declares: subscribe from our catalog, run the operator with the
// RBAC OLM grants, reconcile a Memcached in every target namespace, leave other namespaces alone,
// log no "forbidden" and protect the metrics endpoint. Sources: kube-green/kube-green#296
// (install modes must match what the operator does), operator-framework/community-operators#199
// and openshift/kubefed-operator#49 (WATCH_NAMESPACE semantics), elastic/cloud-on-k8s#9654 (RBAC in
// the wrong CSV field), operator-framework/operator-sdk#6930 (metrics auth),
// operator-framework/operator-sdk#1513 (deleting the operator's namespace is never stuck).
func TestInstallModes(t *testing.T) {
	serveCatalog(t, "")
	modes := []struct {
		mode       operatorsv1alpha1.InstallModeType
		operatorNS string
		targets    []string // nil: AllNamespaces
		outside    string   // a namespace the operator must not touch ("" for AllNamespaces)
	}{
		{mode: operatorsv1alpha1.InstallModeTypeOwnNamespace, operatorNS: "olm-own", targets: []string{"olm-own"}, outside: "olm-own-outside"},
		{mode: operatorsv1alpha1.InstallModeTypeSingleNamespace, operatorNS: "olm-single-op", targets: []string{"olm-single-target"}, outside: "olm-single-outside"},
		{mode: operatorsv1alpha1.InstallModeTypeMultiNamespace, operatorNS: "olm-multi-op", targets: []string{"olm-multi-a", "olm-multi-b"}, outside: "olm-multi-outside"},
		{mode: operatorsv1alpha1.InstallModeTypeAllNamespaces, operatorNS: "operators", targets: nil},
	}
	for _, tc := range modes {
		t.Run(string(tc.mode), func(t *testing.T) {
			g := NewWithT(t)
			start := time.Now()
			allNS := "olm-all-target"
			var created []string
			for _, ns := range append(append([]string{tc.operatorNS}, tc.targets...), tc.outside) {
				if ns != "" && ns != "operators" {
					created = append(created, ns)
				}
			}
			if tc.targets == nil {
				created = append(created, allNS)
			}
			slices.Sort(created)
			created = slices.Compact(created) // OwnNamespace: the operator's namespace is the target
			// Start clean even after an interrupted run, and clean up whatever happens.
			cleanup := func(g Gomega) {
				_ = k8s.Delete(context.Background(), &cachev1alpha1.Memcached{ObjectMeta: metav1.ObjectMeta{Namespace: "operators", Name: "cache"}})
				if tc.operatorNS == "operators" {
					uninstallAll(t, g, "operators")
				}
				deleteNamespaces(t, g, created...)
			}
			cleanup(g)
			t.Cleanup(func() { cleanup(NewWithT(t)) })
			for _, ns := range created {
				createNamespace(t, g, ns)
			}
			// AllNamespaces: OLM's own global-operators group of "operators" is reused.
			ensureOperatorGroup(t, g, tc.operatorNS, tc.targets)
			csv := subscribe(t, g, tc.operatorNS, "stable", "")

			r := startRunner(t, g, tc.operatorNS, csv)

			targets := tc.targets
			if targets == nil {
				targets = []string{allNS, tc.operatorNS}
			}
			for _, ns := range targets {
				newMemcached(t, g, ns, "cache", 2)
			}
			for _, ns := range targets {
				waitAvailable(t, g, ns, "cache")
			}
			if tc.outside != "" {
				newMemcached(t, g, tc.outside, "cache", 1)
				g.Consistently(func(g Gomega) {
					err := k8s.Get(context.Background(), client.ObjectKey{Namespace: tc.outside, Name: "cache"}, &appsv1.Deployment{})
					g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "no Deployment outside the target namespaces")
					mc := &cachev1alpha1.Memcached{}
					g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: tc.outside, Name: "cache"}, mc)).To(Succeed())
					g.Expect(mc.Status.Conditions).To(BeEmpty(), "no status outside the target namespaces")
				}, 5*time.Second, 500*time.Millisecond).Should(Succeed())
			}
			checkMetricsAuth(t, g, r, tc.operatorNS)
			g.Expect(forbiddenLines(t, r)).To(BeEmpty(), "operator log %s", r.Log())
			step(t, string(tc.mode)+" proven", start)

			// Deleting the namespaces (the operator's own included for OwnNamespace) never gets stuck
			// (the cleanup asserts it within 180 s).
			uninstall(t, g, tc.operatorNS, csv.Name)
		})
	}
}

// uninstall deletes the Subscription, the CSV and the OperatorGroup of ns (idempotent).
func uninstall(t *testing.T, g Gomega, ns, csv string) {
	t.Helper()
	ctx := context.Background()
	_ = k8s.Delete(ctx, &operatorsv1alpha1.Subscription{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: packageName}})
	_ = k8s.Delete(ctx, &operatorsv1alpha1.ClusterServiceVersion{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: csv}})
	if ns != "operators" {
		_ = k8s.Delete(ctx, &operatorsv1.OperatorGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "memcached"}})
	}
	g.Eventually(func() bool {
		return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: csv}, &operatorsv1alpha1.ClusterServiceVersion{}))
	}, 60*time.Second, 250*time.Millisecond).Should(BeTrue(), "CSV %s/%s removed", ns, csv)
}

// uninstallAll deletes every Subscription and CSV of our package in ns (a previous run's leftovers).
func uninstallAll(t *testing.T, g Gomega, ns string) {
	t.Helper()
	csvs := &operatorsv1alpha1.ClusterServiceVersionList{}
	g.Expect(k8s.List(context.Background(), csvs, client.InNamespace(ns))).To(Succeed())
	for _, c := range csvs.Items {
		if strings.HasPrefix(c.Name, packageName+".") && c.Status.Reason != operatorsv1alpha1.CSVReasonCopied {
			uninstall(t, g, ns, c.Name)
		}
	}
	_ = k8s.Delete(context.Background(), &operatorsv1alpha1.Subscription{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: packageName}})
}
