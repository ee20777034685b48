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
	// GenerationLagHold is the longest a spec the operator has not acted on yet (its status's
	// observedGeneration behind metadata.generation, with no failure reported) holds an upgrade,
	// counted from when this process first saw it. The operator writes the status of a changed spec
	// within a reconcile (well under a second, make bench-scale), so a lag that lasts is the
	// operator failing to reconcile the instance at all (its status patch refused, a panic): a
	// failure the next release may fix, which must not hold that release forever. After a restart
	// the count starts again: the hold is longer, never unbounded.
	GenerationLagHold = 2 * time.Minute
	// maxNamed bounds the instances the message names (then "and N more").
	maxNamed = 10
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
// from the manager's cache: False while any watched Memcached is rolling out and not failing (see
// upgradeable for what an upgrade would make worse), True otherwise. It is its own controller
// with a single key, so its reconciles never run concurrently. What it publishes after a restart
// depends on the Memcacheds' stored status, and on what this process has seen only for how long a
// spec not acted on yet holds (GenerationLagHold). See
// https://olm.operatorframework.io/docs/advanced-tasks/communicating-operator-conditions-to-olm/.
type Reconciler struct {
	// Reader reads Memcacheds from the manager's cache.
	client.Reader
	// Condition writes the OperatorCondition named by OPERATOR_CONDITION_NAME (operator-lib).
	Condition conditions.Condition
	// ConditionName is that OperatorCondition's name, which the message of a hold names so that
	// an administrator can override it ("" names it generically).
	ConditionName string
	// Now returns the current time (time.Now when nil).
	Now func() time.Time

	// published and publishedMessage are what was last written ("" before the first write);
	// missingLogged is set once a missing OperatorCondition has been logged; lagSince maps an
	// instance whose status lags its spec to its generation and when this process first saw the
	// lag. Only the controller's single worker uses them.
	published        metav1.ConditionStatus
	publishedMessage string
	missingLogged    bool
	lagSince         map[types.UID]lag
}

// lag is a generation an instance's status has not caught up with, and since when.
type lag struct {
	generation int64
	since      time.Time
}

// Reconcile lists the watched Memcacheds and writes Upgradeable when it differs from what was last
// written. A missing OperatorCondition (deleted, or not yet created by OLM) is logged once and
// looked for again every RetryInterval. While a lagging spec holds the upgrade, it is reconciled
// again when that hold expires.
func (r *Reconciler) Reconcile(ctx context.Context, _ ctrl.Request) (ctrl.Result, error) {
	list := &cachev1alpha1.MemcachedList{}
	if err := r.List(ctx, list); err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to list Memcacheds: %w", err)
	}
	now := time.Now()
	if r.Now != nil {
		now = r.Now()
	}
	r.trackLag(list.Items, now)
	status, reason, msg, recheck := upgradeable(list.Items, r.lagSince, now, r.ConditionName)
	var res ctrl.Result
	if recheck > 0 {
		res.RequeueAfter = recheck
	}
	if status == r.published && msg == r.publishedMessage {
		return res, nil
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
	log.Info("Set OperatorCondition", "reason", reason, "message", msg)
	r.published, r.publishedMessage, r.missingLogged = status, msg, false
	return res, nil
}

// trackLag records, for each instance of mcs whose status lags its spec, when this process first
// saw that generation lag, and forgets the others.
func (r *Reconciler) trackLag(mcs []cachev1alpha1.Memcached, now time.Time) {
	seen := make(map[types.UID]lag, len(r.lagSince))
	for i := range mcs {
		mc := &mcs[i]
		if mc.Status.ObservedGeneration == mc.Generation {
			continue
		}
		l, ok := r.lagSince[mc.UID]
		if !ok || l.generation != mc.Generation {
			l = lag{generation: mc.Generation, since: now}
		}
		seen[mc.UID] = l
	}
	r.lagSince = seen
}

