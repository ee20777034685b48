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

package status

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// readyCondition computes Ready from the three conditions it summarizes: True (reason Ready, the
// message of Available) when the instance is Available, not Progressing and not Degraded; else
// False with the reason and message of the first of these that stands in the way: Degraded=True
// (what is wrong says most), Available=False, Progressing=True (ready pods, but a rollout or a
// scale-down is still under way).
func readyCondition(available, progressing, degraded conditionState) conditionState {
	switch {
	case degraded.status == metav1.ConditionTrue:
		return conditionState{metav1.ConditionFalse, degraded.reason, degraded.message}
	case available.status != metav1.ConditionTrue:
		return conditionState{metav1.ConditionFalse, available.reason, available.message}
	case progressing.status == metav1.ConditionTrue:
		return conditionState{metav1.ConditionFalse, progressing.reason, progressing.message}
	default:
		return conditionState{metav1.ConditionTrue, cachev1alpha1.ReasonReady, available.message}
	}
}

// reconcilingCondition computes kstatus' Reconciling: True while the operator is still
// converging and nothing needs a change by someone (not stalled): Progressing=True (with its
// reason and message), or Degraded with ReconcileError (an API call failed; the operator retries).
// Otherwise False with AsExpected. Stalled wins over Reconciling: a rollout whose new pods crash
// is stalled, and kstatus reads Reconciling first.
func reconcilingCondition(progressing, degraded conditionState) conditionState {
	switch {
	case stalled(degraded):
		return conditionState{metav1.ConditionFalse, cachev1alpha1.ReasonAsExpected, "the operator waits for a change: see Stalled"}
	case degraded.status == metav1.ConditionTrue:
		return conditionState{metav1.ConditionTrue, degraded.reason, degraded.message}
	case progressing.status == metav1.ConditionTrue:
		return conditionState{metav1.ConditionTrue, progressing.reason, progressing.message}
	default:
		return conditionState{metav1.ConditionFalse, cachev1alpha1.ReasonAsExpected, "the instance has converged"}
	}
}

// stalledCondition computes kstatus' Stalled: True with Degraded's reason and message when the
// instance is degraded for a reason a retry does not fix (every reason but ReconcileError: an
// invalid spec, a missing Secret, a conflict, pods that cannot be created, scheduled or started),
// else False with AsExpected.
func stalledCondition(degraded conditionState) conditionState {
	if stalled(degraded) {
		return conditionState{metav1.ConditionTrue, degraded.reason, degraded.message}
	}
	return conditionState{metav1.ConditionFalse, cachev1alpha1.ReasonAsExpected, "nothing keeps the operator from converging"}
}

// stalled reports whether degraded says the operator cannot converge without a change by someone.
func stalled(degraded conditionState) bool {
	return degraded.status == metav1.ConditionTrue && degraded.reason != cachev1alpha1.ReasonReconcileError
}
