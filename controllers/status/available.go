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
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// availableCondition computes Available: True only when spec.size pods of the current template
// are ready and no old pod is left (ro.available). Its reasons:
//
//   - AllReplicasReady (True): "<ready> of <size> pods ready";
//   - ReplicasNotReady (False): the Deployment exists but has not got there (ro.progress);
//   - without a Deployment of ours, False with why: ResourceConflict (a foreign object holds a
//     name), InvalidSpec, SecretNotFound or InvalidSecret (nothing was applied),
//     WaitingForGarbageCollection (a deleted namesake's objects are still there), else
//     DeploymentNotFound.
//
// An invalid spec with a Deployment in place keeps describing that Deployment: it still serves,
// unless the servers were stopped because they lacked a protection the spec asks for
// (Observed.Stopped), which the message says.
func availableCondition(obs Observed, ro rollout) conditionState {
	switch {
	case !ro.exists && len(obs.Conflicts) > 0:
		return conditionState{metav1.ConditionFalse, cachev1alpha1.ReasonResourceConflict, conflictMessage(obs)}
	case (!ro.exists || len(obs.Stopped) > 0) && obs.Invalid != nil:
		return conditionState{metav1.ConditionFalse, invalidReason(obs.Invalid), invalidMessage(obs)}
	case !ro.exists && len(obs.Waiting) > 0:
		return conditionState{metav1.ConditionFalse, cachev1alpha1.ReasonWaitingForGC, waitingMessage(obs)}
	case !ro.exists:
		return conditionState{metav1.ConditionFalse, cachev1alpha1.ReasonDeploymentNotFound, ro.missingMessage()}
	case ro.available:
		return conditionState{metav1.ConditionTrue, cachev1alpha1.ReasonAllReplicasReady, fmt.Sprintf("%d of %d pods ready", ro.ready, ro.want)}
	default:
		return conditionState{metav1.ConditionFalse, cachev1alpha1.ReasonReplicasNotReady, ro.progress}
	}
}
