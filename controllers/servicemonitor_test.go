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
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"

	"github.com/example/memcached-operator/controllers/resources"
)

// ServiceMonitors only when their CRD exists, and from the moment it appears: the suite's manager
// started without the CRD (an operator installed before the Prometheus Operator, the common order
// with OLM, https://github.com/prometheus-operator/prometheus-operator/issues/2946 asks the same of
// operators that create ServiceMonitors). Before the CRD: the exporter and the metrics port are
// there (an edited sidecar is restored) and nothing fails, also once the group serves other kinds. The CRD is installed without restarting anything: the ServiceMonitor
// appears, owned by the Memcached; a changed or deleted one is restored; the steady state makes no
// writes; turning monitoring off removes the ServiceMonitor, the sidecar and the port. The
// PrometheusRule follows its own CRD the same way (installed later still: a cluster may serve one
// kind of the group without the other).
func TestServiceMonitorFollowsItsCRD(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-monitoring", "m1"
	mc := newMemcached(ns, name, 2)
	mc.Spec.Monitoring.Enabled = ptr.To(true)
	g.Expect(k8sClient.Create(testCtx, mc)).To(Succeed())

	// Without the CRD: sidecar and port, no error, not Degraded.
	g.Eventually(func(g Gomega) {
		d := &appsv1.Deployment{}
		g.Expect(k8sClient.Get(testCtx, key(ns, name), d)).To(Succeed())
		cs := d.Spec.Template.Spec.Containers
		g.Expect(cs).To(HaveLen(2))
		g.Expect(cs[1].Image).To(Equal(testExporterImage))
		svc := &corev1.Service{}
		g.Expect(k8sClient.Get(testCtx, key(ns, name), svc)).To(Succeed())
		g.Expect(svc.Spec.Ports).To(HaveLen(2))
		g.Expect(svc.Spec.Ports[1].Name).To(Equal("metrics"))
		mc := getMemcached(g, ns, name)
		g.Expect(mc.Status.ObservedGeneration).To(Equal(mc.Generation))
		g.Expect(conditionOf(mc, cachev1alpha1.ConditionDegraded).Status).To(Equal(metav1.ConditionFalse))
	}, timeout, interval).Should(Succeed())
	_, err := k8sClient.RESTMapper().RESTMapping(monitoringv1.SchemeGroupVersion.WithKind(monitoringv1.ServiceMonitorsKind).GroupKind(), "v1")
	g.Expect(meta.IsNoMatchError(err)).To(BeTrue(), "the ServiceMonitor CRD must not be installed before this test: %v", err)

	// The sidecar is part of the pod template the operator owns: an edit is reverted.
	d := &appsv1.Deployment{}
	g.Expect(k8sClient.Get(testCtx, key(ns, name), d)).To(Succeed())
	d.Spec.Template.Spec.Containers[1].Image = "registry.example.com/other-exporter:1"
	g.Expect(k8sClient.Update(testCtx, d)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(testCtx, key(ns, name), d)).To(Succeed())
		g.Expect(d.Spec.Template.Spec.Containers[1].Image).To(Equal(testExporterImage))
	}, timeout, interval).Should(Succeed(), "the exporter's image is restored")

	// The group served without the ServiceMonitor kind (the Prometheus Operator's CRDs are separate
	// objects, installed one by one): still no ServiceMonitor access, so no error. A minimal
	// structural PodMonitor CRD stands for the others.
	_, err = envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{CRDs: []*apiextensionsv1.CustomResourceDefinition{{
		ObjectMeta: metav1.ObjectMeta{Name: "podmonitors.monitoring.coreos.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: monitoringv1.SchemeGroupVersion.Group, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "podmonitors", Singular: "podmonitor", Kind: "PodMonitor", ListKind: "PodMonitorList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)}}}},
		},
	}}})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(k8sClient.Patch(testCtx, getMemcached(g, ns, name), client.RawPatch(types.MergePatchType, []byte(`{"spec":{"minReadySeconds":1}}`)))).To(Succeed())
	g.Eventually(func(g Gomega) {
		mc := getMemcached(g, ns, name)
		g.Expect(mc.Status.ObservedGeneration).To(Equal(mc.Generation))
		g.Expect(conditionOf(mc, cachev1alpha1.ConditionDegraded).Status).To(Equal(metav1.ConditionFalse), "%+v", conditionOf(mc, cachev1alpha1.ConditionDegraded))
	}, timeout, interval).Should(Succeed(), "reconciled without error while monitoring.coreos.com/v1 serves no ServiceMonitor")
	// Several discovery polls later (200 ms in the suite) still nothing to report: had a poll taken
	// the group for the kind, the Memcached would have been queued and failed to read its ServiceMonitor.
	g.Consistently(func(g Gomega) {
		g.Expect(conditionOf(getMemcached(g, ns, name), cachev1alpha1.ConditionDegraded).Status).To(Equal(metav1.ConditionFalse))
	}, 1500*time.Millisecond, interval).Should(Succeed())

	// Install the CRD while the manager runs.
	_, err = envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{
		Paths: []string{filepath.Join("testdata", "monitoring.coreos.com_servicemonitors.yaml")}, ErrorIfPathMissing: true,
	})
	g.Expect(err).NotTo(HaveOccurred())
	sm := &monitoringv1.ServiceMonitor{}
	g.Eventually(func() error { return k8sClient.Get(testCtx, key(ns, name), sm) }, timeout, interval).Should(Succeed(),
		"the ServiceMonitor appears once its CRD is installed, without a restart")
	g.Expect(metav1.IsControlledBy(sm, getMemcached(g, ns, name))).To(BeTrue(), "owned by the Memcached")
	g.Expect(sm.Spec.Endpoints).To(Equal([]monitoringv1.Endpoint{{Port: "metrics", Path: "/metrics"}}))
	g.Expect(sm.Spec.Selector.MatchLabels).To(Equal(map[string]string{resources.LabelName: resources.AppName, resources.LabelInstance: name}))

	// Drift: a changed endpoint is restored, a deleted ServiceMonitor recreated.
	g.Expect(k8sClient.Patch(testCtx, sm, client.RawPatch(types.MergePatchType,
		[]byte(`{"spec":{"endpoints":[{"port":"memcached","interval":"5s"}]}}`)))).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(testCtx, key(ns, name), sm)).To(Succeed())
		g.Expect(sm.Spec.Endpoints).To(Equal([]monitoringv1.Endpoint{{Port: "metrics", Path: "/metrics"}}))
	}, timeout, interval).Should(Succeed(), "the changed endpoint is restored")
	uid := sm.UID
	g.Expect(k8sClient.Delete(testCtx, sm)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(testCtx, key(ns, name), sm)).To(Succeed())
		g.Expect(sm.UID).NotTo(Equal(uid))
	}, timeout, interval).Should(Succeed(), "a deleted ServiceMonitor is recreated")

	// The PrometheusRule CRD is a kind of its own: absent until it is installed, then the rule
	// appears, owned, with every alert scoped to this instance and carrying its runbook; an edited
	// rule is restored.
	_, err = k8sClient.RESTMapper().RESTMapping(monitoringv1.SchemeGroupVersion.WithKind(monitoringv1.PrometheusRuleKind).GroupKind(), "v1")
	g.Expect(meta.IsNoMatchError(err)).To(BeTrue(), "the PrometheusRule CRD must not be installed yet: %v", err)
	_, err = envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{
		Paths: []string{filepath.Join("testdata", "monitoring.coreos.com_prometheusrules.yaml")}, ErrorIfPathMissing: true,
	})
	g.Expect(err).NotTo(HaveOccurred())
	pr := &monitoringv1.PrometheusRule{}
	g.Eventually(func() error { return k8sClient.Get(testCtx, key(ns, name), pr) }, timeout, interval).Should(Succeed(),
		"the PrometheusRule appears once its CRD is installed, without a restart")
	g.Expect(metav1.IsControlledBy(pr, getMemcached(g, ns, name))).To(BeTrue(), "owned by the Memcached")
	g.Expect(pr.Spec.Groups).To(HaveLen(1))
	g.Expect(pr.Spec.Groups[0].Rules).To(HaveLen(len(resources.DesiredPrometheusRule(getMemcached(g, ns, name)).Spec.Groups[0].Rules)))
	for _, r := range pr.Spec.Groups[0].Rules {
		g.Expect(r.Expr.String()).To(ContainSubstring(`namespace="`+ns+`", service="`+name+`"`), r.Alert)
		g.Expect(r.Annotations["runbook_url"]).To(HavePrefix(resources.RunbookBaseURL+"#"), r.Alert)
	}
	g.Expect(k8sClient.Patch(testCtx, pr, client.RawPatch(types.MergePatchType,
		[]byte(`{"spec":{"groups":[{"name":"memcached.rules","rules":[{"alert":"Mine","expr":"vector(1)"}]}]}}`)))).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(testCtx, key(ns, name), pr)).To(Succeed())
		g.Expect(pr.Spec.Groups).To(Equal(resources.DesiredPrometheusRule(getMemcached(g, ns, name)).Spec.Groups))
	}, timeout, interval).Should(Succeed(), "the edited rule is restored")

	// Steady state: no writes.
	before := settledWritesIn(g, ns, 2*time.Second)
	g.Consistently(func() map[string]int { return writesIn(ns) }, 3*time.Second, 250*time.Millisecond).Should(Equal(before),
		"no writes in the steady state with a ServiceMonitor and a PrometheusRule")

	// Monitoring off: the ServiceMonitor, the sidecar and the metrics port go.
	g.Expect(k8sClient.Patch(testCtx, getMemcached(g, ns, name), client.RawPatch(types.MergePatchType,
		[]byte(`{"spec":{"monitoring":{"enabled":false}}}`)))).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(apierrors.IsNotFound(k8sClient.Get(testCtx, key(ns, name), &monitoringv1.ServiceMonitor{}))).To(BeTrue(), "ServiceMonitor deleted")
		g.Expect(apierrors.IsNotFound(k8sClient.Get(testCtx, key(ns, name), &monitoringv1.PrometheusRule{}))).To(BeTrue(), "PrometheusRule deleted")
		d := &appsv1.Deployment{}
		g.Expect(k8sClient.Get(testCtx, key(ns, name), d)).To(Succeed())
		g.Expect(d.Spec.Template.Spec.Containers).To(HaveLen(1))
		svc := &corev1.Service{}
		g.Expect(k8sClient.Get(testCtx, key(ns, name), svc)).To(Succeed())
		g.Expect(svc.Spec.Ports).To(HaveLen(1))
	}, timeout, interval).Should(Succeed())

	// And on again: the ServiceMonitor comes back at once (the watch is in place).
	g.Expect(k8sClient.Patch(testCtx, getMemcached(g, ns, name), client.RawPatch(types.MergePatchType,
		[]byte(`{"spec":{"monitoring":{"enabled":true}}}`)))).To(Succeed())
	g.Eventually(func() error { return k8sClient.Get(testCtx, key(ns, name), &monitoringv1.ServiceMonitor{}) }, timeout, interval).Should(Succeed())
	g.Eventually(func() error { return k8sClient.Get(testCtx, key(ns, name), &monitoringv1.PrometheusRule{}) }, timeout, interval).Should(Succeed())

	// What spec.monitoring adds: the selector label a Prometheus needs (kube-prometheus-stack's
	// release) on both objects, the scrape interval, the runbook base, the exporter's resources.
	// Removing the label removes it; a label someone else put on the ServiceMonitor stays.
	g.Expect(k8sClient.Patch(testCtx, getMemcached(g, ns, name), client.RawPatch(types.MergePatchType,
		[]byte(`{"spec":{"monitoring":{"labels":{"release":"kps"},"interval":"15s","runbookBaseURL":"https://wiki.example.com/memcached",`+
			`"resources":{"requests":{"memory":"48Mi"},"limits":{"memory":"96Mi"}}}}}`)))).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(testCtx, key(ns, name), sm)).To(Succeed())
		g.Expect(sm.Labels).To(HaveKeyWithValue("release", "kps"))
		g.Expect(sm.Spec.Endpoints).To(Equal([]monitoringv1.Endpoint{{Port: "metrics", Path: "/metrics", Interval: "15s"}}))
		g.Expect(k8sClient.Get(testCtx, key(ns, name), pr)).To(Succeed())
		g.Expect(pr.Labels).To(HaveKeyWithValue("release", "kps"))
		for _, r := range pr.Spec.Groups[0].Rules {
			g.Expect(r.Annotations["runbook_url"]).To(HavePrefix("https://wiki.example.com/memcached#"), r.Alert)
		}
		d := &appsv1.Deployment{}
		g.Expect(k8sClient.Get(testCtx, key(ns, name), d)).To(Succeed())
		g.Expect(d.Spec.Template.Spec.Containers[1].Resources.Limits.Memory().String()).To(Equal("96Mi"))
		g.Expect(d.Spec.Template.Spec.Containers[1].Resources.Requests.Memory().String()).To(Equal("48Mi"))
	}, timeout, interval).Should(Succeed(), "spec.monitoring's labels, interval, runbook base and exporter resources applied")
	g.Expect(k8sClient.Patch(testCtx, sm, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"team":"web"}}}`)))).To(Succeed())
	g.Expect(k8sClient.Patch(testCtx, getMemcached(g, ns, name), client.RawPatch(types.MergePatchType,
		[]byte(`{"spec":{"monitoring":{"labels":null,"interval":null}}}`)))).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(testCtx, key(ns, name), sm)).To(Succeed())
		g.Expect(sm.Labels).NotTo(HaveKey("release"))
		g.Expect(sm.Labels).To(HaveKeyWithValue("team", "web"), "a label someone else added stays")
		g.Expect(sm.Annotations).NotTo(HaveKey(resources.AddedMetadataAnnotation))
		g.Expect(sm.Spec.Endpoints).To(Equal([]monitoringv1.Endpoint{{Port: "metrics", Path: "/metrics"}}))
		g.Expect(k8sClient.Get(testCtx, key(ns, name), pr)).To(Succeed())
		g.Expect(pr.Labels).NotTo(HaveKey("release"))
	}, timeout, interval).Should(Succeed(), "a label removed from spec.monitoring.labels is removed")

	// The CRD uninstalled while the operator runs (prometheus-operator removed): one Warning event,
	// no reconcile error, nothing written; installed again: the ServiceMonitor is back, without a
	// restart.
	smCRD := envtest.CRDInstallOptions{Paths: []string{filepath.Join("testdata", "monitoring.coreos.com_servicemonitors.yaml")}, ErrorIfPathMissing: true}
	g.Expect(envtest.UninstallCRDs(cfg, smCRD)).To(Succeed())
	unavailable := func(g Gomega) []string { return eventNotes(g, ns, name, cachev1alpha1.ReasonMonitoringUnavailable) }
	g.Eventually(unavailable, timeout, interval).Should(ConsistOf(ContainSubstring("ServiceMonitor API (monitoring.coreos.com/v1) is no longer served")),
		"one Warning event when the ServiceMonitor API goes")
	// A reconcile now (a spec change) skips the kind: no ReconcileError, the PrometheusRule
	// (still served) managed as before.
	g.Expect(k8sClient.Patch(testCtx, getMemcached(g, ns, name), client.RawPatch(types.MergePatchType,
		[]byte(`{"spec":{"monitoring":{"interval":"20s"}}}`)))).To(Succeed())
	g.Consistently(func(g Gomega) {
		mc := getMemcached(g, ns, name)
		degraded := meta.FindStatusCondition(mc.Status.Conditions, cachev1alpha1.ConditionDegraded)
		g.Expect(degraded).NotTo(BeNil())
		g.Expect(degraded.Reason).NotTo(Equal(cachev1alpha1.ReasonReconcileError), degraded.Message)
	}, 3*time.Second, 250*time.Millisecond).Should(Succeed(), "no reconcile error without the ServiceMonitor API")
	g.Expect(unavailable(g)).To(HaveLen(1), "one event, not one per reconcile")
	_, err = envtest.InstallCRDs(cfg, smCRD)
	g.Expect(err).NotTo(HaveOccurred())
	g.Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(testCtx, key(ns, name), sm)).To(Succeed())
		g.Expect(sm.Spec.Endpoints).To(Equal([]monitoringv1.Endpoint{{Port: "metrics", Path: "/metrics", Interval: "20s"}}))
	}, timeout, interval).Should(Succeed(), "the ServiceMonitor is back once its CRD returns, without a restart")
}
