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
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	crpredicate "sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/operator-framework/operator-lib/predicate"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/apply"
	"github.com/example/memcached-operator/internal/podview"

	"github.com/example/memcached-operator/controllers/cache"
	"github.com/example/memcached-operator/controllers/resources"
	"github.com/example/memcached-operator/controllers/status"
)

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

// MemcachedReconciler reconciles Memcached objects into a Deployment, a headless Service and a
// PodDisruptionBudget, and reports their state in the Memcached's status.
type MemcachedReconciler struct {
	// Client reads from the manager's cache and writes to the API server.
	client.Client
	// APIReader reads from the API server directly (used only to identify foreign objects).
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

	// held maps an instance (types.NamespacedName) to when its status was first held
	// (statusHold).
	held sync.Map
	// missing maps an instance (types.NamespacedName) to the pod its StatefulSet misses and when
	// that was first seen (a missingPod; missingSince).
	missing sync.Map
}

// RBAC (docs/security.md has each verb's reason): no update verb on any kind. Every write is a
// create, a patch of what differs (apply.Object), a delete with a UID precondition
// (apply.DeleteIfOwned) or a status patch. memcacheds/finalizers update is what an owner reference
// with blockOwnerDeletion requires (the OwnerReferencesPermissionEnforcement admission plugin).
// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds,verbs=get;list;watch
// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds/status,verbs=get;patch
// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds/finalizers,verbs=update
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=apps,resources=statefulsets,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=core,resources=services,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=policy,resources=poddisruptionbudgets,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=networking.k8s.io,resources=networkpolicies,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=core,resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups=core,resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=monitoring.coreos.com,resources=servicemonitors,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=monitoring.coreos.com,resources=prometheusrules,verbs=get;list;watch;create;patch;delete

// Reconcile brings one Memcached to its desired state and writes its status. It is idempotent and
// makes no API write when nothing changed. Objects the Memcached owns are garbage-collected through
// their owner references, so no finalizer is needed and deletion never blocks.
//
// A reconcile cut short because the manager is stopping (its context cancelled: SIGTERM, an
// upgrade, lost leadership) is abandoned, not failed: whoever leads next reconciles every instance
// when it starts, so it is logged at debug level and not returned as an error (controller-runtime
// would log "Reconciler error" on every routine shutdown that interrupts a reconcile).
func (r *MemcachedReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	res, err := r.reconcile(ctx, req)
	if err != nil && ctx.Err() != nil {
		logf.FromContext(ctx).V(1).Info("Reconcile interrupted: the manager is stopping", "error", err.Error())
		return ctrl.Result{}, nil
	}
	return res, err
}

// reconcile is Reconcile's body.
func (r *MemcachedReconciler) reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)

	mc := &cachev1alpha1.Memcached{}
	if err := r.Get(ctx, req.NamespacedName, mc); err != nil {
		if apierrors.IsNotFound(err) {
			r.held.Delete(req.NamespacedName)
			r.missing.Delete(req.NamespacedName)
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("failed to get Memcached %s: %w", req.NamespacedName, err)
	}
	if !mc.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	if mc.Paused() {
		log.V(1).Info("Reconciliation paused", "annotation", cachev1alpha1.PauseAnnotation)
		return ctrl.Result{}, nil
	}

	obs := status.Observed{Invalid: validateSpec(mc)}
	var hash resources.SecretHashes
	if obs.Invalid == nil {
		// Read before anything is written: a Secret that is missing or unusable leaves every owned
		// object as it is (nothing half-rolled), like an invalid spec.
		var err error
		hash, err = secretsHash(ctx, r.APIReader, mc)
		var se *resources.SecretError
		switch {
		case errors.As(err, &se):
			obs.Invalid = se
		case err != nil:
			obs.Err = err
		}
	}
	switch {
	case obs.Invalid == nil && obs.Err == nil:
		r.applyDesiredState(ctx, mc, hash, &obs)
	case obs.Invalid != nil:
		r.failClosed(ctx, mc, &obs)
	}
	if obs.Terminating {
		// The namespace is being deleted and the Memcached with it: nothing to converge.
		log.V(1).Info("Namespace is terminating; not recreating owned objects")
		return ctrl.Result{}, nil
	}
	r.observe(ctx, mc, &obs)

	st := status.ComputeStatus(mc, obs, metav1.Now())
	hold, err := r.patchStatus(ctx, mc, st, obs)
	if err != nil {
		return ctrl.Result{}, err
	}

	degraded := meta.FindStatusCondition(st.Conditions, cachev1alpha1.ConditionDegraded)
	var res ctrl.Result
	switch {
	case len(obs.Conflicts) > 0:
		reconcileOutcomes.WithLabelValues("error", degraded.Reason).Inc()
		res.RequeueAfter = conflictRetry
	case len(obs.Waiting) > 0:
		// The garbage collector's deletions of objects we do not own reach no watch of ours.
		reconcileOutcomes.WithLabelValues("success", degraded.Reason).Inc()
		res.RequeueAfter = gcRetry
	case obs.Err != nil:
		reconcileOutcomes.WithLabelValues("error", degraded.Reason).Inc()
		return ctrl.Result{}, obs.Err
	case obs.MissingPod != "":
		reconcileOutcomes.WithLabelValues("success", degraded.Reason).Inc()
		res.RequeueAfter = missingPodRetry
	default:
		reconcileOutcomes.WithLabelValues("success", degraded.Reason).Inc()
	}
	if hold > 0 && (res.RequeueAfter == 0 || hold < res.RequeueAfter) {
		res.RequeueAfter = hold
	}
	if next := status.NextTerminatingCheck(obs.Pods, time.Now()); next > 0 && (res.RequeueAfter == 0 || next < res.RequeueAfter) {
		res.RequeueAfter = next
	}
	return res, nil
}

