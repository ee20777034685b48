//go:build olm

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

// Package olm proves under the real OLM on the local kwok cluster what the real-node suite
// (test/olmreal) does not: install from our catalog in every install mode with exactly the RBAC OLM
// grants (through the runner), the metrics endpoint protected by that RBAC and the operator's
// namespace deleted without getting stuck, and the channel policy (a release in candidate reaches
// stable subscribers only when promoted). The OperatorGroup reuse and the channel-bump upgrade are
// proven once, on real pods, by test/olmreal. `make test-olm` starts the cluster, OLM and the
// catalog server, then runs this suite.
package olm

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	operatorsv2 "github.com/operator-framework/api/pkg/operators/v2"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/test/olm/runner"
	"github.com/example/memcached-operator/test/utils"
)

const (
	packageName   = "memcached-operator"
	catalogSource = "memcached-catalog"
	catalogNS     = "olm"
	// metricsReaderRole is the bundle's ClusterRole for scraping the operator's metrics.
	metricsReaderRole = "memcached-operator-metrics-reader"
)

var (
	cfg      *rest.Config
	k8s      client.Client
	binaries map[string]string // image tag -> local manager binary
	// headVersion is the image tag of the current release, the head of every channel (OLM_HEAD_VERSION).
	headVersion string
	artifacts   string
	repoRoot    string
	suiteStart  = time.Now()
)

func TestMain(m *testing.M) {
	if err := setup(); err != nil {
		fmt.Fprintf(os.Stderr, "olm suite setup: %v\n", err)
		os.Exit(1)
	}
	code := m.Run()
	fmt.Printf("OLM suite took %s\n", time.Since(suiteStart).Round(time.Second))
	os.Exit(code)
}

func setup() error {
	var err error
	if repoRoot, err = filepath.Abs("../.."); err != nil {
		return err
	}
	kubeconfig := fromRoot(os.Getenv("KUBECONFIG"))
	if kubeconfig == "" {
		return fmt.Errorf("KUBECONFIG must point at the local cluster with OLM (make test-olm sets it)")
	}
	os.Setenv("KUBECONFIG", kubeconfig)
	if cfg, err = clientcmd.BuildConfigFromFlags("", kubeconfig); err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 50, 100
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(operatorsv1.AddToScheme(scheme))
	utilruntime.Must(operatorsv1alpha1.AddToScheme(scheme))
	utilruntime.Must(operatorsv2.AddToScheme(scheme))
	utilruntime.Must(cachev1alpha1.AddToScheme(scheme))
	if k8s, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		return err
	}
	// OLM_BINARIES maps operator image tags or digests to local builds:
	// "v0.1.0=bin/manager-v0.1.0,v0.2.0=bin/manager,sha256:…=bin/manager".
	binaries = map[string]string{}
	for _, kv := range strings.Split(os.Getenv("OLM_BINARIES"), ",") {
		tag, path, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			continue
		}
		path = fromRoot(path)
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("OLM_BINARIES: %s: %w", tag, err)
		}
		binaries[tag], _ = filepath.Abs(path)
	}
	if len(binaries) == 0 {
		return fmt.Errorf("OLM_BINARIES is empty (make test-olm sets it)")
	}
	headVersion = "v" + strings.TrimPrefix(os.Getenv("OLM_HEAD_VERSION"), "v")
	if _, ok := binaries[headVersion]; !ok {
		return fmt.Errorf("OLM_HEAD_VERSION %q has no binary in OLM_BINARIES", headVersion)
	}
	artifacts = os.Getenv("OLM_ARTIFACTS")
	if artifacts == "" {
		artifacts, _ = os.MkdirTemp("", "memcached-olm-")
	}
	fmt.Printf("OLM suite artifacts (operator logs): %s\n", artifacts)
	return nil
}

// fromRoot resolves a relative path against the repository root (go test runs in test/olm).
func fromRoot(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(repoRoot, p)
}

