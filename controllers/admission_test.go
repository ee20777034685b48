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
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// sizeBounds reads spec.size's minimum and maximum from the generated CRD.
func sizeBounds(t *testing.T) (minimum, maximum int32) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "config", "crd", "bases", "cache.example.com_memcacheds.yaml"))
	if err != nil {
		t.Fatalf("read CRD: %v", err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(raw, crd); err != nil {
		t.Fatalf("parse CRD: %v", err)
	}
	size := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["size"]
	if size.Minimum == nil || size.Maximum == nil {
		t.Fatalf("spec.size has no minimum or maximum in the CRD")
	}
	return int32(*size.Minimum), int32(*size.Maximum)
}

// extraArgs is a spec with memcached.extraArgs set.
func extraArgs(args ...any) map[string]any {
	return map[string]any{"memcached": map[string]any{"extraArgs": args}}
}

// createUnstructured creates a Memcached from a raw spec with strict field validation, like kubectl.
func createUnstructured(name string, spec map[string]any) error {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": cachev1alpha1.GroupVersion.String(),
		"kind":       "Memcached",
		"metadata":   map[string]any{"name": name, "namespace": "t-admission"},
		"spec":       spec,
	}}
	return k8sClient.Create(testCtx, u, client.FieldValidation("Strict"))
}

// Invalid Memcacheds are rejected at admission with the field named, and nothing is stored.
// Sources: https://github.com/kubernetes/kubernetes/issues/772 (negative replicas persisted),
// https://github.com/operator-framework/operator-sdk/issues/2701 (bounds messages),
// https://github.com/kubernetes/kubernetes/issues/111074 (typos silently pruned; the sample's
// omitted size became 0).
func TestAdmissionRejectsInvalidSpecs(t *testing.T) {
	minimum, maximum := sizeBounds(t)
	if minimum != 1 || maximum != 64 {
		t.Fatalf("documented bounds of spec.size are 1..64, CRD says %d..%d", minimum, maximum)
	}
	tests := map[string]struct {
		spec    map[string]any
		wantErr []string // substrings of the error; empty means accepted
	}{
		"negative size":            {spec: map[string]any{"size": -1}, wantErr: []string{"spec.size", "greater than or equal to 1"}},
		"size below minimum (0)":   {spec: map[string]any{"size": minimum - 1}, wantErr: []string{"spec.size", "greater than or equal to 1"}},
		"size at minimum":          {spec: map[string]any{"size": minimum}},
		"size at maximum":          {spec: map[string]any{"size": maximum}},
		"size above maximum":       {spec: map[string]any{"size": maximum + 1}, wantErr: []string{"spec.size", "less than or equal to 64"}},
		"size 1000":                {spec: map[string]any{"size": 1000}, wantErr: []string{"spec.size", "less than or equal to 64"}},
		"typo replicas":            {spec: map[string]any{"replicas": 3}, wantErr: []string{`unknown field "spec.replicas"`}},
		"extra arg overriding -m":  {spec: extraArgs("-m", "100"), wantErr: []string{"spec.memcached.extraArgs", "-M, -R"}},
		"extra arg --port=1":       {spec: extraArgs("--port=1"), wantErr: []string{"spec.memcached.extraArgs"}},
		"abbreviated long option":  {spec: extraArgs("--por=22997"), wantErr: []string{"spec.memcached.extraArgs"}},
		"bundled flags":            {spec: extraArgs("-Ap1234"), wantErr: []string{"spec.memcached.extraArgs"}},
		"value attached to a flag": {spec: extraArgs("-R40"), wantErr: []string{"spec.memcached.extraArgs"}},
		"version flag exits":       {spec: extraArgs("-V"), wantErr: []string{"spec.memcached.extraArgs"}},
		"extra arg -vv":            {spec: extraArgs("-vv"), wantErr: []string{"spec.memcached.extraArgs"}},
		"extra args allowed":       {spec: extraArgs("-o", "modern", "-M", "-R", "40")},
		"item size above half":     {spec: map[string]any{"memcached": map[string]any{"maxMemoryMB": 64, "maxItemSize": "33Mi"}}, wantErr: []string{"spec.memcached.maxItemSize", "half"}},
		"item size too small":      {spec: map[string]any{"memcached": map[string]any{"maxItemSize": "1Ki"}}, wantErr: []string{"spec.memcached.maxItemSize", "512Ki"}},
		"item size not a multiple": {spec: map[string]any{"memcached": map[string]any{"maxItemSize": "1M"}}, wantErr: []string{"spec.memcached.maxItemSize", "multiple of 512Ki"}},
		"item size in e-notation":  {spec: map[string]any{"memcached": map[string]any{"maxItemSize": "1e6"}}, wantErr: []string{"spec.memcached.maxItemSize", "multiple of 512Ki"}},
		"item size 1.5Mi":          {spec: map[string]any{"memcached": map[string]any{"maxItemSize": "1.5Mi"}}},
		"item size 512Ki":          {spec: map[string]any{"memcached": map[string]any{"maxItemSize": "512Ki"}}},
		"item size at half":        {spec: map[string]any{"memcached": map[string]any{"maxMemoryMB": 64, "maxItemSize": "32Mi"}}},
		"threads 0":                {spec: map[string]any{"memcached": map[string]any{"threads": 0}}, wantErr: []string{"spec.memcached.threads"}},
		"verbosity 3":              {spec: map[string]any{"memcached": map[string]any{"verbosity": 3}}, wantErr: []string{"spec.memcached.verbosity"}},
		"pdb min and max":          {spec: map[string]any{"podDisruptionBudget": map[string]any{"minAvailable": 1, "maxUnavailable": 1}}, wantErr: []string{"spec.podDisruptionBudget", "at most one"}},
		"unknown preset":           {spec: map[string]any{"antiAffinityPreset": "Always"}, wantErr: []string{"spec.antiAffinityPreset"}},
		"image with spaces":        {spec: map[string]any{"image": "a b"}, wantErr: []string{"spec.image"}},
		"digest-pinned image":      {spec: map[string]any{"image": "registry.example.com/memcached@sha256:" + fmt.Sprintf("%064d", 0)}},
	}
	for desc, name := range map[string]string{
		"name starting with a digit": "1cache",
		"name longer than 63":        strings.Repeat("a", 64),
	} {
		t.Run(desc, func(t *testing.T) {
			err := createUnstructured(name, map[string]any{})
			if err == nil || !strings.Contains(err.Error(), "DNS-1035") {
				t.Fatalf("create %q: error %v, want a DNS-1035 rejection", name, err)
			}
		})
	}
	i := 0
	for desc, tc := range tests {
		t.Run(desc, func(t *testing.T) {
			g := NewWithT(t)
			i++
			name := fmt.Sprintf("adm-%d", i)
			err := createUnstructured(name, tc.spec)
			if len(tc.wantErr) == 0 {
				g.Expect(err).NotTo(HaveOccurred())
				return
			}
			g.Expect(err).To(HaveOccurred())
			for _, s := range tc.wantErr {
				g.Expect(err.Error()).To(ContainSubstring(s))
			}
			g.Expect(apierrors.IsNotFound(k8sClient.Get(testCtx, key("t-admission", name), &cachev1alpha1.Memcached{}))).
				To(BeTrue(), "a rejected Memcached is not stored")
		})
	}
}

