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
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/test/utils"
)

const (
	// manyNamespaces and manyPerNamespace scale the reported load (100 CRs over 10 namespaces)
	// down to what a 2-core CI machine runs comfortably next to other builds: 30 CRs over 3
	// namespaces still exercise concurrent creation, a work queue with many keys and mass garbage
	// collection.
	manyNamespaces   = 3
	manyPerNamespace = 10
)

// TestManyInstancesConvergeAndDelete creates manyNamespaces*manyPerNamespace Memcached of size 1
// with one kubectl apply, checks all become Available with one node within 120 s, then deletes
// them all and checks their Deployments are gone within 60 s with no Memcached left Terminating,
// and that the operator kept running.
//
// Sources: operator-framework/operator-sdk-samples#156 and #157 (the sample operator was
// OOMKilled with more than a few CRs; open-telemetry/opentelemetry-operator#439).
func TestManyInstancesConvergeAndDelete(t *testing.T) {
	expectHealthyOperator(t)
	g := NewWithT(t)
	ctx := utils.TestContext(t)
	total := manyNamespaces * manyPerNamespace

	var namespaces []string
	var docs []string
	for i := range manyNamespaces {
		ns := newNamespace(t, fmt.Sprintf("many%d", i))
		namespaces = append(namespaces, ns)
		for j := range manyPerNamespace {
			docs = append(docs, fmt.Sprintf("apiVersion: cache.example.com/v1alpha1\nkind: Memcached\nmetadata: {name: m%02d, namespace: %s}\nspec: {size: 1}\n", j, ns))
		}
	}

	start := time.Now()
	suite.kubectl.Must(t, strings.Join(docs, "---\n"), "apply", "-f", "-")
	applied := time.Since(start)
	g.Eventually(func() (int, error) { return countAvailable(ctx, namespaces) }, 120*time.Second, time.Second).
		Should(Equal(total), "all %d Memcached Available with one node", total)
	t.Logf("%d Memcached (size 1) in %d namespaces: kubectl apply took %s, all Available after %s",
		total, manyNamespaces, utils.Ms(applied), utils.Ms(time.Since(start)))

	start = time.Now()
	for _, ns := range namespaces {
		kubectl(t, "delete", "memcached", "--all", "-n", ns, "--wait=false")
	}
	g.Eventually(func() (int, error) { return countManagedDeployments(ctx, namespaces) }, 60*time.Second, 500*time.Millisecond).
		Should(BeZero(), "the Deployments of deleted Memcached must be garbage-collected")
	depsGone := time.Since(start)
	g.Eventually(func() (int, error) { return countMemcached(ctx, namespaces) }, 10*time.Second, 200*time.Millisecond).
		Should(BeZero(), "no Memcached may be left (Terminating)")
	t.Logf("deleted all %d: Deployments gone after %s, no Memcached left after %s", total, utils.Ms(depsGone), utils.Ms(time.Since(start)))
	g.Expect(suite.op.running()).To(BeTrue(), "the operator must keep running")
}

// countAvailable counts the Memcached in namespaces whose Available condition is True at their
// generation with one ready node.
func countAvailable(ctx context.Context, namespaces []string) (int, error) {
	n := 0
	for _, ns := range namespaces {
		list := &cachev1alpha1.MemcachedList{}
		if err := suite.k8s.List(ctx, list, client.InNamespace(ns)); err != nil {
			return 0, err
		}
		for i := range list.Items {
			mc := &list.Items[i]
			if utils.CheckCondition(mc, cachev1alpha1.ConditionAvailable, metav1.ConditionTrue) == nil &&
				len(mc.Status.Nodes) == 1 && mc.Status.ReadyReplicas == 1 {
				n++
			}
		}
	}
	return n, nil
}

// countMemcached counts the Memcached in namespaces, terminating ones included.
func countMemcached(ctx context.Context, namespaces []string) (int, error) {
	n := 0
	for _, ns := range namespaces {
		list := &cachev1alpha1.MemcachedList{}
		if err := suite.k8s.List(ctx, list, client.InNamespace(ns)); err != nil {
			return 0, err
		}
		n += len(list.Items)
	}
	return n, nil
}

// countManagedDeployments counts the Deployments in namespaces labelled as managed by the operator.
func countManagedDeployments(ctx context.Context, namespaces []string) (int, error) {
	n := 0
	for _, ns := range namespaces {
		list := &appsv1.DeploymentList{}
		if err := suite.k8s.List(ctx, list, client.InNamespace(ns),
			client.MatchingLabels{"app.kubernetes.io/managed-by": "memcached-operator"}); err != nil {
			return 0, err
		}
		n += len(list.Items)
	}
	return n, nil
}
