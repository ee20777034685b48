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
*/package status

import (
	"errors"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"

	"github.com/example/memcached-operator/controllers/internal/fixture"
)

func TestProgressingCondition(t *testing.T) {
	tests := map[string]struct {
		obs  Observed
		ro   rollout
		want conditionState
	}{
		"rolled out":                   {obs: Observed{Deployment: dep3}, ro: ready3, want: conditionState{"False", cachev1alpha1.ReasonRolloutComplete, "3 pods of the current template are ready"}},
		"available, old pod left":      {obs: Observed{Deployment: dep3}, ro: surging3, want: conditionState{"True", cachev1alpha1.ReasonRolloutInProgress, surging3.progress}},
		"starting":                     {obs: Observed{Deployment: dep3}, ro: starting3, want: conditionState{"True", cachev1alpha1.ReasonRolloutInProgress, starting3.progress}},
		"no Deployment yet":            {ro: rollout{kind: "Deployment"}, want: conditionState{"True", cachev1alpha1.ReasonRolloutInProgress, "the memcached Deployment does not exist yet"}},
		"conflict, no Deployment":      {obs: Observed{Conflicts: []string{"Deployment c"}}, want: conditionState{"False", cachev1alpha1.ReasonResourceConflict, "Deployment c already exists and is not owned by this Memcached; delete or rename it"}},
		"conflict on the PDB, rolling": {obs: Observed{Deployment: dep3, Conflicts: []string{"PodDisruptionBudget c"}}, ro: starting3, want: conditionState{"True", cachev1alpha1.ReasonRolloutInProgress, starting3.progress}},
		"invalid spec, no Deployment":  {obs: Observed{Invalid: invalid}, want: conditionState{"False", cachev1alpha1.ReasonInvalidSpec, invalid.Error()}},
		"invalid spec, mid-rollout":    {obs: Observed{Deployment: dep3, Invalid: invalid}, ro: starting3, want: conditionState{"False", cachev1alpha1.ReasonInvalidSpec, invalid.Error()}},
		"Secret missing, rolled out":   {obs: Observed{Deployment: dep3, Invalid: noSecret}, ro: ready3, want: conditionState{"False", cachev1alpha1.ReasonSecretNotFound, noSecret.Message}},
		"waiting for the collector":    {obs: Observed{Waiting: []string{"Deployment c"}}, want: conditionState{"True", cachev1alpha1.ReasonWaitingForGC, "Deployment c still belong to a deleted Memcached of the same name; waiting for the garbage collector"}},
		"apply error, rolling":         {obs: Observed{Deployment: dep3, Err: errors.New("boom")}, ro: starting3, want: conditionState{"True", cachev1alpha1.ReasonRolloutInProgress, starting3.progress}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			expectSame(t, "Progressing", progressingCondition(tc.obs, tc.ro), tc.want)
		})
	}
}

func TestRolloutOf(t *testing.T) {
	tests := map[string]struct {
		dep             func() *appsv1.Deployment
		replicas, ready int32
		available, done bool
		progress        string
	}{
		"no Deployment":             {dep: func() *appsv1.Deployment { return nil }},
		"rolled out":                {dep: func() *appsv1.Deployment { return fixture.Deployment(3, 3, 3, 3, true) }, replicas: 3, ready: 3, available: true, done: true, progress: "3 of 3 updated pods ready (3 pods exist)"},
		"status of an old spec":     {dep: func() *appsv1.Deployment { return fixture.Deployment(3, 3, 3, 3, false) }, replicas: 3, ready: 3, progress: "3 of 3 updated pods ready (3 pods exist)"},
		"replicas not yet spec":     {dep: func() *appsv1.Deployment { return fixture.Deployment(2, 2, 2, 2, true) }, replicas: 2, ready: 2, progress: "2 of 3 updated pods ready (2 pods exist)"},
		"old pod left":              {dep: func() *appsv1.Deployment { return fixture.Deployment(3, 4, 3, 3, true) }, replicas: 4, ready: 4, progress: "3 of 3 updated pods ready (4 pods exist)"},
		"surge pod being removed":   {dep: func() *appsv1.Deployment { return fixture.Deployment(3, 3, 3, 3, true) }, replicas: 4, ready: 3, available: true, progress: "3 of 3 updated pods ready (4 pods exist)"},
		"pods not ready":            {dep: func() *appsv1.Deployment { return fixture.Deployment(3, 3, 3, 3, true) }, replicas: 3, ready: 1, progress: "1 of 3 updated pods ready (3 pods exist)"},
		"available below spec.size": {dep: func() *appsv1.Deployment { return fixture.Deployment(3, 3, 3, 2, true) }, replicas: 3, ready: 3, progress: "3 of 3 updated pods ready (3 pods exist)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			mc := fixture.Defaulted("c", func(mc *cachev1alpha1.Memcached) { mc.Spec.Size = 3 })
			dep := tc.dep()
			ro := rolloutOf(mc, Observed{Deployment: dep}, tc.replicas, tc.ready)
			expectSame(t, "rollout", ro, rollout{exists: dep != nil, kind: "Deployment", want: 3, replicas: tc.replicas, ready: tc.ready, available: tc.available, done: tc.done, progress: tc.progress})
		})
	}
}
