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
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/memcached-operator/controllers/status"
	"github.com/example/memcached-operator/internal/podview"
)

// +kubebuilder:rbac:groups=core,resources=events,verbs=list

// missingPodRetry is how often an instance whose StatefulSet misses a pod is looked at again while
// it does: the StatefulSet controller's failed creates are retried and reported as events, which
// no watch of ours sees, and a StatefulSet has no condition that would change.
const missingPodRetry = 10 * time.Second

// podCreateFailureMax bounds the event message copied into the Degraded condition (an admission
// webhook's or policy's message can be long).
const podCreateFailureMax = 512

// lowestMissingPod returns the name of the lowest-ordinal pod sts should run and that is not
// among pods, or "" when none is missing or the StatefulSet controller has not acted on sts's
// current spec yet (status.observedGeneration behind metadata.generation).
func lowestMissingPod(sts *appsv1.StatefulSet, pods []podview.Pod) string {
	if sts.Status.ObservedGeneration < sts.Generation {
		return ""
	}
	have := make(map[string]bool, len(pods))
	for i := range pods {
		have[pods[i].Name] = true
	}
	for i := range ptr.Deref(sts.Spec.Replicas, 1) {
		if name := sts.Name + "-" + strconv.Itoa(int(i)); !have[name] {
			return name
		}
	}
	return ""
}

// podCreateFailure returns why sts cannot create pod: the message of the newest FailedCreate event
// the StatefulSet controller recorded for that pod ("Create Pod <pod> in StatefulSet <sts> failed
// error: ..."), cut to podCreateFailureMax bytes, or "" when there is none. It reads the API server
// directly (r.APIReader): the manager caches no events, and this runs only while a pod is missing.
// Why the lowest missing ordinal: the controller retries every missing pod, in parallel, and the
// message of one fixed pod stays the same from retry to retry, so the condition is written once.
func (r *MemcachedReconciler) podCreateFailure(ctx context.Context, sts *appsv1.StatefulSet, pod string) (string, error) {
	events := &corev1.EventList{}
	sel := fields.SelectorFromSet(fields.Set{"involvedObject.uid": string(sts.UID), "reason": "FailedCreate"})
	if err := r.APIReader.List(ctx, events, client.InNamespace(sts.Namespace), client.MatchingFieldsSelector{Selector: sel}); err != nil {
		return "", fmt.Errorf("failed to list the events of StatefulSet %s/%s: %w", sts.Namespace, sts.Name, err)
	}
	var newest *corev1.Event
	for i := range events.Items {
		e := &events.Items[i]
		if !strings.Contains(e.Message, "Pod "+pod+" ") {
			continue
		}
		if newest == nil || lastSeen(e).After(lastSeen(newest)) {
			newest = e
		}
	}
	if newest == nil {
		return "", nil
	}
	return status.Truncate(newest.Message, podCreateFailureMax), nil
}

// lastSeen is when e last happened: its series' last observation, else lastTimestamp, else
// eventTime (which of them a recorder fills depends on its API: core/v1 or events.k8s.io/v1).
func lastSeen(e *corev1.Event) time.Time {
	switch {
	case e.Series != nil && !e.Series.LastObservedTime.IsZero():
		return e.Series.LastObservedTime.Time
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	default:
		return e.EventTime.Time
	}
}
