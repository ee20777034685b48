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
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	promapi "github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/resources"
	"github.com/example/memcached-operator/test/utils"
)

const (
	// prometheusVersion is the version of the Prometheus server of PROMETHEUS_IMAGE (built from
	// the Go module of hack/tools/prometheus by hack/images/local-images.sh prometheus): the
	// Prometheus object's spec.version, from which the Prometheus Operator chooses the server's
	// flags. The test checks the server reports it.
	prometheusVersion = "3.5.0"
	// scrapeInterval is the test Prometheus' scrape and rule evaluation interval.
	scrapeInterval = 5 * time.Second
	// shortFor is the `for` of the test's copy of MemcachedDown (the shipped rule waits 15m).
	shortFor = 10 * time.Second
	// prometheusName is the test's Prometheus object; the Prometheus Operator names its pod
	// prometheus-<name>-0.
	prometheusName = "real"
	// copyLabel marks the alerts of the test's copy of the instance rules.
	copyLabel = "real_rule_copy"
	// operatorMetricsJob is the job of the operator's metrics targets (the metrics Service's name),
	// the job MemcachedOperatorMetricsDown watches.
	operatorMetricsJob = "memcached-operator-controller-manager-metrics-service"
)

// TestPrometheusScrapesMemcached proves monitoring with a real Prometheus: a Prometheus v3.5.0
// server built from its Go module (PROMETHEUS_IMAGE) run by the Prometheus Operator of `make prometheus-operator-up` (built
// from its Go module), from a Prometheus object in a namespace enforcing the restricted profile,
// scraping every 5 s, selecting the ServiceMonitors and PrometheusRules of the test's namespace and
// of the operator's. What it proves, each through Prometheus' HTTP API (client_golang's api
// package, from the host, which reaches pod IPs):
//   - the ServiceMonitor the operator keeps for a Memcached of 2 with spec.monitoring is picked up:
//     every pod's exporter is an `up` target of it;
//   - memcached_up is 1 for each pod, and memcached_current_items of each pod equals the keys the
//     client pod wrote to that server (placeKeys);
//   - the operator's own metrics are scraped through its authenticated HTTPS endpoint: the shipped
//     config/prometheus ServiceMonitor (bearer token file, namePrefix and namespace as
//     config/default applies them) with Prometheus' ServiceAccount bound to the shipped
//     metrics-reader ClusterRole (nonResourceURL /metrics), Prometheus verifying the operator's
//     certificate against the CA of the Secret the test writes as cert-manager would
//     (createMetricsCertSecret; the operator picks it up without a restart); the target is up over
//     https, and the per-instance gauge of the Memcached is 2 under the Memcached's namespace (the
//     ServiceMonitor's relabeling);
//   - every rule loads and evaluates without error: the operator's PrometheusRule for the
//     instance, the shipped config/prometheus operator rules, and the test's copy of the instance
//     rules (resources.DesiredPrometheusRule, the operator's own builder, with `for` shortened to
//     10 s and a copyLabel label, so it cannot drift from what the operator ships);
//   - stopping one memcached server makes MemcachedDown go pending for that pod, in the operator's
//     rule (15m `for`) and in the copy, and the copy then fires. "Stopping" is SIGSTOP to the
//     memcached process of the pod's memcached container, found in /proc by its container ID
//     (the suite runs as root on the node's host); the kernel still completes TCP handshakes on
//     its listening socket, so the probes pass and the pod stays as it is, while the exporter's
//     stats request gets no answer (memcached_up 0). SIGCONT resumes it (also at cleanup), and
//     memcached_up returns to 1.
//
// It logs the figures: the scrape interval, the time until every target was up, the time from
// the stop until the alerts were pending and firing.
func TestPrometheusScrapesMemcached(t *testing.T) {
	expectCleanManagerLog(t)
	start := time.Now()
	g := NewWithT(t)
	ctx := utils.TestContext(t)
	exporterImage, promImage := os.Getenv("MEMCACHED_EXPORTER_IMAGE"), os.Getenv("PROMETHEUS_IMAGE")
	for env, image := range map[string]string{"MEMCACHED_EXPORTER_IMAGE": exporterImage, "PROMETHEUS_IMAGE": promImage} {
		if !strings.Contains(image, "@sha256:") {
			t.Fatalf("%s=%q is not an image by digest: run make test-real (make real-images and make prometheus-operator-up push it)", env, image)
		}
	}
	prometheusOperatorReady(t)
	ns := newRestrictedNamespace(t, "prometheus")
	startClientPod(t, ns)

	mc := utils.NewMemcached(ns, "scraped", 2)
	mc.Spec.Monitoring = cachev1alpha1.MonitoringSpec{Enabled: ptr.To(true), Image: exporterImage}
	g.Expect(suite.k8s.Create(ctx, mc)).To(Succeed())
	key := client.ObjectKeyFromObject(mc)
	mc, pods := waitConverged(t, key, 2, 64, 2*podStartTimeout)
	// The operator found the CRDs (discovery) and keeps the instance's ServiceMonitor and rules.
	g.Eventually(func() error { return suite.k8s.Get(ctx, key, &monitoringv1.ServiceMonitor{}) }, 30*time.Second, poll).Should(Succeed(),
		"the operator's ServiceMonitor %s", key)
	g.Eventually(func() error { return suite.k8s.Get(ctx, key, &monitoringv1.PrometheusRule{}) }, 30*time.Second, poll).Should(Succeed(),
		"the operator's PrometheusRule %s", key)
	createRuleCopy(t, mc)
	applyShippedOperatorMonitoring(t)

	promStart := time.Now()
	prom, promReady := startPrometheus(t, ns, promImage)
	t.Logf("Prometheus %s (spec.version v%s, %s) Running and Ready %s after its object was created; scrape and evaluation interval %s",
		prometheusName, prometheusVersion, promImage, utils.Ms(promReady.Sub(promStart)), scrapeInterval)

	// Every target of both ServiceMonitors up.
	ipToPod := map[string]string{}
	for i := range pods {
		ipToPod[pods[i].Status.PodIP] = pods[i].Name
	}
	instancePool := fmt.Sprintf("serviceMonitor/%s/%s/0", ns, mc.Name)
	operatorPool := fmt.Sprintf("serviceMonitor/%s/%s/0", suite.operatorNS, shippedName("controller-manager-metrics-monitor"))
	var targets promv1.TargetsResult
	g.Eventually(func(g Gomega) {
		var err error
		targets, err = prom.Targets(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		up := map[string][]string{}
		for _, tg := range targets.Active {
			if tg.Health == promv1.HealthGood {
				up[tg.ScrapePool] = append(up[tg.ScrapePool], string(tg.Labels["pod"]))
			}
		}
		g.Expect(up[instancePool]).To(ConsistOf(podNames(pods)), "up targets of %s (every exporter): %s", instancePool, targetsState(targets))
		g.Expect(up[operatorPool]).NotTo(BeEmpty(), "up targets of %s (the operator's metrics): %s", operatorPool, targetsState(targets))
		// 3 minutes: the kubelet mounts a Secret created after the pod started within its sync
		// period (a minute) plus the cache's, before the operator can serve it.
	}, 3*time.Minute, time.Second).Should(Succeed())
	allUp := time.Now()
	for _, tg := range targets.Active {
		if tg.ScrapePool == operatorPool {
			g.Expect(tg.ScrapeURL).To(HavePrefix("https://"), "the operator's metrics are scraped over HTTPS")
		}
	}
	t.Logf("every target up %s after Prometheus was Ready (%s after its object was created): %d exporters of %s, the operator's metrics (%s)",
		utils.Ms(allUp.Sub(promReady)), utils.Ms(allUp.Sub(promStart)), len(pods), instancePool, operatorPool)

	// memcached_up and memcached_current_items per pod match what the client wrote.
	serversResolved(t, ns, mc.Status.ServerList)
	written := map[string]float64{}
	for _, server := range placeKeys(t, ns, "prom", mc.Status.ServerList) {
		written[ipToPod[ipOfEntry(server)]]++
	}
	sel := fmt.Sprintf(`{namespace=%q, service=%q}`, ns, mc.Name)
	g.Eventually(func(g Gomega) {
		g.Expect(queryByPod(ctx, g, prom, "memcached_up"+sel)).To(Equal(map[string]float64{pods[0].Name: 1, pods[1].Name: 1}))
		g.Expect(queryByPod(ctx, g, prom, "memcached_current_items"+sel)).To(Equal(written), "keys written per pod")
	}, 4*scrapeInterval, time.Second).Should(Succeed())
	t.Logf("Prometheus: memcached_up 1 on both pods; memcached_current_items per pod %v = keys the client wrote", written)

	// The operator's metrics, through its authenticated endpoint.
	g.Eventually(func(g Gomega) {
		g.Expect(queryValue(ctx, g, prom, fmt.Sprintf(`min(up{job=%q})`, operatorMetricsJob))).To(Equal(1.0))
		g.Expect(queryValue(ctx, g, prom, fmt.Sprintf(`max(memcached_operator_instance_ready_replicas{namespace=%q, name=%q})`, ns, mc.Name))).To(Equal(2.0))
	}, 4*scrapeInterval, time.Second).Should(Succeed())
	t.Logf("Prometheus: up{job=%q} 1 (HTTPS, ServiceAccount token, metrics-reader ClusterRole) and memcached_operator_instance_ready_replicas 2", operatorMetricsJob)

	// Every rule group loaded, every rule healthy.
	wantGroups := []string{"memcached.rules", "memcached.rules.short-for", "memcached-operator.rules"}
	g.Eventually(func(g Gomega) {
		rules, err := prom.Rules(ctx, nil)
		g.Expect(err).NotTo(HaveOccurred())
		var groups []string
		for _, grp := range rules.Groups {
			groups = append(groups, grp.Name)
			for _, r := range grp.Rules {
				if a, ok := r.(promv1.AlertingRule); ok {
					g.Expect(a.Health).To(Equal(promv1.RuleHealth(promv1.RuleHealthGood)), "rule %s of group %s: %s", a.Name, grp.Name, a.LastError)
				}
			}
		}
		g.Expect(groups).To(ContainElements(wantGroups))
	}, time.Minute, time.Second).Should(Succeed())
	t.Logf("Prometheus loaded and evaluates the rule groups %v, every alerting rule healthy", wantGroups)

	// Stop one memcached server: MemcachedDown goes pending (both rules), the copy fires.
	stopped := pods[0]
	pid := memcachedPID(t, &stopped)
	g.Expect(syscall.Kill(pid, syscall.SIGSTOP)).To(Succeed())
	stopAt := time.Now()
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
	t.Logf("SIGSTOP to memcached (pid %d) of pod %s", pid, stopped.Name)
	var pendingAt, firingAt time.Time
	g.Eventually(func(g Gomega) {
		alerts, err := prom.Alerts(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		shipped, copied := alertState(alerts, "MemcachedDown", stopped.Name, false), alertState(alerts, "MemcachedDown", stopped.Name, true)
		if pendingAt.IsZero() && shipped == promv1.AlertStatePending && copied != "" {
			pendingAt = time.Now()
		}
		if firingAt.IsZero() && copied == promv1.AlertStateFiring {
			firingAt = time.Now()
		}
		g.Expect(pendingAt).NotTo(BeZero(), "MemcachedDown of pod %s pending (the operator's rule: %q, the copy: %q)", stopped.Name, shipped, copied)
		g.Expect(firingAt).NotTo(BeZero(), "MemcachedDown of the copy (for %s) firing: %q", shortFor, copied)
		g.Expect(shipped).To(Equal(promv1.AlertStatePending), "the operator's MemcachedDown (for 15m) stays pending")
	}, 2*time.Minute, 500*time.Millisecond).Should(Succeed())
	t.Logf("MemcachedDown pending %s after the stop (the operator's rule and the copy), the copy (for %s) firing %s after the stop",
		utils.Ms(pendingAt.Sub(stopAt)), shortFor, utils.Ms(firingAt.Sub(stopAt)))
	g.Expect(queryByPod(ctx, g, prom, "memcached_up"+sel)).To(HaveKeyWithValue(stopped.Name, 0.0))

	g.Expect(syscall.Kill(pid, syscall.SIGCONT)).To(Succeed())
	contAt := time.Now()
	g.Eventually(func(g Gomega) {
		g.Expect(queryByPod(ctx, g, prom, "memcached_up"+sel)).To(HaveKeyWithValue(stopped.Name, 1.0))
	}, 4*scrapeInterval, time.Second).Should(Succeed())
	t.Logf("SIGCONT: memcached_up of %s back to 1 after %s", stopped.Name, utils.Ms(time.Since(contAt)))
	suite.phases.Record(t, "Prometheus: targets up, items match, operator metrics, MemcachedDown pending", start)
}

// prometheusOperatorReady fails the test unless the Prometheus Operator's Deployment of `make
// prometheus-operator-up` is Available.
func prometheusOperatorReady(t *testing.T) {
	t.Helper()
	ns := os.Getenv("PROMETHEUS_OPERATOR_NAMESPACE")
	if ns == "" {
		ns = "prometheus-operator"
	}
	d := &appsv1.Deployment{}
	if err := suite.k8s.Get(utils.TestContext(t), client.ObjectKey{Namespace: ns, Name: "prometheus-operator"}, d); err != nil {
		t.Fatalf("failed to get the Prometheus Operator's Deployment %s/prometheus-operator (make prometheus-operator-up installs it): %v", ns, err)
	}
	if d.Status.AvailableReplicas < 1 {
		t.Fatalf("the Prometheus Operator's Deployment %s/prometheus-operator has no available replica", ns)
	}
}

// createRuleCopy creates the test's copy of mc's instance rules: the PrometheusRule the operator
// builds (resources.DesiredPrometheusRule) renamed <name>-short-for, its group
// memcached.rules.short-for, every `for` shortFor and every alert labelled copyLabel.
func createRuleCopy(t *testing.T, mc *cachev1alpha1.Memcached) {
	t.Helper()
	pr := resources.DesiredPrometheusRule(mc)
	pr.Name += "-short-for"
	pr.Labels = map[string]string{realLabel: "true"}
	d := monitoringv1.Duration(model.Duration(shortFor).String())
	for gi := range pr.Spec.Groups {
		grp := &pr.Spec.Groups[gi]
		grp.Name += ".short-for"
		for ri := range grp.Rules {
			grp.Rules[ri].For = &d
			grp.Rules[ri].Labels[copyLabel] = "short-for"
		}
	}
	if err := suite.k8s.Create(utils.TestContext(t), pr); err != nil {
		t.Fatalf("failed to create PrometheusRule %s/%s: %v", pr.Namespace, pr.Name, err)
	}
}

// shippedName is the name config/default gives an object of config/ (its namePrefix).
func shippedName(name string) string { return "memcached-operator-" + name }

// applyShippedOperatorMonitoring runs the command the user guide gives, `kubectl apply -k
// config/prometheus` (the ServiceMonitor and PrometheusRule in the operator's namespace under
// config/default's names), after creating the metrics certificate's Secret the ServiceMonitor's CA
// comes from; `kubectl delete -k config/prometheus` when the test ends.
func applyShippedOperatorMonitoring(t *testing.T) {
	t.Helper()
	if suite.operatorNS != "memcached-operator-system" {
		t.Fatalf("config/prometheus names namespace memcached-operator-system, the operator runs in %s", suite.operatorNS)
	}
	createMetricsCertSecret(t)
	dir := filepath.Join(suite.repoRoot, "config", "prometheus")
	if _, errOut, err := runKubectl(utils.TestContext(t), "", "apply", "-k", dir); err != nil {
		t.Fatalf("kubectl apply -k config/prometheus: %v\n%s", err, errOut)
	}
	t.Cleanup(func() {
		if _, errOut, err := runKubectl(context.Background(), "", "delete", "--ignore-not-found", "-k", dir); err != nil {
			t.Errorf("kubectl delete -k config/prometheus: %v\n%s", err, errOut)
		}
	})
}

// createMetricsCertSecret creates Secret memcached-operator-metrics-cert in the operator's
// namespace as config/certmanager's Certificate makes cert-manager write it (tls.crt, tls.key and
// ca.crt, for the metrics Service's DNS name), unless it exists, and returns that DNS name. The
// operator, started without it, serves a self-signed certificate and switches to this one once
// the kubelet has mounted the Secret's files into its optional volume (internal/metricscert):
// Prometheus, verifying the certificate, scrapes it only then.
func createMetricsCertSecret(t *testing.T) string {
	t.Helper()
	serverName := shippedName("controller-manager-metrics-service") + "." + suite.operatorNS + ".svc"
	key := client.ObjectKey{Namespace: suite.operatorNS, Name: "memcached-operator-metrics-cert"}
	if err := suite.k8s.Get(utils.TestContext(t), key, &corev1.Secret{}); err == nil {
		return serverName
	} else if !apierrors.IsNotFound(err) {
		t.Fatalf("failed to get Secret %s: %v", key, err)
	}
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey(serverName, nil, nil)
	if err != nil {
		t.Fatalf("failed to generate the metrics certificate: %v", err)
	}
	// The generated PEM is the certificate, then the CA that signed it.
	block, rest := pem.Decode(certPEM)
	if block == nil || len(rest) == 0 {
		t.Fatal("the generated certificate PEM holds no CA after the certificate")
	}
	// Left in place for the rest of the suite, as cert-manager keeps it (the operator's namespace
	// goes with make undeploy-real): once the operator serves the mounted certificate, a deleted
	// Secret empties the volume and controller-runtime's certwatcher logs an error at each poll
	// while it keeps serving the certificate it loaded, and the suite fails on any error line
	// of the manager (logs_test.go).
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name, Labels: map[string]string{realLabel: "true"}},
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{corev1.TLSCertKey: certPEM, corev1.TLSPrivateKeyKey: keyPEM, "ca.crt": rest},
	}
	if err := suite.k8s.Create(utils.TestContext(t), secret); err != nil {
		t.Fatalf("failed to create Secret %s: %v", key, err)
	}
	return serverName
}

