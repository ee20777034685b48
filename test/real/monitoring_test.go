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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	exporterImage := exporterImageByDigest(t)
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

// TestMonitoringWithAuthentication proves spec.monitoring with spec.auth on real containers: a
// Memcached of 2 with an auth file Secret and monitoring on (the exporter image as above), in a
// namespace enforcing the restricted profile. Every pod runs memcached, the exporter and the stats
// relay (/stats-relay of the operator's image), all Ready without a restart. The client pod
// stores 20 keys with the password through the Service (one connection, so one server); every
// server's exporter, scraped at its pod IP, reports memcached_up 1, and memcached_current_items is
// 20 on the server the client reached and 0 on the other: the exporter reads the real server
// through the relay. A client without credentials is refused by every server (CLIENT_ERROR
// unauthenticated), and the relay's port is not reachable from another pod (it listens on the
// pod's loopback address only). The manager's log has no error.
func TestMonitoringWithAuthentication(t *testing.T) {
	expectCleanManagerLog(t)
	start := time.Now()
	g := NewWithT(t)
	ctx := utils.TestContext(t)
	exporterImage := exporterImageByDigest(t)
	ns := newRestrictedNamespace(t, "monauth")
	password := randomPassword(t)
	g.Expect(suite.k8s.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "users", Namespace: ns},
		Data: map[string][]byte{"authfile": []byte("app:" + password + "\n")}})).To(Succeed())
	mc := utils.NewMemcached(ns, "monitored", 2)
	mc.Spec.Auth = &cachev1alpha1.AuthSpec{SecretName: "users"}
	mc.Spec.Monitoring = cachev1alpha1.MonitoringSpec{Enabled: ptr.To(true), Image: exporterImage}
	g.Expect(suite.k8s.Create(ctx, mc)).To(Succeed())
	startClientPod(t, ns)
	key := client.ObjectKeyFromObject(mc)
	mc, pods := waitConverged(t, key, 2, 64, 2*podStartTimeout)
	byIP := map[string]string{}
	for i := range pods {
		p := &pods[i]
		byIP[p.Status.PodIP] = p.Name
		var names []string
		for _, c := range p.Spec.Containers {
			names = append(names, c.Name)
		}
		g.Expect(names).To(Equal([]string{"memcached", "memcached-exporter", "stats-relay"}), "pod %s", p.Name)
		g.Expect(p.Spec.Containers[1].Args).To(ContainElement("--memcached.address=127.0.0.1:11213"), "pod %s: the exporter reads the relay", p.Name)
		g.Expect(p.Spec.Containers[2].Command).To(Equal([]string{"/stats-relay"}))
		g.Expect(strings.Join(p.Spec.Containers[2].Args, " ")).NotTo(ContainSubstring(password))
		for _, name := range names {
			s := containerStatus(p, name)
			g.Expect(s).NotTo(BeNil(), "pod %s has no status of %s", p.Name, name)
			g.Expect(s.Ready).To(BeTrue(), "pod %s: %s ready", p.Name, name)
			g.Expect(s.RestartCount).To(BeZero(), "pod %s: %s restarted", p.Name, name)
		}
	}
	suite.phases.Record(t, "monitoring + auth: 2 pods with exporter and stats relay Available", start)

	// With the password: every server answers (retried while a name is not yet in cluster DNS).
	servers := mc.Status.ServerList
	authed := []string{"servers", "-servers", strings.Join(servers, ","), "-user", "app", "-credentials-stdin"}
	var ok memcache.ServersReport
	deadline := time.Now().Add(dnsLag)
	for {
		err := clientRun(ctx, ns, creds("", password), &ok, authed...)
		if err == nil && len(ok.Servers) == len(servers) {
			break
		}
		if time.Now().After(deadline) || unresolved(&ok) == "" {
			t.Fatalf("with the password: %v (report %+v)", err, ok)
		}
		time.Sleep(poll)
	}
	var svc memcache.ServiceReport
	mustClientRun(t, ns, creds("", password), &svc, "service", "-addr", mc.Name+":11211", "-prefix", "monauth", "-n", "20", "-user", "app", "-credentials-stdin")
	g.Expect(svc.Stored).To(Equal(20))
	reached := byIP[strings.TrimSuffix(svc.RemoteAddr, fmt.Sprintf(":%d", cachev1alpha1.DefaultPort))]
	g.Expect(reached).NotTo(BeEmpty(), "the Service connection reached %s, not one of the pods %v", svc.RemoteAddr, byIP)

	for ip, pod := range byIP {
		url := fmt.Sprintf("http://%s:%d/metrics", ip, cachev1alpha1.ExporterPort)
		want := 0.0
		if pod == reached {
			want = 20
		}
		var up, items float64
		var r memcache.HTTPSReport
		mustClientRun(t, ns, "", &r, "https-get", "-url", url)
		g.Expect(r.Status).To(Equal(http.StatusOK), "%s: %.300s", url, r.Body)
		m, err := utils.ParseMetrics(r.Body)
		g.Expect(err).NotTo(HaveOccurred())
		var found bool
		up, found = m.Sum("memcached_up", nil)
		g.Expect(found).To(BeTrue(), "memcached_up in %s", url)
		items, found = m.Sum("memcached_current_items", nil)
		g.Expect(found).To(BeTrue(), "memcached_current_items in %s", url)
		g.Expect(up).To(Equal(1.0), "%s (pod %s): memcached_up", url, pod)
		g.Expect(items).To(Equal(want), "%s (pod %s): memcached_current_items", url, pod)
		t.Logf("%s (pod %s): memcached_up 1, memcached_current_items %v", url, pod, items)
	}

	// Without credentials: refused by every server.
	var refused memcache.ServersReport
	g.Expect(clientRun(ctx, ns, "", &refused, "servers", "-servers", strings.Join(servers, ","))).To(HaveOccurred(), "a client without credentials must be refused")
	g.Expect(refused.Servers).To(HaveLen(len(servers)))
	for _, s := range refused.Servers {
		g.Expect(s.Error).To(ContainSubstring("CLIENT_ERROR unauthenticated"), "server %s", s.Server)
		g.Expect(s.Version).To(BeEmpty())
	}
	t.Logf("without credentials: refused by every server (%s)", refused.Servers[0].Error)

	// The relay's port from another pod: nothing listens there but on the pod's loopback address.
	var relays []string
	for ip := range byIP {
		relays = append(relays, ip+":11213")
	}
	var other memcache.ServersReport
	g.Expect(clientRun(ctx, ns, "", &other, "servers", "-servers", strings.Join(relays, ","))).To(HaveOccurred(), "the relay must not be reachable from another pod")
	g.Expect(other.Servers).To(HaveLen(len(relays)))
	for _, s := range other.Servers {
		g.Expect(s.Error).To(ContainSubstring("connection refused"), "relay port %s", s.Server)
	}
	t.Logf("the relay's port from the client pod: %s", other.Servers[0].Error)
	suite.phases.Record(t, "monitoring + auth: memcached_up 1 through the relay, unauthenticated clients refused", start)
}

// exporterImageByDigest is MEMCACHED_EXPORTER_IMAGE, the local exporter image by digest.
func exporterImageByDigest(t *testing.T) string {
	t.Helper()
	image := os.Getenv("MEMCACHED_EXPORTER_IMAGE")
	if !strings.Contains(image, "@sha256:") {
		t.Fatalf("MEMCACHED_EXPORTER_IMAGE=%q is not an image by digest: run make test-real (make real-images pushes it)", image)
	}
	return image
}
