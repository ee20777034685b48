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
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/memcached-operator/internal/watchnamespace"
)

// CacheOptions returns the manager cache settings of the operator: only the given namespaces (all
// when empty), managed fields stripped, and for the owned kinds and Pods only objects labelled as
// managed by the operator (ManagedSelector), so unrelated Deployments and Pods are never cached.
//
// What each kind keeps in the cache (the rest never reaches the heap; every reader is in this
// package: Reconcile, computeStatus, the drift checks, podToMemcached):
//   - Memcached: all but managed fields (spec is the input, status the base of the status patch).
//   - Pod (three or more per instance, the bulk of the cache): only trimPod's fields, those
//     computeStatus and podToMemcached read. The spec (containers, probes, volumes, tolerations) and
//     the rest of the status (container statuses, other conditions, host IPs) are dropped.
//   - Deployment: all but managed fields and metadata.annotations. Drift compares the spec and the
//     labels, status reads the spec's replicas and the status; the annotations (revision, anything
//     a user adds) are read by no one, and the merge patch of a drift correction never touches them.
//   - Service, PodDisruptionBudget and NetworkPolicy: all but managed fields (small; drift compares
//     spec and labels).
//   - Secret: metadata only (the controller watches it with builder.OnlyMetadata), trimmed to
//     name, namespace, UID and resourceVersion (trimSecretMetadata). Every Secret of the watched
//     namespaces is listed, because any of them may be named by a Memcached later, but no Secret's
//     data or annotations reach the cache: the data of the Secrets an instance names is read
//     uncached when its reconcile needs it (secretsHash).
func CacheOptions(namespaces []string) cache.Options {
	managed := cache.ByObject{Label: ManagedSelector()}
	pods := cache.ByObject{Label: ManagedSelector(), Transform: trimPod}
	deployments := cache.ByObject{Label: ManagedSelector(), Transform: trimDeployment}
	return cache.Options{
		DefaultNamespaces: watchnamespace.CacheConfig(namespaces),
		DefaultTransform:  cache.TransformStripManagedFields(),
		ByObject: map[client.Object]cache.ByObject{
			&appsv1.Deployment{}:            deployments,
			&corev1.Service{}:               managed,
			&policyv1.PodDisruptionBudget{}: managed,
			&corev1.Pod{}:                   pods,

			&networkingv1.NetworkPolicy{}: managed,
			secretMetadata():              {Transform: trimSecretMetadata},
		},
	}
}

// trimPod is the cache transform of Pods: it returns a new Pod holding only what the operator
// reads: identity (name, namespace, UID, resourceVersion), labels (podToMemcached maps a pod to its
// instance by them; the pod-template-hash tells the template), owner references, the deletion
// timestamp (a terminating pod is not counted), and of the status the phase, the Ready condition
// and the pod IP (status.nodes, readyReplicas, serverList). Anything that is not a Pod (a
// tombstone) is returned as it is. A ByObject transform replaces the default one, so managed fields
// are dropped here too.
func trimPod(obj any) (any, error) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	out := &corev1.Pod{
		TypeMeta: p.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name: p.Name, Namespace: p.Namespace, UID: p.UID, ResourceVersion: p.ResourceVersion,
			Labels: p.Labels, OwnerReferences: p.OwnerReferences, DeletionTimestamp: p.DeletionTimestamp,
		},
		Status: corev1.PodStatus{Phase: p.Status.Phase, PodIP: p.Status.PodIP},
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			// Only what podReady reads: reason and message can be long.
			out.Status.Conditions = []corev1.PodCondition{{Type: c.Type, Status: c.Status}}
			break
		}
	}
	return out, nil
}

// trimDeployment is the cache transform of Deployments: managed fields and metadata.annotations
// dropped (see CacheOptions). It changes the object it is given, as controller-runtime's own
// TransformStripManagedFields does: the informer hands it a freshly decoded object.
func trimDeployment(obj any) (any, error) {
	if d, ok := obj.(*appsv1.Deployment); ok {
		d.ManagedFields = nil
		d.Annotations = nil
	}
	return obj, nil
}

// secretMetadata is the cache key of the Secrets' metadata-only informer.
func secretMetadata() *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}}
}