// step logs a step's duration.
func step(t *testing.T, name string, start time.Time) {
	t.Helper()
	t.Logf("%-58s %6.1fs", name, time.Since(start).Seconds())
}

// serveCatalog (re)starts the catalog server with bundles up to maxVersion ("" for all) and waits
// until the CatalogSource is READY.
func serveCatalog(t *testing.T, maxVersion string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(repoRoot, "hack", "olm", "catalog-serve.sh"), "start")
	cmd.Env = append(os.Environ(), "CATALOG_MAX_VERSION="+maxVersion)
	cmd.Dir = repoRoot
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("catalog-serve.sh start (max %q): %v\n%s", maxVersion, err, out)
	}
}

func createNamespace(t *testing.T, g Gomega, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := k8s.Create(context.Background(), ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create namespace %s: %v", name, err)
	}
	g.Eventually(func() error {
		return k8s.Get(context.Background(), client.ObjectKey{Namespace: name, Name: "default"}, &corev1.ServiceAccount{})
	}, 30*time.Second, 100*time.Millisecond).Should(Succeed(), "default ServiceAccount of %s", name)
}

// deleteNamespaces deletes namespaces and waits until they are gone (never stuck:
// operator-framework/operator-sdk#1513).
func deleteNamespaces(t *testing.T, g Gomega, names ...string) {
	t.Helper()
	start := time.Now()
	for _, n := range names {
		_ = k8s.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}})
	}
	for _, n := range names {
		g.Eventually(func() bool {
			return apierrors.IsNotFound(k8s.Get(context.Background(), client.ObjectKey{Name: n}, &corev1.Namespace{}))
		}, 180*time.Second, 250*time.Millisecond).Should(BeTrue(), "namespace %s deleted", n)
	}
	step(t, fmt.Sprintf("namespaces %v deleted", names), start)
}

// subscribe creates the Subscription to channel in ns and waits until the CSV it installs is
// Succeeded; it returns the CSV.
func subscribe(t *testing.T, g Gomega, ns, channel, startingCSV string) *operatorsv1alpha1.ClusterServiceVersion {
	t.Helper()
	start := time.Now()
	sub := &operatorsv1alpha1.Subscription{
		ObjectMeta: metav1.ObjectMeta{Name: packageName, Namespace: ns},
		Spec: &operatorsv1alpha1.SubscriptionSpec{
			CatalogSource: catalogSource, CatalogSourceNamespace: catalogNS, Package: packageName,
			Channel: channel, StartingCSV: startingCSV, InstallPlanApproval: operatorsv1alpha1.ApprovalAutomatic,
		},
	}
	g.Expect(k8s.Create(context.Background(), sub)).To(Succeed())
	var csvName string
	g.Eventually(func(g Gomega) {
		s := &operatorsv1alpha1.Subscription{}
		g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(sub), s)).To(Succeed())
		g.Expect(s.Status.InstallPlanRef).NotTo(BeNil(), "subscription has an InstallPlan")
		ip := &operatorsv1alpha1.InstallPlan{}
		g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: s.Status.InstallPlanRef.Name}, ip)).To(Succeed())
		g.Expect(ip.Status.Phase).To(Equal(operatorsv1alpha1.InstallPlanPhaseComplete), "InstallPlan %s phase", ip.Name)
		g.Expect(s.Status.InstalledCSV).NotTo(BeEmpty())
		csvName = s.Status.InstalledCSV
	}, 120*time.Second, 250*time.Millisecond).Should(Succeed())
	step(t, "InstallPlan Complete ("+csvName+")", start)
	csv := waitCSV(t, g, ns, csvName)
	step(t, "CSV "+csvName+" Succeeded", start)
	return csv
}

