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

package cache

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/example/memcached-operator/controllers/resources"
	"github.com/example/memcached-operator/controllers/status"
	"github.com/example/memcached-operator/internal/podview"
	"github.com/example/memcached-operator/internal/watchnamespace"
)

// NewPodCache returns the cache of the instances' pods, which the manager runs (see PodCache): the
// pods of the given namespaces (all when empty) labelled as managed by the operator
// (resources.ManagedSelector), decoded from protobuf into podview.Pod and trimmed by TrimPod. It
// shares the manager's REST config, HTTP client and REST mapper. Reads return the cached object
// itself, not a copy (UnsafeDisableDeepCopy): its only reader, the reconciler's read phase, does not modify them.
//
// Why a second cache: a cache decodes every kind with the one scheme it is given, and in the
// manager's scheme a core/v1 Pod is a corev1.Pod (see package podview for the sizes). The manager's
// cache holds no Pods.
func NewPodCache(mgr manager.Manager, namespaces []string) (cache.Cache, error) {
	c, err := cache.New(mgr.GetConfig(), cache.Options{
		HTTPClient:        mgr.GetHTTPClient(),
		Scheme:            podview.NewScheme(),
		Mapper:            mgr.GetRESTMapper(),
		DefaultNamespaces: watchnamespace.CacheConfig(namespaces),
		ByObject: map[client.Object]cache.ByObject{
			&podview.Pod{}: {Label: resources.ManagedSelector(), Transform: TrimPod, UnsafeDisableDeepCopy: ptr.To(true)},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("failed to create the pod cache: %w", err)
	}
	return c, nil
}

// PodCache runs a cache as one of the manager's caches: started before the controllers, whether
// or not this replica leads (as the manager's own cache is), and stopped with the manager. The
// manager puts a runnable in that group when it has a GetCache method, as a cluster.Cluster has.
type PodCache struct{ cache.Cache }

// GetCache returns the cache.
func (p PodCache) GetCache() cache.Cache { return p.Cache }

// PodToMemcached maps a memcached pod to the Memcached named by its instance label, so status
// follows pod changes (creation, readiness, deletion) without polling.
func PodToMemcached(_ context.Context, obj client.Object) []reconcile.Request {
	l := obj.GetLabels()
	if l[resources.LabelName] != resources.AppName || l[resources.LabelManagedBy] != resources.ManagedBy || l[resources.LabelInstance] == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: l[resources.LabelInstance]}}}
}

// TrimPod is the transform of the pod cache (NewPodCache): it returns a new podview.Pod holding
// only what the operator reads: name and namespace (status.nodes), resourceVersion (the informer
// tells a real update from a resync by it), the labels app.kubernetes.io/name, instance and
// managed-by (PodToMemcached maps a pod to its instance by them, the instance's pod selector
// matches name and instance), the deletion timestamp (a terminating pod is not counted; one that
// outlives its grace period is named in Degraded), and of the status the phase, the Ready
// condition and the pod IP (status.nodes, readyReplicas, serverList), a PodScheduled=False
// condition with reason Unschedulable and its message, the statuses of the failing containers
// and init containers (status.Failing; Degraded), and the image the memcached container runs
// (ServerImage, interned: status.version). Dropped: UID, owner references, the other
// labels, every annotation, managed fields, the other conditions and the reason and message of
// Ready (the spec and the rest of the status are not even decoded, see podview).
// Anything that is not a podview.Pod (a tombstone) is returned as it is.
func TrimPod(obj any) (any, error) {
	p, ok := obj.(*podview.Pod)
	if !ok {
		return obj, nil
	}
	out := &podview.Pod{
		TypeMeta: p.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name: p.Name, Namespace: p.Namespace, ResourceVersion: p.ResourceVersion,
			Labels:            keepLabels(p.Labels, []string{resources.LabelName, resources.LabelInstance, resources.LabelManagedBy}),
			DeletionTimestamp: p.DeletionTimestamp,
		},
		Status: podview.PodStatus{Phase: corev1.PodPhase(intern(string(p.Status.Phase))), PodIP: p.Status.PodIP},
	}
	for _, c := range p.Status.Conditions {
		switch {
		case c.Type == corev1.PodReady:
			out.Status.Conditions = append(out.Status.Conditions, podview.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionStatus(intern(string(c.Status)))})
		case status.Unschedulable(&c):
			out.Status.Conditions = append(out.Status.Conditions, podview.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
				Reason: c.Reason, Message: status.Truncate(c.Message, maxStateMessage)})
		}
	}
	// A pod the transform already trimmed (client-go may hand the transform one again, as it did
	// with the initial list at a restart in make bench-gate) keeps its ServerImage: the statuses
	// left to read it from were dropped, or kept without their image.
	out.Status.ServerImage = p.Status.ServerImage
	for _, c := range p.Status.ContainerStatuses {
		if c.Name == resources.ContainerName && c.Image != "" {
			out.Status.ServerImage = intern(c.Image)
		}
	}
	out.Status.ContainerStatuses = failingStatuses(p.Status.ContainerStatuses)
	out.Status.InitContainerStatuses = failingStatuses(p.Status.InitContainerStatuses)
	return out, nil
}

// failingStatuses returns the statuses of statuses that fail (status.Failing), their messages
// truncated to maxStateMessage bytes; nil when none fails.
func failingStatuses(statuses []podview.ContainerStatus) []podview.ContainerStatus {
	var out []podview.ContainerStatus
	for _, c := range statuses {
		if status.Failing(&c) {
			c.Image = "" // kept once per pod, interned, as ServerImage
			c.State.Waiting = truncatedWaiting(c.State.Waiting)
			c.State.Terminated = truncatedTerminated(c.State.Terminated)
			c.LastTerminationState.Waiting = nil
			c.LastTerminationState.Terminated = truncatedTerminated(c.LastTerminationState.Terminated)
			out = append(out, c)
		}
	}
	return out
}

// maxStateMessage bounds the bytes of a waiting or termination message the cache keeps (a
// termination message may be 4 KiB; the Degraded message needs its start).
const maxStateMessage = 512

// truncatedWaiting returns w with its message cut to maxStateMessage bytes.
func truncatedWaiting(w *podview.ContainerStateWaiting) *podview.ContainerStateWaiting {
	if w == nil {
		return nil
	}
	return &podview.ContainerStateWaiting{Reason: w.Reason, Message: status.Truncate(w.Message, maxStateMessage)}
}

// truncatedTerminated returns t with its message cut to maxStateMessage bytes.
func truncatedTerminated(t *podview.ContainerStateTerminated) *podview.ContainerStateTerminated {
	if t == nil {
		return nil
	}
	return &podview.ContainerStateTerminated{ExitCode: t.ExitCode, Reason: t.Reason, Message: status.Truncate(t.Message, maxStateMessage)}
}
