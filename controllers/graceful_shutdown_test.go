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
	"maps"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/resources"
)

func init() { maps.Copy(ruleCases, gracefulShutdownRuleCases) }

// gracefulShutdownRuleCases are the TestGoValidationMatchesAdmission inputs of spec.gracefulShutdown
// (merged into ruleCases): each bound and the CEL rule, refused and accepted at their edges.
var gracefulShutdownRuleCases = map[string]ruleCase{
	"preStopDelaySeconds -1":             {rule: ".spec.gracefulShutdown.preStopDelaySeconds minimum", spec: gracefulShutdownCfg(-1, 30), field: "spec.gracefulShutdown.preStopDelaySeconds"},
	"preStopDelaySeconds 301":            {rule: ".spec.gracefulShutdown.preStopDelaySeconds maximum", spec: gracefulShutdownCfg(301, 3600), field: "spec.gracefulShutdown.preStopDelaySeconds"},
	"preStopDelaySeconds 300 of 301":     {spec: gracefulShutdownCfg(300, 301)},
	"terminationGracePeriodSeconds 0":    {rule: ".spec.gracefulShutdown.terminationGracePeriodSeconds minimum", spec: gracefulShutdownCfg(0, 0), field: "spec.gracefulShutdown.terminationGracePeriodSeconds"},
	"terminationGracePeriodSeconds 3601": {rule: ".spec.gracefulShutdown.terminationGracePeriodSeconds maximum", spec: gracefulShutdownCfg(0, 3601), field: "spec.gracefulShutdown.terminationGracePeriodSeconds"},
	"terminationGracePeriodSeconds 1":    {spec: gracefulShutdownCfg(0, 1)},
	"grace equal to the delay":           {rule: ".spec.gracefulShutdown rule#0", spec: gracefulShutdownCfg(10, 10), field: "spec.gracefulShutdown.terminationGracePeriodSeconds"},
	"grace below the delay":              {rule: ".spec.gracefulShutdown rule#0", spec: gracefulShutdownCfg(60, 30), field: "spec.gracefulShutdown.terminationGracePeriodSeconds"},
	"grace one above the delay":          {spec: gracefulShutdownCfg(10, 11)},
	// The default grace period (30) applies to a delay given alone: admission defaults, then checks.
	"delay 30 with the default grace": {rule: ".spec.gracefulShutdown rule#0", spec: map[string]any{"gracefulShutdown": map[string]any{"preStopDelaySeconds": 30}}, field: "spec.gracefulShutdown.terminationGracePeriodSeconds"},
}

// gracefulShutdownCfg is a spec with only spec.gracefulShutdown set.
func gracefulShutdownCfg(delay, grace int) map[string]any {
	return map[string]any{"gracefulShutdown": map[string]any{"preStopDelaySeconds": delay, "terminationGracePeriodSeconds": grace}}
}

