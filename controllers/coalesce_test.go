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

package controllers

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"

	"github.com/example/memcached-operator/controllers/cache"
)

// recordingQueue is a work queue that records how requests were added (the rest is client-go's).
type recordingQueue struct {
	workqueue.TypedRateLimitingInterface[reconcile.Request]
	now   []reconcile.Request
	after map[reconcile.Request][]time.Duration
}

func (q *recordingQueue) Add(r reconcile.Request) { q.now = append(q.now, r) }

func (q *recordingQueue) AddAfter(r reconcile.Request, d time.Duration) {
	q.after[r] = append(q.after[r], d)
}

// A burst of changes of an instance's pods and owned objects waits coalesceDelay in the queue
// (one reconcile, one status patch for the burst); objects of the cache's initial list are queued
// at once, so a start or restart is not slowed down. The envtest TestConvergenceCost and
// make bench-scale ("writes per pod replaced") show the effect; this shows the mechanism without
// depending on how fast the machine runs the burst.
func TestEnqueueAfterCoalescesChanges(t *testing.T) {
	owner := metav1.OwnerReference{APIVersion: "cache.example.com/v1alpha1", Kind: "Memcached", Name: "m", Controller: ptr.To(true)}
	pod := func(name string) client.Object {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, OwnerReferences: []metav1.OwnerReference{owner}}}
	}
	req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "m"}}
	h := enqueueAfter(controllerOf)
	q := &recordingQueue{after: map[reconcile.Request][]time.Duration{}}
	ctx := context.Background()

	h.Create(ctx, event.CreateEvent{Object: pod("a"), IsInInitialList: true}, q)
	if len(q.now) != 1 || q.now[0] != req || len(q.after) != 0 {
		t.Fatalf("initial list: want %v queued at once, got now=%v after=%v", req, q.now, q.after)
	}

	q = &recordingQueue{after: map[reconcile.Request][]time.Duration{}}
	h.Create(ctx, event.CreateEvent{Object: pod("b")}, q)
	h.Update(ctx, event.UpdateEvent{ObjectOld: pod("b"), ObjectNew: pod("b")}, q)
	h.Delete(ctx, event.DeleteEvent{Object: pod("a")}, q)
	if len(q.now) != 0 {
		t.Errorf("changes queued at once: %v", q.now)
	}
	for _, d := range q.after[req] {
		if d != coalesceDelay {
			t.Errorf("change queued after %s, want coalesceDelay %s", d, coalesceDelay)
		}
	}
	if got := len(q.after[req]); got != 4 { // create, update (old and new), delete
		t.Errorf("want 4 delayed adds of %v, got %d (%v)", req, got, q.after)
	}
	if len(q.after) != 1 {
		t.Errorf("want only %v queued, got %v", req, q.after)
	}

	// An object no Memcached controls queues nothing.
	q = &recordingQueue{after: map[reconcile.Request][]time.Duration{}}
	h.Update(ctx, event.UpdateEvent{ObjectOld: &corev1.Pod{}, ObjectNew: &corev1.Pod{}}, q)
	if len(q.now)+len(q.after) != 0 {
		t.Errorf("unowned pod queued: now=%v after=%v", q.now, q.after)
	}
}

// On controller-runtime's priority queue (the default since v0.20) the objects of the cache's
// initial list are queued at low priority, like the Memcacheds' own initial entries queued by For:
// after a start or a restart with many instances, a change made meanwhile (a Memcached edited, a
// pod of another instance that failed) is reconciled before the backlog of the initial list, not
// after it. enqueueAfter gets this from handler.Funcs, which hands its functions a queue adding at
// low priority for initial-list events; this guards against replacing handler.Funcs by a type of
// our own (https://github.com/kubernetes-sigs/controller-runtime/blob/v0.25.2/pkg/handler/eventhandler.go).
func TestEnqueueAfterQueuesInitialListAtLowPriority(t *testing.T) {
	owner := func(name string) []metav1.OwnerReference {
		return []metav1.OwnerReference{{APIVersion: "cache.example.com/v1alpha1", Kind: "Memcached", Name: name, Controller: ptr.To(true)}}
	}
	q := priorityqueue.New[reconcile.Request]("test")
	defer q.ShutDown()
	ctx := context.Background()
	h := enqueueAfter(controllerOf)

	backlog := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "old"}}
	h.Create(ctx, event.CreateEvent{Object: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", OwnerReferences: owner("old")}}, IsInInitialList: true}, q)
	edited := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "edited"}}
	q.Add(edited) // what For's handler does for an update of a Memcached

	first, prio, _ := q.GetWithPriority()
	if first != edited {
		t.Errorf("first request out of the queue: %v (priority %d), want the edited instance %v before the initial list's %v", first, prio, edited, backlog)
	}
	second, prio, _ := q.GetWithPriority()
	if second != backlog || prio != handler.LowPriority {
		t.Errorf("second request: %v at priority %d, want %v at handler.LowPriority (%d)", second, prio, backlog, handler.LowPriority)
	}
}

