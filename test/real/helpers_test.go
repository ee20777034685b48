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
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/test/real/memcache"
	"github.com/example/memcached-operator/test/utils"
)

const (
	// poll is the interval of every wait and watcher.
	poll = 200 * time.Millisecond
	// kubectlTimeout bounds one kubectl invocation.
	kubectlTimeout = 60 * time.Second
	// namespaceGoneTimeout bounds the wait for a test namespace to be deleted at cleanup.
	namespaceGoneTimeout = 120 * time.Second
	// podStartTimeout bounds the wait for a pod to be Running and Ready (the first start pulls
	// its image from the local registry).
	podStartTimeout = 90 * time.Second
	// realLabel marks every namespace and cluster-scoped object the suite creates.
	realLabel = "real.cache.example.com/suite"
	// clientPod is the name of the client pod and its container.
	clientPod = "mcclient"
	// clientBinary is the path of the client program in its image (hack/images/local-images.sh gobin).
	clientBinary = "/mcclient"
	// memcachedContainer is the name of the memcached container in the operator's pods.
	memcachedContainer = "memcached"
)

// runKubectl runs $KUBECTL with args against the suite's cluster, stdin as its standard input,
// and returns its standard output and error separately (utils.Kubectl). A call without deadline in
// ctx is bounded by kubectlTimeout.
func runKubectl(ctx context.Context, stdin string, args ...string) (string, string, error) {
	return utils.Kubectl{Path: suite.kubectl, Kubeconfig: suite.kubeconfig, Timeout: kubectlTimeout}.Run(ctx, stdin, args...)
}