// waitCSV waits until the CSV is Succeeded and returns it.
func waitCSV(t *testing.T, g Gomega, ns, name string) *operatorsv1alpha1.ClusterServiceVersion {
	t.Helper()
	csv := &operatorsv1alpha1.ClusterServiceVersion{}
	g.Eventually(func(g Gomega) {
		g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, csv)).To(Succeed())
		g.Expect(csv.Status.Phase).To(Equal(operatorsv1alpha1.CSVPhaseSucceeded), "CSV %s phase (%s: %s)", name, csv.Status.Reason, csv.Status.Message)
	}, 120*time.Second, 250*time.Millisecond).Should(Succeed())
	return csv
}

// startRunner runs the operator Deployment of csv in ns until the test ends.
func startRunner(t *testing.T, g Gomega, ns string, csv *operatorsv1alpha1.ClusterServiceVersion) *runner.Runner {
	t.Helper()
	start := time.Now()
	deps := csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs
	g.Expect(deps).To(HaveLen(1))
	r := &runner.Runner{
		Config: cfg, Namespace: ns, Name: deps[0].Name, Container: "manager",
		WorkDir: filepath.Join(artifacts, t.Name()),
		Binary: func(image string) (string, error) {
			if b, ok := binaries[runner.ImageVersion(image)]; ok {
				return b, nil
			}
			return "", fmt.Errorf("no local binary for image %s (OLM_BINARIES)", image)
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- r.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("runner: %v", err)
		}
	})
	waitReady(t, g, r)
	step(t, "operator running as OLM's Deployment "+deps[0].Name, start)
	return r
}

// waitReady waits until the runner's process answers /readyz.
func waitReady(t *testing.T, g Gomega, r *runner.Runner) {
	t.Helper()
	g.Eventually(func(g Gomega) {
		addr := r.Addr("health-probe-bind-address")
		g.Expect(addr).NotTo(BeEmpty(), "operator process started")
		resp, err := http.Get("http://" + addr + "/readyz")
		g.Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
	}, 60*time.Second, 100*time.Millisecond).Should(Succeed(), "operator ready; log: %s", r.Log())
}

// newMemcached creates a Memcached of size in ns (utils.NewMemcached).
func newMemcached(t *testing.T, g Gomega, ns, name string, size int32, mutate ...func(*cachev1alpha1.Memcached)) {
	t.Helper()
	g.Expect(k8s.Create(context.Background(), utils.NewMemcached(ns, name, size, mutate...))).To(Succeed())
}

// available reports whether the Memcached is Available at its current generation.
func available(g Gomega, ns, name string) bool {
	mc := &cachev1alpha1.Memcached{}
	g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, mc)).To(Succeed())
	c := meta.FindStatusCondition(mc.Status.Conditions, cachev1alpha1.ConditionAvailable)
	return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == mc.Generation
}

// waitAvailable waits until the Memcached is Available with its Deployment and Service.
func waitAvailable(t *testing.T, g Gomega, ns, name string) {
	t.Helper()
	start := time.Now()
	g.Eventually(func(g Gomega) {
		g.Expect(available(g, ns, name)).To(BeTrue(), "Memcached %s/%s Available", ns, name)
		g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &appsv1.Deployment{})).To(Succeed())
		g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &corev1.Service{})).To(Succeed())
	}, 90*time.Second, 250*time.Millisecond).Should(Succeed())
	step(t, fmt.Sprintf("Memcached %s/%s Available", ns, name), start)
}

// forbiddenLines returns the lines of the operator log that mention "forbidden"
// (kube-green/kube-green#296, openshift/kubefed-operator#49, elastic/cloud-on-k8s#9654).
func forbiddenLines(t *testing.T, r *runner.Runner) []string {
	t.Helper()
	raw, err := os.ReadFile(r.Log())
	if err != nil {
		t.Fatalf("read operator log: %v", err)
	}
	return forbidden(string(raw))
}

