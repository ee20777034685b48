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
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// fullPod returns a pod of instance "c" as the API server serves it: spec, container statuses and
// every condition, the Ready one not first.
func fullPod(name, ip string, ready bool, mutate ...func(*corev1.Pod)) corev1.Pod {
	mc := &cachev1alpha1.Memcached{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns", UID: "mc-uid"}, Spec: cachev1alpha1.MemcachedSpec{Size: 3}}
	p := pod(name, ip, ready)
	p.Namespace, p.UID, p.ResourceVersion = "ns", types.UID("uid-"+name), "42"
	p.Labels = mergeLabels(objectLabels(mc), map[string]string{"pod-template-hash": "abc"})
	p.Annotations = map[string]string{"note": "dropped"}
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "c-abc", UID: "rs-uid", Controller: ptr.To(true)}}
	p.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kube-controller-manager"}}
	p.Spec = desiredDeployment(mc, Options{DefaultImage: "memcached:1.6"}).Spec.Template.Spec
	p.Spec.NodeName = "node-1"
	p.Status.HostIP = "127.0.0.1"
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "memcached", Ready: ready, Image: "memcached:1.6"}}
	ready0 := p.Status.Conditions[0]
	ready0.Reason, ready0.Message = "ContainersNotReady", "containers with unready status: [memcached]"
	p.Status.Conditions = []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
		{Type: corev1.PodInitialized, Status: corev1.ConditionTrue},
		{Type: corev1.ContainersReady, Status: ready0.Status},
		ready0,
	}
	for _, m := range mutate {
		m(&p)
	}
	return p
}

// The cache keeps of a Pod only what the operator reads: the status computed from trimmed pods
// equals the status computed from the pods as served, podToMemcached maps them alike, and the
// spec, annotations, managed fields and the other conditions are gone.
func TestTrimPodKeepsWhatStatusNeeds(t *testing.T) {
	mc := &cachev1alpha1.Memcached{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns", Generation: 1}, Spec: cachev1alpha1.MemcachedSpec{Size: 3}}
	dep := deployment(3, 3, 3, 3, true)
	now := metav1.NewTime(time.Unix(1_700_000_000, 0))
	tests := map[string][]corev1.Pod{
		"all ready":     {fullPod("c-1", "10.244.0.1", true), fullPod("c-2", "10.244.0.2", true), fullPod("c-3", "10.244.0.3", true)},
		"one not ready": {fullPod("c-1", "10.244.0.1", true), fullPod("c-2", "10.244.0.2", false), fullPod("c-3", "", false)},
		"terminating and failed": {
			fullPod("c-1", "10.244.0.1", true),
			fullPod("c-2", "10.244.0.2", true, func(p *corev1.Pod) { p.DeletionTimestamp = &now }),
			fullPod("c-3", "10.244.0.3", false, func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed }),
			fullPod("c-4", "", false, func(p *corev1.Pod) { p.Status.Phase = corev1.PodPending; p.Status.Conditions = nil }),
		},
	}
	for name, pods := range tests {
		t.Run(name, func(t *testing.T) {
			var trimmed []corev1.Pod
			for i := range pods {
				out, err := trimPod(pods[i].DeepCopy())
				if err != nil {
					t.Fatalf("trimPod: %v", err)
				}
				p := out.(*corev1.Pod)
				if !equality.Semantic.DeepEqual(p.Spec, corev1.PodSpec{}) || p.Annotations != nil || p.ManagedFields != nil ||
					len(p.Status.ContainerStatuses) != 0 || p.Status.HostIP != "" || len(p.Status.Conditions) > 1 {
					t.Errorf("trimPod kept more than status needs: %+v", p)
				}
				if got, want := podToMemcached(t.Context(), p), podToMemcached(t.Context(), &pods[i]); !equality.Semantic.DeepEqual(got, want) {
					t.Errorf("podToMemcached(trimmed) = %v, want %v", got, want)
				}
				if !equality.Semantic.DeepEqual(p.OwnerReferences, pods[i].OwnerReferences) || p.UID != pods[i].UID {
					t.Errorf("trimPod dropped identity or owner references: %+v", p.ObjectMeta)
				}
				trimmed = append(trimmed, *p)
			}
			want := computeStatus(mc, observed{deployment: dep, pods: pods, serviceOwned: true}, now)
			got := computeStatus(mc, observed{deployment: dep, pods: trimmed, serviceOwned: true}, now)
			if !equality.Semantic.DeepEqual(got, want) {
				t.Errorf("status from trimmed pods:\n%+v\nwant (from full pods):\n%+v", got, want)
			}
		})
	}
}

// A tombstone (the informer's DeletedFinalStateUnknown) passes the transforms unchanged.
func TestCacheTransformsPassTombstones(t *testing.T) {
	tomb := cache.DeletedFinalStateUnknown{Key: "ns/c-1"}
	for name, transform := range map[string]func(any) (any, error){"trimPod": trimPod, "trimDeployment": trimDeployment} {
		if out, err := transform(tomb); err != nil || out != tomb {
			t.Errorf("%s(tombstone) = %v, %v; want it unchanged", name, out, err)
		}
	}
}

// The Deployment keeps its spec and status (drift and status read them); its annotations and
// managed fields are dropped.
func TestTrimDeploymentKeepsSpecAndStatus(t *testing.T) {
	mc := &cachev1alpha1.Memcached{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"}, Spec: cachev1alpha1.MemcachedSpec{Size: 3}}
	d := desiredDeployment(mc, Options{DefaultImage: "memcached:1.6"})
	d.Annotations = map[string]string{"deployment.kubernetes.io/revision": "1"}
	d.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "memcached-operator"}}
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 3, ReadyReplicas: 3}
	out, err := trimDeployment(d.DeepCopy())
	if err != nil {
		t.Fatalf("trimDeployment: %v", err)
	}
	got := out.(*appsv1.Deployment)
	if got.Annotations != nil || got.ManagedFields != nil {
		t.Errorf("trimDeployment kept annotations %v or managed fields %v", got.Annotations, got.ManagedFields)
	}
	if deploymentNeedsUpdate(got, desiredDeployment(mc, Options{DefaultImage: "memcached:1.6"})) {
		t.Error("a trimmed Deployment reads as drifted")
	}
	if !equality.Semantic.DeepEqual(got.Spec, d.Spec) || !equality.Semantic.DeepEqual(got.Status, d.Status) || !equality.Semantic.DeepEqual(got.Labels, d.Labels) {
		t.Errorf("trimDeployment changed spec, status or labels: %+v", got)
	}
}
