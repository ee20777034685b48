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

// Package podview defines Pod, the part of a core/v1 Pod the operator reads, and NewScheme, a
// scheme in which the core/v1 kinds Pod and PodList are this package's types, so a cache built on
// it decodes the API server's Pods straight into them.
//
// Why a type of its own: the operator caches every pod of every instance (three per instance by
// default, 1,500 at 500 instances), and a corev1.Pod struct takes 1,240 bytes before any of its
// fields is set, most of them the PodSpec the operator never reads; a Pod of this package takes
// 344 (24 of them the slice of failing containers' statuses, empty for a pod whose containers
// run, unless one runs again after an error exit and is not ready yet). It decodes from the API server's protobuf (Pod.Unmarshal, which skips the spec and the
// metadata's managed fields without decoding them) and from JSON (its field names are those of
// core/v1; the fields it lacks are skipped).
// +kubebuilder:object:generate=true
package podview

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Pod is the part of a core/v1 Pod (https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/)
// the operator reads: the metadata (from protobuf without owner references, finalizers and
// managed fields, see unmarshalObjectMeta), and of the status the phase, the pod IP, the
// conditions' type, status, reason and message and the containers' and init containers' statuses
// (ContainerStatus). The spec is not
// decoded.
// +kubebuilder:object:root=true
type Pod struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Status PodStatus `json:"status,omitempty"`
}

// PodStatus is the part of a core/v1 PodStatus the operator reads.
type PodStatus struct {
	// Phase is the pod's lifecycle phase (Pending, Running, Succeeded, Failed, Unknown).
	Phase corev1.PodPhase `json:"phase,omitempty"`
	// PodIP is the pod's primary IP address; empty until one is allocated.
	PodIP string `json:"podIP,omitempty"`
	// Conditions are the pod's conditions, each with its type, status, reason and message (no
	// times).
	Conditions []PodCondition `json:"conditions,omitempty"`
	// ContainerStatuses are the containers' statuses: name, readiness, restart count, and of the
	// current and last state only a waiting or terminated one's reason and message (and exit
	// code). The operator keeps those of the containers that fail (see controllers/cache's TrimPod).
	ContainerStatuses []ContainerStatus `json:"containerStatuses,omitempty"`
	// InitContainerStatuses are the init containers' statuses (those of the pod template and those
	// an admission webhook injects, e.g. a service mesh's), decoded as ContainerStatuses.
	InitContainerStatuses []ContainerStatus `json:"initContainerStatuses,omitempty"`
	// ServerImage is not a core/v1 field: it is the image the memcached container runs as the
	// kubelet reports it (its ContainerStatus.Image), which the cache keeps (controllers/cache's
	// TrimPod) for status.version while it drops the statuses of containers that do not fail.
	ServerImage string `json:"-"`
}

// ContainerStatus is the part of a core/v1 ContainerStatus the operator reads.
type ContainerStatus struct {
	Name                 string         `json:"name"`
	State                ContainerState `json:"state,omitempty"`
	LastTerminationState ContainerState `json:"lastState,omitempty"`
	Ready                bool           `json:"ready"`
	RestartCount         int32          `json:"restartCount"`
	Image                string         `json:"image,omitempty"`
}

// ContainerState is the waiting or terminated part of a core/v1 ContainerState (a running
// container has neither).
type ContainerState struct {
	Waiting    *ContainerStateWaiting    `json:"waiting,omitempty"`
	Terminated *ContainerStateTerminated `json:"terminated,omitempty"`
}

// ContainerStateWaiting is a core/v1 ContainerStateWaiting.
type ContainerStateWaiting struct {
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// ContainerStateTerminated is the part of a core/v1 ContainerStateTerminated the operator reads.
type ContainerStateTerminated struct {
	ExitCode int32  `json:"exitCode"`
	Reason   string `json:"reason,omitempty"`
	Message  string `json:"message,omitempty"`
}

// PodCondition is the type, status, reason and message of a core/v1 PodCondition.
type PodCondition struct {
	// Type is the condition's type, e.g. Ready.
	Type corev1.PodConditionType `json:"type"`
	// Status is True, False or Unknown.
	Status corev1.ConditionStatus `json:"status"`
	// Reason is the condition's reason, e.g. Unschedulable (PodScheduled=False).
	Reason string `json:"reason,omitempty"`
	// Message is the condition's message, e.g. the scheduler's "0/3 nodes are available: ...".
	Message string `json:"message,omitempty"`
}

// PodList is a list of Pods: the core/v1 PodList in this package's scheme.
// +kubebuilder:object:root=true
type PodList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Pod `json:"items"`
}

// NewScheme returns a new scheme in which the core/v1 kinds Pod and PodList are Pod and PodList,
// with the meta/v1 types that listing and watching them need (ListOptions, WatchEvent, Status).
func NewScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	gv := corev1.SchemeGroupVersion
	s.AddKnownTypeWithName(gv.WithKind("Pod"), &Pod{})
	s.AddKnownTypeWithName(gv.WithKind("PodList"), &PodList{})
	metav1.AddToGroupVersion(s, gv)
	return s
}