// An object maps to the Memcached that controls it whatever version of the CRD its owner
// reference names (an object created before an upgrade that adds or drops a version), as with
// controller-runtime's EnqueueRequestForOwner; an owner of another group or kind, or a
// non-controller owner, maps to nothing. Source: kubernetes-sigs/controller-runtime
// pkg/handler/enqueue_owner.go (getOwnerReconcileRequest compares group and kind).
func TestControllerOfIgnoresTheVersion(t *testing.T) {
	obj := func(apiVersion, kind string, controller bool) client.Object {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "s", OwnerReferences: []metav1.OwnerReference{
			{APIVersion: apiVersion, Kind: kind, Name: "m", Controller: ptr.To(controller)},
		}}}
	}
	want := []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "m"}}}
	tests := map[string]struct {
		obj  client.Object
		want []reconcile.Request
	}{
		"current version":     {obj("cache.example.com/v1alpha1", "Memcached", true), want},
		"another version":     {obj("cache.example.com/v1beta1", "Memcached", true), want},
		"another group":       {obj("cache.other.io/v1alpha1", "Memcached", true), nil},
		"another kind":        {obj("cache.example.com/v1alpha1", "Redis", true), nil},
		"not the controller":  {obj("cache.example.com/v1alpha1", "Memcached", false), nil},
		"invalid api version": {obj("cache.example.com/v1/x", "Memcached", true), nil},
	}
	for desc, tt := range tests {
		if got := controllerOf(context.Background(), tt.obj); !equality.Semantic.DeepEqual(got, tt.want) {
			t.Errorf("%s: controllerOf = %v, want %v", desc, got, tt.want)
		}
	}
}

// The operator's own status patch comes back to it as an update of the Memcached. Reconciled at
// once, as a spec change is, it ended the coalescing window of the pod changes still arriving
// (make bench-scale, N=50: some instances took 5-7 status patches, 33-250 ms apart), so such an update
// goes to memcachedUpdated, whose changes wait coalesceDelay (enqueueAfter), while a spec change
// and the pause annotation set or removed go to memcachedChanged, reconciled at once. Every update
// goes to exactly one of them. Objects pass through the cache transform first, as in the cache, so
// an annotation it drops changes nothing.
func TestMemcachedChangesThatReconcile(t *testing.T) {
	base := &cachev1alpha1.Memcached{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "m", Generation: 1, ResourceVersion: "10"},
		Spec:       cachev1alpha1.MemcachedSpec{Size: 3},
	}
	with := func(change func(*cachev1alpha1.Memcached)) *cachev1alpha1.Memcached {
		mc := base.DeepCopy()
		mc.ResourceVersion = "11"
		change(mc)
		if _, err := cache.TrimMemcached(mc); err != nil {
			t.Fatal(err)
		}
		return mc
	}
	statusPatched := with(func(mc *cachev1alpha1.Memcached) {
		mc.Status.ReadyReplicas, mc.Status.Nodes = 2, []string{"m-a", "m-b", "m-c"}
		mc.Status.Conditions = []metav1.Condition{{Type: cachev1alpha1.ConditionAvailable, Status: metav1.ConditionFalse, ObservedGeneration: 1}}
	})
	resized := with(func(mc *cachev1alpha1.Memcached) { mc.Generation, mc.Spec.Size = 2, 4 })
	paused := with(func(mc *cachev1alpha1.Memcached) {
		mc.Annotations = map[string]string{cachev1alpha1.PauseAnnotation: "true"}
	})
	applied := with(func(mc *cachev1alpha1.Memcached) {
		mc.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": `{"spec":{"size":3}}`}
	})

	tests := map[string]struct {
		old, new *cachev1alpha1.Memcached
		atOnce   bool
	}{
		"status patched":                      {base, statusPatched, false},
		"an annotation the cache drops added": {base, applied, false},
		"spec changed":                        {base, resized, true},
		"pause annotation set":                {base, paused, true},
		"pause annotation unset":              {paused, with(func(*cachev1alpha1.Memcached) {}), true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			e := event.UpdateEvent{ObjectOld: tc.old, ObjectNew: tc.new}
			if got := memcachedChanged.Update(e); got != tc.atOnce {
				t.Errorf("reconciled at once: %t, want %t", got, tc.atOnce)
			}
			if got := memcachedUpdated.Update(e); got == tc.atOnce {
				t.Errorf("reconciled after coalesceDelay: %t, want %t", got, !tc.atOnce)
			}
		})
	}
	if !memcachedChanged.Create(event.CreateEvent{Object: base}) || memcachedUpdated.Create(event.CreateEvent{Object: base}) {
		t.Error("a creation must be reconciled at once, once")
	}
	if !memcachedChanged.Delete(event.DeleteEvent{Object: base}) || memcachedUpdated.Delete(event.DeleteEvent{Object: base}) {
		t.Error("a deletion must be reconciled at once, once")
	}
}
