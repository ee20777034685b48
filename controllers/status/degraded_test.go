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
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/internal/podview"

	"github.com/example/memcached-operator/controllers/internal/fixture"
	"github.com/example/memcached-operator/controllers/resources"
)

// crashing is pod name whose memcached container crash-loops, its last run ended with exit code
// and termination message msg.
func crashing(name string, code int32, msg string) podview.Pod {
	return podWith(name, podview.ContainerStatus{Name: resources.ContainerName, RestartCount: 3,
		State:                podview.ContainerState{Waiting: &podview.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 40s restarting failed container=memcached"}},
		LastTerminationState: podview.ContainerState{Terminated: &podview.ContainerStateTerminated{ExitCode: code, Reason: "Error", Message: msg}},
	})
}

// podWith is a running, not ready pod name with container statuses cs.
func podWith(name string, cs ...podview.ContainerStatus) podview.Pod {
	return podview.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: podview.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: cs}}
}

// initFailing is a pending pod name whose init containers have statuses cs.
func initFailing(name string, cs ...podview.ContainerStatus) podview.Pod {
	return podview.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: podview.PodStatus{Phase: corev1.PodPending, InitContainerStatuses: cs,
		ContainerStatuses: []podview.ContainerStatus{{Name: resources.ContainerName, State: podview.ContainerState{Waiting: &podview.ContainerStateWaiting{Reason: "PodInitializing"}}}}}}
}

