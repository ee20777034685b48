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
	"errors"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kstatus "sigs.k8s.io/cli-utils/pkg/kstatus/status"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/internal/podview"

	"github.com/example/memcached-operator/controllers/internal/fixture"
)

func TestSummaryConditions(t *testing.T) {
	const (
		T = metav1.ConditionTrue
		F = metav1.ConditionFalse
	)
	availableTrue := conditionState{T, cachev1alpha1.ReasonAllReplicasReady, "3 of 3 pods ready"}
	availableFalse := conditionState{F, cachev1alpha1.ReasonReplicasNotReady, "1 of 3 updated pods ready (3 pods exist)"}
	progressingTrue := conditionState{T, cachev1alpha1.ReasonRolloutInProgress, "1 of 3 updated pods ready (3 pods exist)"}
	progressingFalse := conditionState{F, cachev1alpha1.ReasonRolloutComplete, "3 pods of the current template are ready"}
	degradedFalse := conditionState{F, cachev1alpha1.ReasonAsExpected, "the instance converges"}
	crashing := conditionState{T, cachev1alpha1.ReasonContainerFailing, "pod c-1: container memcached: CrashLoopBackOff"}
	apiError := conditionState{T, cachev1alpha1.ReasonReconcileError, "failed to patch Service ns/c: etcd leader changed"}
	tests := map[string]struct {
		available, progressing, degraded conditionState
		ready, reconciling, stalled      conditionState
	}{
		"converged": {
			availableTrue, progressingFalse, degradedFalse,
			conditionState{T, cachev1alpha1.ReasonReady, availableTrue.message}, conditionState{F, cachev1alpha1.ReasonAsExpected, ""}, conditionState{F, cachev1alpha1.ReasonAsExpected, ""},
		},
		"rolling out, not available yet": {
			availableFalse, progressingTrue, degradedFalse,
			availableFalse, progressingTrue, conditionState{F, cachev1alpha1.ReasonAsExpected, ""},
		},
		"available, a scale-down still under way": {
			availableTrue, progressingTrue, degradedFalse,
			conditionState{F, progressingTrue.reason, progressingTrue.message}, progressingTrue, conditionState{F, cachev1alpha1.ReasonAsExpected, ""},
		},
		"a rollout whose new pods crash is stalled, not reconciling": {
			availableTrue, progressingTrue, crashing,
			conditionState{F, crashing.reason, crashing.message}, conditionState{F, cachev1alpha1.ReasonAsExpected, ""}, crashing,
		},
		"an API error is retried: reconciling, not stalled": {
			availableTrue, progressingFalse, apiError,
			conditionState{F, apiError.reason, apiError.message}, apiError, conditionState{F, cachev1alpha1.ReasonAsExpected, ""},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			for _, c := range []struct {
				name      string
				got, want conditionState
			}{
				{"Ready", readyCondition(tc.available, tc.progressing, tc.degraded), tc.ready},
				{"Reconciling", reconcilingCondition(tc.progressing, tc.degraded), tc.reconciling},
				{"Stalled", stalledCondition(tc.degraded), tc.stalled},
			} {
				fixture.Expect(t, c.name+" status", c.got.status, c.want.status)
				fixture.Expect(t, c.name+" reason", c.got.reason, c.want.reason)
				if c.want.message != "" {
					fixture.Expect(t, c.name+" message", c.got.message, c.want.message)
				} else if c.got.message == "" {
					t.Errorf("%s has no message", c.name)
				}
			}
		})
	}
}

// contractCase is a Memcached whose status ComputeStatus computed for generation 4 from obs, and
// what tools that read the status contract must make of it.
type contractCase struct {
	obs Observed
	// generation is metadata.generation after the status was computed (0: still 4).
	generation int64
	// paused: the instance carries the pause annotation.
	paused bool
	// kstatus is what kstatus computes; argo what Argo CD's health check (config/argocd) returns.
	kstatus kstatus.Status
	argo    string
}

