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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	crpredicate "sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// What wakes a reconcile: the map functions, predicates and the coalescing event handler of the
// watches SetupWithManager registers (the Secrets' in secrets_watch.go, the monitoring kinds' in
// monitoring_watch.go).

// controllerOf maps an object to the Memcached that controls it (its controller owner reference).
// Like controller-runtime's EnqueueRequestForOwner it compares the group and kind, not the
// version: an owner reference written under another version of the CRD (an object created before
// an upgrade that adds or drops a version) names the same Memcached.
func controllerOf(_ context.Context, obj client.Object) []reconcile.Request {
	ref := metav1.GetControllerOf(obj)
	if ref == nil || ref.Kind != "Memcached" {
		return nil
	}
	if gv, err := schema.ParseGroupVersion(ref.APIVersion); err != nil || gv.Group != cachev1alpha1.GroupVersion.Group {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: ref.Name}}}
}

// memcachedChanged passes the changes of a Memcached that are reconciled at once: its creation and
// deletion, a new generation (its spec changed) and a change of its annotations (of which the cache
// keeps only cachev1alpha1.PauseAnnotation). memcachedUpdated passes the other updates.
var memcachedChanged = crpredicate.Or(crpredicate.GenerationChangedPredicate{}, crpredicate.AnnotationChangedPredicate{})

// memcachedUpdated passes the updates of a Memcached that memcachedChanged does not: mostly the echo
// of the operator's own status patches, and a status or labels written by someone else. They are
// reconciled coalesceDelay later (enqueueAfter), not at once: reconciled at once, each echo ended
// the coalescing window of the pod changes still arriving, so a rollout's status patches followed
// each other 33-250 ms apart (make bench-scale, N=50: some instances took 5-7, up to 6.4 writes per
// instance against the limit of 6). They are still reconciled: a status is patched from the
// cached Memcached and skipped when the cache already holds it, so a reconcile that ran before the
// cache had the previous patch can leave a stale status on the server, which the reconcile after
// the echo sets right.
var memcachedUpdated = crpredicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	DeleteFunc:  func(event.DeleteEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
	UpdateFunc:  func(e event.UpdateEvent) bool { return !memcachedChanged.Update(e) },
}

// itself maps an object to the request of the same namespace and name (a Memcached to its own).
func itself(_ context.Context, obj client.Object) []reconcile.Request {
	return []reconcile.Request{{NamespacedName: client.ObjectKeyFromObject(obj)}}
}

// enqueueAfter returns an event handler that enqueues the requests toRequests maps an object to,
// coalesceDelay after the change: the delaying work queue keeps one entry per request, so a burst
// of changes becomes one reconcile. Objects of the cache's initial list (a start or a restart) are
// enqueued at once, where they merge with their Memcached's own initial entry.
func enqueueAfter(toRequests handler.MapFunc) handler.EventHandler {
	add := func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request], now bool, objs ...client.Object) {
		for _, obj := range objs {
			for _, req := range toRequests(ctx, obj) {
				if now {
					q.Add(req)
				} else {
					q.AddAfter(req, coalesceDelay)
				}
			}
		}
	}
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			add(ctx, q, e.IsInInitialList, e.Object)
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			// Both: a relabelled pod leaves one instance and joins another.
			add(ctx, q, false, e.ObjectOld, e.ObjectNew)
		},
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			add(ctx, q, false, e.Object)
		},
		GenericFunc: func(ctx context.Context, e event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			add(ctx, q, false, e.Object)
		},
	}
}
