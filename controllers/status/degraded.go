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
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/internal/podview"

	"github.com/example/memcached-operator/controllers/resources"
)

// degradedCondition computes Degraded: True when the operator cannot converge the instance, with
// the first of these reasons that applies:
//
//   - ResourceConflict: a foreign object holds a name the instance needs (the message names it);
//   - InvalidSpec, SecretNotFound or InvalidSecret: the spec or a Secret it names is unusable;
//   - ReconcileError: an API call failed (the message says which);
//   - ReplicaFailure: the Deployment cannot create pods (quota, admission), or the StatefulSet
//     cannot (Observed.PodCreateFailure);
//   - ContainerFailing: a container or init container of a pod (of the template, or injected at
//     admission such as a service mesh's) cannot start or keeps failing (containerFailure);
//   - PodUnschedulable: a pod cannot be scheduled (unschedulable);
//   - PodStuckTerminating: a pod is still there TerminatingSlack after its grace period ended
//     (stuckTerminating, at now);
//   - ProgressDeadlineExceeded: the Deployment's rollout is stuck;
//
// otherwise False with AsExpected.
func degradedCondition(mc *cachev1alpha1.Memcached, obs Observed, now time.Time) conditionState {
	dep := obs.Deployment
	switch {
	case len(obs.Conflicts) > 0:
		return conditionState{metav1.ConditionTrue, cachev1alpha1.ReasonResourceConflict, conflictMessage(obs)}
	case obs.Invalid != nil:
		return conditionState{metav1.ConditionTrue, invalidReason(obs.Invalid), invalidMessage(obs)}
	case obs.Err != nil:
		return conditionState{metav1.ConditionTrue, cachev1alpha1.ReasonReconcileError, obs.Err.Error()}
	}
	if dep == nil && obs.StatefulSet == nil {
		return conditionState{metav1.ConditionFalse, cachev1alpha1.ReasonAsExpected, "the instance converges"}
	}
	if c := deploymentCondition(dep, appsv1.DeploymentReplicaFailure, corev1.ConditionTrue); c != nil {
		return conditionState{metav1.ConditionTrue, cachev1alpha1.ReasonReplicaFailure, c.Message}
	}
	if obs.PodCreateFailure != "" {
		return conditionState{metav1.ConditionTrue, cachev1alpha1.ReasonReplicaFailure, "StatefulSet " + obs.StatefulSet.Name + ": " + obs.PodCreateFailure}
	}
	if msg := containerFailure(mc, obs.Pods); msg != "" {
		return conditionState{metav1.ConditionTrue, cachev1alpha1.ReasonContainerFailing, msg}
	}
	if msg := unschedulable(obs.Pods); msg != "" {
		return conditionState{metav1.ConditionTrue, cachev1alpha1.ReasonPodUnschedulable, msg}
	}
	if msg := stuckTerminating(obs.Pods, now); msg != "" {
		return conditionState{metav1.ConditionTrue, cachev1alpha1.ReasonPodStuckTerminating, msg}
	}
	if c := deploymentCondition(dep, appsv1.DeploymentProgressing, corev1.ConditionFalse); c != nil {
		return conditionState{metav1.ConditionTrue, cachev1alpha1.ReasonProgressDeadline, c.Message}
	}
	return conditionState{metav1.ConditionFalse, cachev1alpha1.ReasonAsExpected, "the instance converges"}
}

// deploymentCondition returns dep's condition of type t when it has status s, else nil (and for a
// nil dep: a StatefulSet has no such conditions, its failures are read from its pods).
func deploymentCondition(dep *appsv1.Deployment, t appsv1.DeploymentConditionType, s corev1.ConditionStatus) *appsv1.DeploymentCondition {
	if dep == nil {
		return nil
	}
	for i := range dep.Status.Conditions {
		if c := &dep.Status.Conditions[i]; c.Type == t && c.Status == s {
			return c
		}
	}
	return nil
}

// startingReasons are the waiting reasons of a container on its way to running.
var startingReasons = []string{"ContainerCreating", "PodInitializing"}

// pullReasons are the waiting reasons of a container whose image cannot be pulled; the kubelet
// alternates between the first two while it backs off.
var pullReasons = []string{"ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull"}