// contractCases are the states a GitOps tool must tell apart: converging, converged, failing in a
// way only a change fixes, retrying an API error, a new spec not acted on yet, paused.
func contractCases() map[string]contractCase {
	three := []podview.Pod{fixture.Pod("c-1", "10.244.0.1", true), fixture.Pod("c-2", "10.244.0.2", true), fixture.Pod("c-3", "10.244.0.3", true)}
	replicaFailure := fixture.Deployment(3, 0, 0, 0, true)
	replicaFailure.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue, Message: "exceeded quota"}}
	converged := Observed{Deployment: fixture.Deployment(3, 3, 3, 3, true), Pods: three, ServiceOwned: true}
	return map[string]contractCase{
		"converging: pods not ready yet": {
			obs:     Observed{Deployment: fixture.Deployment(3, 3, 3, 1, true), Pods: append(three[:1:1], fixture.Pod("c-2", "", false), fixture.Pod("c-3", "", false)), ServiceOwned: true},
			kstatus: kstatus.InProgressStatus, argo: "Progressing",
		},
		"converged": {obs: converged, kstatus: kstatus.CurrentStatus, argo: "Healthy"},
		"pods cannot be created": {
			obs: Observed{Deployment: replicaFailure}, kstatus: kstatus.FailedStatus, argo: "Degraded",
		},
		"invalid spec of a running instance": {
			obs:     Observed{Invalid: errors.New("spec.resources ..."), Deployment: fixture.Deployment(3, 3, 3, 3, true), Pods: three, ServiceOwned: true},
			kstatus: kstatus.FailedStatus, argo: "Degraded",
		},
		"an API error the operator retries": {
			obs:     Observed{Deployment: fixture.Deployment(3, 3, 3, 3, true), Pods: three, Err: errors.New("failed to patch Service ns/c: timeout")},
			kstatus: kstatus.InProgressStatus, argo: "Progressing",
		},
		"converged, then the spec changed and was not acted on yet": {
			obs: converged, generation: 5, kstatus: kstatus.InProgressStatus, argo: "Progressing",
		},
		"paused after a spec change": {
			obs: converged, generation: 5, paused: true, kstatus: kstatus.InProgressStatus, argo: "Suspended",
		},
	}
}

// object returns tc's Memcached as the API server serves it.
func (tc contractCase) object(t *testing.T) (*cachev1alpha1.Memcached, *unstructured.Unstructured) {
	t.Helper()
	mc := fixture.Defaulted("c", func(mc *cachev1alpha1.Memcached) { mc.Spec.Size = 3; mc.Generation = 4 })
	mc.Status = ComputeStatus(mc, tc.obs, metav1.NewTime(time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)))
	if tc.generation != 0 {
		mc.Generation = tc.generation
	}
	if tc.paused {
		mc.Annotations = map[string]string{cachev1alpha1.PauseAnnotation: "true"}
	}
	mc.SetGroupVersionKind(cachev1alpha1.GroupVersion.WithKind("Memcached"))
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(mc)
	if err != nil {
		t.Fatal(err)
	}
	return mc, &unstructured.Unstructured{Object: obj}
}

// TestKstatusReadsTheStatus reads the statuses of contractCases with kstatus itself
// (sigs.k8s.io/cli-utils/pkg/kstatus, what Flux's health checks and kpt use).
func TestKstatusReadsTheStatus(t *testing.T) {
	for name, tc := range contractCases() {
		t.Run(name, func(t *testing.T) {
			mc, u := tc.object(t)
			res, err := kstatus.Compute(u)
			if err != nil {
				t.Fatal(err)
			}
			fixture.Expect(t, "kstatus ("+res.Message+")", res.Status, tc.kstatus)
			if tc.generation == 0 { // Ready describes the generation the status was computed for
				ready := meta.FindStatusCondition(mc.Status.Conditions, cachev1alpha1.ConditionReady)
				fixture.Expect(t, "Ready", ready.Status == metav1.ConditionTrue, tc.kstatus == kstatus.CurrentStatus)
			}
		})
	}
}
