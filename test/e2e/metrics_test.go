//go:build e2e

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

package e2e

import (
	"net/http"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/example/memcached-operator/test/utils"
)

// TestMetricsEndpointRequiresAuthorization scrapes the operator's HTTPS metrics endpoint
// anonymously (401/403), with the token of a ServiceAccount that has no binding (403) and with the
// token of a ServiceAccount bound to the metrics-reader ClusterRole (200), and checks the bound
// scrape shows the controller-runtime, workqueue and operator metrics, with at least one successful
// memcached reconcile and the ready replicas of an instance.
//
// Sources: operator-framework/operator-sdk#6930 (403 for a scraper missing the binding;
// openshift/cluster-authentication-operator#123: anonymous requests must be refused).
func TestMetricsEndpointRequiresAuthorization(t *testing.T) {
	expectHealthyOperator(t)
	g := NewWithT(t)
	ns := newNamespace(t, "metrics")

	code, body, err := scrapeMetrics(t, "")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(code).To(BeElementOf(http.StatusUnauthorized, http.StatusForbidden), "anonymous GET /metrics: %.200q", body)
	t.Logf("anonymous: HTTP %d", code)

	code, body, err = scrapeMetrics(t, utils.ServiceAccountToken(t, suite.k8s, ns, "unbound"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(code).To(Equal(http.StatusForbidden), "GET /metrics with the token of a ServiceAccount without binding: %.200q", body)
	t.Logf("ServiceAccount without binding: HTTP %d", code)

	token := scraperToken(t, ns)
	key := createMemcached(t, ns, "metered", 1)
	waitConverged(t, key, 1, 60*time.Second)
	start := time.Now()
	g.Eventually(func(g Gomega) {
		code, body, err := scrapeMetrics(t, token)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(code).To(Equal(http.StatusOK), "bound ServiceAccount: %.200q", body)
		m, err := utils.ParseMetrics(body)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(m).To(HaveKey("workqueue_depth"))
		ok, found := m.Sum("controller_runtime_reconcile_total", map[string]string{"controller": "memcached", "result": "success"})
		g.Expect(found).To(BeTrue())
		g.Expect(ok).To(BeNumerically(">=", 1))
		ready, found := m.Sum("memcached_operator_instance_ready_replicas", map[string]string{"namespace": ns, "name": key.Name})
		g.Expect(found).To(BeTrue(), "memcached_operator_instance_ready_replicas{namespace=%q,name=%q}", ns, key.Name)
		g.Expect(ready).To(Equal(1.0))
	}, 10*time.Second, 250*time.Millisecond).Should(Succeed())
	t.Logf("ServiceAccount bound to %s: HTTP 200 with the expected metrics (%s after convergence)", metricsReaderRole, utils.Ms(time.Since(start)))
}