// What containerFailure says for each kind of failure the kubelet reports, with the spec field
// it points to: messages without the back-off delay or restart count (the same failure retried is
// the same message, so no status write per retry), the first pod by name, the others counted;
// starting, running, ready or deleted pods are no failure. Waiting reasons and memcached's exit
// codes: https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#container-state-waiting
// and memcached.c (EX_USAGE for a refused flag, EX_OSERR when setrlimit(RLIMIT_NOFILE) fails).
func TestContainerFailure(t *testing.T) {
	waiting := func(name, reason, msg string) podview.ContainerStatus {
		return podview.ContainerStatus{Name: name, State: podview.ContainerState{Waiting: &podview.ContainerStateWaiting{Reason: reason, Message: msg}}}
	}
	deleted := crashing("c-0", 64, "")
	deleted.DeletionTimestamp = &metav1.Time{}
	oom := crashing("c-1", 137, "")
	oom.Status.ContainerStatuses[0].LastTerminationState.Terminated.Reason = "OOMKilled"
	exporter := waiting(resources.ExporterContainerName, "ImagePullBackOff", `Back-off pulling image "quay.io/x:1"`)
	tests := map[string]struct {
		pods []podview.Pod
		want string
	}{
		"none":                   {},
		"starting":               {pods: []podview.Pod{podWith("c-1", waiting(resources.ContainerName, "ContainerCreating", ""))}},
		"running, not ready yet": {pods: []podview.Pod{podWith("c-1", podview.ContainerStatus{Name: resources.ContainerName})}},
		"ready after a crash": {pods: []podview.Pod{podWith("c-1", podview.ContainerStatus{Name: resources.ContainerName, Ready: true, RestartCount: 1,
			LastTerminationState: podview.ContainerState{Terminated: &podview.ContainerStateTerminated{ExitCode: 1}}})}},
		"deleted":        {pods: []podview.Pod{deleted}},
		"bad flag":       {pods: []podview.Pod{crashing("c-1", 64, "")}, want: "pod c-1: container memcached CrashLoopBackOff; last exit code 64 (Error); memcached refused its command line: check spec.memcached.extraArgs"},
		"rlimit":         {pods: []podview.Pod{crashing("c-1", 71, "failed to set rlimit for open files.\n")}, want: "pod c-1: container memcached CrashLoopBackOff; last exit code 71 (Error): failed to set rlimit for open files.; memcached could not raise its open-file limit to spec.memcached.maxConnections (1024) or could not listen: lower maxConnections below the node's limit"},
		"out of memory":  {pods: []podview.Pod{oom}, want: "pod c-1: container memcached CrashLoopBackOff; last exit code 137 (OOMKilled); spec.resources.limits.memory is too small for spec.memcached.maxMemoryMB (64 MiB) and memcached's overhead"},
		"image pull":     {pods: []podview.Pod{podWith("c-1", waiting(resources.ContainerName, "ErrImagePull", "rpc error: not found"))}, want: "pod c-1: container memcached ImagePullBackOff; check spec.image (the operator's default)"},
		"exporter image": {pods: []podview.Pod{podWith("c-1", podview.ContainerStatus{Name: resources.ContainerName, Ready: true}, exporter)}, want: "pod c-1: container memcached-exporter ImagePullBackOff; check spec.monitoring.image"},
		"reloader image": {pods: []podview.Pod{podWith("c-1", podview.ContainerStatus{Name: resources.ContainerName, Ready: true},
			waiting(resources.CertReloaderContainerName, "ErrImagePull", "unauthorized"))},
			want: "pod c-1: container cert-reloader ImagePullBackOff; the certificate reloader runs the operator's own image (RELATED_IMAGE_CERT_RELOADER): make it pullable in this namespace, or unset that variable to roll the pods on a renewal instead"},
		"config error":       {pods: []podview.Pod{podWith("c-1", waiting(resources.ContainerName, "CreateContainerConfigError", `secret "users" not found`))}, want: `pod c-1: container memcached CreateContainerConfigError: secret "users" not found`},
		"terminated now":     {pods: []podview.Pod{podWith("c-1", podview.ContainerStatus{Name: resources.ContainerName, State: podview.ContainerState{Terminated: &podview.ContainerStateTerminated{ExitCode: 2, Reason: "Error"}}})}, want: "pod c-1: container memcached CrashLoopBackOff; last exit code 2 (Error)"},
		"terminated, exit 0": {pods: []podview.Pod{podWith("c-1", podview.ContainerStatus{Name: resources.ContainerName, State: podview.ContainerState{Terminated: &podview.ContainerStateTerminated{ExitCode: 0, Reason: "Completed"}}})}},
		// Running again, not ready, after an error exit: a step of a crash loop, or an old crash and a
		// missed readiness probe. On its own it does not make the instance Degraded (below: it
		// holds a ContainerFailing already reported).
		"running again after a crash, not ready yet": {pods: []podview.Pod{podWith("c-1", podview.ContainerStatus{Name: resources.ContainerName, RestartCount: 3,
			LastTerminationState: podview.ContainerState{Terminated: &podview.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled"}}})}},
		"first by name": {pods: []podview.Pod{crashing("c-3", 64, ""), deleted, crashing("c-2", 64, ""), podWith("c-1")}, want: "pod c-2: container memcached CrashLoopBackOff; last exit code 64 (Error); memcached refused its command line: check spec.memcached.extraArgs (1 more pods failing)"},
		// An init container injected at admission (a service mesh's) that crash-loops: the pod's
		// containers never start, and nothing but its status says why.
		"injected init container": {pods: []podview.Pod{initFailing("c-1", podview.ContainerStatus{Name: "istio-init", RestartCount: 4,
			State:                podview.ContainerState{Waiting: &podview.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 40s"}},
			LastTerminationState: podview.ContainerState{Terminated: &podview.ContainerStateTerminated{ExitCode: 1, Reason: "Error", Message: "iptables: permission denied"}}})},
			want: "pod c-1: init container istio-init CrashLoopBackOff; last exit code 1 (Error): iptables: permission denied"},
		"init container pulling": {pods: []podview.Pod{initFailing("c-1", waiting("istio-init", "ImagePullBackOff", "back-off"))}, want: "pod c-1: init container istio-init ImagePullBackOff"},
		"init container done":    {pods: []podview.Pod{initFailing("c-1", podview.ContainerStatus{Name: "istio-init", Ready: true, State: podview.ContainerState{Terminated: &podview.ContainerStateTerminated{ExitCode: 0, Reason: "Completed"}}})}},
		// An injected sidecar container (not ours) that fails.
		"injected sidecar": {pods: []podview.Pod{podWith("c-1", podview.ContainerStatus{Name: resources.ContainerName, Ready: true}, waiting("istio-proxy", "CreateContainerConfigError", "secret not found"))},
			want: "pod c-1: container istio-proxy CreateContainerConfigError: secret not found"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			fixture.Expect(t, "containerFailure", containerFailure(fixture.Defaulted("c"), tc.pods), tc.want)
		})
	}
	mine := fixture.Defaulted("c", func(mc *cachev1alpha1.Memcached) { mc.Spec.Image = "registry.example.com/mine:1" })
	fixture.Expect(t, "image pull of spec.image", containerFailure(mine, []podview.Pod{podWith("c-1", waiting(resources.ContainerName, "ImagePullBackOff", ""))}),
		"pod c-1: container memcached ImagePullBackOff; check spec.image (registry.example.com/mine:1)")
	// A retry of the same failure (another restart, a longer back-off) says the same.
	again := crashing("c-1", 64, "")
	again.Status.ContainerStatuses[0].RestartCount = 9
	again.Status.ContainerStatuses[0].State.Waiting.Message = "back-off 5m0s restarting failed container=memcached"
	fixture.Expect(t, "after more restarts", containerFailure(fixture.Defaulted("c"), []podview.Pod{again}), containerFailure(fixture.Defaulted("c"), []podview.Pod{crashing("c-1", 64, "")}))
	// The steps of one crash loop as the kubelet shows them (exited, backing off, restarted and not
	// ready yet) say the same.
	exited := crashing("c-1", 64, "")
	exited.Status.ContainerStatuses[0].State = podview.ContainerState{Terminated: exited.Status.ContainerStatuses[0].LastTerminationState.Terminated}
	exited.Status.ContainerStatuses[0].LastTerminationState = podview.ContainerState{}
	restarted := crashing("c-1", 64, "")
	restarted.Status.ContainerStatuses[0].State = podview.ContainerState{} // running: neither waiting nor terminated
	reporting := fixture.Defaulted("c", func(mc *cachev1alpha1.Memcached) {
		mc.Status.Conditions = []metav1.Condition{{Type: cachev1alpha1.ConditionDegraded, Status: metav1.ConditionTrue, Reason: cachev1alpha1.ReasonContainerFailing,
			Message: containerFailure(fixture.Defaulted("c"), []podview.Pod{crashing("c-1", 64, "")})}}
	})
	for name, p := range map[string]podview.Pod{"exited": exited, "restarted": restarted} {
		fixture.Expect(t, "a crash loop, "+name, containerFailure(reporting, []podview.Pod{p}), containerFailure(fixture.Defaulted("c"), []podview.Pod{crashing("c-1", 64, "")}))
	}
	fixture.Expect(t, "restarted, not reported yet", containerFailure(fixture.Defaulted("c"), []podview.Pod{restarted}), "")
	// A container that cannot start: after the first failed start, RunContainerError (an attempt) and
	// CrashLoopBackOff (waiting for the next) say the same.
	startError := &podview.ContainerStateTerminated{ExitCode: 128, Reason: "StartError", Message: `exec: "memcached": executable file not found in $PATH`}
	attempt := podWith("c-1", podview.ContainerStatus{Name: resources.ContainerName, RestartCount: 2,
		State:                podview.ContainerState{Waiting: &podview.ContainerStateWaiting{Reason: "RunContainerError", Message: "failed to start: " + startError.Message}},
		LastTerminationState: podview.ContainerState{Terminated: startError}})
	backOff := podWith("c-1", podview.ContainerStatus{Name: resources.ContainerName, RestartCount: 2,
		State:                podview.ContainerState{Waiting: &podview.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 20s"}},
		LastTerminationState: podview.ContainerState{Terminated: startError}})
	fixture.Expect(t, "a failed start, then backing off", containerFailure(mine, []podview.Pod{attempt}), containerFailure(mine, []podview.Pod{backOff}))
	fixture.Expect(t, "a failed start", containerFailure(mine, []podview.Pod{backOff}),
		`pod c-1: container memcached CrashLoopBackOff; last exit code 128 (StartError): exec: "memcached": executable file not found in $PATH; the container could not be started: check that spec.image (registry.example.com/mine:1) runs memcached`)
	// An image pull the kubelet retries: it says ErrImagePull at each attempt and ImagePullBackOff
	// between them, with a message of its own each time; one failure, one message.
	fixture.Expect(t, "a pull between attempts",
		containerFailure(mine, []podview.Pod{podWith("c-1", waiting(resources.ContainerName, "ImagePullBackOff", `Back-off pulling image "registry.example.com/mine:1"`))}),
		containerFailure(mine, []podview.Pod{podWith("c-1", waiting(resources.ContainerName, "ErrImagePull", "rpc error: code = NotFound"))}))
}

func TestDegradedCondition(t *testing.T) {
	withConditions := func(conds ...appsv1.DeploymentCondition) *appsv1.Deployment {
		d := fixture.Deployment(1, 1, 0, 0, true)
		d.Status.Conditions = conds
		return d
	}
	stuck := appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded", Message: "timed out"}
	quota := appsv1.DeploymentCondition{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue, Message: "exceeded quota"}
	progressing := appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Message: "rolling"}
	fine := conditionState{"False", cachev1alpha1.ReasonAsExpected, "the instance converges"}
	tests := map[string]struct {
		obs  Observed
		want conditionState
	}{
		"converging":                {obs: Observed{Deployment: dep3}, want: fine},
		"no Deployment yet":         {want: fine},
		"waiting for the collector": {obs: Observed{Waiting: []string{"Deployment c"}}, want: fine},
		"Deployment progressing":    {obs: Observed{Deployment: withConditions(progressing)}, want: fine},
		"conflict":                  {obs: Observed{Deployment: dep3, Conflicts: []string{"Service c", "NetworkPolicy c"}}, want: conditionState{"True", cachev1alpha1.ReasonResourceConflict, "Service c, NetworkPolicy c already exists and is not owned by this Memcached; delete or rename it"}},
		"conflict beats an error":   {obs: Observed{Conflicts: []string{"Deployment c"}, Err: errors.New("boom")}, want: conditionState{"True", cachev1alpha1.ReasonResourceConflict, "Deployment c already exists and is not owned by this Memcached; delete or rename it"}},
		"invalid spec":              {obs: Observed{Invalid: invalid}, want: conditionState{"True", cachev1alpha1.ReasonInvalidSpec, invalid.Error()}},
		"Secret missing":            {obs: Observed{Deployment: dep3, Invalid: noSecret}, want: conditionState{"True", cachev1alpha1.ReasonSecretNotFound, noSecret.Message}},
		"invalid spec, stopped": {obs: Observed{Deployment: dep3, Invalid: invalid, Stopped: []string{"TLS (spec.tls)", "the NetworkPolicy (spec.networkPolicy)"}},
			want: conditionState{"True", cachev1alpha1.ReasonInvalidSpec, invalid.Error() + "; the servers are stopped (0 replicas) because they lacked TLS (spec.tls), the NetworkPolicy (spec.networkPolicy), which the spec asks for: they start with it once the spec is accepted"}},
		"apply error":             {obs: Observed{Deployment: withConditions(quota), Err: errors.New("failed to patch Service ns/c: forbidden")}, want: conditionState{"True", cachev1alpha1.ReasonReconcileError, "failed to patch Service ns/c: forbidden"}},
		"pods cannot be created":  {obs: Observed{Deployment: withConditions(stuck, quota)}, want: conditionState{"True", cachev1alpha1.ReasonReplicaFailure, "exceeded quota"}},
		"rollout stuck":           {obs: Observed{Deployment: withConditions(stuck)}, want: conditionState{"True", cachev1alpha1.ReasonProgressDeadline, "timed out"}},
		"a container crash-loops": {obs: Observed{Deployment: withConditions(stuck), Pods: []podview.Pod{crashing("c-1", 64, "")}}, want: conditionState{"True", cachev1alpha1.ReasonContainerFailing, "pod c-1: container memcached CrashLoopBackOff; last exit code 64 (Error); memcached refused its command line: check spec.memcached.extraArgs"}},
		"StatefulSet pods cannot be created": {obs: Observed{StatefulSet: &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, MissingPod: "c-0", PodCreateFailure: "Create Pod c-0 in StatefulSet c failed error: exceeded quota"},
			want: conditionState{"True", cachev1alpha1.ReasonReplicaFailure, "StatefulSet c: Create Pod c-0 in StatefulSet c failed error: exceeded quota"}},
		"StatefulSet pod missing, no reason yet": {obs: Observed{StatefulSet: &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, MissingPod: "c-0"}, want: fine},
		"replica failure is cleared":             {obs: Observed{Deployment: withConditions(appsv1.DeploymentCondition{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionFalse})}, want: fine},
		"a pod cannot be scheduled": {obs: Observed{Deployment: withConditions(progressing), Pods: []podview.Pod{unschedulablePod("c-2"), unschedulablePod("c-1"), podWith("c-0")}},
			want: conditionState{"True", cachev1alpha1.ReasonPodUnschedulable, "pod c-1 cannot be scheduled: 0/3 nodes are available: 3 Insufficient memory. (1 more pods unschedulable)"}},
		"scheduling pending, not refused": {obs: Observed{Deployment: dep3, Pods: []podview.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "c-1"}, Status: podview.PodStatus{Phase: corev1.PodPending,
			Conditions: []podview.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "SchedulingGated"}}}}}}, want: fine},
		"a crash loop beats unschedulable": {obs: Observed{Deployment: dep3, Pods: []podview.Pod{unschedulablePod("c-1"), crashing("c-2", 64, "")}},
			want: conditionState{"True", cachev1alpha1.ReasonContainerFailing, "pod c-2: container memcached CrashLoopBackOff; last exit code 64 (Error); memcached refused its command line: check spec.memcached.extraArgs"}},
		"a pod terminating within its grace period": {obs: Observed{Deployment: dep3, Pods: []podview.Pod{terminating("c-1", now.Add(-TerminatingSlack))}}, want: fine},
		"a pod stuck terminating": {obs: Observed{Deployment: dep3, Pods: []podview.Pod{terminating("c-1", now.Add(-time.Hour)), terminating("c-2", now.Add(-time.Minute)), terminating("c-3", now)}},
			want: conditionState{"True", cachev1alpha1.ReasonPodStuckTerminating, "pod c-1 has not terminated: its grace period ended at 2026-12-07T07:00:00Z; its node may be unreachable, or a finalizer holds it (1 more pods)"}},
		"a StatefulSet pod stuck terminating": {obs: Observed{StatefulSet: &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, Pods: []podview.Pod{terminating("c-0", now.Add(-time.Hour))}},
			want: conditionState{"True", cachev1alpha1.ReasonPodStuckTerminating, "pod c-0 has not terminated: its grace period ended at 2026-12-07T07:00:00Z; its node may be unreachable, or a finalizer holds it"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			expectSame(t, "Degraded", degradedCondition(fixture.Defaulted("c"), tc.obs, now), tc.want)
		})
	}
}

