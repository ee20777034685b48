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
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/utils/ptr"
)

// How the servers of a StatefulSet with warm restarts (update strategy OnDelete) move to a new
// pod template: the operator changes them itself, one at a time, highest ordinal first, the order
// of a RollingUpdate. What the pod API lets a running pod change (its containers' and init
// containers' images, its labels and annotations) is patched into the pod: the kubelet restarts
// only the containers whose image changed, in the same pod, and memcached restores its items
// from the memory file. Any other change (an argument, a resource, a volume, a probe) replaces the
// pod: the StatefulSet controller recreates it from the new template under the same name, and
// that server starts empty.

// InPlaceUpdateAnnotation on a pod the operator patched in place records the restart count of
// each container whose image it changed ("memcached=0,exporter=2"): the change is done once each
// of them has restarted (a higher count) and is ready.
const InPlaceUpdateAnnotation = "cache.example.com/in-place-update"

// ServerUpdate is the next step of moving a StatefulSet's servers to its update revision.
type ServerUpdate struct {
	// Pod is the server to change now; "" when there is none (all are current, or Wait says why
	// not yet).
	Pod string
	// InPlace: patch Pod (Images, Labels, Annotations and the revision label); otherwise delete
	// it, and the StatefulSet controller recreates it from the new template.
	InPlace bool
	// Images and InitImages are the new images of the containers and of the init containers whose
	// image changes, by name.
	Images, InitImages map[string]string
	// Labels and Annotations are the pod's labels and annotations that change (a nil value
	// removes one), the revision label and InPlaceUpdateAnnotation included.
	Labels, Annotations map[string]*string
	// Changes names what changes in the pod, for the event.
	Changes []string
	// Wait says why no server is changed now; "" when Pod is set or every server is current.
	Wait string
	// RequeueAfter is when to look again while a replaced server has been ready for less than
	// minReadySeconds.
	RequeueAfter time.Duration
}

// PlanServerUpdate returns the next step of moving the pods of sts (update strategy OnDelete) to
// its update revision, from pods (the StatefulSet's pods, read fresh: the pacing depends on their
// restart counts) and templates (the pod template of each revision the pods are at, by revision
// name; a missing one, pruned by the StatefulSet's revision history limit, makes the pod be
// replaced). It changes a server only when the StatefulSet controller has seen the current
// template and every server exists, is ready (a replaced one for minReadySeconds) and is not
// restarting for the last in-place change: so one server at a time is away, and the next moves
// when the previous one serves with its items restored.
func PlanServerUpdate(sts *appsv1.StatefulSet, pods []corev1.Pod, templates map[string]*corev1.PodTemplateSpec, now time.Time) ServerUpdate {
	if sts.Spec.UpdateStrategy.Type != appsv1.OnDeleteStatefulSetStrategyType {
		return ServerUpdate{}
	}
	if sts.Status.ObservedGeneration < sts.Generation || sts.Status.UpdateRevision == "" {
		return ServerUpdate{Wait: "the StatefulSet controller has not read the new pod template yet"}
	}
	target := sts.Status.UpdateRevision
	var outdated *corev1.Pod
	outdatedOrdinal := -1
	replicas := ptr.Deref(sts.Spec.Replicas, 1)
	ready := 0
	for i := range pods {
		p := &pods[i]
		ordinal, ok := podOrdinal(sts.Name, p.Name)
		if !ok || ordinal >= int(replicas) {
			continue
		}
		if p.DeletionTimestamp != nil {
			return ServerUpdate{Wait: fmt.Sprintf("server %s is being replaced", p.Name)}
		}
		if w := inPlaceInFlight(p); w != "" {
			return ServerUpdate{Wait: w}
		}
		since, isReady := readySince(p)
		if !isReady {
			return ServerUpdate{Wait: fmt.Sprintf("server %s is not ready", p.Name)}
		}
		if wait := time.Duration(sts.Spec.MinReadySeconds)*time.Second - now.Sub(since); wait > 0 {
			return ServerUpdate{Wait: fmt.Sprintf("server %s has been ready for less than minReadySeconds", p.Name), RequeueAfter: wait}
		}
		ready++
		if p.Labels[appsv1.ControllerRevisionHashLabelKey] != target {
			if ordinal > outdatedOrdinal {
				outdated, outdatedOrdinal = p, ordinal
			}
		}
	}
	if outdated == nil {
		return ServerUpdate{}
	}
	if ready < int(replicas) {
		return ServerUpdate{Wait: fmt.Sprintf("%d of %d servers exist and are ready", ready, replicas)}
	}
	old := templates[outdated.Labels[appsv1.ControllerRevisionHashLabelKey]]
	if old == nil {
		return ServerUpdate{Pod: outdated.Name, Changes: []string{"the pod's revision is no longer in the StatefulSet's history"}}
	}
	return inPlaceStep(outdated, old, &sts.Spec.Template, target)
}

