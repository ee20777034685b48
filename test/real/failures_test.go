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
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/test/real/memcache"
	"github.com/example/memcached-operator/test/utils"
)

// TestContainerFailuresAreNamed: on the real node, a change that memcached's container cannot run
// with turns the Memcached Degraded/ContainerFailing within failureReportBound of the kubelet first
// reporting the failure (not after the Deployment's ten-minute progress deadline), naming the pod,
// what the kubelet reports and the spec field. From that first failure on, through 20 s of the
// kubelet's retries, the operator makes exactly one status write and one event (every write of
// the Memcached and every event regarding it is counted, whatever it says); the servers that
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
		rec := recordWrites(t, key)
		patchMemcached(t, key, tc.edit)
		// The first failure the kubelet reports, then the first status write after it.
		var failure, report observedWrite
		g.Eventually(func(g Gomega) {
			var ok bool
			failure, ok = rec.firstFailure()
			g.Expect(ok).To(BeTrue(), "the kubelet reports no failure of container %s yet", memcachedContainer)
			writes := rec.memcachedWritesAfter(failure.rv)
			g.Expect(writes).NotTo(BeEmpty(), "no status write since the first failure (%s)", failure.what)
			report = writes[0]
		}, 2*time.Minute, poll).Should(Succeed(), "%s: the failure never reported", tc.name)
		degraded := report.degraded
		g.Expect(degraded).NotTo(BeNil(), "%s: the first write after the failure has no Degraded condition", tc.name)
		t.Logf("%s: first failure %s after the change (%s); Degraded/%s %s after it: %s", tc.name, utils.Ms(failure.at.Sub(start)),
			failure.what, degraded.Reason, utils.Ms(report.at.Sub(failure.at)), degraded.Message)
		g.Expect(degraded.Status).To(Equal(metav1.ConditionTrue), tc.name)
		g.Expect(degraded.Reason).To(Equal(cachev1alpha1.ReasonContainerFailing), tc.name)
		for _, w := range tc.want {
			g.Expect(degraded.Message).To(ContainSubstring(w), tc.name)
		}
		g.Expect(report.at.Sub(failure.at)).To(BeNumerically("<=", failureReportBound),
			"%s: Degraded/ContainerFailing %s after the kubelet reported the failure (%s), the user guide promises %s",
			tc.name, utils.Ms(report.at.Sub(failure.at)), failure.what, failureReportBound)
		suite.phases.Record(t, tc.name+": Degraded/ContainerFailing naming the field", start)

		// The kubelet keeps retrying (back-off restarts, pull retries): from the first failure on,
		// that one status write and one event, whatever either says.
		g.Consistently(func(g Gomega) {
			g.Expect(rec.err()).NotTo(HaveOccurred())
			g.Expect(rec.memcachedWritesAfter(failure.rv)).To(HaveLen(1), "%s: writes of the Memcached since the first failure", tc.name)
		}, 20*time.Second, poll).Should(Succeed(), "%s: a second write of the Memcached while the kubelet retries", tc.name)
		events := rec.eventsAfter(failure.rv)
		g.Expect(events).To(HaveLen(1), "%s: events regarding the Memcached since the first failure: %v", tc.name, events)
		g.Expect(events[0].what).To(Equal(corev1.EventTypeWarning+" "+cachev1alpha1.ReasonContainerFailing+": "+degraded.Message), tc.name)
		rec.stop()

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

// failureReportBound is how soon after the kubelet first reports a container failure in a pod's
// status the Memcached says Degraded/ContainerFailing (docs/user-guide.md): the pod watch, the
// reconcile queue's coalescing delay (250 ms) and one status write, with room for a loaded node.
const failureReportBound = 5 * time.Second

// observedWrite is one write the test's watches saw: its resourceVersion, when it arrived, what it
// was, and for a Memcached its Degraded condition.
type observedWrite struct {
	rv       uint64
	at       time.Time
	what     string
	degraded *metav1.Condition
}

// String says what the write was (for failure messages).
func (w observedWrite) String() string { return fmt.Sprintf("rv %d: %s", w.rv, w.what) }

// writeRecorder watches, from the moment it is made, every write of one Memcached, every change of
// its pods and every event regarding it. The three watches are ordered against one another by
// resourceVersion: the real tier's cluster stores every resource in one etcd, whose revision
// numbers every write in the cluster, so a write with a higher resourceVersion came after.
type writeRecorder struct {
	mu                 sync.Mutex
	failure            *observedWrite
	memcacheds, events []observedWrite
	watchErr           error
	cancel             context.CancelFunc
	done               chan struct{}
}

