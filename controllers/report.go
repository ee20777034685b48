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
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/status"
)

// reportPhase computes the status from the scope alone (status.ComputeStatus over s.obs) and
// writes it (patchStatus: at most one patch, held while it only waits for the workload's own
// status, and the events of the conditions that turned). A missing pod that this reconcile's
// writes settled is dropped first (settleMissingPod).
func (r *MemcachedReconciler) reportPhase(ctx context.Context, s *scope) error {
	if settleMissingPod(&s.obs) {
		r.missing.forget(s.key)
	}
	st := status.ComputeStatus(s.mc, s.obs, metav1.Now())
	hold, err := r.patchStatus(ctx, s.mc, st, s.obs)
	if err != nil {
		return err
	}
	s.hold = hold
	s.degradedReason = meta.FindStatusCondition(st.Conditions, cachev1alpha1.ConditionDegraded).Reason
	return nil
}

// requeue returns when the instance of s is reconciled again, counts the reconcile's outcome
// (reconcileOutcomes), and returns the failures of s.obs.Err (read or applied) as the reconcile's
// error, after the status has reported them:
//   - a conflict with a foreign object: conflictRetry (the operator does not watch it);
//   - an object waiting for the garbage collector: gcRetry (its deletion reaches no watch of ours);
//   - a pod the StatefulSet misses: missingPodRetry (its controller's events reach no watch);
//   - sooner when the status is held (statusHolds) or a terminating pod's grace period ends
//     (status.NextTerminatingCheck).
func (r *MemcachedReconciler) requeue(s *scope) (ctrl.Result, error) {
	var res ctrl.Result
	obs := s.obs
	switch {
	case len(obs.Conflicts) > 0:
		reconcileOutcomes.WithLabelValues("error", s.degradedReason).Inc()
		res.RequeueAfter = conflictRetry
	case len(obs.Waiting) > 0:
		reconcileOutcomes.WithLabelValues("success", s.degradedReason).Inc()
		res.RequeueAfter = gcRetry
	case obs.Err != nil:
		reconcileOutcomes.WithLabelValues("error", s.degradedReason).Inc()
		return ctrl.Result{}, obs.Err
	case obs.MissingPod != "":
		reconcileOutcomes.WithLabelValues("success", s.degradedReason).Inc()
		res.RequeueAfter = missingPodRetry
	default:
		reconcileOutcomes.WithLabelValues("success", s.degradedReason).Inc()
	}
	if s.hold > 0 && (res.RequeueAfter == 0 || s.hold < res.RequeueAfter) {
		res.RequeueAfter = s.hold
	}
	if s.serverRequeue > 0 && (res.RequeueAfter == 0 || s.serverRequeue < res.RequeueAfter) {
		res.RequeueAfter = s.serverRequeue
	}
	if next := status.NextTerminatingCheck(obs.Pods, time.Now()); next > 0 && (res.RequeueAfter == 0 || next < res.RequeueAfter) {
		res.RequeueAfter = next
	}
	return res, nil
}

// statusHolds remembers, by instance (types.NamespacedName), when its status was first held. The
// zero value is ready to use.
type statusHolds struct{ m sync.Map }

// wait returns how long the status now, a change of before computed for the instance key from
// obs, waits before it is written (0: write it now). A status that is status.WorthWaiting waits
// for the workload's own status, at most statusHoldMax from the reconcile that first held it; any
// other status is written at once and ends the wait.
func (h *statusHolds) wait(key types.NamespacedName, before, now cachev1alpha1.MemcachedStatus, obs status.Observed, t time.Time) time.Duration {
	if !status.WorthWaiting(before, now, obs) {
		h.m.Delete(key)
		return 0
	}
	first, _ := h.m.LoadOrStore(key, t)
	if wait := statusHoldMax - t.Sub(first.(time.Time)); wait > 0 {
		return wait
	}
	h.m.Delete(key)
	return 0
}

// release ends the hold of the instance key: its status was written, needs no write, or it is gone.
func (h *statusHolds) release(key types.NamespacedName) { h.m.Delete(key) }

// patchStatus writes st, computed from obs, to mc with a merge patch when it differs from
// mc.Status and need not wait (statusHolds; it then returns the wait and writes nothing), and
// emits a Warning event when Degraded turns True and a Normal one when Available turns True while
// Degraded was True (the recovery from a failure an event reported). A new instance turning
// Available, or one back after pods were only replaced, gets no event: the condition's
// lastTransitionTime says it, and each event is an API write the sample does not make (that
// event alone would double the events of a converging instance; docs/performance.md). The patch
// carries no resourceVersion: the operator is the only writer of status, so it never conflicts.
func (r *MemcachedReconciler) patchStatus(ctx context.Context, mc *cachev1alpha1.Memcached, st cachev1alpha1.MemcachedStatus, obs status.Observed) (time.Duration, error) {
	key := client.ObjectKeyFromObject(mc)
	if equality.Semantic.DeepEqual(mc.Status, st) {
		r.held.release(key)
		return 0, nil
	}
	if hold := r.held.wait(key, mc.Status, st, obs, time.Now()); hold > 0 {
		return hold, nil
	}
	base := mc.DeepCopy()
	old := base.Status
	mc.Status = st
	if err := r.Status().Patch(ctx, mc, client.MergeFrom(base)); apierrors.IsNotFound(err) {
		// Deleted while this reconcile ran (its namespace too, often): there is no status left
		// to report, and the deletion is an event of its own.
		logf.FromContext(ctx).V(1).Info("Memcached deleted before its status was written", "Memcached", key)
		r.held.release(key)
		return 0, nil
	} else if err != nil {
		return 0, fmt.Errorf("failed to patch status: %w", err)
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

// maxEventNoteBytes is the longest note an events.k8s.io/v1 Event may carry: the API server refuses
// a longer one (NoteLengthLimit, 1 KiB, in k8s.io/kubernetes pkg/apis/events/validation), and the
// recorder then drops the event with only a log line.
const maxEventNoteBytes = 1024

// eventNote returns msg when it fits in an Event's note, else its longest prefix that ends on a
// character boundary and, with "…" appended, fits in maxEventNoteBytes bytes: a condition's message
// may be up to 32 KiB, and an event about it must still be emitted.
func eventNote(msg string) string {
	if len(msg) <= maxEventNoteBytes {
		return msg
	}
	const ellipsis = "…"
	return status.Truncate(msg, maxEventNoteBytes-len(ellipsis)) + ellipsis
}