// createCleanedUp creates obj and deletes it when the test ends.
func createCleanedUp(t *testing.T, obj client.Object) {
	t.Helper()
	if err := suite.k8s.Create(utils.TestContext(t), obj); err != nil {
		t.Fatalf("failed to create %T %s/%s: %v", obj, obj.GetNamespace(), obj.GetName(), err)
	}
	t.Cleanup(func() {
		if err := suite.k8s.Delete(context.Background(), obj); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("failed to delete %T %s/%s: %v", obj, obj.GetNamespace(), obj.GetName(), err)
		}
	})
}

// startPrometheus gives ServiceAccount prometheus of ns what Prometheus needs (service discovery
// in ns and the operator's namespace, through a ClusterRole of the test bound by RoleBindings;
// GET /metrics through the shipped metrics-reader ClusterRole), creates the Prometheus object and
// waits until its pod is Running and Ready and the server reports prometheusVersion. It returns
// the API of the server (at its pod IP) and when the pod was Ready.
func startPrometheus(t *testing.T, ns, image string) (promv1.API, time.Time) {
	t.Helper()
	g := NewWithT(t)
	ctx := utils.TestContext(t)
	labels := map[string]string{realLabel: "true"}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "prometheus"}}
	g.Expect(suite.k8s.Create(ctx, sa)).To(Succeed())
	discovery := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "real-prometheus-discovery-" + ns, Labels: labels},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"services", "endpoints", "pods"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"get", "list", "watch"}},
		},
	}
	createCleanedUp(t, discovery)
	for _, where := range []string{ns, suite.operatorNS} {
		createCleanedUp(t, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: where, Name: "real-prometheus-discovery-" + ns, Labels: labels},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: discovery.Name},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: sa.Name}},
		})
	}
	utils.BindMetricsReader(t, suite.k8s, ns, sa.Name, metricsReaderRole, labels)

	namespaces := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpIn, Values: []string{ns, suite.operatorNS},
	}}}
	interval := monitoringv1.Duration(model.Duration(scrapeInterval).String())
	p := &monitoringv1.Prometheus{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: prometheusName},
		Spec: monitoringv1.PrometheusSpec{
			CommonPrometheusFields: monitoringv1.CommonPrometheusFields{
				Image:                           ptr.To(image),
				Version:                         "v" + prometheusVersion,
				Replicas:                        ptr.To[int32](1),
				ServiceAccountName:              sa.Name,
				ScrapeInterval:                  interval,
				ServiceMonitorSelector:          &metav1.LabelSelector{},
				ServiceMonitorNamespaceSelector: namespaces,
				// The restricted profile: non-root, RuntimeDefault seccomp (the Prometheus
				// Operator gives each container no privilege escalation and no capabilities).
				SecurityContext: &corev1.PodSecurityContext{
					RunAsNonRoot:   ptr.To(true),
					RunAsUser:      ptr.To[int64](65534),
					RunAsGroup:     ptr.To[int64](65534),
					FSGroup:        ptr.To[int64](65534),
					SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
				},
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi"),
				}},
			},
			EvaluationInterval:    interval,
			RuleSelector:          &metav1.LabelSelector{},
			RuleNamespaceSelector: namespaces,
		},
	}
	g.Expect(suite.k8s.Create(ctx, p)).To(Succeed())

	pod := &corev1.Pod{}
	podKey := client.ObjectKey{Namespace: ns, Name: "prometheus-" + prometheusName + "-0"}
	deadline := time.Now().Add(2 * podStartTimeout)
	for {
		err := suite.k8s.Get(ctx, podKey, pod)
		if err == nil && utils.PodRunningReady(pod) {
			break
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = fmt.Errorf("not Running and Ready: %s", podState(pod))
			}
			logs, _, _ := runKubectl(ctx, "", "logs", "-n", ns, podKey.Name, "-c", "prometheus", "--previous", "--tail=20")
			t.Fatalf("the Prometheus Operator's pod %s for Prometheus %s/%s: %v\nlast logs of its prometheus container:\n%s", podKey, ns, prometheusName, err, logs)
		}
		time.Sleep(poll)
	}
	ready := time.Now()
	c, err := promapi.NewClient(promapi.Config{Address: fmt.Sprintf("http://%s:9090", pod.Status.PodIP)})
	g.Expect(err).NotTo(HaveOccurred())
	prom := promv1.NewAPI(c)
	info, err := prom.Buildinfo(ctx)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(info.Version).To(HavePrefix(prometheusVersion), "the server's version (spec.version says v%s)", prometheusVersion)
	return prom, ready
}

