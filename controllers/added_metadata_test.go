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

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"

	"github.com/example/memcached-operator/controllers/resources"
)

// What the spec adds for a private registry, a service mesh or cost allocation reaches the objects:
// spec.imagePullSecrets and spec.podMetadata the pod template, spec.service.annotations the
// Service. A key removed from the spec is removed from the object, while what others added (a
// rollout restart's annotation, an annotation a controller put on the Service) stays; the steady
// state writes nothing; a label the API server would refuse on a pod is reported on the instance,
// naming the field, and nothing is written.
func TestAddedMetadataReachesTheObjects(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-added-metadata", "am"
	mc := newMemcached(ns, name, 1)
	mc.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "registry"}}
	mc.Spec.PodMetadata = &cachev1alpha1.ObjectMetadata{
		Labels:      map[string]string{"team": "web", "cost-center": "42"},
		Annotations: map[string]string{"sidecar.istio.io/inject": "false"},
	}
	mc.Spec.Service.Annotations = map[string]string{"external-dns.alpha.kubernetes.io/hostname": "cache.example.com"}
	g.Expect(k8sClient.Create(testCtx, mc)).To(Succeed())

	d := &appsv1.Deployment{}
	svc := &corev1.Service{}
	g.Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(testCtx, key(ns, name), d)).To(Succeed())
		tpl := d.Spec.Template
		g.Expect(tpl.Spec.ImagePullSecrets).To(Equal([]corev1.LocalObjectReference{{Name: "registry"}}))
		g.Expect(tpl.Labels).To(HaveKeyWithValue("team", "web"))
		g.Expect(tpl.Labels).To(HaveKeyWithValue("cost-center", "42"))
		g.Expect(tpl.Labels).To(HaveKeyWithValue(resources.LabelInstance, name), "the operator's labels stay")
		g.Expect(tpl.Annotations).To(HaveKeyWithValue("sidecar.istio.io/inject", "false"))
		g.Expect(d.Spec.Selector.MatchLabels).To(Equal(map[string]string{resources.LabelName: resources.AppName, resources.LabelInstance: name}),
			"the selector is the operator's alone")
		g.Expect(k8sClient.Get(testCtx, key(ns, name), svc)).To(Succeed())
		g.Expect(svc.Annotations).To(HaveKeyWithValue("external-dns.alpha.kubernetes.io/hostname", "cache.example.com"))
	}, timeout, interval).Should(Succeed())

	// Others add to the same objects: kubectl rollout restart, a controller annotating the Service.
	g.Expect(k8sClient.Patch(testCtx, d, client.RawPatch(types.MergePatchType,
		[]byte(`{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"2026-12-07T12:00:00Z"}}}}}`)))).To(Succeed())
	g.Expect(k8sClient.Patch(testCtx, svc, client.RawPatch(types.MergePatchType,
		[]byte(`{"metadata":{"annotations":{"controller.example.com/seen":"yes"}}}`)))).To(Succeed())

	// One label and every annotation removed from the spec, the pull secrets cleared.
	g.Expect(k8sClient.Patch(testCtx, getMemcached(g, ns, name), client.RawPatch(types.MergePatchType,
		[]byte(`{"spec":{"imagePullSecrets":null,"podMetadata":{"labels":{"team":null},"annotations":null},"service":{"annotations":null}}}`)))).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(testCtx, key(ns, name), d)).To(Succeed())
		tpl := d.Spec.Template
		g.Expect(tpl.Spec.ImagePullSecrets).To(BeEmpty())
		g.Expect(tpl.Labels).NotTo(HaveKey("team"), "annotations %v spec %+v", tpl.Annotations, getMemcached(g, ns, name).Spec.PodMetadata)
		g.Expect(tpl.Labels).To(HaveKeyWithValue("cost-center", "42"))
		g.Expect(tpl.Annotations).NotTo(HaveKey("sidecar.istio.io/inject"))
		g.Expect(tpl.Annotations).To(HaveKeyWithValue("kubectl.kubernetes.io/restartedAt", "2026-12-07T12:00:00Z"), "a rollout restart's annotation stays")
		g.Expect(k8sClient.Get(testCtx, key(ns, name), svc)).To(Succeed())
		g.Expect(svc.Annotations).NotTo(HaveKey("external-dns.alpha.kubernetes.io/hostname"))
		g.Expect(svc.Annotations).NotTo(HaveKey(resources.AddedMetadataAnnotation), "nothing added: no record")
		g.Expect(svc.Annotations).To(HaveKeyWithValue("controller.example.com/seen", "yes"), "an annotation someone else added stays")
	}, timeout, interval).Should(Succeed())

	before := settledWritesIn(g, ns, 2*time.Second)
	g.Consistently(func() map[string]int { return writesIn(ns) }, 3*time.Second, 250*time.Millisecond).Should(Equal(before),
		"no writes in the steady state")

	// A label value a pod cannot carry: the instance says which field, nothing is written.
	g.Expect(k8sClient.Patch(testCtx, getMemcached(g, ns, name), client.RawPatch(types.MergePatchType,
		[]byte(`{"spec":{"podMetadata":{"labels":{"team":"web team"}}}}`)))).To(Succeed())
	g.Eventually(func(g Gomega) {
		c := conditionOf(getMemcached(g, ns, name), cachev1alpha1.ConditionDegraded)
		g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
		g.Expect(c.Reason).To(Equal(cachev1alpha1.ReasonInvalidSpec))
		g.Expect(c.Message).To(ContainSubstring("spec.podMetadata.labels"))
	}, timeout, interval).Should(Succeed())
	g.Expect(k8sClient.Get(testCtx, key(ns, name), d)).To(Succeed())
	g.Expect(d.Spec.Template.Labels).NotTo(HaveKey("team"))
}
