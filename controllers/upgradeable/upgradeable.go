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

// Package upgradeable is the operator's second controller: it publishes the OLM OperatorCondition
// "Upgradeable" from the Memcacheds' stored status. It depends only on the API.
package upgradeable

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/operator-framework/operator-lib/conditions"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

const (
	// ControllerName names the Upgradeable controller in logs and metrics.
	ControllerName = "upgradeable"
	// RetryInterval is how often a missing OperatorCondition is looked for again.
	RetryInterval = time.Minute
)

// Reasons of the OperatorCondition Upgradeable.
const (
	// ReasonNoRolloutInProgress: no watched Memcached is progressing; OLM may upgrade the operator.
	ReasonNoRolloutInProgress = "NoRolloutInProgress"
	// ReasonRolloutInProgress: some Memcached is progressing; OLM holds operator upgrades.
	ReasonRolloutInProgress = "RolloutInProgress"
)

// key is the one request of the Upgradeable controller: every Memcached event maps to it.
var key = reconcile.Request{NamespacedName: types.NamespacedName{Name: "upgradeable"}}

// Reconciler publishes the OLM OperatorCondition "Upgradeable" of the operator, computed
// from the manager's cache alone: False while any watched Memcached is progressing (so OLM holds an
// operator upgrade until the operands are stable), True otherwise. It is its own controller with a
// single key, so its reconciles never run concurrently and it keeps no shared state: what it
// publishes after a restart depends only on the Memcacheds' stored status, never on what this
// process has seen so far. See
// https://olm.operatorframework.io/docs/advanced-tasks/communicating-operator-conditions-to-olm/.
type Reconciler struct {
	// Reader reads Memcacheds from the manager's cache.
	client.Reader
	// Condition writes the OperatorCondition named by OPERATOR_CONDITION_NAME (operator-lib).
	Condition conditions.Condition

	// published is the status last written, "" before the first write; missingLogged is set once a
	// missing OperatorCondition has been logged. Only the controller's single worker uses them.
	published     metav1.ConditionStatus
	missingLogged bool
}

// Reconcile lists the watched Memcacheds and writes Upgradeable when it differs from what was last
// written. A missing OperatorCondition (deleted, or not yet created by OLM) is logged once and
// looked for again every RetryInterval.
func (r *Reconciler) Reconcile(ctx context.Context, _ ctrl.Request) (ctrl.Result, error) {
	list := &cachev1alpha1.MemcachedList{}
	if err := r.List(ctx, list); err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to list Memcacheds: %w", err)
	}
	status, reason, msg := upgradeable(list.Items)
	if status == r.published {
		return ctrl.Result{}, nil
	}
	log := logf.FromContext(ctx).WithValues("condition", "Upgradeable", "status", status)
	if err := r.Condition.Set(ctx, status, conditions.WithReason(reason), conditions.WithMessage(msg)); err != nil {
		if apierrors.IsNotFound(err) {
			if !r.missingLogged {
				log.Info("OperatorCondition not found: Upgradeable not reported until it exists", "error", err.Error())
				r.missingLogged = true
			}
			return ctrl.Result{RequeueAfter: RetryInterval}, nil
		}
		return ctrl.Result{}, fmt.Errorf("failed to set OperatorCondition Upgradeable=%s: %w", status, err)
	}
	log.Info("Set OperatorCondition", "reason", reason)
	r.published, r.missingLogged = status, false
	return ctrl.Result{}, nil
}

// upgradeable returns the Upgradeable condition for the Memcacheds mcs: False, naming them, when
// any is progressing, True otherwise. An instance progresses when its status says so or when its
// status does not describe its current spec yet (a new instance, or a spec changed while no
// operator ran). Paused and deleted instances are not acted upon, so they never hold an upgrade.
func upgradeable(mcs []cachev1alpha1.Memcached) (metav1.ConditionStatus, string, string) {
	var names []string
	for i := range mcs {
		mc := &mcs[i]
		if mc.Paused() || !mc.DeletionTimestamp.IsZero() {
			continue
		}
		if mc.Status.ObservedGeneration != mc.Generation || meta.IsStatusConditionTrue(mc.Status.Conditions, cachev1alpha1.ConditionProgressing) {
			names = append(names, mc.Namespace+"/"+mc.Name)
		}
	}
	if len(names) == 0 {
		return metav1.ConditionTrue, ReasonNoRolloutInProgress, "no Memcached instance is rolling out"
	}
	slices.Sort(names)
	return metav1.ConditionFalse, ReasonRolloutInProgress, "Memcached instances are rolling out: " + strings.Join(names, ", ")
}

// SetupWithManager registers the controller. Every Memcached event, and one event when it starts
// (after the cache has synced, so the first reconcile sees every instance), enqueue its one key.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	toKey := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{key}
	})
	start := make(chan event.GenericEvent, 1)
	start <- event.GenericEvent{Object: &cachev1alpha1.Memcached{}}
	return ctrl.NewControllerManagedBy(mgr).
		Named(ControllerName).
		Watches(&cachev1alpha1.Memcached{}, toKey).
		WatchesRawSource(source.Channel(start, toKey)).
		Complete(r)
}
