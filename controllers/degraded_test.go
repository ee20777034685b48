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
*/package controllers

import (
	"errors"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

func TestDegradedCondition(t *testing.T) {
	withConditions := func(conds ...appsv1.DeploymentCondition) *appsv1.Deployment {
		d := deployment(1, 1, 0, 0, true)
		d.Status.Conditions = conds
		return d
	}
	stuck := appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded", Message: "timed out"}
	quota := appsv1.DeploymentCondition{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue, Message: "exceeded quota"}
	progressing := appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Message: "rolling"}
	fine := conditionState{"False", cachev1alpha1.ReasonAsExpected, "the instance converges"}
	tests := map[string]struct {
		obs  observed
		want conditionState
	}{
		"converging":                 {obs: observed{deployment: dep3}, want: fine},
		"no Deployment yet":          {want: fine},
		"waiting for the collector":  {obs: observed{waiting: []string{"Deployment c"}}, want: fine},
		"Deployment progressing":     {obs: observed{deployment: withConditions(progressing)}, want: fine},
		"conflict":                   {obs: observed{deployment: dep3, conflicts: []string{"Service c", "NetworkPolicy c"}}, want: conditionState{"True", cachev1alpha1.ReasonResourceConflict, "Service c, NetworkPolicy c already exists and is not owned by this Memcached; delete or rename it"}},
		"conflict beats an error":    {obs: observed{conflicts: []string{"Deployment c"}, err: errors.New("boom")}, want: conditionState{"True", cachev1alpha1.ReasonResourceConflict, "Deployment c already exists and is not owned by this Memcached; delete or rename it"}},
		"invalid spec":               {obs: observed{invalid: invalid}, want: conditionState{"True", cachev1alpha1.ReasonInvalidSpec, invalid.Error()}},
		"Secret missing":             {obs: observed{deployment: dep3, invalid: noSecret}, want: conditionState{"True", cachev1alpha1.ReasonSecretNotFound, noSecret.Message}},
		"apply error":                {obs: observed{deployment: withConditions(quota), err: errors.New("failed to patch Service ns/c: forbidden")}, want: conditionState{"True", cachev1alpha1.ReasonReconcileError, "failed to patch Service ns/c: forbidden"}},
		"pods cannot be created":     {obs: observed{deployment: withConditions(stuck, quota)}, want: conditionState{"True", cachev1alpha1.ReasonReplicaFailure, "exceeded quota"}},
		"rollout stuck":              {obs: observed{deployment: withConditions(stuck)}, want: conditionState{"True", cachev1alpha1.ReasonProgressDeadline, "timed out"}},
		"replica failure is cleared": {obs: observed{deployment: withConditions(appsv1.DeploymentCondition{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionFalse})}, want: fine},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			expectSame(t, "Degraded", degradedCondition(tc.obs), tc.want)
		})
	}
}
