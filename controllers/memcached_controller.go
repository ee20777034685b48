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
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/memcached-operator/controllers/resources"
)

// The Memcached controller, in rooms: this file declares the reconciler and its RBAC; reconcile.go
// is the reconcile as a list of phases over one scope; read.go (the only cluster reads),
// apply_phase.go and failclosed.go (the only writes of owned objects) and report.go (the status)
// are the phases; watches.go, secrets_watch.go, monitoring_watch.go and setup.go say what wakes a
// reconcile. Nothing here calls up: the phases use the reconciler's fields, and the packages below
// (resources, apply, status, cache) never call the reconciler.

const (
	// ControllerName names the controller in logs, events (reportingController) and metrics
	// (controller_runtime_reconcile_total{controller="memcached"}).
	ControllerName = "memcached"
	// conflictRetry is how often an instance blocked by a foreign object is retried: the operator
	// does not watch objects it does not manage, so it cannot learn when the blocker goes away.
	conflictRetry = 10 * time.Second
	// gcRetry is how often an instance waiting for the garbage collector is retried.
	gcRetry = 2 * time.Second
	// coalesceDelay is how long a change of a pod or an owned object waits in the work queue before
	// its instance is reconciled. The queue holds one entry per instance, so every change of a
	// burst (the Deployment's status, the ReplicaSet's three pods created and scheduled) lands in
	// one reconcile and one status write instead of one each; status still follows a pod change in
	// well under a second. A change of the Memcached's spec or pause annotation is reconciled at
	// once; its other updates, above all the operator's own status writes coming back, wait like
	// the pods' (memcachedChanged, memcachedUpdated).
	coalesceDelay = 250 * time.Millisecond
	// statusHoldMax is the longest a status that only adds ready pods waits for the workload's own
	// status (status.WorthWaiting): the workload's controller writes it within milliseconds on a
	// quiet cluster, so a status that waits longer is written anyway, and a client reading
	// serverList learns of a new server at most this much later.
	statusHoldMax = time.Second
)

// MemcachedReconciler reconciles each Memcached into the objects it owns, each controlled by the
// Memcached through an owner reference: a Deployment (spec.serverIdentity Ephemeral) or a
// StatefulSet (Stable; both during a change of it), a headless Service, a PodDisruptionBudget, a
// NetworkPolicy, and with spec.monitoring a ServiceMonitor and a PrometheusRule (while the cluster
// serves those kinds). It reads the pods of its instances and the Secrets spec.tls and spec.auth
// name, and reports their state in the Memcached's status and in events.
type MemcachedReconciler struct {
	// Client reads from the manager's cache and writes to the API server.
	client.Client
	// APIReader reads from the API server directly (the Secrets' data, the StatefulSet controller's
	// events, and foreign objects the cache does not hold).
	APIReader client.Reader
	// Scheme knows the Memcached and the owned kinds.
	Scheme *runtime.Scheme
	// Recorder emits events.k8s.io Events about a Memcached.
	Recorder events.EventRecorder
	// Options are the operator-wide builder inputs.
	Options resources.Options
	// MaxConcurrentReconciles is how many Memcacheds are reconciled at once (controller-runtime's
	// default, 1, when 0). One Memcached is never reconciled by two workers at once.
	MaxConcurrentReconciles int
	// ServiceMonitorPollInterval is how often API discovery is asked whether the ServiceMonitor and
	// PrometheusRule CRDs exist, until they do (DefaultServiceMonitorPollInterval when 0; see
	// monitoringKindWatch).
	ServiceMonitorPollInterval time.Duration
	// Namespaces are the namespaces the manager's cache watches (the argument of
	// cache.ManagerOptions; empty: all). The pod cache watches the same.
	Namespaces []string

	// pods reads the pod cache (cache.NewPodCache; set up by SetupWithManager).
	pods client.Reader

	// monitoringKinds tells, by kind, whether ServiceMonitors and PrometheusRules are served and
	// watched (set up by SetupWithManager).
	monitoringKinds map[string]*monitoringKindWatch

	// held remembers, by instance, when its status was first held (report.go).
	held statusHolds
	// missing remembers, by instance, the pod its StatefulSet misses and since when (podcreate.go).
	missing missingPods
}

// RBAC (docs/security.md has each verb's reason): no update verb on any kind. Every write is a
// create, a patch of what differs (apply.Object), a delete with a UID precondition
// (apply.DeleteIfOwned) or a status patch. memcacheds/finalizers update is what an owner reference
// with blockOwnerDeletion requires (the OwnerReferencesPermissionEnforcement admission plugin).
// Events are listed (never watched) only for the StatefulSet controller's FailedCreate events of a
// missing pod (read.go).
// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds,verbs=get;list;watch
// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds/status,verbs=get;patch
// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds/finalizers,verbs=update
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=apps,resources=statefulsets,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=core,resources=services,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=policy,resources=poddisruptionbudgets,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=networking.k8s.io,resources=networkpolicies,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=core,resources=pods,verbs=get;list;watch;patch;delete
// +kubebuilder:rbac:groups=apps,resources=controllerrevisions,verbs=get
// +kubebuilder:rbac:groups=core,resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups=core,resources=events,verbs=list
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=monitoring.coreos.com,resources=servicemonitors,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=monitoring.coreos.com,resources=prometheusrules,verbs=get;list;watch;create;patch;delete