// upgradeable returns the Upgradeable condition for the Memcacheds mcs at now, and when to look
// again (0: on the next change). lagSince maps an instance to when its status was first seen
// behind its spec; conditionName names the OperatorCondition in the message.
//
// What an operator upgrade would make worse, read from the reconciler: the new operator's pod
// template may differ from this one's (a new sidecar, a new default), and a template change rolls
// every server again. While an instance is rolling out (Progressing=True, RolloutInProgress),
// whether a size change, a template change, or a move of its servers between the Deployment and
// the StatefulSet of spec.serverIdentity (both workloads exist and the old one is scaled down as
// the new one's servers become ready: resources.HandoverReplicas), an upgrade would start a second
// rollout over a half-done one and take down servers that are still warming up, or change the
// template of both workloads mid-move. So such an instance holds the upgrade, and so does a spec
// the operator has not acted on yet (observedGeneration behind generation), which is about to
// roll out, for at most GenerationLagHold.
//
// What an upgrade cannot make worse: an instance that is failing (Degraded=True: a crash loop, an
// invalid spec, a missing Secret, pods that cannot be created, a reconcile error). Its rollout does
// not advance, so there is nothing to interrupt, and the next release may be what fixes it: a
// failing instance never holds the upgrade. Nor do paused or deleted instances (not acted upon),
// nor one waiting for the garbage collector (nothing rolls out).
func upgradeable(mcs []cachev1alpha1.Memcached, lagSince map[types.UID]lag, now time.Time, conditionName string) (metav1.ConditionStatus, string, string, time.Duration) {
	var names []string
	var recheck time.Duration
	for i := range mcs {
		mc := &mcs[i]
		if mc.Paused() || !mc.DeletionTimestamp.IsZero() || meta.IsStatusConditionTrue(mc.Status.Conditions, cachev1alpha1.ConditionDegraded) {
			continue
		}
		if mc.Status.ObservedGeneration != mc.Generation {
			since := now
			if l, ok := lagSince[mc.UID]; ok && l.generation == mc.Generation {
				since = l.since
			}
			if left := GenerationLagHold - now.Sub(since); left > 0 {
				names = append(names, mc.Namespace+"/"+mc.Name)
				if recheck == 0 || left < recheck {
					recheck = left
				}
			}
			continue
		}
		if c := meta.FindStatusCondition(mc.Status.Conditions, cachev1alpha1.ConditionProgressing); c != nil &&
			c.Status == metav1.ConditionTrue && c.Reason == cachev1alpha1.ReasonRolloutInProgress {
			names = append(names, mc.Namespace+"/"+mc.Name)
		}
	}
	if len(names) == 0 {
		return metav1.ConditionTrue, ReasonNoRolloutInProgress, "no Memcached instance is rolling out", recheck
	}
	slices.Sort(names)
	return metav1.ConditionFalse, ReasonRolloutInProgress, holdMessage(names, conditionName), recheck
}

// holdMessage is the message of Upgradeable=False for the instances names (namespace/name,
// sorted): which instances hold the upgrade, and the two ways to release the hold before they
// finish.
func holdMessage(names []string, conditionName string) string {
	listed := strings.Join(names[:min(len(names), maxNamed)], ", ")
	if len(names) > maxNamed {
		listed += fmt.Sprintf(" and %d more", len(names)-maxNamed)
	}
	if conditionName == "" {
		conditionName = "<the operator's OperatorCondition>"
	}
	return fmt.Sprintf("Memcached instances are rolling out: %s. OLM upgrades the operator once they finish. "+
		"To upgrade now, pause them (annotate each with %s=true, and remove the annotation after the upgrade), "+
		"or override this condition in the operator's namespace: kubectl patch operatorcondition %s --type=merge "+
		`-p '{"spec":{"overrides":[{"type":"Upgradeable","status":"True","reason":"Override","message":"upgrade now"}]}}' `+
		"(remove the override afterwards, or it also releases later holds). A failing instance (Degraded=True) never holds an upgrade.",
		listed, cachev1alpha1.PauseAnnotation, conditionName)
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