// backOffReasons are the waiting reasons whose message changes at every retry (it names the
// back-off delay), so the Degraded message leaves it out: a message that changes is a status write.
var backOffReasons = append([]string{"CrashLoopBackOff"}, pullReasons...)

// Failing reports whether c, a container's status, says the container cannot start or keeps
// failing: it is not ready and waits for a reason other than starting (CrashLoopBackOff, an image
// pull, CreateContainerConfigError, RunContainerError...), or it has terminated with a non-zero
// exit code, or it runs again after such an exit and is not ready yet (a crash loop passes through
// all three: exited, backing off, restarted; it is one failure until the container is ready). A
// container that is starting, or runs for the first time and is not ready yet, is not failing.
func Failing(c *podview.ContainerStatus) bool {
	if c.Ready {
		return false
	}
	if w := c.State.Waiting; w != nil && w.Reason != "" && !slices.Contains(startingReasons, w.Reason) {
		return true
	}
	if t := c.State.Terminated; t != nil {
		return t.ExitCode != 0
	}
	return restarted(c)
}

// restarted reports whether c runs again, not ready yet, after an exit with an error: a step of a
// crash loop, or a container that failed once long ago and is not ready now (a readiness probe
// missed under load; the pod view keeps no times to tell the two apart). containerFailure counts it
// only while the instance already reports ContainerFailing: it holds Degraded through a crash loop
// and never starts it.
func restarted(c *podview.ContainerStatus) bool {
	return !c.Ready && c.State.Waiting == nil && c.State.Terminated == nil && exitedWithError(c.LastTerminationState.Terminated)
}

// exitedWithError reports whether t is a termination with a non-zero exit code.
func exitedWithError(t *podview.ContainerStateTerminated) bool { return t != nil && t.ExitCode != 0 }

// reportsContainerFailing reports whether mc's stored status says Degraded/ContainerFailing.
func reportsContainerFailing(mc *cachev1alpha1.Memcached) bool {
	d := meta.FindStatusCondition(mc.Status.Conditions, cachev1alpha1.ConditionDegraded)
	return d != nil && d.Status == metav1.ConditionTrue && d.Reason == cachev1alpha1.ReasonContainerFailing
}

// containerFailure returns why a container of mc's pods cannot run, or "" when none fails: the
// first failing container (Failing) of the first pod by name that is not being deleted, as
//
//	pod <pod>: container <container> <waiting reason, CrashLoopBackOff for every step of a crash loop>[: <message>]; last exit code <n> (<reason>)[: <termination message>][; <hint>][ (<k> more pods failing)]
//
// The message is the same for every retry of the same failure (no restart count, no back-off
// delay), so a crash loop writes the status once. A restarted container counts only while mc
// already reports ContainerFailing (restarted).
func containerFailure(mc *cachev1alpha1.Memcached, pods []podview.Pod) string {
	// One pass, no allocation: it runs in every reconcile, and almost always finds nothing.
	var first *podview.Pod
	var firstStatus *podview.ContainerStatus
	var firstInit bool
	failingPods := 0
	holding := reportsContainerFailing(mc)
	for i := range pods {
		p := &pods[i]
		if p.DeletionTimestamp != nil {
			continue
		}
		// Init containers first: while one fails, the containers do not start.
		for j := range len(p.Status.InitContainerStatuses) + len(p.Status.ContainerStatuses) {
			c, init := containerStatus(p, j)
			if Failing(c) && (holding || !restarted(c)) {
				failingPods++
				if first == nil || p.Name < first.Name {
					first, firstStatus, firstInit = p, c, init
				}
				break
			}
		}
	}
	if first == nil {
		return ""
	}
	msg := "pod " + first.Name + ": "
	if firstInit {
		msg += "init "
	}
	msg += describeFailure(mc, firstStatus)
	if failingPods > 1 {
		msg += fmt.Sprintf(" (%d more pods failing)", failingPods-1)
	}
	return msg
}

