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

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/resources"
	"github.com/example/memcached-operator/controllers/status"
)

// scope is what one reconcile of one Memcached knows, filled phase by phase: the read phase fills
// read and obs with what exists, the apply or fail-closed phase adds to obs what it wrote and what
// stopped it, and the report phase computes the status from obs alone.
type scope struct {
	// mc is the Memcached as the cache holds it; key names it.
	mc  *cachev1alpha1.Memcached
	key types.NamespacedName
	// read is what the plan (resources.DesiredState) takes of the cluster.
	read resources.Read
	// apply: the spec is accepted, its Secrets are usable and the workloads were read, so the
	// desired state is applied. failClosed: the spec is refused and what a stop needs was read.
	apply, failClosed bool
	// hasNetworkPolicy: the instance's NetworkPolicy exists and is ours (read for failClosed only).
	hasNetworkPolicy bool
	// rollout is what a StatefulSet with warm restarts needs to move its servers (nil: nothing to
	// move); serverRequeue is when to look at them again (0: on the next event).
	rollout       *serverRollout
	serverRequeue time.Duration
	// obs is what the status is computed from.
	obs status.Observed
	// hold is how long the status waits before it is written (statusHolds; 0: written or equal).
	hold time.Duration
	// degradedReason is the reason of the Degraded condition reported (the outcome metric's label).
	degradedReason string
}

// reconcileFunc is a phase of a reconcile. What it finds, even a failure to read or write an
// object, it records in the scope for the status to report; it returns an error only when the
// reconcile cannot go on.
type reconcileFunc func(ctx context.Context, s *scope) error

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

// reconcile is Reconcile's body: fetch, then the phases in order over one scope, then the requeue
// the scope calls for.
func (r *MemcachedReconciler) reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	s, err := r.fetch(ctx, req)
	if s == nil || err != nil {
		return ctrl.Result{}, err
	}
	phases := []struct {
		do  string
		run reconcileFunc
	}{
		{"read what exists", r.readPhase},               // read.go: the only reads of the cluster
		{"apply the desired state", r.applyPhase},       // apply_phase.go: a spec accepted
		{"update the servers", r.updateServersPhase},    // serverupdate.go: warm restarts
		{"stop unprotected servers", r.failClosedPhase}, // failclosed.go: a spec refused
		{"report the status", r.reportPhase},            // report.go: status, hold, events
	}
	for _, phase := range phases {
		if err := phase.run(ctx, s); err != nil {
			return ctrl.Result{}, fmt.Errorf("failed to %s of Memcached %s: %w", phase.do, s.key, err)
		}
		if s.obs.Terminating {
			// The namespace is being deleted and the Memcached with it: nothing to converge.
			logf.FromContext(ctx).V(1).Info("Namespace is terminating; not recreating owned objects")
			return ctrl.Result{}, nil
		}
	}
	return r.requeue(s)
}

// fetch returns the scope of the Memcached req names, validated (validateSpec), or nil when there
// is nothing to reconcile: it is gone (its remembered state is dropped), being deleted, or paused
// (cachev1alpha1.PauseAnnotation).
func (r *MemcachedReconciler) fetch(ctx context.Context, req ctrl.Request) (*scope, error) {
	mc := &cachev1alpha1.Memcached{}
	if err := r.Get(ctx, req.NamespacedName, mc); err != nil {
		if apierrors.IsNotFound(err) {
			r.held.release(req.NamespacedName)
			r.missing.forget(req.NamespacedName)
			return nil, nil
		}
		return nil, fmt.Errorf("failed to get Memcached %s: %w", req.NamespacedName, err)
	}
	if !mc.DeletionTimestamp.IsZero() {
		return nil, nil
	}
	if mc.Paused() {
		logf.FromContext(ctx).V(1).Info("Reconciliation paused", "annotation", cachev1alpha1.PauseAnnotation)
		return nil, nil
	}
	return &scope{mc: mc, key: req.NamespacedName, obs: status.Observed{Invalid: validateSpec(mc)}}, nil
}
