//go:build real

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

package real

import (
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/test/real/memcache"
	"github.com/example/memcached-operator/test/utils"
)

// TestMonitoringExporter proves spec.monitoring on real containers: a Memcached of 3 with
// monitoring on, its exporter image (MEMCACHED_EXPORTER_IMAGE: memcached_exporter v0.16.0 built
// from its Go module by make real-images, by digest) set through spec.monitoring.image, in a
// namespace enforcing the restricted profile (so the sidecar's security context is admitted).
// Every pod runs the exporter beside memcached; the headless Service has the "metrics" port. The
// client pod stores 100 keys, each on the server CRC-32 picks over serverList, then scrapes every
// server's exporter through its serverList name on port 9150 (cluster DNS, the pod network):
// memcached_up is 1 and memcached_current_items equals the number of keys the client wrote to
// that server; the manager's log has no error. (The cluster serves the Prometheus Operator's CRDs:
// the same scrape by a real Prometheus is TestPrometheusScrapesMemcached; a cluster without them
// is proven on envtest.) Exporter metrics: https://github.com/prometheus/memcached_exporter#collectors
func TestMonitoringExporter(t *testing.T) {
	expectCleanManagerLog(t)
	start := time.Now()
	g := NewWithT(t)
	ctx := utils.TestContext(t)
	exporterImage := os.Getenv("MEMCACHED_EXPORTER_IMAGE")
	if !strings.Contains(exporterImage, "@sha256:") {
		t.Fatalf("MEMCACHED_EXPORTER_IMAGE=%q is not an image by digest: run make test-real (make real-images pushes it)", exporterImage)
	}
	ns := newRestrictedNamespace(t, "monitoring")
	startClientPod(t, ns)

	mc := utils.NewMemcached(ns, "monitored", 3)
	mc.Spec.Monitoring = cachev1alpha1.MonitoringSpec{Enabled: ptr.To(true), Image: exporterImage}
	g.Expect(suite.k8s.Create(ctx, mc)).To(Succeed())
	key := client.ObjectKeyFromObject(mc)
	mc, pods := waitConverged(t, key, 3, 64, 2*podStartTimeout)
	for i := range pods {
		p := &pods[i]
		g.Expect(p.Spec.Containers).To(HaveLen(2), "pod %s: memcached and the exporter", p.Name)
		c := p.Spec.Containers[1]
		g.Expect(c.Name).To(Equal("memcached-exporter"))
		g.Expect(c.Image).To(Equal(exporterImage))
		g.Expect(c.Ports).To(ConsistOf(corev1.ContainerPort{Name: "metrics", ContainerPort: 9150, Protocol: corev1.ProtocolTCP}))
		s := containerStatus(p, "memcached-exporter")
		g.Expect(s).NotTo(BeNil(), "pod %s has no status of the exporter", p.Name)
		g.Expect(s.Ready).To(BeTrue(), "pod %s: exporter ready", p.Name)
		g.Expect(s.RestartCount).To(BeZero(), "pod %s: exporter restarted", p.Name)
	}
	svc := &corev1.Service{}
	g.Expect(suite.k8s.Get(ctx, key, svc)).To(Succeed())
	g.Expect(slices.ContainsFunc(svc.Spec.Ports, func(p corev1.ServicePort) bool { return p.Name == "metrics" && p.Port == 9150 })).To(BeTrue(),
		"the headless Service has the metrics port: %v", svc.Spec.Ports)
	t.Logf("3 pods with the exporter sidecar (%s) Running and Ready under the restricted profile", exporterImage)

	// serverList follows pod readiness, cluster DNS follows the EndpointSlice: wait for the
	// names before writing through them (dnsLag).
	serversResolved(t, ns, mc.Status.ServerList)
	owners := placeKeys(t, ns, "mon", mc.Status.ServerList)
	written := map[string]int{}
	for _, server := range owners {
		written[server]++
	}

	for _, entry := range mc.Status.ServerList {
		host := strings.TrimSuffix(entry, fmt.Sprintf(":%d", cachev1alpha1.DefaultPort))
		url := fmt.Sprintf("http://%s:%d/metrics", host, cachev1alpha1.ExporterPort)
		var up, items float64
		// The name may lag in cluster DNS (dnsLag); the exporter answers once it resolves.
		g.Eventually(func(g Gomega) {
			var r memcache.HTTPSReport
			g.Expect(clientRun(ctx, ns, "", &r, "https-get", "-url", url)).To(Succeed())
			g.Expect(r.Status).To(Equal(http.StatusOK), "%s: %.300s", url, r.Body)
			m, err := utils.ParseMetrics(r.Body)
			g.Expect(err).NotTo(HaveOccurred())
			var found bool
			up, found = m.Sum("memcached_up", nil)
			g.Expect(found).To(BeTrue(), "memcached_up in %s", url)
			items, found = m.Sum("memcached_current_items", nil)
			g.Expect(found).To(BeTrue(), "memcached_current_items in %s", url)
		}, dnsLag, poll).Should(Succeed())
		g.Expect(up).To(Equal(1.0), "%s: memcached_up", url)
		g.Expect(items).To(Equal(float64(written[entry])), "%s: memcached_current_items must be the %d keys the client wrote to %s", url, written[entry], entry)
		t.Logf("%s: memcached_up 1, memcached_current_items %v = keys written to %s", url, items, entry)
	}
	suite.phases.Record(t, "monitoring: exporter on every pod, items match the client's writes", start)
}
