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

// progressingCondition computes Progressing: True while the Deployment has not reached spec.size
// ready pods of the current template and nothing stops it. Its reasons:
//
//   - RolloutInProgress (True): creating, scaling or rolling (ro.progress), or the Deployment
//     does not exist yet;
//   - WaitingForGarbageCollection (True): no Deployment yet, a deleted namesake's objects are
//     still there;
//   - RolloutComplete (False): exactly spec.size pods, all current and ready;
//   - ResourceConflict (False): no Deployment, and a foreign object holds a name;
//   - InvalidSpec, SecretNotFound or InvalidSecret (False): nothing converges until the spec or
//     the Secret is fixed, Deployment or not.
func progressingCondition(obs Observed, ro rollout) conditionState {
	switch {
	case !ro.exists && len(obs.Conflicts) > 0:
		return conditionState{metav1.ConditionFalse, cachev1alpha1.ReasonResourceConflict, conflictMessage(obs)}
	case obs.Invalid != nil:
		return conditionState{metav1.ConditionFalse, invalidReason(obs.Invalid), invalidMessage(obs)}
	case !ro.exists && len(obs.Waiting) > 0:
		return conditionState{metav1.ConditionTrue, cachev1alpha1.ReasonWaitingForGC, waitingMessage(obs)}
	case !ro.exists:
		return conditionState{metav1.ConditionTrue, cachev1alpha1.ReasonRolloutInProgress, ro.missingMessage()}
	case ro.done:
		return conditionState{metav1.ConditionFalse, cachev1alpha1.ReasonRolloutComplete, fmt.Sprintf("%d pods of the current template are ready", ro.want)}
	default:
		return conditionState{metav1.ConditionTrue, cachev1alpha1.ReasonRolloutInProgress, ro.progress}
	}
}