// statusHold returns how long the status now, a change of before computed for the instance key
// from obs, waits before it is written (0: write it now). A status that is status.WorthWaiting
// waits for the workload's own status, at most statusHoldMax from the reconcile that first held
// it; any other status is written at once and ends the wait.
func (r *MemcachedReconciler) statusHold(key types.NamespacedName, before, now cachev1alpha1.MemcachedStatus, obs status.Observed, t time.Time) time.Duration {
	if !status.WorthWaiting(before, now, obs) {
		r.held.Delete(key)
		return 0
	}
	first, _ := r.held.LoadOrStore(key, t)
	if wait := statusHoldMax - t.Sub(first.(time.Time)); wait > 0 {
		return wait
	}
	r.held.Delete(key)
	return 0
}

// applyDesiredState creates or corrects every object of resources.DesiredState (the Deployment,
// Service, PodDisruptionBudget, NetworkPolicy and ServiceMonitor of mc), deletes the optional ones
// the spec turns off, and records in obs what it wrote and what stopped it. Each object is handled
// even when another fails, so one conflict does not hide the rest. It is called only for a valid
// spec whose Secrets are usable: otherwise everything is left as it is. secretHash holds the hashes
// of the Secret data the pods use (secretsHash).
func (r *MemcachedReconciler) applyDesiredState(ctx context.Context, mc *cachev1alpha1.Memcached, secretHash resources.SecretHashes, obs *status.Observed) {
	obs.Applied = true
	// What this reconcile created or updated, by result: one event each, not one per object (a new
	// instance's three creates are one change to its user, and an event is an API write: 3 of the
	// 4.6 writes per instance the operator made when converging in make bench-scale).
	changed := map[apply.Result][]string{}
	related := map[apply.Result][]client.Object{}
	defer func() {
		for _, res := range []apply.Result{apply.Created, apply.Updated, apply.Restored} {
			if len(changed[res]) == 0 {
				continue
			}
			var rel runtime.Object
			if len(related[res]) == 1 {
				rel = related[res][0]
			}
			note := "%s %s"
			if res == apply.Restored {
				note += ": the labels the operator sets had been removed; they are back, and the object follows the spec again"
			}
			r.Recorder.Eventf(mc, rel, corev1.EventTypeNormal, string(res), "Apply", note,
				strings.Join(changed[res], ", "), strings.ToLower(string(res)))
		}
	}()
	record := func(kind string, obj client.Object, res apply.Result, err error) {
		var ce *apply.ConflictError
		switch {
		case errors.As(err, &ce):
			obs.Conflicts = append(obs.Conflicts, ce.Kind+" "+ce.Name)
		case errors.Is(err, apply.ErrNamespaceTerminating):
			obs.Terminating = true
		case errors.Is(err, apply.ErrWaitingForGC):
			obs.Waiting = append(obs.Waiting, kind+" "+obj.GetName())
		case err != nil:
			obs.Err = errors.Join(obs.Err, err)
		case res != apply.Unchanged:
			logf.FromContext(ctx).Info("Applied "+kind, kind, klog.KObj(obj), "result", res)
			changed[res] = append(changed[res], kind+" "+obj.GetName())
			related[res] = append(related[res], obj)
		}
	}

	handover, err := r.handover(ctx, mc)
	if err != nil {
		obs.Err = errors.Join(obs.Err, err)
		return
	}
	for _, d := range resources.DesiredState(mc, r.Options, secretHash, cache.RestoreDeployment, handover) {
		// Only while the cluster serves the kind (monitoringKindWatch): without the CRD there is
		// nothing to create, read or delete, and that is not an error.
		if d.OptionalAPI && !r.monitoringKinds[d.Kind].Available() {
			continue
		}
		if d.Absent {
			r.deleteDisabled(ctx, mc, d.Kind, d.Object, d.DeleteReason, obs)
			continue
		}
		live, res, err := d.Apply(ctx, r.Client, r.APIReader, r.Scheme, mc)
		record(d.Kind, live, res, err)
		switch live := live.(type) {
		case *appsv1.Deployment:
			if err == nil {
				obs.Deployment = live
			}
		case *appsv1.StatefulSet:
			if err == nil {
				obs.StatefulSet = live
			}
		case *corev1.Service:
			obs.ServiceOwned = err == nil
		}
	}
}

