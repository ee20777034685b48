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
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"

	"github.com/example/memcached-operator/controllers/resources"
)

// SecretsIndex is the field index of Memcacheds by the names of the Secrets they reference
// (resources.ReferencedSecrets), through which a Secret's watch event finds its Memcacheds.
const SecretsIndex = "spec.secretNames"

// indexSecrets is the SecretsIndex function: the names of the Secrets a Memcached references.
func indexSecrets(obj client.Object) []string {
	mc, ok := obj.(*cachev1alpha1.Memcached)
	if !ok {
		return nil
	}
	return resources.ReferencedSecrets(mc)
}

// secretToMemcacheds returns the Memcacheds of the Secret key's namespace that reference it, found
// through SecretsIndex in reader, or the error of the list.
func secretToMemcacheds(ctx context.Context, reader client.Reader, key types.NamespacedName) ([]reconcile.Request, error) {
	list := &cachev1alpha1.MemcachedList{}
	if err := reader.List(ctx, list, client.InNamespace(key.Namespace), client.MatchingFields{SecretsIndex: key.Name}); err != nil {
		return nil, fmt.Errorf("failed to list the Memcacheds referencing Secret %s: %w", key, err)
	}
	out := make([]reconcile.Request, 0, len(list.Items))
	for i := range list.Items {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
	}
	return out, nil
}

// Bounds of the retries of a Secret event whose Memcacheds could not be listed (secretEvents):
// the first after secretRetryBase, each next one twice as late, at most secretRetryMax apart. A
// list from the cache fails only while it cannot serve (not synced, stopping), so the first retries
// are quick; the bound keeps a rotation from waiting longer than half a minute once it can.
const (
	secretRetryBase = 100 * time.Millisecond
	secretRetryMax  = 30 * time.Second
)

// secretEvents returns the event handler of the Secret watch: each event of a Secret (created,
// changed, deleted) enqueues at once the Memcacheds that reference it (secretToMemcacheds through
// reader). When they cannot be listed, the event is not dropped (a rotation would then be missed
// until something else reconciled the instance): the error is logged and the mapping retried with
// an exponential back-off (secretRetryBase to secretRetryMax, per Secret) until it succeeds, the
// queue shuts down or ctx ends.
func secretEvents(reader client.Reader) handler.EventHandler {
	limiter := workqueue.NewTypedItemExponentialFailureRateLimiter[types.NamespacedName](secretRetryBase, secretRetryMax)
	var enqueue func(ctx context.Context, key types.NamespacedName, q workqueue.TypedRateLimitingInterface[reconcile.Request])
	enqueue = func(ctx context.Context, key types.NamespacedName, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		if ctx.Err() != nil || q.ShuttingDown() {
			return
		}
		reqs, err := secretToMemcacheds(ctx, reader, key)
		if err != nil {
			delay := limiter.When(key)
			logf.FromContext(ctx).Error(err, "Secret event not mapped to its Memcacheds yet; retrying", "Secret", key, "retryAfter", delay)
			time.AfterFunc(delay, func() { enqueue(ctx, key, q) })
			return
		}
		limiter.Forget(key)
		for _, r := range reqs {
			q.Add(r)
		}
	}
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(ctx, client.ObjectKeyFromObject(e.Object), q)
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(ctx, client.ObjectKeyFromObject(e.ObjectNew), q)
		},
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(ctx, client.ObjectKeyFromObject(e.Object), q)
		},
		GenericFunc: func(ctx context.Context, e event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(ctx, client.ObjectKeyFromObject(e.Object), q)
		},
	}
}
