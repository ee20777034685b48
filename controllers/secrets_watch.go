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

	"sigs.k8s.io/controller-runtime/pkg/client"
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

// secretToMemcacheds returns a map function from a Secret (its metadata) to the Memcacheds of its
// namespace that reference it, found through SecretsIndex in the cache reader.
func secretToMemcacheds(reader client.Reader) func(context.Context, client.Object) []reconcile.Request {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		list := &cachev1alpha1.MemcachedList{}
		if err := reader.List(ctx, list, client.InNamespace(obj.GetNamespace()), client.MatchingFields{SecretsIndex: obj.GetName()}); err != nil {
			return nil
		}
		out := make([]reconcile.Request, 0, len(list.Items))
		for i := range list.Items {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
		}
		return out
	}
}
