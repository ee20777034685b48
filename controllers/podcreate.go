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
	"strconv"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/example/memcached-operator/controllers/status"
	"github.com/example/memcached-operator/internal/podview"
)

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

// podEventSlack is how much earlier than the operator first saw a pod missing a FailedCreate
// event for it may have been last seen and still explain that absence. The StatefulSet
// controller tries to create the pod, and records the failure, as soon as its own watch sees the
// pod gone; the operator sees it after its pod watch, coalesceDelay and the wait in its work
// queue (seconds at scale: make bench-scale measured a mean wait of 36 s with one worker, well
// under that with the default four), and the two clocks (kube-controller-manager's and the
// operator's node) may differ by a few seconds.
const podEventSlack = 30 * time.Second

// missingPods remembers, by instance (types.NamespacedName), the pod its StatefulSet misses and
// when the reconciler first saw it missing (a missingPod). The zero value is ready to use.
type missingPods struct{ m sync.Map }

// missingPod is when the reconciler first saw a StatefulSet's pod missing (missingPods.since).
type missingPod struct {
	// sts is the StatefulSet's UID; pod the missing pod's name.
	sts types.UID
	pod string
	// since is when the reconciler first saw pod missing.
	since time.Time
}

// since returns when the reconciler first saw pod of sts missing, for the instance key: now,
// when it was not missing (or another pod was) at the instance's previous reconcile. The time is
// this process's: after a restart a pod missing for long counts as missing from then on, and a
// failure already reported is kept through its message (currentPodCreateFailure).
func (p *missingPods) since(key types.NamespacedName, sts *appsv1.StatefulSet, pod string, now time.Time) time.Time {
	if v, ok := p.m.Load(key); ok {
		if m := v.(missingPod); m.sts == sts.UID && m.pod == pod {
			return m.since
		}
	}
	p.m.Store(key, missingPod{sts: sts.UID, pod: pod, since: now})
	return now
}

// forget drops what is remembered of the instance key: no pod of it is missing, or it is gone.
func (p *missingPods) forget(key types.NamespacedName) { p.m.Delete(key) }

// settleMissingPod drops from obs the missing pod (and the failure read for it) that the
// StatefulSet written by this reconcile no longer misses, as lowestMissingPod tells from what is
// in obs: a StatefulSet whose spec the write changed has not been acted on by its controller yet,
// and one that is gone misses nothing. It reports whether it dropped one.
func settleMissingPod(obs *status.Observed) bool {
	if obs.MissingPod == "" || (obs.StatefulSet != nil && lowestMissingPod(obs.StatefulSet, obs.Pods) == obs.MissingPod) {
		return false
	}
	obs.MissingPod, obs.PodCreateFailure = "", ""
	return true
}

// currentPodCreateFailure returns the message, cut to podCreateFailureMax bytes, of the newest of
// events (FailedCreate events of StatefulSet stsName) about pod that explains its absence now:
// one last seen at most podEventSlack before since, when the operator first saw the pod missing.
// An older event is about an earlier absence (a quota long since raised, a pod that was created
// after it and has gone again since): reported as current it would be a false Degraded and a new
// Warning. The StatefulSet controller retries a failed create at once when the pod goes missing
// again, so a cause that persists is recorded anew. Kept whatever its age: an event whose message is
// the failure the instance already reports (reported, its Degraded message: "StatefulSet
// <sts>: <message>"), so a failure that persists through an operator restart stays reported.
func currentPodCreateFailure(events []corev1.Event, stsName, pod string, since time.Time, reported string) string {
	var newest *corev1.Event
	for i := range events {
		e := &events[i]
		if !strings.Contains(e.Message, "Pod "+pod+" ") {
			continue
		}
		msg := status.Truncate(e.Message, podCreateFailureMax)
		if lastSeen(e).Before(since.Add(-podEventSlack)) && reported != "StatefulSet "+stsName+": "+msg {
			continue
		}
		if newest == nil || lastSeen(e).After(lastSeen(newest)) {
			newest = e
		}
	}
	if newest == nil {
		return ""
	}
	return status.Truncate(newest.Message, podCreateFailureMax)
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