// An omitted size gets the documented default 1, visible in the stored object, and the
// Deployment has 1 replica (never 0 while Available). Source: kubernetes/kubernetes#111074.
func TestOmittedSizeDefaultsToOne(t *testing.T) {
	g := NewWithT(t)
	g.Expect(createUnstructured("empty", map[string]any{})).To(Succeed())
	mc := getMemcached(g, "t-admission", "empty")
	g.Expect(mc.Spec.Size).To(Equal(int32(1)))
	g.Expect(mc.Spec.Memcached.MaxMemoryMB).To(Equal(int32(64)))
	g.Expect(mc.Spec.AntiAffinityPreset).To(Equal(cachev1alpha1.AntiAffinitySoft))
	g.Eventually(func(g Gomega) {
		d := &appsv1.Deployment{}
		g.Expect(k8sClient.Get(testCtx, key("t-admission", "empty"), d)).To(Succeed())
		g.Expect(d.Spec.Replicas).To(HaveValue(Equal(int32(1))))
	}, timeout, interval).Should(Succeed())
}

// Without strict field validation (kubectl apply --validate=ignore, or a client that does not ask
// for it, as controller-runtime's does not) a mistyped field is pruned, never stored, and the
// instance gets the default size: 1 replica, not the 3 the typo meant and not 0. Sources:
// https://github.com/kubernetes/kubernetes/issues/111074 (a mistyped field silently pruned),
// https://github.com/kubernetes/kubernetes/issues/105916 (fieldValidation=Strict|Warn|Ignore).
func TestMistypedFieldIsPrunedWithoutStrictValidation(t *testing.T) {
	g := NewWithT(t)
	const name = "typo-ignored"
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": cachev1alpha1.GroupVersion.String(),
		"kind":       "Memcached",
		"metadata":   map[string]any{"name": name, "namespace": "t-admission"},
		"spec":       map[string]any{"replicas": int64(3)},
	}}
	g.Expect(k8sClient.Create(testCtx, u, client.FieldValidation("Ignore"))).To(Succeed())
	stored := &unstructured.Unstructured{}
	stored.SetGroupVersionKind(cachev1alpha1.GroupVersion.WithKind("Memcached"))
	g.Expect(k8sClient.Get(testCtx, key("t-admission", name), stored)).To(Succeed())
	_, found, err := unstructured.NestedFieldNoCopy(stored.Object, "spec", "replicas")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(found).To(BeFalse(), "the mistyped spec.replicas is not stored")
	size, found, err := unstructured.NestedInt64(stored.Object, "spec", "size")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(found).To(BeTrue())
	g.Expect(size).To(Equal(int64(1)))
	g.Eventually(func(g Gomega) {
		d := &appsv1.Deployment{}
		g.Expect(k8sClient.Get(testCtx, key("t-admission", name), d)).To(Succeed())
		g.Expect(d.Spec.Replicas).To(HaveValue(Equal(int32(1))))
	}, timeout, interval).Should(Succeed())
}

