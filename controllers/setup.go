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

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/client-go/discovery"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/operator-framework/operator-lib/predicate"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/cache"
	"github.com/example/memcached-operator/internal/podview"
)

// SetupWithManager registers the controller: it watches Memcached (except paused ones; the
// changes memcachedChanged passes at once, the other updates after coalesceDelay), the
// Deployments, Services, PodDisruptionBudgets and NetworkPolicies it controls, and the pods of its
// instances; the changes of the latter reach the queue after coalesceDelay (enqueueAfter).
// ServiceMonitors and PrometheusRules are watched from the moment the cluster serves each
// (monitoringKindWatch, runnables of mgr).
//
// It also watches Secrets, as metadata only (builder.OnlyMetadata): the cache then holds, for
// every Secret of the watched namespaces, a PartialObjectMetadata trimmed to name, namespace, UID
// and resourceVersion (trimSecretMetadata), never the data. The data is read with the uncached
// API reader, only for the Secrets an instance names, when its reconcile computes the pod
// template's hash (secretsHash). A Secret's event (created, changed, deleted) is mapped at once to
// the Memcacheds that name it through the SecretsIndex field index (retried when that fails:
// secretEvents), so a Secret that appears
// late or is rotated is seen within the watch latency, without a resync. Caching Secrets by a
// label selector would hide Secrets users did not label; a field selector cannot list names.
func (r *MemcachedReconciler) SetupWithManager(mgr ctrl.Manager) error {
	pause, err := predicate.NewPause[client.Object](cachev1alpha1.PauseAnnotation)
	if err != nil {
		return fmt.Errorf("failed to build pause predicate: %w", err)
	}
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &cachev1alpha1.Memcached{}, SecretsIndex, indexSecrets); err != nil {
		return fmt.Errorf("failed to index Memcacheds by Secret: %w", err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(mgr.GetConfig())
	if err != nil {
		return fmt.Errorf("failed to create discovery client: %w", err)
	}
	interval := r.ServiceMonitorPollInterval
	if interval <= 0 {
		interval = DefaultServiceMonitorPollInterval
	}
	pods, err := cache.NewPodCache(mgr, r.Namespaces)
	if err != nil {
		return err
	}
	// The pod informer is created when the controller starts its watch (source.Kind below), not
	// now: the watch waits for it to sync at most CacheSyncTimeout and then stops the manager with
	// an error, where an informer created before the start would have the manager wait for it
	// without a limit (a pod cache that cannot list, e.g. for lack of RBAC, would hang it).
	if err := mgr.Add(cache.PodCache{Cache: pods}); err != nil {
		return fmt.Errorf("failed to add the pod cache: %w", err)
	}
	r.pods = pods
	events := make(chan event.GenericEvent)
	r.monitoringKinds = map[string]*monitoringKindWatch{}
	for kind, object := range map[string]func() client.Object{
		monitoringv1.ServiceMonitorsKind: func() client.Object { return &monitoringv1.ServiceMonitor{} },
		monitoringv1.PrometheusRuleKind:  func() client.Object { return &monitoringv1.PrometheusRule{} },
	} {
		r.monitoringKinds[kind] = &monitoringKindWatch{
			kind: kind, object: object,
			discovery: dc, interval: interval, cache: mgr.GetCache(), reader: mgr.GetCache(), events: events,
			recorder: r.Recorder,
		}
	}
	c, err := ctrl.NewControllerManagedBy(mgr).
		Named(ControllerName).
		WithOptions(controller.Options{MaxConcurrentReconciles: r.MaxConcurrentReconciles}).
		For(&cachev1alpha1.Memcached{}, builder.WithPredicates(pause, memcachedChanged)).
		Watches(&cachev1alpha1.Memcached{}, enqueueAfter(itself), builder.WithPredicates(pause, memcachedUpdated)).
		Watches(&appsv1.Deployment{}, enqueueAfter(controllerOf)).
		Watches(&appsv1.StatefulSet{}, enqueueAfter(controllerOf)).
		Watches(&corev1.Service{}, enqueueAfter(controllerOf)).
		Watches(&policyv1.PodDisruptionBudget{}, enqueueAfter(controllerOf)).
		Watches(&networkingv1.NetworkPolicy{}, enqueueAfter(controllerOf)).
		WatchesRawSource(source.Kind[client.Object](pods, &podview.Pod{}, enqueueAfter(cache.PodToMemcached))).
		Watches(&corev1.Secret{}, secretEvents(mgr.GetCache()), builder.OnlyMetadata).
		WatchesRawSource(source.Channel(events, &handler.EnqueueRequestForObject{})).
		Build(r)
	if err != nil {
		return err
	}
	for kind, w := range r.monitoringKinds {
		w.controller = c
		if err := mgr.Add(w); err != nil {
			return fmt.Errorf("failed to add the %s watch: %w", kind, err)
		}
	}
	return nil
}
