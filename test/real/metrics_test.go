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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/memcached-operator/test/real/memcache"
	"github.com/example/memcached-operator/test/utils"
)

// TestMetricsThroughService scrapes the operator's metrics the way Prometheus in the cluster would:
// from a pod, through the manager's metrics Service (cluster DNS, a ClusterIP that kube-proxy
// DNATs to the manager pod), over HTTPS on 8443. Tokens come from the TokenRequest API. A token of
// a ServiceAccount bound to the metrics-reader ClusterRole gets 200 and the operator's metrics
// (including the ready replicas of a Memcached of this test); a malformed token gets 401; a token
// of a ServiceAccount without binding gets 403.
func TestMetricsThroughService(t *testing.T) {
	expectCleanManagerLog(t)
	start := time.Now()
	g := NewWithT(t)
	ctx := utils.TestContext(t)
	ns := newRestrictedNamespace(t, "metrics")
	startClientPod(t, ns)
	url := fmt.Sprintf("https://%s.%s.svc:8443/metrics", metricsService, suite.operatorNS)

	mc := utils.NewMemcached(ns, "metered", 1)
	g.Expect(suite.k8s.Create(ctx, mc)).To(Succeed())
	waitConverged(t, client.ObjectKeyFromObject(mc), 1, 64, 2*podStartTimeout)

	scraper, unbound := utils.ServiceAccountToken(t, suite.k8s, ns, "scraper"), utils.ServiceAccountToken(t, suite.k8s, ns, "unbound")
	utils.BindMetricsReader(t, suite.k8s, ns, "scraper", metricsReaderRole, map[string]string{realLabel: "true"})

	scrape := func(token string) memcache.HTTPSReport {
		var r memcache.HTTPSReport
		if err := clientRun(ctx, ns, token+"\n", &r, "https-get", "-url", url, "-token-stdin"); err != nil {
			t.Fatal(err)
		}
		return r
	}

	var r memcache.HTTPSReport
	g.Eventually(func(g Gomega) {
		r = scrape(scraper)
		g.Expect(r.Status).To(Equal(http.StatusOK), "bound ServiceAccount: %.300s", r.Body)
		m, err := utils.ParseMetrics(r.Body)
		g.Expect(err).NotTo(HaveOccurred())
		_, found := m.Sum("controller_runtime_reconcile_total", map[string]string{"controller": "memcached"})
		g.Expect(found).To(BeTrue(), "controller_runtime_reconcile_total{controller=\"memcached\"} in the metrics")
		ready, found := m.Sum("memcached_operator_instance_ready_replicas", map[string]string{"namespace": ns, "name": "metered"})
		g.Expect(found).To(BeTrue(), "memcached_operator_instance_ready_replicas{namespace=%q,name=\"metered\"} in the metrics", ns)
		g.Expect(ready).To(Equal(1.0))
	}, 30*time.Second, time.Second).Should(Succeed())
	t.Logf("%s with the token of %s/scraper (bound to %s): HTTP %d, %d bytes of metrics", url, ns, metricsReaderRole, r.Status, len(r.Body))

	r = scrape("not-a-token")
	g.Expect(r.Status).To(Equal(http.StatusUnauthorized), "malformed token: %.300s", r.Body)
	t.Logf("malformed token: HTTP %d", r.Status)

	r = scrape(unbound)
	g.Expect(r.Status).To(Equal(http.StatusForbidden), "ServiceAccount without binding: %.300s", r.Body)
	t.Logf("token of %s/unbound (no binding): HTTP %d", ns, r.Status)
	suite.phases.Record(t, "metrics through the Service from a pod (200/401/403)", start)
}
