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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"

	"github.com/example/memcached-operator/controllers/internal/fixture"
	"github.com/example/memcached-operator/controllers/resources"
)

// cases of the condition functions: the observed state and the rollout they read.
var (
	ready3    = rollout{exists: true, kind: "Deployment", want: 3, replicas: 3, ready: 3, available: true, done: true, progress: "3 of 3 updated pods ready (3 pods exist)"}
	surging3  = rollout{exists: true, kind: "Deployment", want: 3, replicas: 4, ready: 4, available: true, progress: "3 of 3 updated pods ready (4 pods exist)"}
	starting3 = rollout{exists: true, kind: "Deployment", want: 3, replicas: 1, ready: 0, progress: "0 of 3 updated pods ready (1 pods exist)"}
	dep3      = fixture.Deployment(3, 3, 3, 3, true)
	invalid   = errors.New("spec.size: Invalid value: 0")
	noSecret  = &resources.SecretError{Reason: cachev1alpha1.ReasonSecretNotFound, Message: "Secret tls not found (referenced by spec.tls.secretName)"}
)

func TestAvailableCondition(t *testing.T) {
	tests := map[string]struct {
		obs  Observed
		ro   rollout
		want conditionState
	}{
		"all ready":                   {obs: Observed{Deployment: dep3}, ro: ready3, want: conditionState{"True", cachev1alpha1.ReasonAllReplicasReady, "3 of 3 pods ready"}},
		"old pod still there":         {obs: Observed{Deployment: dep3}, ro: surging3, want: conditionState{"True", cachev1alpha1.ReasonAllReplicasReady, "4 of 3 pods ready"}},
		"not ready yet":               {obs: Observed{Deployment: dep3}, ro: starting3, want: conditionState{"False", cachev1alpha1.ReasonReplicasNotReady, starting3.progress}},
		"no Deployment yet":           {ro: rollout{kind: "Deployment"}, want: conditionState{"False", cachev1alpha1.ReasonDeploymentNotFound, "the memcached Deployment does not exist yet"}},
		"conflict, no Deployment":     {obs: Observed{Conflicts: []string{"Deployment c"}}, want: conditionState{"False", cachev1alpha1.ReasonResourceConflict, "Deployment c already exists and is not owned by this Memcached; delete or rename it"}},
		"conflict on the Service":     {obs: Observed{Deployment: dep3, Conflicts: []string{"Service c"}}, ro: ready3, want: conditionState{"True", cachev1alpha1.ReasonAllReplicasReady, "3 of 3 pods ready"}},
		"invalid spec, no Deployment": {obs: Observed{Invalid: invalid}, want: conditionState{"False", cachev1alpha1.ReasonInvalidSpec, invalid.Error()}},
		"invalid spec, serving":       {obs: Observed{Deployment: dep3, Invalid: invalid}, ro: ready3, want: conditionState{"True", cachev1alpha1.ReasonAllReplicasReady, "3 of 3 pods ready"}},
		"Secret missing, new":         {obs: Observed{Invalid: noSecret}, want: conditionState{"False", cachev1alpha1.ReasonSecretNotFound, noSecret.Message}},
		// Pods still terminating after a stop do not make it available.
		"Secret missing, stopped": {obs: Observed{Deployment: dep3, Invalid: noSecret, Stopped: []string{"authentication (spec.auth)"}}, ro: ready3,
			want: conditionState{"False", cachev1alpha1.ReasonSecretNotFound, noSecret.Message + "; the servers are stopped (0 replicas) because they lacked authentication (spec.auth), which the spec asks for: they start with it once the spec is accepted"}},
		"waiting for the collector": {obs: Observed{Waiting: []string{"Deployment c", "Service c"}}, want: conditionState{"False", cachev1alpha1.ReasonWaitingForGC, "Deployment c, Service c still belong to a deleted Memcached of the same name; waiting for the garbage collector"}},
		"apply error, serving":      {obs: Observed{Deployment: dep3, Err: errors.New("boom")}, ro: ready3, want: conditionState{"True", cachev1alpha1.ReasonAllReplicasReady, "3 of 3 pods ready"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			expectSame(t, "Available", availableCondition(tc.obs, tc.ro), tc.want)
		})
	}
}

// An invalid spec keeps Progressing False whatever the Deployment does, so its lastTransitionTime
// stays put and a repeated observation writes nothing (it moved on every reconcile while the
// conditions were set in interleaved switches that first set it True).
func TestComputeStatusInvalidSpecIsSteady(t *testing.T) {
	t0 := metav1.Now()
	mc := fixture.Defaulted("c")
	obs := Observed{Invalid: invalid, Deployment: fixture.Deployment(1, 0, 0, 0, false)}
	mc.Status = ComputeStatus(mc, obs, t0)
	later := metav1.NewTime(t0.Add(3600e9))
	fixture.Expect(t, "status on a repeated observation", ComputeStatus(mc, obs, later), mc.Status)
}

// expectSame reports a test error when got is not want (values with unexported fields, which
// expect's semantic comparison refuses).
func expectSame[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %+v, want %+v", what, got, want)
	}
}