// inPlaceStep returns the change of pod from template old to template new (revision target): in
// place when the two differ only in images, labels and annotations, a replacement otherwise.
func inPlaceStep(pod *corev1.Pod, old, new *corev1.PodTemplateSpec, target string) ServerUpdate {
	u := ServerUpdate{Pod: pod.Name, Images: map[string]string{}, InitImages: map[string]string{}}
	// The old spec with the new images: equal to the new spec when nothing else changed.
	spec := old.Spec.DeepCopy()
	for _, pair := range []struct {
		old, new []corev1.Container
		images   map[string]string
	}{{spec.InitContainers, new.Spec.InitContainers, u.InitImages}, {spec.Containers, new.Spec.Containers, u.Images}} {
		for i := range pair.old {
			c := &pair.old[i]
			if i < len(pair.new) && pair.new[i].Name == c.Name && pair.new[i].Image != c.Image {
				pair.images[c.Name] = pair.new[i].Image
				u.Changes = append(u.Changes, fmt.Sprintf("image of %s: %s → %s", c.Name, c.Image, pair.new[i].Image))
				c.Image = pair.new[i].Image
			}
		}
	}
	if !equality.Semantic.DeepEqual(spec, &new.Spec) {
		return ServerUpdate{Pod: pod.Name, Changes: specChanges(spec, &new.Spec)}
	}
	u.InPlace = true
	u.Labels = changedKeys(old.Labels, new.Labels)
	u.Labels[appsv1.ControllerRevisionHashLabelKey] = &target
	u.Annotations = changedKeys(old.Annotations, new.Annotations)
	for k := range u.Labels {
		if k != appsv1.ControllerRevisionHashLabelKey {
			u.Changes = append(u.Changes, "label "+k)
		}
	}
	argsChanged := false
	for k := range u.Annotations {
		if k == MemcachedArgsAnnotation {
			argsChanged = true
			u.Changes = append(u.Changes, argsChange(old.Annotations[k], new.Annotations[k]))
			continue
		}
		u.Changes = append(u.Changes, "annotation "+k)
	}
	var restarts []string
	for _, s := range pod.Status.ContainerStatuses {
		// The launcher restarts memcached's container for new arguments (MemcachedArgsAnnotation).
		if _, ok := u.Images[s.Name]; ok || argsChanged && s.Name == ContainerName {
			restarts = append(restarts, s.Name+"="+strconv.Itoa(int(s.RestartCount)))
		}
	}
	sort.Strings(restarts)
	record := strings.Join(restarts, ",")
	u.Annotations[InPlaceUpdateAnnotation] = &record
	sort.Strings(u.Changes)
	return u
}

// specChanges names the parts of the pod spec that differ between a and b, for the event of a
// replacement: the containers by name and field group, or "pod spec" for the rest.
func specChanges(a, b *corev1.PodSpec) []string {
	var out []string
	byName := func(cs []corev1.Container) map[string]*corev1.Container {
		m := map[string]*corev1.Container{}
		for i := range cs {
			m[cs[i].Name] = &cs[i]
		}
		return m
	}
	for _, group := range [][2][]corev1.Container{{a.InitContainers, b.InitContainers}, {a.Containers, b.Containers}} {
		am, bm := byName(group[0]), byName(group[1])
		for _, name := range slices.Sorted(maps.Keys(bm)) {
			ac, bc := am[name], bm[name]
			switch {
			case ac == nil:
				out = append(out, "container "+name+" added")
			case !equality.Semantic.DeepEqual(ac.Args, bc.Args) || !equality.Semantic.DeepEqual(ac.Command, bc.Command):
				out = append(out, "arguments of "+name)
			case !equality.Semantic.DeepEqual(ac.Resources, bc.Resources):
				out = append(out, "resources of "+name)
			case !equality.Semantic.DeepEqual(ac, bc):
				out = append(out, "container "+name)
			}
		}
		for name := range am {
			if bm[name] == nil {
				out = append(out, "container "+name+" removed")
			}
		}
	}
	a2, b2 := a.DeepCopy(), b.DeepCopy()
	a2.InitContainers, a2.Containers, b2.InitContainers, b2.Containers = nil, nil, nil, nil
	if !equality.Semantic.DeepEqual(a2, b2) {
		out = append(out, "pod spec (volumes, scheduling or security)")
	}
	sort.Strings(out)
	return out
}

