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
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/memcached-operator/internal/watchnamespace"
)

// CacheOptions returns the manager cache settings of the operator: only the given namespaces (all
// when empty), managed fields stripped, and for the owned kinds and Pods only objects labelled as
// managed by the operator (ManagedSelector), so unrelated Deployments and Pods are never cached.
func CacheOptions(namespaces []string) cache.Options {
	managed := cache.ByObject{Label: ManagedSelector()}
	return cache.Options{
		DefaultNamespaces: watchnamespace.CacheConfig(namespaces),
		DefaultTransform:  cache.TransformStripManagedFields(),
		ByObject: map[client.Object]cache.ByObject{
			&appsv1.Deployment{}:            managed,
			&corev1.Service{}:               managed,
			&policyv1.PodDisruptionBudget{}: managed,
			&corev1.Pod{}:                   managed,
		},
	}
}
