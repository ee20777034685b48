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

	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// metricSum sums, in the registry the manager serves, the values of the counter or gauge series
// of metric name that carry every label of labels; found is false when there is none.
func metricSum(g Gomega, name string, labels map[string]string) (sum float64, found bool) {
	families, err := metrics.Registry.Gather()
	g.Expect(err).NotTo(HaveOccurred())
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			have := map[string]string{}
			for _, l := range m.GetLabel() {
				have[l.GetName()] = l.GetValue()
			}
			for k, v := range labels {
				if have[k] != v {
					continue series
				}
			}
			sum += m.GetCounter().GetValue() + m.GetGauge().GetValue()
			found = true
		}
	}
	return sum, found
}

// instanceGauges returns the desired and ready replica gauges of the instance ns/name; found is
// false when the registry has neither.
func instanceGauges(g Gomega, ns, name string) (desired, ready float64, found bool) {
	instance := map[string]string{"namespace": ns, "name": name}
	desired, foundDesired := metricSum(g, "memcached_operator_instance_desired_replicas", instance)
	ready, foundReady := metricSum(g, "memcached_operator_instance_ready_replicas", instance)
	return desired, ready, foundDesired || foundReady
}

// The per-instance gauges follow spec.size and the ready pods the status reports, the degraded
// gauge is 0 for a healthy instance and 1 with reason InvalidSpec for one whose spec the operator
// refuses, and an instance's series are gone once it is deleted (they are computed from the cache
// at each scrape). A replica that does not lead exports none.
func TestInstanceMetrics(t *testing.T) {
	g := NewWithT(t)
	const ns, name, other, refused = "t-metrics", "m1", "m2", "m3"
	g.Expect(k8sClient.Create(testCtx, newMemcached(ns, name, 2))).To(Succeed())
	g.Expect(k8sClient.Create(testCtx, newMemcached(ns, other, 1))).To(Succeed())
	bad := newMemcached(ns, refused, 1)
	// Monitoring without the headless Service it scrapes through: a rule across fields the
	// operator checks (Validate), so the API server admits it and the instance turns InvalidSpec.
	bad.Spec.Monitoring.Enabled = ptr.To(true)
	bad.Spec.Service.Enabled = ptr.To(false)
	g.Expect(k8sClient.Create(testCtx, bad)).To(Succeed())
	g.Eventually(func(g Gomega) {
		v, found := metricSum(g, "memcached_operator_instance_degraded", map[string]string{"namespace": ns, "name": refused, "reason": cachev1alpha1.ReasonInvalidSpec})
		g.Expect(found).To(BeTrue())
		g.Expect(v).To(Equal(1.0))
		v, found = metricSum(g, "memcached_operator_instance_degraded", map[string]string{"namespace": ns, "name": name, "reason": cachev1alpha1.ReasonAsExpected})
		g.Expect(found).To(BeTrue())
		g.Expect(v).To(BeZero())
	}, timeout, interval).Should(Succeed())
	g.Eventually(func(g Gomega) {
		desired, ready, found := instanceGauges(g, ns, name)
		g.Expect(found).To(BeTrue())
		g.Expect([]float64{desired, ready}).To(Equal([]float64{2, 0}))
	}, timeout, interval).Should(Succeed())

	simulateRollout(t, g, ns, name, 2)
	g.Eventually(func(g Gomega) {
		desired, ready, _ := instanceGauges(g, ns, name)
		g.Expect([]float64{desired, ready}).To(Equal([]float64{2, 2}))
	}, timeout, interval).Should(Succeed())

	// The same cache, in a replica that leads and in one that does not (yet).
	series := func(elected chan struct{}) int {
		reg := prometheus.NewPedanticRegistry()
		reg.MustRegister(&InstanceCollector{Reader: k8sClient, Elected: elected})
		families, err := reg.Gather()
		g.Expect(err).NotTo(HaveOccurred())
		n := 0
		for _, f := range families {
			n += len(f.GetMetric())
		}
		return n
	}
	leading := make(chan struct{})
	close(leading)
	g.Expect(series(leading)).To(BeNumerically(">=", 9), "series of the leader: three per instance")
	g.Expect(series(make(chan struct{}))).To(BeZero(), "series of a standby replica")

	g.Expect(k8sClient.Delete(testCtx, getMemcached(g, ns, name))).To(Succeed())
	g.Eventually(func(g Gomega) {
		_, _, found := instanceGauges(g, ns, name)
		g.Expect(found).To(BeFalse(), "series of a deleted instance")
		desired, _, found := instanceGauges(g, ns, other)
		g.Expect(found).To(BeTrue(), "series of the instance left")
		g.Expect(desired).To(Equal(1.0))
	}, timeout, interval).Should(Succeed())
}
