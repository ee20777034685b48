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
	"context"
	"maps"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/test/utils"
)

const (
	// quietWindow is how long TestSteadyStateIsQuiet watches a converged instance.
	quietWindow = 20 * time.Second
	// quietSettle is how long the objects must stay unchanged after the instance converged before
	// the window starts (the controllers' last status writes); quietSettleTimeout bounds that wait.
	quietSettle        = 2 * time.Second
	quietSettleTimeout = 30 * time.Second
	// maxQuietReconciles is the largest growth of the memcached controller's reconcile counter
	// accepted during the window.
	maxQuietReconciles = 2
)

// TestSteadyStateIsQuiet lets a converged size-2 instance sit, with the real
// kube-controller-manager updating Deployment, ReplicaSet and PodDisruptionBudget status, and checks
// that the operator writes nothing: the resourceVersions of the Memcached, its Deployment, Service
// and PodDisruptionBudget do not change, and controller_runtime_reconcile_total{controller="memcached"}
// grows by at most maxQuietReconciles. It must run while no other test changes Memcached objects.
//
// Sources: m88i/nexus-operator#137 and kserve/kserve#2490 (endless updates because a
// DeepEqual against server-defaulted fields always differs; konflux-ci/konflux-ci#5874: every
// status update retriggered a reconcile).
func TestSteadyStateIsQuiet(t *testing.T) {
	expectHealthyOperator(t)
	g := NewWithT(t)
	ctx := utils.TestContext(t)
	ns := newNamespace(t, "quiet")
	token := scraperToken(t, ns)
	key := createMemcached(t, ns, "quiet", 2)
	t.Logf("converged in %s", utils.Ms(waitConverged(t, key, 2, 60*time.Second)))

	objects := map[string]client.Object{
		"Memcached":           &cachev1alpha1.Memcached{},
		"Deployment":          &appsv1.Deployment{},
		"Service":             &corev1.Service{},
		"PodDisruptionBudget": &policyv1.PodDisruptionBudget{},
	}
	// The kube-controller-manager may write Deployment and PodDisruptionBudget status once more
	// just after convergence: start the window once nothing changed for quietSettle.
	start := time.Now()
	rv0, err := resourceVersions(ctx, key, objects)
	g.Expect(err).NotTo(HaveOccurred())
	for stable := time.Now(); time.Since(stable) < quietSettle; time.Sleep(250 * time.Millisecond) {
		g.Expect(time.Since(start)).To(BeNumerically("<", quietSettleTimeout),
			"the objects of %s kept changing for %v after convergence (last %v)", key, quietSettleTimeout, rv0)
		rv, err := resourceVersions(ctx, key, objects)
		g.Expect(err).NotTo(HaveOccurred())
		if !maps.Equal(rv, rv0) {
			rv0, stable = rv, time.Now()
		}
	}
	t.Logf("settled %s after convergence", utils.Ms(time.Since(start)))
	before := reconcileTotal(t, mustScrapeMetrics(t, token), "")

	start = time.Now()
	g.Consistently(func() (map[string]string, error) {
		return resourceVersions(ctx, key, objects)
	}, quietWindow, time.Second).Should(Equal(rv0), "no object may be written while nothing changes")
	after := reconcileTotal(t, mustScrapeMetrics(t, token), "")
	t.Logf("over %s: resourceVersions unchanged %v; reconcile_total{controller=memcached} %v -> %v (+%v)",
		utils.Ms(time.Since(start)), rv0, before, after, after-before)
	g.Expect(after-before).To(BeNumerically("<=", maxQuietReconciles), "reconciles during a quiet window")
	_, err = converged(ctx, key, 2)
	g.Expect(err).NotTo(HaveOccurred())
}

// resourceVersions reads every object of objects (named like key) and returns its
// metadata.resourceVersion by kind.
func resourceVersions(ctx context.Context, key client.ObjectKey, objects map[string]client.Object) (map[string]string, error) {
	rvs := make(map[string]string, len(objects))
	for kind, obj := range objects {
		if err := suite.k8s.Get(ctx, key, obj); err != nil {
			return nil, err
		}
		rvs[kind] = obj.GetResourceVersion()
	}
	return rvs, nil
}
