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
	"slices"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/test/utils"
)

// servingWatch polls the instance's pods every poll interval and keeps the fewest Running and
// Ready pods seen, and every serverList the Memcached had, until stop is called.
type servingWatch struct {
	mu          sync.Mutex
	fewestReady int
	lists       [][]string
	stop        context.CancelFunc
	done        chan struct{}
}

func watchServing(t *testing.T, key client.ObjectKey) *servingWatch {
	ctx, cancel := context.WithCancel(utils.TestContext(t))
	w := &servingWatch{fewestReady: 1 << 30, stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for ctx.Err() == nil {
			pods, err := utils.InstancePods(ctx, suite.k8s, key)
			mc, mcErr := utils.GetMemcached(ctx, suite.k8s, key)
			if err == nil && mcErr == nil {
				ready := 0
				for i := range pods {
					if pods[i].DeletionTimestamp == nil && utils.PodRunningReady(&pods[i]) {
						ready++
					}
				}
				w.mu.Lock()
				w.fewestReady = min(w.fewestReady, ready)
				if n := len(w.lists); n == 0 || !slices.Equal(w.lists[n-1], mc.Status.ServerList) {
					w.lists = append(w.lists, mc.Status.ServerList)
				}
				w.mu.Unlock()
			}
			time.Sleep(poll)
		}
	}()
	return w
}

// end stops the watch and returns the fewest ready pods and the serverLists seen.
func (w *servingWatch) end() (int, [][]string) {
	w.stop()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fewestReady, w.lists
}

// TestServerIdentityStable proves spec.serverIdentity on the kwok tier, with kube-controller-
// manager's own Deployment and StatefulSet controllers: a running instance of 3 (a Deployment) is
// moved to Stable and never has fewer than 3 ready servers during the move, which ends with the
// StatefulSet's pods <name>-0..2 and no Deployment; then a deleted pod comes back under its name
// while serverList never changes; a scale to 4 adds <name>-3 at the end of the list and a scale
// back to 3 removes it, the other entries untouched.
func TestServerIdentityStable(t *testing.T) {
	expectHealthyOperator(t)
	g := NewWithT(t)
	ctx := utils.TestContext(t)
	ns := newNamespace(t, "stable")
	key := createMemcached(t, ns, "ids", 3)
	waitConverged(t, key, 3, 60*time.Second)

	stable := func(n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("ids-%d.ids.%s.svc:%d", i, ns, cachev1alpha1.DefaultPort))
		}
		return out
	}

	// The move: one server at a time, 3 ready throughout.
	w := watchServing(t, key)
	start := time.Now()
	kubectl(t, "patch", "memcached", key.Name, "-n", ns, "--type=merge", "-p", `{"spec":{"serverIdentity":"Stable"}}`)
	took := waitConverged(t, key, 3, 120*time.Second)
	fewest, lists := w.end()
	t.Logf("moved to a StatefulSet in %s (since the patch: %s); fewest ready servers during the move: %d; serverLists seen: %d",
		utils.Ms(took), utils.Ms(time.Since(start)), fewest, len(lists))
	g.Expect(fewest).To(BeNumerically(">=", 3), "ready servers during the move")
	mc, err := utils.GetMemcached(ctx, suite.k8s, key)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(mc.Status.Nodes).To(Equal([]string{"ids-0", "ids-1", "ids-2"}))
	g.Expect(mc.Status.ServerList).To(Equal(stable(3)))

	// A deleted pod comes back under its name; serverList never changes.
	w = watchServing(t, key)
	start = time.Now()
	g.Expect(suite.k8s.Delete(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ids-1"}}, client.GracePeriodSeconds(0))).To(Succeed())
	g.Eventually(func(g Gomega) {
		pod := &corev1.Pod{}
		g.Expect(suite.k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "ids-1"}, pod)).To(Succeed())
		g.Expect(time.Since(pod.CreationTimestamp.Time)).To(BeNumerically("<", time.Since(start)+time.Second))
	}, 30*time.Second, poll).Should(Succeed(), "ids-1 recreated")
	waitConverged(t, key, 3, 60*time.Second)
	_, lists = w.end()
	t.Logf("pod ids-1 deleted: back and converged in %s; serverLists seen: %v", utils.Ms(time.Since(start)), lists)
	g.Expect(lists).To(Equal([][]string{stable(3)}), "serverList while a server is replaced")

	// Scale up and down: only the last entry comes and goes.
	for _, size := range []int32{4, 3} {
		w = watchServing(t, key)
		start = time.Now()
		kubectl(t, "scale", "memcached/"+key.Name, "-n", ns, fmt.Sprintf("--replicas=%d", size))
		waitConverged(t, key, size, 60*time.Second)
		_, lists = w.end()
		// The watch samples every poll: it may have stopped before it saw the converged list, so
		// that one is read now and checked with the rest.
		mc, err := utils.GetMemcached(ctx, suite.k8s, key)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(mc.Status.ServerList).To(Equal(stable(int(size))))
		lists = append(lists, mc.Status.ServerList)
		t.Logf("scaled to %d in %s; serverLists seen: %v", size, utils.Ms(time.Since(start)), lists)
		for _, l := range lists {
			g.Expect(l).To(Or(Equal(stable(3)), Equal(stable(4))), "serverList while scaling")
		}
	}
}