// changedKeys returns the keys of new whose value differs from old's, and old's keys new lacks
// (nil values: removed).
func changedKeys(old, new map[string]string) map[string]*string {
	out := map[string]*string{}
	for k, v := range new {
		if ov, ok := old[k]; !ok || ov != v {
			out[k] = &v
		}
	}
	for k := range old {
		if _, ok := new[k]; !ok {
			out[k] = nil
		}
	}
	return out
}

// inPlaceInFlight says which container of pod has not yet restarted, or is not ready, after the
// last in-place change (InPlaceUpdateAnnotation); "" when none.
func inPlaceInFlight(pod *corev1.Pod) string {
	record := pod.Annotations[InPlaceUpdateAnnotation]
	if record == "" {
		return ""
	}
	for _, entry := range strings.Split(record, ",") {
		name, count, _ := strings.Cut(entry, "=")
		before, err := strconv.Atoi(count)
		if err != nil {
			continue
		}
		for _, s := range pod.Status.ContainerStatuses {
			if s.Name == name && (int(s.RestartCount) <= before || !s.Ready) {
				return fmt.Sprintf("server %s: container %s is restarting with its new image", pod.Name, name)
			}
		}
	}
	return ""
}

// readySince returns when pod became ready and whether it is.
func readySince(pod *corev1.Pod) (time.Time, bool) {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.LastTransitionTime.Time, c.Status == corev1.ConditionTrue
		}
	}
	return time.Time{}, false
}

// podOrdinal returns the ordinal of a StatefulSet's pod name (<sts>-<ordinal>).
func podOrdinal(sts, pod string) (int, bool) {
	rest, ok := strings.CutPrefix(pod, sts+"-")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n >= 0
}

// restoreFlags are memcached's options a save must have been made with to be restored: the
// memory size, the item size limit, the slab growth factor and minimum chunk, CAS, and the -o
// options (slab_chunk_max, slab_reassign, … among them; compared as a whole, conservatively).
// memcached starts empty when one differs.
var restoreFlags = map[string]bool{"-m": true, "-I": true, "-f": true, "-n": true, "-C": true, "-o": true}

// argsChange describes the change of memcached's arguments from old to new (two
// MemcachedArgsAnnotation values) for the event: the options that changed, and whether
// memcached restores its items over them.
func argsChange(old, new string) string {
	var a, b []string
	if json.Unmarshal([]byte(old), &a) != nil || json.Unmarshal([]byte(new), &b) != nil {
		return "arguments of memcached (memcached may start empty)"
	}
	oa, ob := argOptions(a), argOptions(b)
	var changed, cold []string
	both := maps.Clone(oa)
	maps.Copy(both, ob)
	for _, k := range slices.Sorted(maps.Keys(both)) {
		if !slices.Equal(oa[k], ob[k]) {
			changed = append(changed, fmt.Sprintf("%s %s → %s", k, optionValue(oa, k), optionValue(ob, k)))
			if restoreFlags[k] {
				cold = append(cold, k)
			}
		}
	}
	if len(cold) > 0 {
		return fmt.Sprintf("arguments of memcached: %s; memcached starts empty (%s changed)", strings.Join(changed, ", "), strings.Join(cold, ", "))
	}
	return fmt.Sprintf("arguments of memcached: %s; memcached restores its items", strings.Join(changed, ", "))
}

// argOptions groups memcached's arguments by option: each option and the values after it (an
// option set twice keeps the values of both, in order; a flag without one has none).
func argOptions(args []string) map[string][]string {
	out := map[string][]string{}
	opt := ""
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			opt = a
			if out[opt] == nil {
				out[opt] = []string{}
			}
			continue
		}
		out[opt] = append(out[opt], a)
	}
	return out
}

// optionValue is how argsChange shows option k of opts: its values, "set" for a flag without
// one, "unset" when absent.
func optionValue(opts map[string][]string, k string) string {
	v, ok := opts[k]
	switch {
	case !ok:
		return "unset"
	case len(v) == 0:
		return "set"
	}
	return strings.Join(v, " ")
}
