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
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// WorthWaiting reports whether writing now, a status computed from obs, may wait for the
// workload's own status: now differs from before only by pods and servers added (every condition
// keeps its status and reason, no pod or server left the lists), and the workload (the
// Deployment, or the StatefulSet of spec.serverIdentity Stable) counts fewer ready pods than the
// pods themselves show. Its controller is then about to write its status, which wakes the
// reconciler again, and the condition that status changes (Available, Progressing) and the pods
// that made it change land in one status write instead of two: the pods of a new instance turn
// ready a moment before the Deployment says so, and writing each step was 0.3-1 of the 2.3 status
// patches per instance a converge made (make bench-scale). A first status (no conditions yet) and
// a server that left are never held. The caller bounds the wait (statusHoldMax).
func WorthWaiting(before, now cachev1alpha1.MemcachedStatus, obs Observed) bool {
	if len(before.Conditions) == 0 {
		return false
	}
	for _, c := range now.Conditions {
		old := meta.FindStatusCondition(before.Conditions, c.Type)
		if old == nil || old.Status != c.Status || old.Reason != c.Reason {
			return false
		}
	}
	if !subset(before.ServerList, now.ServerList) || !subset(before.Nodes, now.Nodes) || now.ReadyReplicas < before.ReadyReplicas {
		return false
	}
	var workloadReady int32
	switch {
	case obs.Deployment != nil && obs.StatefulSet != nil:
		return false // moving between workloads: each step is news
	case obs.Deployment != nil:
		workloadReady = obs.Deployment.Status.ReadyReplicas
	case obs.StatefulSet != nil:
		workloadReady = obs.StatefulSet.Status.ReadyReplicas
	default:
		return false
	}
	return workloadReady < now.ReadyReplicas
}

// subset reports whether every element of a is in b.
func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}
