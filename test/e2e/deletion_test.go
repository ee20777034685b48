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
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/test/utils"
)

// TestDeletionCleansUpAndNeverBlocks deletes a Memcached and checks that its Deployment, Service,
// PodDisruptionBudget and pods are garbage-collected within 30 s; then deletes a whole namespace
// that holds a Memcached and checks it is gone within 180 s, the Memcached carrying no finalizer
// that could hold it.
//
// Sources: operator-framework/operator-sdk#1513 and #3967 (the sample's finalizer left the
// CR and its namespace stuck in Terminating; istio/istio#18815).
func TestDeletionCleansUpAndNeverBlocks(t *testing.T) {
	expectHealthyOperator(t)
	g := NewWithT(t)
	ctx := utils.TestContext(t)

	ns := newNamespace(t, "gc")
	key := createMemcached(t, ns, "gc", 2)
	waitConverged(t, key, 2, 60*time.Second)
	mc, err := utils.GetMemcached(ctx, suite.k8s, key)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(mc.Finalizers).To(BeEmpty(), "the Memcached needs no finalizer: owner references clean up")

	start := time.Now()
	kubectl(t, "delete", "memcached", key.Name, "-n", ns, "--timeout=60s")
	deleted := time.Since(start)
	g.Eventually(func() error { return ownedObjectsLeft(ctx, key) }, 30*time.Second, poll).Should(Succeed())
	t.Logf("kubectl delete memcached returned after %s; Deployment, Service, PodDisruptionBudget and pods gone after %s",
		utils.Ms(deleted), utils.Ms(time.Since(start)))

	ns2 := newNamespace(t, "nsdel")
	key2 := createMemcached(t, ns2, "fin", 1)
	waitConverged(t, key2, 1, 60*time.Second)
	mc, err = utils.GetMemcached(ctx, suite.k8s, key2)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(mc.Finalizers).To(BeEmpty())

	start = time.Now()
	kubectl(t, "delete", "namespace", ns2, "--wait=false")
	g.Eventually(func() bool {
		err := suite.k8s.Get(ctx, client.ObjectKey{Name: ns2}, &corev1.Namespace{})
		return apierrors.IsNotFound(err)
	}, 180*time.Second, 200*time.Millisecond).Should(BeTrue(), "namespace %s holding a Memcached must be deleted", ns2)
	t.Logf("namespace %s holding Memcached %s deleted in %s", ns2, key2.Name, utils.Ms(time.Since(start)))
}

// ownedObjectsLeft returns nil when the Memcached key, its Deployment, Service and
// PodDisruptionBudget and all its pods are gone, and otherwise an error naming what is left.
func ownedObjectsLeft(ctx context.Context, key client.ObjectKey) error {
	for kind, obj := range map[string]client.Object{
		"Memcached":           &cachev1alpha1.Memcached{},
		"Deployment":          &appsv1.Deployment{},
		"Service":             &corev1.Service{},
		"PodDisruptionBudget": &policyv1.PodDisruptionBudget{},
	} {
		err := suite.k8s.Get(ctx, key, obj)
		if err == nil {
			return fmt.Errorf("%s %s still exists", kind, key)
		}
		if !apierrors.IsNotFound(err) {
			return err
		}
	}
	pods, err := utils.InstancePods(ctx, suite.k8s, key)
	if err != nil {
		return err
	}
	if len(pods) > 0 {
		return fmt.Errorf("%d pods of %s still exist", len(pods), key)
	}
	return nil
}