// memcachedPID returns the host PID of the memcached process of pod p (kernelViewOf).
func memcachedPID(t *testing.T, p *corev1.Pod) int {
	t.Helper()
	v, err := kernelViewOf(containerID(p, memcachedContainer))
	if err != nil {
		t.Fatalf("failed to find the memcached process of pod %s: %v", p.Name, err)
	}
	if v.comm != "memcached" {
		t.Fatalf("the main process of pod %s's memcached container is %q (pid %d), not memcached", p.Name, v.comm, v.pid)
	}
	return v.pid
}

// query runs the instant query q and returns its vector.
func query(ctx context.Context, g Gomega, prom promv1.API, q string) model.Vector {
	v, warnings, _, err := prom.Query(ctx, q, time.Now())
	g.Expect(err).NotTo(HaveOccurred(), "query %s", q)
	g.Expect(warnings).To(BeEmpty(), "query %s", q)
	vec, ok := v.(model.Vector)
	g.Expect(ok).To(BeTrue(), "query %s returned a %s, not a vector", q, v.Type())
	return vec
}

// queryByPod returns the samples of q by their pod label.
func queryByPod(ctx context.Context, g Gomega, prom promv1.API, q string) map[string]float64 {
	out := map[string]float64{}
	for _, s := range query(ctx, g, prom, q) {
		out[string(s.Metric["pod"])] = float64(s.Value)
	}
	return out
}

// queryValue returns the value of q, which must return one sample.
func queryValue(ctx context.Context, g Gomega, prom promv1.API, q string) float64 {
	vec := query(ctx, g, prom, q)
	g.Expect(vec).To(HaveLen(1), "query %s", q)
	return float64(vec[0].Value)
}

// alertState returns the state of alert name for pod among alerts, of the test's copy of the
// rules when copied, of the operator's rule otherwise ("" when there is none).
func alertState(alerts promv1.AlertsResult, name, pod string, copied bool) promv1.AlertState {
	for _, a := range alerts.Alerts {
		_, isCopy := a.Labels[copyLabel]
		if string(a.Labels[model.AlertNameLabel]) == name && string(a.Labels["pod"]) == pod && isCopy == copied {
			return a.State
		}
	}
	return ""
}

// targetsState describes the active targets, one per line, for failure messages.
func targetsState(r promv1.TargetsResult) string {
	var b strings.Builder
	for _, tg := range r.Active {
		fmt.Fprintf(&b, "\n  %s %s %s %s", tg.ScrapePool, tg.ScrapeURL, tg.Health, tg.LastError)
	}
	return b.String()
}
