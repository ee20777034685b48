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
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/test/utils"
)

const (
	// poll is the default interval of Eventually and Consistently.
	poll = 100 * time.Millisecond
	// namespaceGoneTimeout bounds the wait for a test namespace to be deleted at cleanup.
	namespaceGoneTimeout = 120 * time.Second
	// e2eLabel marks every namespace the suite creates.
	e2eLabel = "e2e.cache.example.com/suite"
)

// badLogLine matches operator log lines that are a bug whatever the test does: a recovered panic,
// an attempt to change an immutable field (e.g. a Deployment selector), or an RBAC denial.
var badLogLine = regexp.MustCompile(`(?i)panic|field is immutable|forbidden`)

// benignLogLine matches lines badLogLine would flag that are expected: creating an object in a
// namespace that is being deleted is refused with "Forbidden" by the NamespaceLifecycle admission.
var benignLogLine = regexp.MustCompile(`because it is being terminated`)

// kubectl runs $KUBECTL with args against the suite's cluster, fails the test when it exits
// non-zero and returns its standard output (utils.Kubectl).
func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	return suite.kubectl.Must(t, "", args...)
}

// newNamespace creates a namespace named e2e-<prefix>-<random>, deleted when the test ends and
// waited for, so the next test starts from a quiet cluster (utils.NewNamespace).
func newNamespace(t *testing.T, prefix string) string {
	t.Helper()
	return utils.NewNamespace(t, suite.k8s, "e2e-"+prefix, map[string]string{e2eLabel: "true"}, namespaceGoneTimeout)
}

// expectHealthyOperator registers a check, run when t ends (after the namespaces are deleted), that
// the manager is still running and wrote no line matching badLogLine during the test.
func expectHealthyOperator(t *testing.T) {
	t.Helper()
	offset := operatorLogSize()
	t.Cleanup(func() {
		if !suite.op.running() {
			t.Errorf("the operator exited during the test: %v (log %s)", suite.op.exitErr, suite.op.logPath)
		}
		if bad := operatorLogLines(offset, badLogLine, benignLogLine); len(bad) > 0 {
			t.Errorf("the operator logged %d line(s) matching %q during the test:\n%s", len(bad), badLogLine, strings.Join(bad, "\n"))
		}
	})
}

// operatorLogSize returns the current size of the operator's log, an offset for operatorLogLines.
func operatorLogSize() int64 {
	fi, err := os.Stat(suite.op.logPath)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// operatorLogLines returns the lines of the operator's log written after offset that match re and
// do not match except (nil: nothing excepted).
func operatorLogLines(offset int64, re, except *regexp.Regexp) []string {
	f, err := os.Open(suite.op.logPath)
	if err != nil {
		return []string{fmt.Sprintf("cannot read operator log: %v", err)}
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return []string{fmt.Sprintf("cannot seek operator log: %v", err)}
	}
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if re.MatchString(line) && (except == nil || !except.MatchString(line)) {
			out = append(out, line)
		}
	}
	return out
}

// createMemcached creates a Memcached of the given size (utils.NewMemcached) and returns its key.
func createMemcached(t *testing.T, ns, name string, size int32) client.ObjectKey {
	t.Helper()
	mc := utils.NewMemcached(ns, name, size)
	if err := suite.k8s.Create(utils.TestContext(t), mc); err != nil {
		t.Fatalf("failed to create Memcached %s/%s: %v", ns, name, err)
	}
	return client.ObjectKeyFromObject(mc)
}

// getDeployment reads the Deployment key from the API server.
func getDeployment(ctx context.Context, key client.ObjectKey) (*appsv1.Deployment, error) {
	dep := &appsv1.Deployment{}
	return dep, suite.k8s.Get(ctx, key, dep)
}

// liveNames returns the sorted names of the pods that are not terminating and not finished.
func liveNames(pods []corev1.Pod) []string {
	var names []string
	for _, p := range pods {
		if p.DeletionTimestamp == nil && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			names = append(names, p.Name)
		}
	}
	slices.Sort(names)
	return names
}