// TestStatefulSetPodCreateFailureIsNamed: with kube-controller-manager's StatefulSet and quota
// controllers, a Stable instance of 2 in a namespace whose ResourceQuota allows 1 pod gets one pod;
// the second is refused by the quota admission, which only the StatefulSet's FailedCreate events
// say. The Memcached turns Degraded/ReplicaFailure naming the missing pod and the quota within
// seconds; with the quota raised the StatefulSet controller creates the pod and Degraded clears.
func TestStatefulSetPodCreateFailureIsNamed(t *testing.T) {
	expectHealthyOperator(t)
	g := NewWithT(t)
	ctx := utils.TestContext(t)
	ns := newNamespace(t, "stsquota")
	quota := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "pods", Namespace: ns},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")}}}
	g.Expect(suite.k8s.Create(ctx, quota)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(suite.k8s.Get(ctx, client.ObjectKeyFromObject(quota), quota)).To(Succeed())
		g.Expect(quota.Status.Hard).To(HaveKey(corev1.ResourcePods), "the quota controller has not counted the namespace yet")
	}, 30*time.Second, poll).Should(Succeed())

	mc := utils.NewMemcached(ns, "q", 2)
	mc.Spec.ServerIdentity = cachev1alpha1.ServerIdentityStable
	g.Expect(suite.k8s.Create(ctx, mc)).To(Succeed())
	key := client.ObjectKeyFromObject(mc)
	start := time.Now()
	var degraded metav1.Condition
	g.Eventually(func(g Gomega) {
		mc, err := utils.GetMemcached(ctx, suite.k8s, key)
		g.Expect(err).NotTo(HaveOccurred())
		c := meta.FindStatusCondition(mc.Status.Conditions, cachev1alpha1.ConditionDegraded)
		g.Expect(c).NotTo(BeNil())
		degraded = *c
		g.Expect(degraded.Reason).To(Equal(cachev1alpha1.ReasonReplicaFailure))
	}, 60*time.Second, poll).Should(Succeed())
	t.Logf("Degraded/ReplicaFailure %s after the Memcached was created: %s", utils.Ms(time.Since(start)), degraded.Message)
	g.Expect(degraded.Message).To(And(HavePrefix("StatefulSet q: Create Pod q-1 in StatefulSet q failed"), ContainSubstring("exceeded quota: pods")), "q-0 fits the quota, q-1 does not")

	start = time.Now()
	g.Expect(suite.k8s.Get(ctx, client.ObjectKeyFromObject(quota), quota)).To(Succeed())
	quota.Spec.Hard[corev1.ResourcePods] = resource.MustParse("2")
	g.Expect(suite.k8s.Update(ctx, quota)).To(Succeed())
	took := waitConverged(t, key, 2, 3*time.Minute)
	t.Logf("quota raised to 2: converged, not Degraded, %s later (%s once the pods were there)", utils.Ms(time.Since(start)), utils.Ms(took))
}