// kubectl runs $KUBECTL with args and fails the test when it exits non-zero.
func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, err := runKubectl(utils.TestContext(t), "", args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// newRestrictedNamespace creates a namespace named real-<prefix>-<random> that enforces the
// restricted Pod Security Standard (deleted when the test ends: utils.NewNamespace).
func newRestrictedNamespace(t *testing.T, prefix string) string {
	t.Helper()
	return utils.NewNamespace(t, suite.k8s, "real-"+prefix, map[string]string{
		realLabel:                                    "true",
		"pod-security.kubernetes.io/enforce":         "restricted",
		"pod-security.kubernetes.io/enforce-version": "latest",
	}, namespaceGoneTimeout)
}

// startClientPod runs the client program (MCCLIENT_IMAGE) as pod mcclient in ns under the
// restricted profile (non-root, read-only root filesystem, no capabilities, RuntimeDefault
// seccomp, no ServiceAccount token) and waits until it is Running and Ready.
func startClientPod(t *testing.T, ns string) {
	t.Helper()
	startClientPodWith(t, ns, nil)
}

// startClientPodWith is startClientPod with edit, when not nil, applied to the pod before it is
// created.
func startClientPodWith(t *testing.T, ns string, edit func(*corev1.Pod)) {
	t.Helper()
	ctx := utils.TestContext(t)
	start := time.Now()
	pod := utils.ClientPod(ns, clientPod, suite.clientImage, clientBinary)
	if edit != nil {
		edit(pod)
	}
	if err := suite.k8s.Create(ctx, pod); err != nil {
		t.Fatalf("failed to create the client pod %s/%s: %v", ns, clientPod, err)
	}
	NewWithT(t).Eventually(func() error {
		p := &corev1.Pod{}
		if err := suite.k8s.Get(ctx, client.ObjectKeyFromObject(pod), p); err != nil {
			return err
		}
		if !utils.PodRunningReady(p) {
			return fmt.Errorf("client pod not Running and Ready: %s", podState(p))
		}
		return nil
	}, podStartTimeout, poll).Should(Succeed())
	t.Logf("client pod %s/%s Running and Ready in %s", ns, clientPod, utils.Ms(time.Since(start)))
}

// clientRun runs `mcclient <args>` in the client pod of ns (kubectl exec; stdin, when not empty,
// is passed to it) and decodes its JSON report into report. The error says what the client wrote
// on stderr when it exited non-zero; the report is decoded whenever it printed one.
func clientRun(ctx context.Context, ns, stdin string, report any, args ...string) error {
	kargs := []string{"exec", "-n", ns, clientPod, "-c", clientPod}
	if stdin != "" {
		kargs = append(kargs, "-i")
	}
	kargs = append(append(kargs, "--", clientBinary), args...)
	out, errOut, err := runKubectl(ctx, stdin, kargs...)
	if derr := json.Unmarshal([]byte(out), report); derr != nil {
		return fmt.Errorf("mcclient %s: no report (%v; exit %v)\nstdout: %.2000s\nstderr: %.2000s", strings.Join(args, " "), derr, err, out, errOut)
	}
	if err != nil {
		return fmt.Errorf("mcclient %s: %v\n%.4000s", strings.Join(args, " "), err, errOut)
	}
	return nil
}

// mustClientRun is clientRun that fails the test on any error.
func mustClientRun(t *testing.T, ns, stdin string, report any, args ...string) {
	t.Helper()
	if err := clientRun(utils.TestContext(t), ns, stdin, report, args...); err != nil {
		t.Fatal(err)
	}
}

// dnsLag bounds how long a name the client is given may be missing from cluster DNS.
// status.serverList follows pod readiness; a pod's name under the headless Service follows the
// EndpointSlice, which kube-controller-manager writes after the pod turned Ready and CoreDNS then
// watches. A client that reads serverList at once can meet "no such host" (or SERVFAIL, when the
// absolute name is tried last) for that moment, and retries the lookup, as this suite does.
// Usually the moment is under a second; but when kube-controller-manager's EndpointSlice
// controller finds its informer behind its own writes (it logs "EndpointSlice informer cache is
// out of date") it retries the Service with a backoff, and a CI run saw names of Ready pods
// still missing after 15 s (retries logged 20 s apart). Hence a minute.
const dnsLag = time.Minute

// clientRunResolving is mustClientRun for a command that resolves names. pending inspects the
// decoded report and returns why the names are not all resolved yet ("" when they are); while it
// does, the run is retried every poll for up to dnsLag, whether or not the client exited non-zero.
// It logs how long the names took to resolve when it had to wait.
func clientRunResolving(t *testing.T, ns string, report any, pending func() string, args ...string) {
	t.Helper()
	start := time.Now()
	for tries := 1; ; tries++ {
		err := clientRun(utils.TestContext(t), ns, "", report, args...)
		why := pending()
		switch {
		case why == "" && err == nil:
			if tries > 1 {
				t.Logf("mcclient %s: every name resolved after %d tries (%s): cluster DNS follows the EndpointSlice, not the pod's Ready",
					args[0], tries, utils.Ms(time.Since(start)))
			}
			return
		case why == "":
			t.Fatal(err)
		case time.Since(start) > dnsLag:
			t.Fatalf("mcclient %s: names still not resolved after %d tries (%s): %s (%v)", args[0], tries, utils.Ms(time.Since(start)), why, err)
		}
		time.Sleep(poll)
	}
}

// serversResolved runs `mcclient servers` over servers in ns until every name resolves (see
// clientRunResolving) and returns the report.
func serversResolved(t *testing.T, ns string, servers []string) memcache.ServersReport {
	t.Helper()
	var sr memcache.ServersReport
	clientRunResolving(t, ns, &sr, func() string { return unresolved(&sr) }, "servers", "-servers", strings.Join(servers, ","))
	return sr
}

// unresolved returns the first lookup failure in a servers report, or "".
func unresolved(r *memcache.ServersReport) string {
	for _, s := range r.Servers {
		if strings.HasPrefix(s.Error, "failed to resolve") {
			return s.Error
		}
	}
	return ""
}

// live returns the pods that are not terminating and not finished, sorted by name.
func live(pods []corev1.Pod) []corev1.Pod {
	var out []corev1.Pod
	for _, p := range pods {
		if p.DeletionTimestamp == nil && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// podNames returns the names of pods.
func podNames(pods []corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}

// podReadyCondition returns p's Ready condition, or nil.
func podReadyCondition(p *corev1.Pod) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.PodReady {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// podState is a one-line description of p for failure messages.
func podState(p *corev1.Pod) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s phase=%s ip=%s", p.Name, p.Status.Phase, p.Status.PodIP)
	if p.DeletionTimestamp != nil {
		b.WriteString(" terminating")
	}
	if c := podReadyCondition(p); c != nil {
		fmt.Fprintf(&b, " ready=%s", c.Status)
	}
	for _, cs := range p.Status.ContainerStatuses {
		fmt.Fprintf(&b, " [%s ready=%v restarts=%d", cs.Name, cs.Ready, cs.RestartCount)
		switch {
		case cs.State.Waiting != nil:
			fmt.Fprintf(&b, " waiting %s: %s", cs.State.Waiting.Reason, cs.State.Waiting.Message)
		case cs.State.Terminated != nil:
			fmt.Fprintf(&b, " terminated %s (exit %d): %s", cs.State.Terminated.Reason, cs.State.Terminated.ExitCode, cs.State.Terminated.Message)
		}
		b.WriteString("]")
	}
	for _, c := range p.Status.Conditions {
		if c.Status != corev1.ConditionTrue && c.Message != "" {
			fmt.Fprintf(&b, " %s: %s", c.Type, c.Message)
		}
	}
	return b.String()
}

// podsState describes pods, one per line.
func podsState(pods []corev1.Pod) string {
	var lines []string
	for i := range pods {
		lines = append(lines, "  "+podState(&pods[i]))
	}
	return strings.Join(lines, "\n")
}

// memcachedContainerOf returns the memcached container of p's spec, or nil.
func memcachedContainerOf(p *corev1.Pod) *corev1.Container {
	for i := range p.Spec.Containers {
		if p.Spec.Containers[i].Name == memcachedContainer {
			return &p.Spec.Containers[i]
		}
	}
	return nil
}

// argAfter returns the argument that follows flag in the memcached container's args of p, or "".
func argAfter(p *corev1.Pod, flag string) string {
	c := memcachedContainerOf(p)
	if c == nil {
		return ""
	}
	for i, a := range c.Args {
		if a == flag && i+1 < len(c.Args) {
			return c.Args[i+1]
		}
	}
	return ""
}

// ofTemplate reports whether p runs the memcached item memory maxMB (-m): the only template change
// the suite makes, so it tells the pods of the current spec from the older ones.
func ofTemplate(p *corev1.Pod, maxMB int32) bool {
	return argAfter(p, "-m") == strconv.Itoa(int(maxMB))
}

// containerStatus returns p's status of container name, or nil.
func containerStatus(p *corev1.Pod, name string) *corev1.ContainerStatus {
	for i := range p.Status.ContainerStatuses {
		if p.Status.ContainerStatuses[i].Name == name {
			return &p.Status.ContainerStatuses[i]
		}
	}
	return nil
}

// converged returns nil when the Memcached key is converged at size with item memory maxMB:
// status at metadata.generation with Available=True, Progressing=False, Degraded=False; its
// Deployment controlled by it with size replicas, all updated and available; exactly size live pods,
// all Running and Ready and of the current template (-m maxMB); status.nodes their names;
// status.readyReplicas size; status.serverList size entries. It returns the Memcached and the live
// pods it read.
func converged(ctx context.Context, key client.ObjectKey, size, maxMB int32) (*cachev1alpha1.Memcached, []corev1.Pod, error) {
	mc, err := utils.GetMemcached(ctx, suite.k8s, key)
	if err != nil {
		return nil, nil, err
	}
	pods, err := utils.InstancePods(ctx, suite.k8s, key)
	if err != nil {
		return mc, nil, err
	}
	lp := live(pods)
	fail := func(format string, args ...any) (*cachev1alpha1.Memcached, []corev1.Pod, error) {
		return mc, lp, fmt.Errorf("%s\npods:\n%s", fmt.Sprintf(format, args...), podsState(pods))
	}
	if mc.Spec.Size != size || mc.Spec.Memcached.MaxMemoryMB != maxMB {
		return fail("spec.size %d, maxMemoryMB %d; want %d, %d", mc.Spec.Size, mc.Spec.Memcached.MaxMemoryMB, size, maxMB)
	}
	if mc.Status.ObservedGeneration != mc.Generation {
		return fail("status.observedGeneration %d != metadata.generation %d", mc.Status.ObservedGeneration, mc.Generation)
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
			return fail("%v", err)
		}
	}
	dep := &appsv1.Deployment{}
	if err := suite.k8s.Get(ctx, key, dep); err != nil {
		return fail("deployment: %v", err)
	}
	if !metav1.IsControlledBy(dep, mc) {
		return fail("deployment %s is not controlled by the Memcached", key)
	}
	ds := dep.Status
	if ptr.Deref(dep.Spec.Replicas, -1) != size || ds.UpdatedReplicas != size || ds.Replicas != size || ds.AvailableReplicas != size {
		return fail("deployment replicas %v, status replicas %d updated %d available %d; want %d", ptr.Deref(dep.Spec.Replicas, -1), ds.Replicas, ds.UpdatedReplicas, ds.AvailableReplicas, size)
	}
	if len(lp) != int(size) {
		return fail("%d live pods, want %d", len(lp), size)
	}
	for i := range lp {
		if !utils.PodRunningReady(&lp[i]) || !ofTemplate(&lp[i], maxMB) {
			return fail("pod %s is not Running and Ready with -m %d", lp[i].Name, maxMB)
		}
	}
	if !slices.Equal(mc.Status.Nodes, podNames(lp)) {
		return fail("status.nodes %v != live pods %v", mc.Status.Nodes, podNames(lp))
	}
	if mc.Status.ReadyReplicas != size || len(mc.Status.ServerList) != int(size) {
		return fail("status.readyReplicas %d, serverList %v; want %d entries", mc.Status.ReadyReplicas, mc.Status.ServerList, size)
	}
	return mc, lp, nil
}

// waitConverged waits up to timeout until the Memcached key is converged (see converged) and
// returns what it read then; it fails the test with the last difference otherwise.
func waitConverged(t *testing.T, key client.ObjectKey, size, maxMB int32, timeout time.Duration) (*cachev1alpha1.Memcached, []corev1.Pod) {
	t.Helper()
	ctx := utils.TestContext(t)
	var mc *cachev1alpha1.Memcached
	var pods []corev1.Pod
	NewWithT(t).Eventually(func() error {
		var err error
		mc, pods, err = converged(ctx, key, size, maxMB)
		return err
	}, timeout, poll).Should(Succeed(), "Memcached %s did not converge at size %d, maxMemoryMB %d within %v", key, size, maxMB, timeout)
	return mc, pods
}

// defaultMemoryLimit is the memory limit the README documents when spec.resources is empty:
// maxMemoryMB + 25% + 32 MiB.
func defaultMemoryLimit(maxMB int32) resource.Quantity {
	m := int64(maxMB)
	return *resource.NewQuantity((m+m/4+32)*1024*1024, resource.BinarySI)
}