// converged returns nil when the Memcached key is fully converged at size: spec.size is size;
// status.observedGeneration and the conditions Available=True, Progressing=False, Degraded=False
// are at metadata.generation; its Deployment (its StatefulSet with spec.serverIdentity Stable) is
// controlled by it and has size replicas, and no workload of the other kind exists; exactly
// size pods exist that are not terminating, all Running and Ready; status.nodes equals their sorted
// names (no stale name, no duplicate); status.replicas, status.readyReplicas and the length of
// status.serverList are size. Otherwise it returns an error that says what differs. It also returns
// the Memcached it read (nil when the read failed).
func converged(ctx context.Context, key client.ObjectKey, size int32) (*cachev1alpha1.Memcached, error) {
	mc, err := utils.GetMemcached(ctx, suite.k8s, key)
	if err != nil {
		return nil, err
	}
	if mc.Spec.Size != size {
		return mc, fmt.Errorf("spec.size is %d, want %d", mc.Spec.Size, size)
	}
	if mc.Status.ObservedGeneration != mc.Generation {
		return mc, fmt.Errorf("status.observedGeneration %d != metadata.generation %d", mc.Status.ObservedGeneration, mc.Generation)
	}
	for _, c := range []struct {
		t string
		s metav1.ConditionStatus
	}{
		{cachev1alpha1.ConditionAvailable, metav1.ConditionTrue},
		{cachev1alpha1.ConditionProgressing, metav1.ConditionFalse},
		{cachev1alpha1.ConditionDegraded, metav1.ConditionFalse},
	} {
		if err := utils.CheckCondition(mc, c.t, c.s); err != nil {
			return mc, err
		}
	}
	// The workload spec.serverIdentity asks for, and none of the other kind.
	workload, other := client.Object(&appsv1.Deployment{}), client.Object(&appsv1.StatefulSet{})
	if mc.StableIdentity() {
		workload, other = other, workload
	}
	if err := suite.k8s.Get(ctx, key, workload); err != nil {
		return mc, fmt.Errorf("%T: %w", workload, err)
	}
	if !metav1.IsControlledBy(workload, mc) {
		return mc, fmt.Errorf("%T %s is not controlled by the Memcached (ownerReferences %+v)", workload, key, workload.GetOwnerReferences())
	}
	var replicas *int32
	switch w := workload.(type) {
	case *appsv1.Deployment:
		replicas = w.Spec.Replicas
	case *appsv1.StatefulSet:
		replicas = w.Spec.Replicas
	}
	if replicas == nil || *replicas != size {
		return mc, fmt.Errorf("%T replicas %v, want %d", workload, replicas, size)
	}
	if err := suite.k8s.Get(ctx, key, other); !apierrors.IsNotFound(err) {
		return mc, fmt.Errorf("%T %s still exists (or cannot be read: %v)", other, key, err)
	}
	pods, err := utils.InstancePods(ctx, suite.k8s, key)
	if err != nil {
		return mc, err
	}
	live := liveNames(pods)
	if len(live) != int(size) {
		return mc, fmt.Errorf("%d live pods %v, want %d", len(live), live, size)
	}
	for i := range pods {
		if slices.Contains(live, pods[i].Name) && !utils.PodRunningReady(&pods[i]) {
			return mc, fmt.Errorf("pod %s is not Running and Ready (phase %s)", pods[i].Name, pods[i].Status.Phase)
		}
	}
	if !slices.Equal(mc.Status.Nodes, live) {
		return mc, fmt.Errorf("status.nodes %v != live pods %v", mc.Status.Nodes, live)
	}
	if mc.Status.Replicas != size || mc.Status.ReadyReplicas != size {
		return mc, fmt.Errorf("status.replicas %d, status.readyReplicas %d, want %d", mc.Status.Replicas, mc.Status.ReadyReplicas, size)
	}
	if len(mc.Status.ServerList) != int(size) {
		return mc, fmt.Errorf("status.serverList has %d entries %v, want %d", len(mc.Status.ServerList), mc.Status.ServerList, size)
	}
	return mc, nil
}

// waitConverged waits up to timeout until the Memcached key is converged at size (see converged),
// fails the test otherwise, and returns how long it took. On every poll, converged or not, it also
// checks that status.nodes is sorted and free of duplicates, and fails the test when it ever is not.
func waitConverged(t *testing.T, key client.ObjectKey, size int32, timeout time.Duration) time.Duration {
	t.Helper()
	ctx := utils.TestContext(t)
	start := time.Now()
	var badNodes [][]string
	NewWithT(t).Eventually(func() error {
		mc, err := converged(ctx, key, size)
		if mc != nil && !sortedUnique(mc.Status.Nodes) {
			badNodes = append(badNodes, mc.Status.Nodes)
		}
		return err
	}, timeout, poll).Should(Succeed(), "Memcached %s did not converge at size %d within %v", key, size, timeout)
	if len(badNodes) > 0 {
		t.Errorf("status.nodes of %s was not sorted and unique while converging: %v", key, badNodes)
	}
	return time.Since(start)
}

// sortedUnique reports whether names is strictly increasing (sorted, no duplicates).
func sortedUnique(names []string) bool {
	for i := 1; i < len(names); i++ {
		if names[i-1] >= names[i] {
			return false
		}
	}
	return true
}

// scrapeMetrics GETs the operator's /metrics with token (none when empty) and returns the status
// code and body (utils.ScrapeMetrics).
func scrapeMetrics(t *testing.T, token string) (int, string, error) {
	t.Helper()
	return utils.ScrapeMetrics(utils.TestContext(t), suite.op.metricsURL, token)
}

// mustScrapeMetrics scrapes /metrics with token, fails the test unless it answers 200 with a body
// in the text format, and returns the parsed metrics (utils.ParseMetrics).
func mustScrapeMetrics(t *testing.T, token string) utils.Metrics {
	t.Helper()
	code, body, err := scrapeMetrics(t, token)
	if err != nil || code != http.StatusOK {
		t.Fatalf("GET %s: status %d, error %v, body %.300q", suite.op.metricsURL, code, err, body)
	}
	m, err := utils.ParseMetrics(body)
	if err != nil {
		t.Fatalf("GET %s: %v", suite.op.metricsURL, err)
	}
	return m
}

// reconcileTotal returns controller_runtime_reconcile_total{controller="memcached"} summed over
// results, or only for result when it is not empty.
func reconcileTotal(t *testing.T, m utils.Metrics, result string) float64 {
	t.Helper()
	want := map[string]string{"controller": "memcached"}
	if result != "" {
		want["result"] = result
	}
	v, ok := m.Sum("controller_runtime_reconcile_total", want)
	if !ok {
		t.Fatalf("no controller_runtime_reconcile_total sample with labels %v in the metrics", want)
	}
	return v
}

// scraperToken creates ServiceAccount ns/metrics-scraper bound to metrics-reader and returns a
// token of it that the operator's metrics endpoint accepts.
func scraperToken(t *testing.T, ns string) string {
	t.Helper()
	token := utils.ServiceAccountToken(t, suite.k8s, ns, "metrics-scraper")
	utils.BindMetricsReader(t, suite.k8s, ns, "metrics-scraper", metricsReaderRole, map[string]string{e2eLabel: "true"})
	return token
}
