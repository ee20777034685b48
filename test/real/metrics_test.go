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
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/test/real/memcache"
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
	bindMetricsReader(t, ns, "scraper")
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
	recordPhase(t, "metrics through the Service from a pod (200/401/403)", start)
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

// bindMetricsReader binds ServiceAccount ns/name to the metrics-reader ClusterRole (deleted when t
// ends) and waits until the API server authorizes it to GET /metrics, so the operator's first
// SubjectAccessReview for it is already allowed.
func bindMetricsReader(t *testing.T, ns, name string) {
	t.Helper()
	ctx := testContext(t)
	crb := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "real-metrics-reader-", Labels: map[string]string{realLabel: "true"}},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: metricsReaderRole},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name}},
	}
	if err := suite.k8s.Create(ctx, crb); err != nil {
		t.Fatalf("failed to create a ClusterRoleBinding to %s: %v", metricsReaderRole, err)
	}
	t.Cleanup(func() {
		if err := suite.k8s.Delete(context.Background(), crb); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("failed to delete ClusterRoleBinding %s: %v", crb.Name, err)
		}
	})
	user := "system:serviceaccount:" + ns + ":" + name
	NewWithT(t).Eventually(func() (bool, error) {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User:                  user,
			Groups:                []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
			NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"},
		}}
		if err := suite.k8s.Create(ctx, sar); err != nil {
			return false, err
		}
		return sar.Status.Allowed, nil
	}, 30*time.Second, poll).Should(BeTrue(), "%s is not allowed to GET /metrics after the binding", user)
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