// observe completes obs with what exists, read from the cache: the pods of mc and, when nothing
// was applied (an invalid spec), its Deployment if ours and whether its Service is ours. After an
// apply, the copies apply returned are newer than the cache's, so they are kept.
func (r *MemcachedReconciler) observe(ctx context.Context, mc *cachev1alpha1.Memcached, obs *status.Observed) {
	key := client.ObjectKey{Namespace: mc.Namespace, Name: resources.DeploymentName(mc)}
	if !obs.Applied {
		dep, sts, err := r.workloads(ctx, mc)
		if err == nil && dep != nil {
			err = cache.RestoreDeployment(dep)
		}
		if err != nil {
			obs.Err = errors.Join(obs.Err, err)
		}
		obs.Deployment, obs.StatefulSet = dep, sts
		svc := &corev1.Service{}
		if err := r.Get(ctx, key, svc); err == nil {
			obs.ServiceOwned = metav1.IsControlledBy(svc, mc)
		} else if !apierrors.IsNotFound(err) {
			obs.Err = errors.Join(obs.Err, fmt.Errorf("failed to get Service %s: %w", key, err))
		}
	}
	if r.pods == nil {
		obs.Err = errors.Join(obs.Err, errors.New("failed to list Pods: the pod cache is not set up (SetupWithManager)"))
		return
	}
	pods := &podview.PodList{}
	if err := r.pods.List(ctx, pods, client.InNamespace(mc.Namespace), client.MatchingLabelsSelector{Selector: resources.PodSelector(mc)}); err != nil {
		obs.Err = errors.Join(obs.Err, fmt.Errorf("failed to list Pods of Memcached %s: %w", key, err))
	}
	obs.Pods = pods.Items
	mcKey := client.ObjectKeyFromObject(mc)
	if sts := obs.StatefulSet; sts != nil {
		if obs.MissingPod = lowestMissingPod(sts, obs.Pods); obs.MissingPod != "" {
			since := r.missingSince(mcKey, sts, obs.MissingPod, time.Now())
			reported := ""
			if d := meta.FindStatusCondition(mc.Status.Conditions, cachev1alpha1.ConditionDegraded); d != nil && d.Reason == cachev1alpha1.ReasonReplicaFailure {
				reported = d.Message
			}
			msg, err := r.podCreateFailure(ctx, sts, obs.MissingPod, since, reported)
			obs.PodCreateFailure = msg
			obs.Err = errors.Join(obs.Err, err)
		}
	}
	if obs.MissingPod == "" {
		r.missing.Delete(mcKey)
	}
}

// workloads returns mc's Deployment and StatefulSet from the cache, each nil when it does not
// exist or is not mc's. The Deployment is as the cache holds it: its owner references, replicas and
// status decoded, its labels and spec encoded (cache.RestoreDeployment decodes them), which is all
// the handover reads, so a reconcile decodes the spec once, in apply.
func (r *MemcachedReconciler) workloads(ctx context.Context, mc *cachev1alpha1.Memcached) (*appsv1.Deployment, *appsv1.StatefulSet, error) {
	var errs error
	dep := &appsv1.Deployment{}
	key := client.ObjectKey{Namespace: mc.Namespace, Name: resources.DeploymentName(mc)}
	err := r.Get(ctx, key, dep)
	if err != nil || !metav1.IsControlledBy(dep, mc) {
		if err != nil && !apierrors.IsNotFound(err) {
			errs = fmt.Errorf("failed to get Deployment %s: %w", key, err)
		}
		dep = nil
	}
	sts := &appsv1.StatefulSet{}
	key.Name = resources.StatefulSetName(mc)
	err = r.Get(ctx, key, sts)
	if err != nil || !metav1.IsControlledBy(sts, mc) {
		if err != nil && !apierrors.IsNotFound(err) {
			errs = errors.Join(errs, fmt.Errorf("failed to get StatefulSet %s: %w", key, err))
		}
		sts = nil
	}
	return dep, sts, errs
}