// containerStatus returns the status of p's container j, counting its init containers first, and
// whether it is an init container's.
func containerStatus(p *podview.Pod, j int) (*podview.ContainerStatus, bool) {
	if n := len(p.Status.InitContainerStatuses); j < n {
		return &p.Status.InitContainerStatuses[j], true
	}
	return &p.Status.ContainerStatuses[j-len(p.Status.InitContainerStatuses)], false
}

// Unschedulable reports whether c is a pod's PodScheduled=False condition with reason
// Unschedulable: the scheduler found no node for the pod.
func Unschedulable(c *podview.PodCondition) bool {
	return c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable
}

// unschedulable returns why the first pod by name (not being deleted) that cannot be scheduled
// cannot, "" when every pod can:
//
//	pod <pod> cannot be scheduled: <the scheduler's message>[ (<k> more pods unschedulable)]
func unschedulable(pods []podview.Pod) string {
	var first *podview.Pod
	var firstCond *podview.PodCondition
	n := 0
	for i := range pods {
		p := &pods[i]
		if p.DeletionTimestamp != nil {
			continue
		}
		for j := range p.Status.Conditions {
			if c := &p.Status.Conditions[j]; Unschedulable(c) {
				n++
				if first == nil || p.Name < first.Name {
					first, firstCond = p, c
				}
				break
			}
		}
	}
	if first == nil {
		return ""
	}
	msg := "pod " + first.Name + " cannot be scheduled"
	if m := strings.TrimSpace(firstCond.Message); m != "" {
		msg += ": " + m
	}
	if n > 1 {
		msg += fmt.Sprintf(" (%d more pods unschedulable)", n-1)
	}
	return msg
}

// TerminatingSlack is how long after the end of its grace period (its deletionTimestamp) a pod
// may still exist before it counts as stuck: the kubelet kills its containers at that time and
// removes the pod within seconds; a pod still there half a minute later has a node that does not
// answer (the node controller marks it NotReady after 40 s, and nothing deletes its pods until it
// is back or removed) or a finalizer that holds it.
const TerminatingSlack = 30 * time.Second

// stuckTerminating returns, at now, which pod has outlived its grace period by more than
// TerminatingSlack (the first by name), "" when none has. The message names the end of the grace
// period, not the time since, so that it stays the same while the pod stays:
//
//	pod <pod> has not terminated: its grace period ended at <RFC 3339 time>; its node may be unreachable, or a finalizer holds it[ (<k> more pods)]
func stuckTerminating(pods []podview.Pod, now time.Time) string {
	var first *podview.Pod
	n := 0
	for i := range pods {
		p := &pods[i]
		if p.DeletionTimestamp == nil || now.Sub(p.DeletionTimestamp.Time) <= TerminatingSlack {
			continue
		}
		n++
		if first == nil || p.Name < first.Name {
			first = p
		}
	}
	if first == nil {
		return ""
	}
	msg := fmt.Sprintf("pod %s has not terminated: its grace period ended at %s; its node may be unreachable, or a finalizer holds it",
		first.Name, first.DeletionTimestamp.UTC().Format(time.RFC3339))
	if n > 1 {
		msg += fmt.Sprintf(" (%d more pods)", n-1)
	}
	return msg
}

// NextTerminatingCheck returns how long after now the first of pods that is terminating and not
// stuck yet (stuckTerminating) will be, 0 when none will: no watch event marks that moment, so
// the reconciler looks again then.
func NextTerminatingCheck(pods []podview.Pod, now time.Time) time.Duration {
	var next time.Duration
	for i := range pods {
		p := &pods[i]
		if p.DeletionTimestamp == nil {
			continue
		}
		// Stuck once strictly more than TerminatingSlack has passed: a millisecond after that.
		if d := p.DeletionTimestamp.Add(TerminatingSlack).Sub(now) + time.Millisecond; d > 0 && (next == 0 || d < next) {
			next = d
		}
	}
	return next
}