// spec.gracefulShutdown reaches the Deployment's pod template: the CRD defaults (no delay, 30 s)
// leave it as it was before the field existed (no hook, the Pod API's default grace period); a
// delay adds the preStop sleep; a hand edit is reverted; turning the delay off removes the hook;
// and the steady state writes nothing.
func TestGracefulShutdownReconciled(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-shutdown", "gs1"
	g.Expect(k8sClient.Create(testCtx, newMemcached(ns, name, 2))).To(Succeed())
	pod := func(g Gomega) *corev1.PodSpec {
		d := &appsv1.Deployment{}
		g.Expect(k8sClient.Get(testCtx, key(ns, name), d)).To(Succeed())
		return &d.Spec.Template.Spec
	}
	g.Eventually(func(g Gomega) { pod(g) }, timeout, interval).Should(Succeed())
	stored := getMemcached(g, ns, name).Spec.GracefulShutdown
	g.Expect(stored.PreStopDelaySeconds).To(HaveValue(BeZero()), "CRD default")
	g.Expect(stored.TerminationGracePeriodSeconds).To(HaveValue(Equal(int32(30))), "CRD default")
	g.Expect(pod(g).Containers[0].Lifecycle).To(BeNil())
	g.Expect(pod(g).TerminationGracePeriodSeconds).To(HaveValue(Equal(int64(30))))

	patch := client.RawPatch(types.MergePatchType, []byte(`{"spec":{"gracefulShutdown":{"preStopDelaySeconds":7,"terminationGracePeriodSeconds":40}}}`))
	g.Expect(k8sClient.Patch(testCtx, getMemcached(g, ns, name), patch)).To(Succeed())
	wantHook := &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 7}}}
	g.Eventually(func(g Gomega) {
		ps := pod(g)
		g.Expect(ps.Containers[0].Lifecycle).To(Equal(wantHook))
		g.Expect(ps.TerminationGracePeriodSeconds).To(HaveValue(Equal(int64(40))))
	}, timeout, interval).Should(Succeed())

	t.Run("hand edits reverted", func(t *testing.T) {
		g := NewWithT(t)
		g.Eventually(func() error {
			d := &appsv1.Deployment{}
			if err := k8sClient.Get(testCtx, key(ns, name), d); err != nil {
				return err
			}
			d.Spec.Template.Spec.Containers[0].Lifecycle = nil
			d.Spec.Template.Spec.TerminationGracePeriodSeconds = ptr.To[int64](1)
			return k8sClient.Update(testCtx, d)
		}, timeout, interval).Should(Succeed())
		g.Eventually(func(g Gomega) {
			ps := pod(g)
			g.Expect(ps.Containers[0].Lifecycle).To(Equal(wantHook))
			g.Expect(ps.TerminationGracePeriodSeconds).To(HaveValue(Equal(int64(40))))
		}, timeout, interval).Should(Succeed())
	})

	t.Run("steady state makes no writes", func(t *testing.T) {
		g := NewWithT(t)
		before := settledWritesIn(g, ns, time.Second)
		d := &appsv1.Deployment{}
		g.Expect(k8sClient.Get(testCtx, key(ns, name), d)).To(Succeed())
		g.Consistently(func(g Gomega) {
			now := &appsv1.Deployment{}
			g.Expect(k8sClient.Get(testCtx, key(ns, name), now)).To(Succeed())
			g.Expect(now.ResourceVersion).To(Equal(d.ResourceVersion))
		}, 3*time.Second, 250*time.Millisecond).Should(Succeed())
		g.Expect(writesIn(ns)).To(Equal(before), "no writes in a quiet 3s window")
	})

	t.Run("delay turned off: hook removed", func(t *testing.T) {
		g := NewWithT(t)
		patch := client.RawPatch(types.MergePatchType, []byte(`{"spec":{"gracefulShutdown":{"preStopDelaySeconds":0}}}`))
		g.Expect(k8sClient.Patch(testCtx, getMemcached(g, ns, name), patch)).To(Succeed())
		g.Eventually(func(g Gomega) {
			ps := pod(g)
			g.Expect(ps.Containers[0].Lifecycle).To(BeNil())
			g.Expect(ps.TerminationGracePeriodSeconds).To(HaveValue(Equal(int64(40))))
		}, timeout, interval).Should(Succeed())
	})
}

// An instance deployed by an operator that predates spec.gracefulShutdown (its pod template has no
// lifecycle and leaves terminationGracePeriodSeconds to the API server's default) is not written
// by this one: the CRD defaults build the same pod template, so upgrading the operator does not
// roll memcached pods (the promise test/olm's upgrade tests check end to end).
func TestGracefulShutdownDefaultsKeepAnOlderPodTemplate(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-shutdown", "older"
	mc := newMemcached(ns, name, 2)
	mc.Annotations = map[string]string{cachev1alpha1.PauseAnnotation: "true"}
	g.Expect(k8sClient.Create(testCtx, mc)).To(Succeed())
	mc = getMemcached(g, ns, name)

	// The Deployment as the previous release built it.
	old := resources.DesiredDeployment(mc, resources.Options{DefaultImage: testImage})
	old.Spec.Template.Spec.TerminationGracePeriodSeconds = nil
	old.Spec.Template.Spec.Containers[0].Lifecycle = nil
	g.Expect(controllerutil.SetControllerReference(mc, old, k8sClient.Scheme())).To(Succeed())
	g.Expect(k8sClient.Create(testCtx, old)).To(Succeed())
	g.Expect(old.Spec.Template.Spec.TerminationGracePeriodSeconds).To(HaveValue(Equal(int64(30))), "the API server's default")

	patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"`+cachev1alpha1.PauseAnnotation+`":null}}}`))
	g.Expect(k8sClient.Patch(testCtx, getMemcached(g, ns, name), patch)).To(Succeed())
	g.Eventually(func(g Gomega) {
		mc := getMemcached(g, ns, name)
		g.Expect(mc.Status.ObservedGeneration).To(Equal(mc.Generation))
		g.Expect(k8sClient.Get(testCtx, key(ns, name), &corev1.Service{})).To(Succeed(), "reconciled")
	}, timeout, interval).Should(Succeed())
	g.Consistently(func(g Gomega) {
		d := &appsv1.Deployment{}
		g.Expect(k8sClient.Get(testCtx, key(ns, name), d)).To(Succeed())
		g.Expect(d.ResourceVersion).To(Equal(old.ResourceVersion), "the older Deployment must not be written")
	}, 2*time.Second, 200*time.Millisecond).Should(Succeed())
}
