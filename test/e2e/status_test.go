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
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/test/utils"
)

// TestSampleConvergesAndStatusFollowsSize applies the shipped sample with kubectl, checks that it
// converges (Deployment, Running+Ready pods, status.nodes, readyReplicas, serverList, conditions at
// the current generation), that status cannot be written through the main resource, and that
// status follows spec.size down to 2 and up to 5 with no stale or duplicate pod names.
//
// Sources: operator-framework/operator-sdk-samples#55 (status.nodes never written;
// operator-framework/operator-sdk#4679: status conditions for the sample).
func TestSampleConvergesAndStatusFollowsSize(t *testing.T) {
	expectHealthyOperator(t)
	g := NewWithT(t)
	ctx := utils.TestContext(t)
	ns := newNamespace(t, "sample")
	key := client.ObjectKey{Namespace: ns, Name: "memcached-sample"}

	kubectl(t, "apply", "-n", ns, "-f", filepath.Join(suite.repoRoot, "config", "samples", "cache_v1alpha1_memcached.yaml"))
	t.Logf("sample (size 3) converged %s after kubectl apply", utils.Ms(waitConverged(t, key, 3, 60*time.Second)))

	mc, err := utils.GetMemcached(ctx, suite.k8s, key)
	g.Expect(err).NotTo(HaveOccurred())
	for _, s := range mc.Status.ServerList {
		g.Expect(s).To(HaveSuffix(fmt.Sprintf(".%s.%s.svc:%d", key.Name, ns, cachev1alpha1.DefaultPort)),
			"serverList entries are <pod-ip>.<headless service>.<namespace>.svc:11211")
	}

	// The status subresource is enabled: a status written through the main resource is dropped.
	nodes := mc.Status.Nodes
	kubectl(t, "patch", "memcached", key.Name, "-n", ns, "--type=merge", "-p", `{"status":{"nodes":["fake"]}}`)
	g.Consistently(func() ([]string, error) {
		mc, err := utils.GetMemcached(ctx, suite.k8s, key)
		if err != nil {
			return nil, err
		}
		return mc.Status.Nodes, nil
	}, 3*time.Second, poll).Should(Equal(nodes), "a status patch on the main resource must not change status.nodes")

	for _, size := range []int32{2, 5} {
		start := time.Now()
		kubectl(t, "patch", "memcached", key.Name, "-n", ns, "--type=merge", "-p", fmt.Sprintf(`{"spec":{"size":%d}}`, size))
		g.Eventually(func() (int32, error) {
			dep, err := getDeployment(ctx, key)
			if err != nil || dep.Spec.Replicas == nil {
				return -1, err
			}
			return *dep.Spec.Replicas, nil
		}, 30*time.Second, poll).Should(Equal(size), "Deployment replicas must follow spec.size")
		depFollowed := time.Since(start)
		waitConverged(t, key, size, 60*time.Second)
		t.Logf("size %d: Deployment replicas followed in %s, instance converged (status.nodes = live pods, Available at the new generation) in %s",
			size, utils.Ms(depFollowed), utils.Ms(time.Since(start)))
	}
}