// handover returns what exists of mc's two workloads, the input of a move between them
// (resources.NewHandover).
func (r *MemcachedReconciler) handover(ctx context.Context, mc *cachev1alpha1.Memcached) (resources.Handover, error) {
	dep, sts, err := r.workloads(ctx, mc)
	if err != nil {
		return resources.Handover{}, err
	}
	return resources.NewHandover(mc, dep, sts), nil
}

// deleteDisabled deletes an optional object of mc that its spec turned off; reason ends the
// event ("disabled in spec" when empty).
func (r *MemcachedReconciler) deleteDisabled(ctx context.Context, mc *cachev1alpha1.Memcached, kind string, obj client.Object, reason string, obs *status.Observed) {
	deleted, err := apply.DeleteIfOwned(ctx, r.Client, mc, kind, obj)
	if err != nil {
		obs.Err = errors.Join(obs.Err, err)
		return
	}
	if deleted {
		logf.FromContext(ctx).Info("Deleted disabled "+kind, kind, klog.KObj(obj))
		if reason == "" {
			reason = "disabled in spec"
		}
		r.Recorder.Eventf(mc, obj, corev1.EventTypeNormal, "Deleted", "Delete", "%s %s deleted: %s", kind, obj.GetName(), reason)
	}
}

// patchStatus writes st, computed from obs, to mc with a merge patch when it differs from
// mc.Status and need not wait (statusHold; it then returns the wait and writes nothing), and emits
// a Warning event when Degraded turns True and a Normal one when Available turns True while Degraded
// was True (the recovery from a failure an event reported). A new instance turning Available, or
// one back after pods were only replaced, gets no event: the condition's lastTransitionTime says
// it, and that event was half the operator's events at scale (2.00 per instance converging in make
// bench-scale, 1.00 without it), each an API write the sample does not make. The patch carries no
// resourceVersion: the operator is the only writer of status, so it never conflicts.
func (r *MemcachedReconciler) patchStatus(ctx context.Context, mc *cachev1alpha1.Memcached, st cachev1alpha1.MemcachedStatus, obs status.Observed) (time.Duration, error) {
	key := client.ObjectKeyFromObject(mc)
	if equality.Semantic.DeepEqual(mc.Status, st) {
		r.held.Delete(key)
		return 0, nil
	}
	if hold := r.statusHold(key, mc.Status, st, obs, time.Now()); hold > 0 {
		return hold, nil
	}
	base := mc.DeepCopy()
	old := base.Status
	mc.Status = st
	if err := r.Status().Patch(ctx, mc, client.MergeFrom(base)); apierrors.IsNotFound(err) {
		// Deleted while this reconcile ran (its namespace too, often): there is no status left
		// to report, and the deletion is an event of its own.
		logf.FromContext(ctx).V(1).Info("Memcached deleted before its status was written", "Memcached", key)
		r.held.Delete(key)
		return 0, nil
	} else if err != nil {
		return 0, fmt.Errorf("failed to patch status of Memcached %s: %w", key, err)
	}
	if c := becameTrue(old.Conditions, st.Conditions, cachev1alpha1.ConditionDegraded); c != nil {
		r.Recorder.Eventf(mc, nil, corev1.EventTypeWarning, c.Reason, "Reconcile", "%s", eventNote(c.Message))
	}
	if c := becameTrue(old.Conditions, st.Conditions, cachev1alpha1.ConditionAvailable); c != nil &&
		meta.IsStatusConditionTrue(old.Conditions, cachev1alpha1.ConditionDegraded) {
		r.Recorder.Eventf(mc, nil, corev1.EventTypeNormal, c.Reason, "Reconcile", "%s", eventNote(c.Message))
	}
	return 0, nil
}

// becameTrue returns the condition of type t in now when it is True there and was not True before.
func becameTrue(before, now []metav1.Condition, t string) *metav1.Condition {
	if meta.IsStatusConditionTrue(before, t) || !meta.IsStatusConditionTrue(now, t) {
		return nil
	}
	return meta.FindStatusCondition(now, t)
}

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
