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

package podview

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
)

// servedPod returns a pod as the API server serves it: every metadata field set, a spec, and a
// status with more than the view reads.
func servedPod(name string) corev1.Pod {
	created := metav1.NewTime(time.Unix(1_700_000_000, 0))
	deleted := metav1.NewTime(time.Unix(1_700_000_100, 0))
	return corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, GenerateName: "c-abc-", Namespace: "ns", UID: types.UID("uid-" + name), ResourceVersion: "42", Generation: 3,
			CreationTimestamp: created, DeletionTimestamp: &deleted, DeletionGracePeriodSeconds: ptr.To[int64](30),
			Labels:          map[string]string{"app.kubernetes.io/instance": "c", "pod-template-hash": "abc"},
			Annotations:     map[string]string{"note": "kept"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "c-abc", UID: "rs-uid", Controller: ptr.To(true)}},
			Finalizers:      []string{"example.com/f"},
			ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{}}`)}}},
		},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "memcached", Image: "memcached:1.6", Args: []string{"-m", "64"}}}},
		Status: corev1.PodStatus{
			Phase: corev1.PodRunning, PodIP: "10.244.0.1", HostIP: "127.0.0.1", PodIPs: []corev1.PodIP{{IP: "10.244.0.1"}},
			Conditions: []corev1.PodCondition{
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: created},
				{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", Message: "containers with unready status: [memcached]"},
			},
			ContainerStatuses: []corev1.ContainerStatus{
				{
					Name: "memcached", Ready: false, RestartCount: 2, Image: "memcached:1.6", ContainerID: "containerd://abc",
					State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 20s restarting failed container"}},
					LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
						ExitCode: 71, Signal: 0, Reason: "Error", Message: "failed to set rlimit for open files", StartedAt: created, FinishedAt: created, ContainerID: "containerd://abb",
					}},
				},
				{
					Name: "memcached-exporter", Ready: true, Started: ptr.To(true),
					State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: created}},
				},
			},
			InitContainerStatuses: []corev1.ContainerStatus{{
				Name: "istio-init", Image: "istio/proxyv2", RestartCount: 3,
				State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", Message: "iptables: permission denied"}},
			}},
		},
	}
}

// wantView is what a Pod decoded from p's protobuf holds: the metadata without the fields
// unmarshalObjectMeta skips, and the phase, pod IP, conditions' type and status and the
// containers' names, readiness, restart counts and waiting or terminated states.
func wantView(p *corev1.Pod) Pod {
	m := *p.ObjectMeta.DeepCopy()
	m.SelfLink, m.DeletionGracePeriodSeconds, m.OwnerReferences, m.Finalizers, m.ManagedFields = "", nil, nil, nil, nil
	out := Pod{ObjectMeta: m, Status: PodStatus{Phase: p.Status.Phase, PodIP: p.Status.PodIP}}
	for _, c := range p.Status.Conditions {
		out.Status.Conditions = append(out.Status.Conditions, PodCondition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message})
	}
	state := func(s corev1.ContainerState) ContainerState {
		var out ContainerState
		if w := s.Waiting; w != nil {
			out.Waiting = &ContainerStateWaiting{Reason: w.Reason, Message: w.Message}
		}
		if t := s.Terminated; t != nil {
			out.Terminated = &ContainerStateTerminated{ExitCode: t.ExitCode, Reason: t.Reason, Message: t.Message}
		}
		return out
	}
	for _, c := range p.Status.ContainerStatuses {
		out.Status.ContainerStatuses = append(out.Status.ContainerStatuses, ContainerStatus{
			Name: c.Name, Ready: c.Ready, RestartCount: c.RestartCount, Image: c.Image, State: state(c.State), LastTerminationState: state(c.LastTerminationState),
		})
	}
	for _, c := range p.Status.InitContainerStatuses {
		out.Status.InitContainerStatuses = append(out.Status.InitContainerStatuses, ContainerStatus{
			Name: c.Name, Ready: c.Ready, RestartCount: c.RestartCount, Image: c.Image, State: state(c.State), LastTerminationState: state(c.LastTerminationState),
		})
	}
	return out
}

// A core/v1 Pod in the API server's protobuf decodes into a Pod with the metadata but owner
// references, finalizers and managed fields, and the phase, pod IP and conditions.
func TestUnmarshalProtobufPod(t *testing.T) {
	served := servedPod("c-1")
	data, err := served.Marshal()
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var got Pod
	if err := got.Unmarshal(data); err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	if want := wantView(&served); !equality.Semantic.DeepEqual(got, want) {
		t.Errorf("Unmarshal =\n%+v\nwant\n%+v", got, want)
	}
	// No deletion timestamp, no status: nothing invented.
	served.DeletionTimestamp, served.Status = nil, corev1.PodStatus{}
	if data, err = served.Marshal(); err != nil {
		t.Fatalf("marshal: %v", err)
	}
	got.Reset()
	if err := got.Unmarshal(data); err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	if want := wantView(&served); !equality.Semantic.DeepEqual(got, want) {
		t.Errorf("Unmarshal without status =\n%+v\nwant\n%+v", got, want)
	}
}

// The scheme decodes a PodList encoded by the Kubernetes protobuf serializer (the envelope a list
// response carries) into a PodList of views.
func TestNewSchemeDecodesProtobufPodList(t *testing.T) {
	served := corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}, ListMeta: metav1.ListMeta{ResourceVersion: "77", Continue: "next"},
		Items: []corev1.Pod{servedPod("c-1"), servedPod("c-2")}}
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(clientgoscheme.Scheme, clientgoscheme.Scheme).Encode(&served, &buf); err != nil {
		t.Fatalf("encode: %v", err)
	}
	obj, _, err := serializer.NewCodecFactory(NewScheme()).UniversalDeserializer().Decode(buf.Bytes(), nil, nil)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	got, ok := obj.(*PodList)
	if !ok {
		t.Fatalf("decoded a %T, want a *PodList", obj)
	}
	if got.ResourceVersion != "77" || got.Continue != "next" || len(got.Items) != 2 {
		t.Fatalf("list = %+v, want resourceVersion 77, continue next and 2 items", got.ListMeta)
	}
	for i := range served.Items {
		if want := wantView(&served.Items[i]); !equality.Semantic.DeepEqual(got.Items[i].ObjectMeta, want.ObjectMeta) ||
			!equality.Semantic.DeepEqual(got.Items[i].Status, want.Status) {
			t.Errorf("item %d =\n%+v\nwant\n%+v", i, got.Items[i], want)
		}
	}
}

// Malformed protobuf is an error naming what failed, never a panic or a partial success.
func TestUnmarshalRejectsMalformedProtobuf(t *testing.T) {
	served := servedPod("c-1")
	data, err := served.Marshal()
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	for name, tc := range map[string]struct {
		data []byte
		want string
	}{
		"truncated":                 {data[:len(data)-3], "failed to"},
		"metadata as a varint":      {[]byte{0x08, 0x01}, "Pod.metadata has the unexpected wire type 0"},
		"phase as a varint":         {[]byte{0x1a, 0x02, 0x08, 0x01}, "PodStatus.phase has the unexpected wire type 0"},
		"length beyond the data":    {[]byte{0x0a, 0x10, 0x0a}, "failed to read field 1"},
		"label entry key as varint": {[]byte{0x0a, 0x04, 0x5a, 0x02, 0x08, 0x01}, "ObjectMeta.labels key has the unexpected wire type 0"},
	} {
		var p Pod
		if err := p.Unmarshal(tc.data); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Unmarshal error = %v, want one containing %q", name, err, tc.want)
		}
	}
}

// A core/v1 PodList as the API server serves it in JSON decodes into a PodList: list metadata,
// and per pod its metadata, phase, IP and conditions; what the view lacks (the spec, container
// statuses) is skipped without an error.
func TestNewSchemeDecodesPodList(t *testing.T) {
	served := corev1.PodList{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"},
		ListMeta: metav1.ListMeta{ResourceVersion: "77"},
		Items: []corev1.Pod{{
			ObjectMeta: metav1.ObjectMeta{Name: "c-1", Namespace: "ns", Labels: map[string]string{"app": "c"}},
			Spec:       corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "memcached", Image: "memcached:1.6"}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.244.0.1", HostIP: "127.0.0.1",
				Conditions:        []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, Reason: "r", Message: "m"}},
				ContainerStatuses: []corev1.ContainerStatus{{Name: "memcached", Ready: true}}},
		}},
	}
	data, err := json.Marshal(&served)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	obj, gvk, err := serializer.NewCodecFactory(NewScheme()).UniversalDeserializer().Decode(data, nil, nil)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	got, ok := obj.(*PodList)
	if !ok {
		t.Fatalf("decoded a %T (%v), want a *PodList", obj, gvk)
	}
	if got.ResourceVersion != "77" || len(got.Items) != 1 {
		t.Fatalf("list = %+v, want resourceVersion 77 and 1 item", got)
	}
	p := got.Items[0]
	if p.Name != "c-1" || p.Namespace != "ns" || p.Labels["app"] != "c" || p.Status.Phase != corev1.PodRunning ||
		p.Status.PodIP != "10.244.0.1" || len(p.Status.Conditions) != 1 ||
		p.Status.Conditions[0] != (PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue, Reason: "r", Message: "m"}) {
		t.Errorf("pod = %+v, want c-1 in ns, label app=c, Running, 10.244.0.1, Ready=True", p)
	}
}

// The view is what makes the pod cache small: a Pod must stay a fraction of a corev1.Pod.
func TestPodIsSmallerThanCoreV1Pod(t *testing.T) {
	view, full := unsafe.Sizeof(Pod{}), unsafe.Sizeof(corev1.Pod{})
	if view > full/3 {
		t.Errorf("podview.Pod takes %d bytes, corev1.Pod %d: want at most a third", view, full)
	}
	t.Logf("podview.Pod %d bytes, corev1.Pod %d bytes", view, full)
}