// A patch to an invalid size is rejected and the Deployment keeps its replicas. Source:
// kubernetes/kubernetes#772.
func TestInvalidPatchKeepsDeployment(t *testing.T) {
	g := NewWithT(t)
	g.Expect(k8sClient.Create(testCtx, newMemcached("t-admission", "ok", 2))).To(Succeed())
	g.Eventually(func() error { return k8sClient.Get(testCtx, key("t-admission", "ok"), &appsv1.Deployment{}) }, timeout, interval).Should(Succeed())
	err := k8sClient.Patch(testCtx, getMemcached(g, "t-admission", "ok"), client.RawPatch(types.MergePatchType, []byte(`{"spec":{"size":-1}}`)))
	g.Expect(err).To(HaveOccurred())
	g.Expect(err.Error()).To(ContainSubstring("spec.size"))
	g.Consistently(func(g Gomega) {
		d := &appsv1.Deployment{}
		g.Expect(k8sClient.Get(testCtx, key("t-admission", "ok"), d)).To(Succeed())
		g.Expect(d.Spec.Replicas).To(HaveValue(Equal(int32(2))))
	}, time.Second, 200*time.Millisecond).Should(Succeed())
}

// A memory limit below maxMemoryMB cannot be rejected by a CEL rule within the API server's cost
// budget: it surfaces as Degraded/InvalidSpec with an event, and the Deployment is left unchanged.
func TestMemoryLimitBelowMaxMemoryIsDegraded(t *testing.T) {
	g := NewWithT(t)
	const name = "tight"
	mc := newMemcached("t-admission", name, 1)
	g.Expect(k8sClient.Create(testCtx, mc)).To(Succeed())
	before := &appsv1.Deployment{}
	g.Eventually(func() error { return k8sClient.Get(testCtx, key("t-admission", name), before) }, timeout, interval).Should(Succeed())

	// A merge patch, not an update: the operator's status patch may land between a read and an
	// update and make it fail with a conflict.
	mc = getMemcached(g, "t-admission", name)
	base := mc.DeepCopy()
	mc.Spec.Resources = &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")}}
	g.Expect(k8sClient.Patch(testCtx, mc, client.MergeFrom(base))).To(Succeed())
	g.Eventually(func(g Gomega) {
		c := conditionOf(getMemcached(g, "t-admission", name), cachev1alpha1.ConditionDegraded)
		g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
		g.Expect(c.Reason).To(Equal(cachev1alpha1.ReasonInvalidSpec))
		g.Expect(c.Message).To(ContainSubstring("spec.resources.limits.memory"))
	}, timeout, interval).Should(Succeed())
	d := &appsv1.Deployment{}
	g.Expect(k8sClient.Get(testCtx, key("t-admission", name), d)).To(Succeed())
	g.Expect(d.ResourceVersion).To(Equal(before.ResourceVersion), "the Deployment is left unchanged")
}
