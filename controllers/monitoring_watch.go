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
	"strings"
	"sync/atomic"
	"time"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/source"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"

	"github.com/example/memcached-operator/controllers/resources"
	"github.com/example/memcached-operator/internal/platform"
)

// DefaultServiceMonitorPollInterval is how often the operator asks API discovery whether the
// ServiceMonitor and PrometheusRule CRDs have been installed, until they have
// (MemcachedReconciler.ServiceMonitorPollInterval).
const DefaultServiceMonitorPollInterval = 10 * time.Second

// monitoringKindWatch starts the operator's management of one kind of monitoring.coreos.com/v1
// (ServiceMonitor, PrometheusRule: one watch each, as a cluster may install one CRD and not the
// other) once the cluster serves it, whether that is at start or later: no restart is needed
// when the Prometheus Operator is installed after the memcached operator. The rest of this
// comment says ServiceMonitor; it holds for each kind.
//
// How it detects the CRD: it asks API discovery (GET /apis/monitoring.coreos.com/v1) at start and
// then every interval until the kind is served. Discovery is readable by every authenticated user
// (the system:discovery ClusterRole), so this needs no RBAC at all; watching the
// CustomResourceDefinition instead would need a cluster-scoped rule on customresourcedefinitions in
// the CSV's clusterPermissions, for a delay of a few seconds saved once in the operator's life.
// Steady state: one discovery GET per interval and kind (the removal check below), no write.
//
// Once the kind is served it adds a watch of ServiceMonitors to the running controller
// (Controller.Watch after start starts the source at once) through the manager's cache, so the
// informer is scoped to the namespaces of WATCH_NAMESPACE like every other one (the cache cannot
// also filter ServiceMonitors by label: its per-kind options are resolved through the REST mapper
// when it is created, and the kind may not exist then). The controller-runtime REST mapper finds
// the new kind by itself (it reloads a group on a no-match). Then it marks ServiceMonitors
// available and queues every Memcached with monitoring on, so their ServiceMonitors are created
// without waiting for another change. Until then the reconciler neither reads nor writes
// ServiceMonitors: a Memcached with monitoring on gets its exporter and metrics port, and no
// error.
//
// While the kind is managed, discovery is asked every interval whether it is still served (one GET
// per interval). When the CRD is removed (prometheus-operator uninstalled), the operator stops
// managing the kind quietly: it marks it unavailable, removes the informer (whose lists would fail
// and log at every back-off), and sends each Memcached with monitoring on one Warning event,
// MonitoringUnavailable; the reconciler then skips the kind as before it was installed, with no
// error. When the CRD returns it is taken up again as at first: the watch is added back and the
// instances are queued, so their objects are recreated within an interval.
type monitoringKindWatch struct {
	// kind is the Kind watched ("ServiceMonitor"), object returns an empty one.
	kind       string
	object     func() client.Object
	discovery  discovery.DiscoveryInterface
	interval   time.Duration
	cache      cache.Cache
	reader     client.Reader
	controller controller.Controller
	// events feeds the controller's channel source (shared by the kinds' watches): one
	// GenericEvent per Memcached to reconcile.
	events chan event.GenericEvent
	// recorder sends the MonitoringUnavailable event (nil: none, as in unit tests).
	recorder  events.EventRecorder
	available atomic.Bool
}

// Available reports whether the kind is served and watched. A nil watch (a
// reconciler built without SetupWithManager, as in unit tests) reports false.
func (w *monitoringKindWatch) Available() bool { return w != nil && w.available.Load() }

// NeedLeaderElection implements manager.LeaderElectionRunnable: only the leader reconciles, so
// only the leader needs to know.
func (w *monitoringKindWatch) NeedLeaderElection() bool { return true }

// Start polls discovery until the kind is served, then starts the watch (see the
// type's comment). It returns nil when ctx is cancelled, and an error only when the watch cannot
// be added, which stops the manager: the operator would otherwise silently manage nothing.
func (w *monitoringKindWatch) Start(ctx context.Context) error {
	log := logf.FromContext(ctx).WithName(strings.ToLower(w.kind))
	gv := monitoringv1.SchemeGroupVersion.String()
	ticker := time.NewTicker(w.interval)
	defer ticker.Stop()
	logged := false
	for {
		served, err := w.served(gv)
		switch {
		case err != nil:
			log.Error(err, "Failed to look up the kind in API discovery; retrying", "kind", w.kind, "groupVersion", gv)
		case served && !w.available.Load():
			if err := w.startWatch(ctx); err != nil {
				return err
			}
			logged = false
		case !served && w.available.Load():
			if err := w.stopWatch(ctx); err != nil {
				return err
			}
			log.Info("CRD removed: not managing the kind until it returns", "kind", w.kind, "groupVersion", gv, "pollInterval", w.interval.String())
			logged = true
		case !served && !logged:
			log.Info("CRD not installed: not managing the kind until it is", "kind", w.kind, "groupVersion", gv, "pollInterval", w.interval.String())
			logged = true
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}

// served reports whether discovery lists the kind in group version gv (platform.KindServed).
func (w *monitoringKindWatch) served(gv string) (bool, error) {
	return platform.KindServed(w.discovery, gv, w.kind)
}

// startWatch adds the kind's watch, marks the kind available and queues every Memcached
// whose spec turns monitoring on.
func (w *monitoringKindWatch) startWatch(ctx context.Context) error {
	log := logf.FromContext(ctx).WithName(strings.ToLower(w.kind))
	if err := w.controller.Watch(source.Kind(w.cache, w.object(), enqueueAfter(controllerOf))); err != nil {
		return fmt.Errorf("failed to watch %ss: %w", w.kind, err)
	}
	w.available.Store(true)
	log.Info("CRD found: managing the kind", "kind", w.kind)
	monitored, err := w.monitored(ctx)
	if err != nil {
		return err
	}
	for _, mc := range monitored {
		select {
		case w.events <- event.GenericEvent{Object: mc}:
		case <-ctx.Done():
			return nil
		}
	}
	return nil
}

// stopWatch marks the kind unavailable, removes its informer and tells each Memcached with
// monitoring on, in one Warning event, that its objects of the kind are no longer managed.
func (w *monitoringKindWatch) stopWatch(ctx context.Context) error {
	w.available.Store(false)
	if err := w.cache.RemoveInformer(ctx, w.object()); err != nil {
		return fmt.Errorf("failed to remove the %s informer: %w", w.kind, err)
	}
	monitored, err := w.monitored(ctx)
	if err != nil {
		return err
	}
	if w.recorder == nil {
		return nil
	}
	for _, mc := range monitored {
		w.recorder.Eventf(mc, nil, corev1.EventTypeWarning, cachev1alpha1.ReasonMonitoringUnavailable, "Unmanage",
			"the %s API (%s) is no longer served: %ss are not managed until it returns", w.kind, monitoringv1.SchemeGroupVersion, w.kind)
	}
	return nil
}

// monitored returns the Memcacheds whose spec turns monitoring on.
func (w *monitoringKindWatch) monitored(ctx context.Context) ([]*cachev1alpha1.Memcached, error) {
	list := &cachev1alpha1.MemcachedList{}
	if err := w.reader.List(ctx, list); err != nil {
		return nil, fmt.Errorf("failed to list Memcacheds: %w", err)
	}
	var out []*cachev1alpha1.Memcached
	for i := range list.Items {
		if resources.MonitoringEnabled(&list.Items[i]) {
			out = append(out, &list.Items[i])
		}
	}
	return out, nil
}