// forbiddenLinesSinceStart is forbiddenLines for the log of the process the runner started last.
func forbiddenLinesSinceStart(t *testing.T, r *runner.Runner) []string {
	t.Helper()
	raw, err := os.ReadFile(r.Log())
	if err != nil {
		t.Fatalf("read operator log: %v", err)
	}
	log := string(raw)
	if i := strings.LastIndex(log, "=== runner:"); i >= 0 {
		log = log[i:]
	}
	return forbidden(log)
}

func forbidden(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(strings.ToLower(l), "forbidden") {
			out = append(out, l)
		}
	}
	return out
}

// scrape GETs the operator's metrics with an optional bearer token and returns status and body.
func scrape(g Gomega, r *runner.Runner, token string) (int, string) {
	addr := r.Addr("metrics-bind-address")
	g.Expect(addr).NotTo(BeEmpty())
	code, body, err := utils.ScrapeMetrics(context.Background(), "https://"+addr+"/metrics", token)
	g.Expect(err).NotTo(HaveOccurred())
	return code, body
}

// checkMetricsAuth proves the metrics endpoint refuses anonymous and unbound callers and serves a
// ServiceAccount bound to the bundle's metrics-reader ClusterRole
// (operator-framework/operator-sdk#6930).
func checkMetricsAuth(t *testing.T, g Gomega, r *runner.Runner, ns string) {
	t.Helper()
	code, _ := scrape(g, r, "")
	g.Expect(code).To(BeElementOf(http.StatusUnauthorized, http.StatusForbidden), "anonymous scrape")
	code, _ = scrape(g, r, utils.ServiceAccountToken(t, k8s, ns, "unbound-scraper"))
	g.Expect(code).To(Equal(http.StatusForbidden), "scrape by an unbound ServiceAccount")

	bound := utils.ServiceAccountToken(t, k8s, ns, "scraper")
	crb := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "scraper-metrics-" + ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: metricsReaderRole},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: "scraper"}},
	}
	g.Expect(k8s.Create(context.Background(), crb)).To(Succeed())
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), crb) })
	g.Eventually(func(g Gomega) {
		code, body := scrape(g, r, bound)
		g.Expect(code).To(Equal(http.StatusOK))
		m, err := utils.ParseMetrics(body)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(m).To(HaveKey("workqueue_depth"))
		g.Expect(m).To(HaveKey("memcached_operator_instance_ready_replicas"))
		ok, found := m.Sum("controller_runtime_reconcile_total", map[string]string{"controller": "memcached", "result": "success"})
		g.Expect(found).To(BeTrue(), "controller_runtime_reconcile_total for memcached")
		g.Expect(ok).To(BeNumerically(">=", 1))
	}, 30*time.Second, 500*time.Millisecond).Should(Succeed())
}

// podsOf returns "name/uid/pod-template-hash" of the pods of a Memcached, sorted.
func podsOf(g Gomega, ns, name string) []string {
	pods := &corev1.PodList{}
	g.Expect(k8s.List(context.Background(), pods, client.InNamespace(ns),
		client.MatchingLabels{"app.kubernetes.io/name": "memcached", "app.kubernetes.io/instance": name})).To(Succeed())
	var out []string
	for _, p := range pods.Items {
		out = append(out, p.Name+"/"+string(p.UID)+"/"+p.Labels["pod-template-hash"])
	}
	sort.Strings(out)
	return out
}

// ensureOperatorGroup gives ns the OperatorGroup for targets (nil: all namespaces) through
// hack/olm/operator-group.sh (what `make demo-olm` runs): the one ns holds when it fits, else a new one
// named memcached.
func ensureOperatorGroup(t *testing.T, g Gomega, ns string, targets []string) string {
	t.Helper()
	res, err := utils.OperatorGroup(repoRoot, os.Getenv("KUBECONFIG"), filepath.Join(repoRoot, "bin", "kubectl"), ns, targets)
	g.Expect(err).NotTo(HaveOccurred(), "operator-group.sh %s %v: %s", ns, targets, res.Message)
	t.Logf("%s", strings.TrimSpace(res.Message))
	return res.Name
}