// describeFailure says how container status c fails, with the spec field of mc that the failure
// points to when there is one (failureHint).
func describeFailure(mc *cachev1alpha1.Memcached, c *podview.ContainerStatus) string {
	var b strings.Builder
	b.WriteString("container " + c.Name)
	term := c.State.Terminated
	if w := c.State.Waiting; w == nil || w.Reason == "CrashLoopBackOff" || (w.Reason == "RunContainerError" && c.LastTerminationState.Terminated != nil) {
		// A crash loop: exited now, backing off, or running again and not ready yet; for a container
		// that cannot start, the kubelet alternates RunContainerError (an attempt failed) and
		// CrashLoopBackOff once the first attempt's termination is recorded. The same words in every
		// step, so that one loop is one status write (the first failed start is a second one).
		b.WriteString(" CrashLoopBackOff")
		if term == nil {
			term = c.LastTerminationState.Terminated
		}
	} else {
		reason := w.Reason
		if reason == "ErrImagePull" {
			// The kubelet alternates ErrImagePull (an attempt failed) and ImagePullBackOff (waiting for
			// the next) for one failure: one name keeps the message, hence the status, the same.
			reason = "ImagePullBackOff"
		}
		b.WriteString(" " + reason)
		if w.Message != "" && !slices.Contains(backOffReasons, w.Reason) {
			b.WriteString(": " + w.Message)
		}
		term = c.LastTerminationState.Terminated
	}
	if term != nil {
		fmt.Fprintf(&b, "; last exit code %d", term.ExitCode)
		if term.Reason != "" {
			b.WriteString(" (" + term.Reason + ")")
		}
		if m := strings.TrimSpace(term.Message); m != "" {
			b.WriteString(": " + m)
		}
	}
	if hint := failureHint(mc, c, term); hint != "" {
		b.WriteString("; " + hint)
	}
	return b.String()
}

// failureHint names the spec field behind a failure the operator recognises, or "":
//   - an image that cannot be pulled: spec.image (memcached) or spec.monitoring.image (the exporter);
//   - memcached killed for memory (OOMKilled): spec.resources.limits.memory against maxMemoryMB;
//   - memcached's exit code 71 (EX_OSERR): it could not raise its open-file limit to -c, i.e.
//     spec.memcached.maxConnections (memcached.c: "failed to set rlimit for open files"), or
//     could not listen;
//   - a container the runtime could not start (StartError, e.g. no memcached executable in the
//     image): spec.image;
//   - memcached's exit code 64 (EX_USAGE) or 1 (an illegal argument): a flag it refuses, i.e.
//     spec.memcached.extraArgs (the other flags are built from validated fields).
func failureHint(mc *cachev1alpha1.Memcached, c *podview.ContainerStatus, term *podview.ContainerStateTerminated) string {
	if w := c.State.Waiting; w != nil && slices.Contains(pullReasons, w.Reason) {
		switch c.Name {
		case resources.ContainerName:
			return fmt.Sprintf("check spec.image (%s)", specImage(mc))
		case resources.ExporterContainerName:
			return "check spec.monitoring.image"
		case resources.CertReloaderContainerName:
			return "the certificate reloader runs the operator's own image (RELATED_IMAGE_CERT_RELOADER): make it pullable in this namespace, or unset that variable to roll the pods on a renewal instead"
		}
	}
	if c.Name != resources.ContainerName || term == nil {
		return ""
	}
	switch {
	case term.Reason == "OOMKilled":
		return fmt.Sprintf("spec.resources.limits.memory is too small for spec.memcached.maxMemoryMB (%d MiB) and memcached's overhead", mc.Spec.Memcached.MaxMemoryMB)
	case term.ExitCode == 71:
		return fmt.Sprintf("memcached could not raise its open-file limit to spec.memcached.maxConnections (%d) or could not listen: lower maxConnections below the node's limit", mc.Spec.Memcached.MaxConnections)
	case term.Reason == "StartError":
		return fmt.Sprintf("the container could not be started: check that spec.image (%s) runs memcached", specImage(mc))
	case term.ExitCode == 64 || term.ExitCode == 1:
		return "memcached refused its command line: check spec.memcached.extraArgs"
	}
	return ""
}

// specImage is mc's spec.image as a failure hint names it: the image, or the operator's default.
func specImage(mc *cachev1alpha1.Memcached) string {
	if mc.Spec.Image == "" {
		return "the operator's default"
	}
	return mc.Spec.Image
}
