//go:build real

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

package real

import (
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/test/real/memcache"
	"github.com/example/memcached-operator/test/utils"
)

// TestContainerFailuresAreNamed: on the real node, a change that memcached's container cannot run
// with turns the Memcached Degraded/ContainerFailing within seconds (not after the Deployment's
// ten-minute progress deadline), naming the pod, what the kubelet reports and the spec field,
// with one Warning event and no status write while the kubelet keeps retrying; the servers that
// ran before keep serving their keys (the rollout surges one pod, none unavailable); undoing the
// change clears Degraded. The failures are real: memcached exits 71 when -c is above the
// container's open-file limit (memcached.c: "failed to set rlimit for open files"; the node's
// containers inherit containerd's hard limit, far below 1048576), the runtime cannot start an image
// without memcached (StartError), and the kubelet cannot pull an image the registry does not have.
func TestContainerFailuresAreNamed(t *testing.T) {
	g := NewWithT(t)
	ctx := utils.TestContext(t)
	ns := newRestrictedNamespace(t, "failing")
	key := client.ObjectKey{Namespace: ns, Name: "cache"}
	g.Expect(suite.k8s.Create(ctx, utils.NewMemcached(ns, key.Name, 2))).To(Succeed())
	mc, pods := utils.WaitAvailable(t, suite.k8s, key, 2, 2*podStartTimeout)
	startClientPod(t, ns)
	serversResolved(t, ns, mc.Status.ServerList)
	owners := placeKeys(t, ns, "failing", mc.Status.ServerList)
	serving := map[string]bool{}
	for _, p := range pods {
		serving[p.Name] = true
	}
	registry := suite.memcachedImage[:strings.Index(suite.memcachedImage, "/")]

	cases := []struct {
		name string
		edit func(*cachev1alpha1.Memcached)
		undo func(*cachev1alpha1.Memcached)
		want []string // in Degraded's message
	}{
		{
			name: "maxConnections above the open-file limit",
			edit: func(m *cachev1alpha1.Memcached) { m.Spec.Memcached.MaxConnections = 1048576 },
			undo: func(m *cachev1alpha1.Memcached) { m.Spec.Memcached.MaxConnections = 1024 },
			// memcached's own line ("failed to set rlimit for open files") goes to its log: the
			// container's termination message is the file's, which memcached does not write.
			want: []string{"container memcached CrashLoopBackOff", "last exit code 71", "spec.memcached.maxConnections (1048576)"},
		},
		{
			// The client image has no memcached executable: the runtime cannot start the container.
			name: "an image without memcached",
			edit: func(m *cachev1alpha1.Memcached) { m.Spec.Image = suite.clientImage },
			undo: func(m *cachev1alpha1.Memcached) { m.Spec.Image = "" },
			want: []string{"container memcached CrashLoopBackOff", "StartError", "check that spec.image (" + suite.clientImage + ") runs memcached"},
		},
		{
			name: "an image the registry does not have",
			edit: func(m *cachev1alpha1.Memcached) { m.Spec.Image = registry + "/no-such/memcached:1.6.38" },
			undo: func(m *cachev1alpha1.Memcached) { m.Spec.Image = "" },
			want: []string{"container memcached", "check spec.image (" + registry + "/no-such/memcached:1.6.38)"},
		},
	}
	for _, tc := range cases {
		start := time.Now()
		patchMemcached(t, key, tc.edit)
		var degraded *metav1.Condition
		g.Eventually(func(g Gomega) {
			m, err := utils.GetMemcached(ctx, suite.k8s, key)
			g.Expect(err).NotTo(HaveOccurred())
			degraded = meta.FindStatusCondition(m.Status.Conditions, cachev1alpha1.ConditionDegraded)
			g.Expect(degraded).NotTo(BeNil())
			g.Expect(degraded.Reason).To(Equal(cachev1alpha1.ReasonContainerFailing))
		}, 2*time.Minute, poll).Should(Succeed(), "%s: never Degraded/ContainerFailing", tc.name)
		t.Logf("%s: Degraded/ContainerFailing %s after the change: %s", tc.name, utils.Ms(time.Since(start)), degraded.Message)
		g.Expect(degraded.Status).To(Equal(metav1.ConditionTrue))
		for _, w := range tc.want {
			g.Expect(degraded.Message).To(ContainSubstring(w), tc.name)
		}
		suite.phases.Record(t, tc.name+": Degraded/ContainerFailing naming the field", start)

		// The kubelet keeps retrying (back-off restarts, pull retries): one event, no status write.
		warnings := func(g Gomega) []string {
			evs := &eventsv1.EventList{}
			g.Expect(suite.k8s.List(ctx, evs, client.InNamespace(ns))).To(Succeed())
			var notes []string
			for _, e := range evs.Items {
				if e.Regarding.Name == key.Name && e.Reason == cachev1alpha1.ReasonContainerFailing && e.Note == degraded.Message {
					notes = append(notes, e.Note)
				}
			}
			return notes
		}
		g.Eventually(warnings, 30*time.Second, poll).Should(HaveLen(1), "%s: one Warning event", tc.name)
		m, err := utils.GetMemcached(ctx, suite.k8s, key)
		g.Expect(err).NotTo(HaveOccurred())
		g.Consistently(func(g Gomega) string {
			now, err := utils.GetMemcached(ctx, suite.k8s, key)
			g.Expect(err).NotTo(HaveOccurred())
			return now.ResourceVersion
		}, 20*time.Second, time.Second).Should(Equal(m.ResourceVersion), "%s: a status write while the kubelet retries", tc.name)
		g.Expect(warnings(g)).To(HaveLen(1), "%s: a second event while the kubelet retries", tc.name)

		// The servers of before still run and answer for their keys.
		running, err := utils.InstancePods(ctx, suite.k8s, key)
		g.Expect(err).NotTo(HaveOccurred())
		var ready []string
		for _, p := range running {
			if serving[p.Name] && utils.PodRunningReady(&p) {
				ready = append(ready, p.Name)
			}
		}
		g.Expect(ready).To(HaveLen(len(serving)), "%s: the pods that served before the change", tc.name)
		var loc memcache.PlacementReport
		mustClientRun(t, ns, "", &loc, "locate", "-servers", strings.Join(mc.Status.ServerList, ","), "-prefix", "failing", "-n", "100")
		for k, owner := range owners {
			g.Expect(loc.Keys[k]).To(Equal([]string{owner}), "%s: key %s", tc.name, k)
		}
		suite.phases.Record(t, tc.name+": one event, no write for 20 s of retries, the old servers serve every key", start)

		start = time.Now()
		patchMemcached(t, key, tc.undo)
		g.Eventually(func(g Gomega) {
			m, err := utils.GetMemcached(ctx, suite.k8s, key)
			g.Expect(err).NotTo(HaveOccurred())
			d := meta.FindStatusCondition(m.Status.Conditions, cachev1alpha1.ConditionDegraded)
			g.Expect(d).NotTo(BeNil())
			g.Expect(d.Status).To(Equal(metav1.ConditionFalse), d.Message)
			a := meta.FindStatusCondition(m.Status.Conditions, cachev1alpha1.ConditionAvailable)
			g.Expect(a).NotTo(BeNil())
			g.Expect(a.Status).To(Equal(metav1.ConditionTrue))
			g.Expect(a.ObservedGeneration).To(Equal(m.Generation))
		}, 2*time.Minute, poll).Should(Succeed(), "%s: undone, still Degraded", tc.name)
		suite.phases.Record(t, tc.name+": undone, Degraded False", start)
	}
}

// patchMemcached applies edit to the Memcached key (a merge patch of what changed).
func patchMemcached(t *testing.T, key client.ObjectKey, edit func(*cachev1alpha1.Memcached)) {
	t.Helper()
	ctx := utils.TestContext(t)
	m, err := utils.GetMemcached(ctx, suite.k8s, key)
	if err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(m.DeepCopy())
	edit(m)
	if err := suite.k8s.Patch(ctx, m, patch); err != nil {
		t.Fatalf("failed to patch Memcached %s: %v", key, err)
	}
}
