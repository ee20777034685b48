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
	"encoding/json"
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/resources"
)

// The update phase of warm restarts against the API server, which validates every pod update (a
// running pod may change its images, labels and annotations, nothing else): the StatefulSet
// controller and the kubelet are played by the test, in a namespace the manager does not watch,
// and the phase is called directly. An image change patches the highest ordinal in place (image,
// revision label, restart record), holds the next server until that one restarted, then patches
// it; a memory size change deletes the pod for its controller to recreate. Each step is one event.
func TestUpdateServersInPlace(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-unwatched", "warm"
	opts := resources.Options{DefaultImage: testImage, CertReloaderImage: "registry.example.com/memcached-operator:v1"}
	mc := newMemcached(ns, name, 2)
	mc.Spec.ServerIdentity = cachev1alpha1.ServerIdentityStable
	mc.Spec.WarmRestart.Enabled = true
	mc.Spec.Image = "registry.example.com/memcached:1.6.38"
	mc.Spec.Memcached = cachev1alpha1.MemcachedConfig{MaxMemoryMB: 64, MaxConnections: 1024, Threads: 4}

	sts := resources.DesiredStatefulSet(mc, opts)
	g.Expect(sts.Spec.UpdateStrategy.Type).To(Equal(appsv1.OnDeleteStatefulSetStrategyType))
	g.Expect(k8sClient.Create(testCtx, sts)).To(Succeed())
	revision := func(rev string, template corev1.PodTemplateSpec) {
		raw, err := json.Marshal(map[string]any{"spec": map[string]any{"template": template}})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(k8sClient.Create(testCtx, &appsv1.ControllerRevision{
			ObjectMeta: metav1.ObjectMeta{Name: rev, Namespace: ns}, Data: runtime.RawExtension{Raw: raw}, Revision: 1,
		})).To(Succeed())
	}
	revision(name+"-old", sts.Spec.Template)
	for i := range 2 {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", name, i), Namespace: ns, Labels: map[string]string{appsv1.ControllerRevisionHashLabelKey: name + "-old"}},
			Spec:       *sts.Spec.Template.Spec.DeepCopy(),
		}
		for k, v := range sts.Spec.Template.Labels {
			pod.Labels[k] = v
		}
		g.Expect(k8sClient.Create(testCtx, pod)).To(Succeed())
		setPodRestarts(g, ns, pod.Name, 0)
	}
	// A new memcached image, as the StatefulSet controller records it.
	rollTo := func(rev string, edit func(*cachev1alpha1.Memcached)) {
		edit(mc)
		live := &appsv1.StatefulSet{}
		g.Expect(k8sClient.Get(testCtx, key(ns, name), live)).To(Succeed())
		live.Spec.Template = resources.DesiredStatefulSet(mc, opts).Spec.Template
		g.Expect(k8sClient.Update(testCtx, live)).To(Succeed())
		live.Status = appsv1.StatefulSetStatus{ObservedGeneration: live.Generation, Replicas: 2, ReadyReplicas: 2, UpdateRevision: rev, CurrentRevision: name + "-old"}
		g.Expect(k8sClient.Status().Update(testCtx, live)).To(Succeed())
	}
	rollTo(name+"-new", func(mc *cachev1alpha1.Memcached) { mc.Spec.Image = "registry.example.com/memcached:1.6.45" })

	recorder := events.NewFakeRecorder(10)
	r := &MemcachedReconciler{Client: k8sClient, APIReader: k8sClient, Scheme: k8sClient.Scheme(), Recorder: recorder, Options: opts}
	step := func() {
		t.Helper()
		live := &appsv1.StatefulSet{}
		g.Expect(k8sClient.Get(testCtx, key(ns, name), live)).To(Succeed())
		g.Expect(rolloutPending(live)).To(BeTrue())
		rollout, err := readServerRollout(testCtx, k8sClient, live)
		g.Expect(err).NotTo(HaveOccurred())
		s := &scope{mc: mc, apply: true, rollout: rollout}
		s.obs.StatefulSet = live
		g.Expect(r.updateServersPhase(testCtx, s)).To(Succeed())
		g.Expect(s.obs.Err).NotTo(HaveOccurred())
	}
	pod := func(i int) *corev1.Pod {
		p := &corev1.Pod{}
		g.Expect(k8sClient.Get(testCtx, key(ns, fmt.Sprintf("%s-%d", name, i)), p)).To(Succeed())
		return p
	}

	step()
	p1 := pod(1)
	g.Expect(p1.Spec.Containers[0].Image).To(Equal("registry.example.com/memcached:1.6.45"))
	g.Expect(p1.Labels[appsv1.ControllerRevisionHashLabelKey]).To(Equal(name + "-new"))
	g.Expect(p1.Annotations[resources.InPlaceUpdateAnnotation]).To(Equal("memcached=0"))
	g.Expect(pod(0).Spec.Containers[0].Image).To(Equal("registry.example.com/memcached:1.6.38"), "one server at a time")
	g.Expect(<-recorder.Events).To(ContainSubstring("UpdatedInPlace Server warm-1 updated in place, its items kept: image of memcached: registry.example.com/memcached:1.6.38 → registry.example.com/memcached:1.6.45"))

	// warm-1 has not restarted yet: warm-0 waits.
	step()
	g.Expect(pod(0).Spec.Containers[0].Image).To(Equal("registry.example.com/memcached:1.6.38"), "the next server waits for the restart")
	g.Expect(recorder.Events).To(BeEmpty())

	// The kubelet restarted warm-1's memcached: warm-0 is next.
	setPodRestarts(g, ns, name+"-1", 1)
	step()
	g.Expect(pod(0).Spec.Containers[0].Image).To(Equal("registry.example.com/memcached:1.6.45"))
	g.Expect(<-recorder.Events).To(ContainSubstring("Server warm-0 updated in place"))
	setPodRestarts(g, ns, name+"-0", 1)

	// A change of the memory size changes the memory volume and the container's resources, which
	// a running pod cannot change: the pod is replaced.
	current := &appsv1.StatefulSet{}
	g.Expect(k8sClient.Get(testCtx, key(ns, name), current)).To(Succeed())
	revision(name+"-new", current.Spec.Template) // as the controller records it: as stored, defaults set
	rollTo(name+"-memory", func(mc *cachev1alpha1.Memcached) { mc.Spec.Memcached.MaxMemoryMB = 128 })
	step()
	err := k8sClient.Get(testCtx, key(ns, name+"-1"), &corev1.Pod{})
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "warm-1 deleted for its controller to recreate: %v", err)
	g.Expect(<-recorder.Events).To(ContainSubstring("Replaced Server warm-1 replaced, it starts empty: pod spec (volumes, scheduling or security); resources of memcached cannot change in a running pod"))
	// warm-1 is missing: warm-0 waits for it.
	step()
	g.Expect(pod(0).Labels[appsv1.ControllerRevisionHashLabelKey]).To(Equal(name + "-new"))
	g.Expect(recorder.Events).To(BeEmpty())
}

// setPodRestarts writes the status of pod name as the kubelet would: running and ready, its
// memcached container restarted restarts times.
func setPodRestarts(g Gomega, ns, name string, restarts int32) {
	p := &corev1.Pod{}
	g.Expect(k8sClient.Get(testCtx, key(ns, name), p)).To(Succeed())
	p.Status = corev1.PodStatus{Phase: corev1.PodRunning,
		Conditions:        []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()}},
		ContainerStatuses: []corev1.ContainerStatus{{Name: resources.ContainerName, Ready: true, RestartCount: restarts, Image: p.Spec.Containers[0].Image}}}
	g.Expect(k8sClient.Status().Update(testCtx, p)).To(Succeed())
}
