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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// degradedCondition computes Degraded: True when the operator cannot converge the instance, with
// the first of these reasons that applies:
//
//   - ResourceConflict: a foreign object holds a name the instance needs (the message names it);
//   - InvalidSpec, SecretNotFound or InvalidSecret: the spec or a Secret it names is unusable;
//   - ReconcileError: an API call failed (the message says which);
//   - ReplicaFailure: the Deployment cannot create pods (quota, admission);
//   - ProgressDeadlineExceeded: the Deployment's rollout is stuck;
//
// otherwise False with AsExpected.
func degradedCondition(obs observed) conditionState {
	dep := obs.deployment
	switch {
	case len(obs.conflicts) > 0:
		return conditionState{metav1.ConditionTrue, cachev1alpha1.ReasonResourceConflict, conflictMessage(obs)}
	case obs.invalid != nil:
		return conditionState{metav1.ConditionTrue, invalidReason(obs.invalid), obs.invalid.Error()}
	case obs.err != nil:
		return conditionState{metav1.ConditionTrue, cachev1alpha1.ReasonReconcileError, obs.err.Error()}
	}
	if dep == nil {
		return conditionState{metav1.ConditionFalse, cachev1alpha1.ReasonAsExpected, "the instance converges"}
	}
	if c := deploymentCondition(dep, appsv1.DeploymentReplicaFailure, corev1.ConditionTrue); c != nil {
		return conditionState{metav1.ConditionTrue, cachev1alpha1.ReasonReplicaFailure, c.Message}
	}
	if c := deploymentCondition(dep, appsv1.DeploymentProgressing, corev1.ConditionFalse); c != nil {
		return conditionState{metav1.ConditionTrue, cachev1alpha1.ReasonProgressDeadline, c.Message}
	}
	return conditionState{metav1.ConditionFalse, cachev1alpha1.ReasonAsExpected, "the instance converges"}
}

// deploymentCondition returns dep's condition of type t when it has status s, else nil.
func deploymentCondition(dep *appsv1.Deployment, t appsv1.DeploymentConditionType, s corev1.ConditionStatus) *appsv1.DeploymentCondition {
	for i := range dep.Status.Conditions {
		if c := &dep.Status.Conditions[i]; c.Type == t && c.Status == s {
			return c
		}
	}
	return nil
}