// recordWrites starts a writeRecorder for the Memcached key; it stops at the end of the test or
// at stop.
func recordWrites(t *testing.T, key client.ObjectKey) *writeRecorder {
	t.Helper()
	ctx, cancel := context.WithCancel(utils.TestContext(t))
	r := &writeRecorder{cancel: cancel, done: make(chan struct{})}
	t.Cleanup(r.stop)
	start := func(list client.ObjectList, opts ...client.ListOption) watch.Interface {
		if err := suite.k8s.List(ctx, list, opts...); err != nil {
			t.Fatalf("failed to list %T in %s: %v", list, key.Namespace, err)
		}
		rv := list.(metav1.ListInterface).GetResourceVersion()
		w, err := suite.k8s.Watch(ctx, list, append(opts, &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: rv}})...)
		if err != nil {
			t.Fatalf("failed to watch %T in %s: %v", list, key.Namespace, err)
		}
		return w
	}
	mcs := start(&cachev1alpha1.MemcachedList{}, client.InNamespace(key.Namespace))
	pods := start(&corev1.PodList{}, client.InNamespace(key.Namespace), client.MatchingLabels{
		"app.kubernetes.io/name": "memcached", "app.kubernetes.io/instance": key.Name})
	evs := start(&eventsv1.EventList{}, client.InNamespace(key.Namespace))
	go func() {
		defer close(r.done)
		defer mcs.Stop()
		defer pods.Stop()
		defer evs.Stop()
		for {
			var ev watch.Event
			var ok bool
			select {
			case <-ctx.Done():
				return
			case ev, ok = <-mcs.ResultChan():
			case ev, ok = <-pods.ResultChan():
			case ev, ok = <-evs.ResultChan():
			}
			if !ok {
				r.fail(fmt.Errorf("a watch in %s closed early: the writes after it are not counted", key.Namespace))
				return
			}
			r.observe(key, ev, time.Now())
		}
	}()
	return r
}

// observe records one watch event.
func (r *writeRecorder) observe(key client.ObjectKey, ev watch.Event, at time.Time) {
	if ev.Type == watch.Error {
		r.fail(fmt.Errorf("watch error: %v", ev.Object))
		return
	}
	obj, ok := ev.Object.(client.Object)
	if !ok {
		return
	}
	rv, err := strconv.ParseUint(obj.GetResourceVersion(), 10, 64)
	if err != nil {
		r.fail(fmt.Errorf("resourceVersion %q of %T %s is not a number: %w", obj.GetResourceVersion(), obj, obj.GetName(), err))
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch o := obj.(type) {
	case *cachev1alpha1.Memcached:
		if o.Name == key.Name && ev.Type != watch.Added {
			r.memcacheds = append(r.memcacheds, observedWrite{rv: rv, at: at, what: string(ev.Type),
				degraded: meta.FindStatusCondition(o.Status.Conditions, cachev1alpha1.ConditionDegraded)})
		}
	case *corev1.Pod:
		if r.failure != nil || o.DeletionTimestamp != nil {
			return
		}
		for _, c := range o.Status.ContainerStatuses {
			if what := containerFailed(c); c.Name == memcachedContainer && what != "" {
				r.failure = &observedWrite{rv: rv, at: at, what: "pod " + o.Name + ": " + what}
			}
		}
	case *eventsv1.Event:
		if o.Regarding.Kind == "Memcached" && o.Regarding.Name == key.Name {
			r.events = append(r.events, observedWrite{rv: rv, at: at, what: o.Type + " " + o.Reason + ": " + o.Note})
		}
	}
}

// containerFailed says how the kubelet reports container status c as failed ("" when it does
// not): waiting for a reason other than starting (CrashLoopBackOff, an image pull error,
// RunContainerError, ...) or terminated with a non-zero exit code. The test's own reading of the
// kubelet's report, so the operator's (status.Failing) is checked against it, not with it.
func containerFailed(c corev1.ContainerStatus) string {
	if c.Ready {
		return ""
	}
	if w := c.State.Waiting; w != nil && w.Reason != "" && w.Reason != "ContainerCreating" && w.Reason != "PodInitializing" {
		return "waiting: " + w.Reason
	}
	if t := c.State.Terminated; t != nil && t.ExitCode != 0 {
		return fmt.Sprintf("terminated: exit code %d (%s)", t.ExitCode, t.Reason)
	}
	return ""
}

func (r *writeRecorder) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.watchErr == nil {
		r.watchErr = err
	}
}

// err returns the first watch error: the counts are incomplete after one.
func (r *writeRecorder) err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.watchErr
}

// firstFailure returns the first pod change in which the kubelet reports the memcached container
// failed.
func (r *writeRecorder) firstFailure() (observedWrite, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failure == nil {
		return observedWrite{}, false
	}
	return *r.failure, true
}

// memcachedWritesAfter returns the writes of the Memcached after resourceVersion rv, in order.
func (r *writeRecorder) memcachedWritesAfter(rv uint64) []observedWrite {
	r.mu.Lock()
	defer r.mu.Unlock()
	return writesAfter(r.memcacheds, rv)
}

// eventsAfter returns the writes of events regarding the Memcached (created or updated, as an
// event series is) after resourceVersion rv, in order.
func (r *writeRecorder) eventsAfter(rv uint64) []observedWrite {
	r.mu.Lock()
	defer r.mu.Unlock()
	return writesAfter(r.events, rv)
}

// writesAfter returns the writes of l with a resourceVersion above rv, in the order they came.
func writesAfter(l []observedWrite, rv uint64) []observedWrite {
	var out []observedWrite
	for _, w := range l {
		if w.rv > rv {
			out = append(out, w)
		}
	}
	return out
}

// stop ends the watches and waits for the recorder to finish.
func (r *writeRecorder) stop() {
	r.cancel()
	<-r.done
}