// now is the time TestDegradedCondition computes at.
var now = time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC)

// unschedulablePod is a pending pod name the scheduler found no node for.
func unschedulablePod(name string) podview.Pod {
	return podview.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: podview.PodStatus{Phase: corev1.PodPending,
		Conditions: []podview.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
			Message: "0/3 nodes are available: 3 Insufficient memory."}}}}
}

// terminating is a running pod name whose grace period ends at end.
func terminating(name string, end time.Time) podview.Pod {
	p := podWith(name, podview.ContainerStatus{Name: resources.ContainerName, Ready: true})
	p.DeletionTimestamp = &metav1.Time{Time: end}
	return p
}

// A terminating pod is looked at again as soon as it would be stuck: nothing else marks that
// moment.
func TestNextTerminatingCheck(t *testing.T) {
	tests := map[string]struct {
		pods []podview.Pod
		want time.Duration
	}{
		"none":                      {},
		"not terminating":           {pods: []podview.Pod{podWith("c-1")}},
		"ends in 10 s":              {pods: []podview.Pod{terminating("c-1", now.Add(10*time.Second))}, want: 10*time.Second + TerminatingSlack + time.Millisecond},
		"the earliest":              {pods: []podview.Pod{terminating("c-1", now.Add(10*time.Second)), terminating("c-2", now)}, want: TerminatingSlack + time.Millisecond},
		"stuck already: no recheck": {pods: []podview.Pod{terminating("c-1", now.Add(-time.Hour))}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := NextTerminatingCheck(tc.pods, now); got != tc.want {
				t.Errorf("NextTerminatingCheck = %s, want %s", got, tc.want)
			}
		})
	}
}
