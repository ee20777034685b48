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
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
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
	ctx := testContext(t)
	ns := newRestrictedNamespace(t, "metrics")
	startClientPod(t, ns)
	url := fmt.Sprintf("https://%s.%s.svc:8443/metrics", metricsService, suite.operatorNS)

	mc := &cachev1alpha1.Memcached{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "metered"},
		Spec:       cachev1alpha1.MemcachedSpec{Size: 1},
	}
	g.Expect(suite.k8s.Create(ctx, mc)).To(Succeed())
	waitConverged(t, client.ObjectKeyFromObject(mc), 1, 64, 2*podStartTimeout)

	for _, sa := range []string{"scraper", "unbound"} {
		g.Expect(suite.k8s.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: sa}})).To(Succeed())
	}
	utils.BindMetricsReader(t, suite.k8s, ns, "scraper", metricsReaderRole, map[string]string{realLabel: "true"})
	scraper, unbound := tokenOf(t, ns, "scraper"), tokenOf(t, ns, "unbound")

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
		g.Expect(r.Body).To(ContainSubstring(`controller_runtime_reconcile_total{controller="memcached"`))
		g.Expect(hasSample(r.Body, "memcached_operator_instance_ready_replicas", map[string]string{"namespace": ns, "name": "metered"}, "1")).
			To(BeTrue(), "memcached_operator_instance_ready_replicas{namespace=%q,name=\"metered\"} 1 in the metrics", ns)
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

// tokenOf returns a one-hour token of ServiceAccount ns/name from the TokenRequest API.
func tokenOf(t *testing.T, ns, name string) string {
	t.Helper()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}
	if err := suite.k8s.SubResource("token").Create(testContext(t), sa, tr); err != nil {
		t.Fatalf("TokenRequest for %s/%s: %v", ns, name, err)
	}
	if tr.Status.Token == "" {
		t.Fatalf("TokenRequest for %s/%s returned no token", ns, name)
	}
	return tr.Status.Token
}

// hasSample reports whether the Prometheus text body has a sample of metric with every label of
// labels and the value value.
func hasSample(body, metric string, labels map[string]string, value string) bool {
	for _, line := range strings.Split(body, "\n") {
		if !strings.HasPrefix(line, metric+"{") || !strings.HasSuffix(line, "} "+value) {
			continue
		}
		all := true
		for k, v := range labels {
			all = all && strings.Contains(line, fmt.Sprintf("%s=%q", k, v))
		}
		if all {
			return true
		}
	}
	return false
}
