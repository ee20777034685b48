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

package resources

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// preStopDelaySeconds returns spec.gracefulShutdown.preStopDelaySeconds, or its default when unset
// (an object built in Go rather than read from the API server, which fills the CRD default).
func preStopDelaySeconds(mc *cachev1alpha1.Memcached) int32 {
	return ptr.Deref(mc.Spec.GracefulShutdown.PreStopDelaySeconds, cachev1alpha1.DefaultPreStopDelaySeconds)
}

// terminationGracePeriodSeconds returns the pods' terminationGracePeriodSeconds:
// spec.gracefulShutdown.terminationGracePeriodSeconds, or its default (30, the Pod API's) when
// unset. It is always set in the pod template, so a user's edit of the Deployment is drift.
func terminationGracePeriodSeconds(mc *cachev1alpha1.Memcached) *int64 {
	return ptr.To(int64(ptr.Deref(mc.Spec.GracefulShutdown.TerminationGracePeriodSeconds, cachev1alpha1.DefaultTerminationGracePeriodSeconds)))
}

// lifecycle returns the memcached container's lifecycle: a preStop hook that sleeps for the preStop
// delay (the kubelet's sleep action: the memcached image has no shell or sleep binary for an exec
// hook), or nil when the delay is 0, so an instance without a delay keeps the pod template it had
// before the field existed. The kubelet runs the hook when the pod is deleted and sends SIGTERM
// when it returns; the pod's endpoint is removed from the EndpointSlice meanwhile.
func lifecycle(mc *cachev1alpha1.Memcached) *corev1.Lifecycle {
	delay := preStopDelaySeconds(mc)
	if delay <= 0 {
		return nil
	}
	return &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: int64(delay)}}}
}