// TestKubectlScaleUsesSizeAndRejectsZero scales a Memcached with `kubectl scale` (the scale
// subresource maps to spec.size, status.replicas and status.selector) and checks that the
// Deployment follows, that the scale subresource's selector selects the instance's pods, and that
// `--replicas=0` is rejected with a message naming spec.size while nothing changes.
//
// Sources: operator-framework/operator-sdk-samples#55 (status follows spec.size) and
// operator-framework/operator-sdk#2701 (size 0 rejected at admission with a message naming
// spec.size); DESIGN.md §5 "kubectl scale via the scale subresource".
func TestKubectlScaleUsesSizeAndRejectsZero(t *testing.T) {
	expectHealthyOperator(t)
	g := NewWithT(t)
	ctx := utils.TestContext(t)
	ns := newNamespace(t, "scale")
	key := createMemcached(t, ns, "scaled", 2)
	t.Logf("size 2 converged in %s", utils.Ms(waitConverged(t, key, 2, 60*time.Second)))

	start := time.Now()
	kubectl(t, "scale", "memcached/"+key.Name, "-n", ns, "--replicas=4")
	g.Eventually(func() (int32, error) {
		dep, err := getDeployment(ctx, key)
		if err != nil || dep.Spec.Replicas == nil {
			return -1, err
		}
		return *dep.Spec.Replicas, nil
	}, 30*time.Second, poll).Should(Equal(int32(4)))
	t.Logf("kubectl scale --replicas=4: Deployment followed in %s", utils.Ms(time.Since(start)))
	waitConverged(t, key, 4, 60*time.Second)
	t.Logf("kubectl scale --replicas=4: converged in %s", utils.Ms(time.Since(start)))

	mc, err := utils.GetMemcached(ctx, suite.k8s, key)
	g.Expect(err).NotTo(HaveOccurred())
	scale := &autoscalingv1.Scale{}
	g.Expect(suite.k8s.SubResource("scale").Get(ctx, mc, scale)).To(Succeed())
	g.Expect(scale.Spec.Replicas).To(Equal(int32(4)))
	g.Expect(scale.Status.Replicas).To(Equal(int32(4)))
	sel, err := labels.Parse(scale.Status.Selector)
	g.Expect(err).NotTo(HaveOccurred(), "scale status.selector %q", scale.Status.Selector)
	pods := &corev1.PodList{}
	g.Expect(suite.k8s.List(ctx, pods, client.InNamespace(ns), client.MatchingLabelsSelector{Selector: sel})).To(Succeed())
	g.Expect(liveNames(pods.Items)).To(Equal(mc.Status.Nodes), "the scale selector %q selects exactly the instance's pods", scale.Status.Selector)

	out, errOut, err := suite.kubectl.Run(ctx, "", "scale", "memcached/"+key.Name, "-n", ns, "--replicas=0")
	g.Expect(err).To(HaveOccurred(), "kubectl scale --replicas=0 must be rejected; output: %s%s", out, errOut)
	g.Expect(errOut).To(ContainSubstring("spec.size"))
	t.Logf("kubectl scale --replicas=0 rejected: %s", strings.TrimSpace(errOut))
	g.Consistently(func() error { _, err := converged(ctx, key, 4); return err }, 3*time.Second, poll).Should(Succeed())
}

// TestDeletedPodLeavesStatusWithinOneSecond force-deletes one memcached pod and measures, with a
// watch on the Memcached, how long status.nodes keeps its name: the operator watches pods, so it
// must be under a second (no periodic requeue). Then the replacement pod appears in status.nodes.
//
// Sources: operator-framework/operator-sdk-samples#55 (status.nodes kept current; the operator-sdk
// sample refreshed it only by requeueing) and DESIGN.md §5 "status.nodes kept current by
// watching pods, not by a one-minute requeue".
func TestDeletedPodLeavesStatusWithinOneSecond(t *testing.T) {
	expectHealthyOperator(t)
	g := NewWithT(t)
	ctx := utils.TestContext(t)
	ns := newNamespace(t, "podgone")
	key := createMemcached(t, ns, "podgone", 3)
	waitConverged(t, key, 3, 60*time.Second)

	mc, err := utils.GetMemcached(ctx, suite.k8s, key)
	g.Expect(err).NotTo(HaveOccurred())
	victim := mc.Status.Nodes[1]
	w, err := suite.k8s.Watch(ctx, &cachev1alpha1.MemcachedList{}, client.InNamespace(ns),
		&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: mc.ResourceVersion}})
	g.Expect(err).NotTo(HaveOccurred())
	defer w.Stop()

	start := time.Now()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: victim}}
	g.Expect(suite.k8s.Delete(ctx, pod, client.GracePeriodSeconds(0))).To(Succeed())
	var gone time.Duration
	timeout := time.After(10 * time.Second)
wait:
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("the watch on Memcached %s closed before status.nodes dropped %s", key, victim)
			}
			if ev.Type != watch.Modified {
				continue
			}
			if m, ok := ev.Object.(*cachev1alpha1.Memcached); ok && m.Name == key.Name && !slices.Contains(m.Status.Nodes, victim) {
				gone = time.Since(start)
				break wait
			}
		case <-timeout:
			t.Fatalf("status.nodes of %s still contains the deleted pod %s after 10s", key, victim)
		}
	}
	t.Logf("deleted pod %s left status.nodes %s after its deletion", victim, utils.Ms(gone))
	g.Expect(gone).To(BeNumerically("<", time.Second), "a deleted pod must leave status.nodes within 1s")

	waitConverged(t, key, 3, 30*time.Second)
	mc, err = utils.GetMemcached(ctx, suite.k8s, key)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(mc.Status.Nodes).NotTo(ContainElement(victim))
	t.Logf("replacement pod in status.nodes %v, %s after the deletion", mc.Status.Nodes, utils.Ms(time.Since(start)))
}
