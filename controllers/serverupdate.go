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
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/example/memcached-operator/controllers/resources"
)

// serverRollout is what the read phase read of a StatefulSet with warm restarts whose servers are
// not all at its update revision: its pods, fresh from the API server (the pod cache keeps neither
// their spec, their revision label nor the restart counts of healthy containers), and the pod
// template of each revision they are at (their ControllerRevisions). It is read only while such a
// rollout is under way; a steady-state reconcile reads nothing more.
type serverRollout struct {
	pods      []corev1.Pod
	templates map[string]*corev1.PodTemplateSpec
}

// rolloutPending reports whether sts (warm restarts: update strategy OnDelete) has servers to
// move: the StatefulSet controller has not counted every server at the update revision, or has
// not read the current template.
func rolloutPending(sts *appsv1.StatefulSet) bool {
	if sts == nil || sts.Spec.UpdateStrategy.Type != appsv1.OnDeleteStatefulSetStrategyType {
		return false
	}
	replicas := ptr.Deref(sts.Spec.Replicas, 1)
	return sts.Status.ObservedGeneration < sts.Generation || sts.Status.UpdatedReplicas != replicas
}

// readServerRollout reads the serverRollout of sts with the uncached reader.
func readServerRollout(ctx context.Context, reader client.Reader, sts *appsv1.StatefulSet) (*serverRollout, error) {
	pods := &corev1.PodList{}
	if err := reader.List(ctx, pods, client.InNamespace(sts.Namespace), client.MatchingLabels(sts.Spec.Selector.MatchLabels)); err != nil {
		return nil, fmt.Errorf("failed to list Pods of StatefulSet %s/%s: %w", sts.Namespace, sts.Name, err)
	}
	out := &serverRollout{pods: pods.Items, templates: map[string]*corev1.PodTemplateSpec{}}
	for _, p := range pods.Items {
		rev := p.Labels[appsv1.ControllerRevisionHashLabelKey]
		if _, done := out.templates[rev]; done || rev == "" || rev == sts.Status.UpdateRevision {
			continue
		}
		cr := &appsv1.ControllerRevision{}
		if err := reader.Get(ctx, types.NamespacedName{Namespace: sts.Namespace, Name: rev}, cr); err != nil {
			if apierrors.IsNotFound(err) {
				out.templates[rev] = nil // pruned from the history: the pod is replaced
				continue
			}
			return nil, fmt.Errorf("failed to get ControllerRevision %s/%s: %w", sts.Namespace, rev, err)
		}
		// A StatefulSet's revision holds a patch that replaces the pod template:
		// {"spec":{"template":{..., "$patch":"replace"}}}.
		var data struct {
			Spec struct {
				Template corev1.PodTemplateSpec `json:"template"`
			} `json:"spec"`
		}
		if err := json.Unmarshal(cr.Data.Raw, &data); err != nil {
			return nil, fmt.Errorf("failed to decode ControllerRevision %s/%s: %w", sts.Namespace, rev, err)
		}
		out.templates[rev] = &data.Spec.Template
	}
	return out, nil
}

// updateServersPhase moves one server of a StatefulSet with warm restarts to its update
// revision when the previous one is back (resources.PlanServerUpdate): it patches the pod in place
// (its images, labels and annotations, and the revision label the StatefulSet controller counts)
// or deletes it for the controller to recreate, and says which in one event. It runs after the
// apply phase, only while a rollout was read (s.rollout).
func (r *MemcachedReconciler) updateServersPhase(ctx context.Context, s *scope) error {
	sts := s.obs.StatefulSet
	if s.rollout == nil || sts == nil || !s.apply {
		return nil
	}
	step := resources.PlanServerUpdate(sts, s.rollout.pods, s.rollout.templates, time.Now())
	log := logf.FromContext(ctx)
	if step.Pod == "" {
		if step.Wait != "" {
			log.V(1).Info("Server update waits", "reason", step.Wait)
		}
		s.serverRequeue = step.RequeueAfter
		return nil
	}
	pod := podNamed(s.rollout.pods, step.Pod)
	changes := strings.Join(step.Changes, "; ")
	if step.InPlace {
		patch, err := inPlacePatch(step)
		if err == nil {
			err = r.Patch(ctx, pod, client.RawPatch(types.StrategicMergePatchType, patch))
		}
		if err != nil {
			s.obs.Err = errors.Join(s.obs.Err, fmt.Errorf("failed to patch Pod %s in place: %w", klog.KObj(pod), err))
			return nil
		}
		log.Info("Updated server in place", "pod", klog.KObj(pod), "changes", changes)
		r.Recorder.Eventf(s.mc, pod, corev1.EventTypeNormal, "UpdatedInPlace", "Update",
			"Server %s updated in place, its items kept: %s", pod.Name, changes)
		return nil
	}
	err := r.Delete(ctx, pod, client.Preconditions{UID: &pod.UID})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		s.obs.Err = errors.Join(s.obs.Err, fmt.Errorf("failed to delete Pod %s: %w", klog.KObj(pod), err))
		return nil
	}
	log.Info("Replaced server", "pod", klog.KObj(pod), "changes", changes)
	r.Recorder.Eventf(s.mc, pod, corev1.EventTypeNormal, "Replaced", "Update",
		"Server %s replaced, it starts empty: %s cannot change in a running pod", pod.Name, changes)
	return nil
}

// inPlacePatch is the strategic merge patch of step: the containers' images (merged by name), the
// labels and annotations (null removes one).
func inPlacePatch(step resources.ServerUpdate) ([]byte, error) {
	type named struct {
		Name  string `json:"name"`
		Image string `json:"image"`
	}
	// A name the pod's list lacks would be added to it, so each list gets only its own.
	list := func(images map[string]string) []named {
		var out []named
		for _, name := range slices.Sorted(maps.Keys(images)) {
			out = append(out, named{name, images[name]})
		}
		return out
	}
	patch := map[string]any{"metadata": map[string]any{"labels": step.Labels, "annotations": step.Annotations}}
	spec := map[string]any{}
	if c := list(step.Images); len(c) > 0 {
		spec["containers"] = c
	}
	if c := list(step.InitImages); len(c) > 0 {
		spec["initContainers"] = c
	}
	if len(spec) > 0 {
		patch["spec"] = spec
	}
	b, err := json.Marshal(patch)
	if err != nil {
		return nil, fmt.Errorf("failed to encode the in-place patch: %w", err)
	}
	return b, nil
}

// podNamed returns the pod of pods named name.
func podNamed(pods []corev1.Pod, name string) *corev1.Pod {
	for i := range pods {
		if pods[i].Name == name {
			return &pods[i]
		}
	}
	return &corev1.Pod{}
}
