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
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/memcached-operator/test/utils"
)

// managerUID is the uid of the manager image (Dockerfile: USER 65532:65532, distroless nonroot).
const managerUID = "65532"

// TestManagerRunsAsShipped checks the operator that `make deploy-real` deployed from
// config/default: its namespace enforces the restricted profile; its one pod runs the images the
// overlay set (manager image, RELATED_IMAGE_MEMCACHED by digest) and became Ready through its own
// readiness probe (GET /readyz, not before initialDelaySeconds); the kernel shows the process as
// uid 65532 with a read-only root, no capabilities, no new privileges and a seccomp filter; it holds
// the leader election Lease; and its log, from its first line, has no error and no "forbidden".
func TestManagerRunsAsShipped(t *testing.T) {
	start := time.Now()
	g := NewWithT(t)
	ctx := utils.TestContext(t)

	ns := &corev1.Namespace{}
	g.Expect(suite.k8s.Get(ctx, client.ObjectKey{Name: suite.operatorNS}, ns)).To(Succeed())
	g.Expect(ns.Labels).To(HaveKeyWithValue("pod-security.kubernetes.io/enforce", "restricted"),
		"the operator's namespace must enforce the restricted Pod Security Standard")

	pod := waitManagerReady(t, "")
	c := pod.Spec.Containers[0]
	g.Expect(c.Name).To(Equal("manager"))
	if suite.operatorImage != "" {
		g.Expect(c.Image).To(Equal(suite.operatorImage), "manager image")
	}
	g.Expect(c.Env).To(ContainElement(corev1.EnvVar{Name: "RELATED_IMAGE_MEMCACHED", Value: suite.memcachedImage}),
		"RELATED_IMAGE_MEMCACHED must be the memcached image by digest")
	g.Expect(c.Args).To(ContainElements("--leader-elect", "--metrics-bind-address=:8443"))

	// Ready through the readiness probe: GET /readyz on the health port, and not before its initial delay.
	g.Expect(c.ReadinessProbe).NotTo(BeNil())
	g.Expect(c.ReadinessProbe.HTTPGet).NotTo(BeNil())
	g.Expect(c.ReadinessProbe.HTTPGet.Path).To(Equal("/readyz"))
	cs := containerStatus(pod, "manager")
	g.Expect(cs).NotTo(BeNil())
	g.Expect(cs.RestartCount).To(BeZero(), "the manager container restarted: %s", podState(pod))
	g.Expect(cs.State.Running).NotTo(BeNil())
	ready := podReadyCondition(pod)
	delay := ready.LastTransitionTime.Sub(cs.State.Running.StartedAt.Time)
	g.Expect(delay).To(BeNumerically(">=", time.Duration(c.ReadinessProbe.InitialDelaySeconds)*time.Second),
		"the pod became Ready %v after its container started, before the probe's initialDelaySeconds (%ds): not through the probe",
		delay, c.ReadinessProbe.InitialDelaySeconds)
	t.Logf("manager pod %s Ready %v after its container started (readiness probe GET /readyz, initialDelaySeconds %d)",
		pod.Name, delay, c.ReadinessProbe.InitialDelaySeconds)

	kv, err := kernelViewOf(containerID(pod, "manager"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(kv.comm).To(Equal("manager"))
	g.Expect(kv.uid).To(Equal(managerUID), "uid of the manager process")
	g.Expect(hasMountOption(kv.rootOptions, "ro")).To(BeTrue(), "root filesystem of the manager mounted %q", kv.rootOptions)
	g.Expect(kv.noNewPrivs).To(Equal("1"))
	g.Expect(kv.capEff).To(Equal("0000000000000000"))
	g.Expect(kv.seccomp).To(Equal("2"), "seccomp mode of the manager process (2 = filter)")
	t.Logf("kernel view of the manager (pid %d): uid %s, root %s, NoNewPrivs %s, CapEff %s, Seccomp %s",
		kv.pid, kv.uid, kv.rootOptions, kv.noNewPrivs, kv.capEff, kv.seccomp)

	waitLeaseHolder(t, pod.Name, 60*time.Second)
	// The whole log of the pod, from its first line, not only what it wrote during this test.
	waitLogLine(t, pod.Name, "Successfully acquired lease", 30*time.Second)
	if bad := suite.logs.since(0, badLogLine, benignLogLine); len(bad) > 0 {
		t.Errorf("the manager logged %d line(s) matching %q:\n%s", len(bad), badLogLine, strings.Join(bad, "\n"))
	}
	suite.phases.Record(t, "manager checks (pod, probes, kernel view, lease, log)", start)
}

// waitManagerReady waits until the manager Deployment is available with exactly one live pod,
// Running and Ready, whose name is not notName, and returns that pod.
func waitManagerReady(t *testing.T, notName string) *corev1.Pod {
	t.Helper()
	ctx := utils.TestContext(t)
	var pod *corev1.Pod
	NewWithT(t).Eventually(func() error {
		dep := &appsv1.Deployment{}
		if err := suite.k8s.Get(ctx, client.ObjectKey{Namespace: suite.operatorNS, Name: managerDeployment}, dep); err != nil {
			return err
		}
		pods := &corev1.PodList{}
		if err := suite.k8s.List(ctx, pods, client.InNamespace(suite.operatorNS), managerSelector); err != nil {
			return err
		}
		lp := live(pods.Items)
		if len(lp) != 1 || lp[0].Name == notName || !utils.PodRunningReady(&lp[0]) {
			return fmt.Errorf("want one Running and Ready manager pod (not %q); pods:\n%s", notName, podsState(pods.Items))
		}
		if dep.Status.AvailableReplicas != ptr.Deref(dep.Spec.Replicas, 1) || dep.Status.UpdatedReplicas != dep.Status.AvailableReplicas {
			return fmt.Errorf("deployment %s: %d available, %d updated of %d", managerDeployment, dep.Status.AvailableReplicas, dep.Status.UpdatedReplicas, ptr.Deref(dep.Spec.Replicas, 1))
		}
		pod = &lp[0]
		return nil
	}, podStartTimeout, poll).Should(Succeed())
	return pod
}

// lease returns the operator's leader election Lease.
func lease(ctx context.Context) (*coordinationv1.Lease, error) {
	l := &coordinationv1.Lease{}
	return l, suite.k8s.Get(ctx, client.ObjectKey{Namespace: suite.operatorNS, Name: leaseName}, l)
}

// leaseHolder returns the holder identity of the operator's Lease ("" when none).
func leaseHolder(l *coordinationv1.Lease) string {
	return ptr.Deref(l.Spec.HolderIdentity, "")
}

// waitLeaseHolder waits until the Lease is held by pod (client-go's identity is <hostname>_<uuid>,
// and a pod's hostname is its name) and returns the Lease.
func waitLeaseHolder(t *testing.T, pod string, timeout time.Duration) *coordinationv1.Lease {
	t.Helper()
	ctx := utils.TestContext(t)
	var l *coordinationv1.Lease
	NewWithT(t).Eventually(func() error {
		var err error
		if l, err = lease(ctx); err != nil {
			return err
		}
		if h := leaseHolder(l); !strings.HasPrefix(h, pod+"_") {
			return fmt.Errorf("lease %s/%s held by %q, want pod %s", suite.operatorNS, leaseName, h, pod)
		}
		return nil
	}, timeout, poll).Should(Succeed())
	return l
}

// waitLogLine waits until the followed log of pod has a line containing s.
func waitLogLine(t *testing.T, pod, s string, timeout time.Duration) {
	t.Helper()
	NewWithT(t).Eventually(func() []string {
		var lines []string
		suite.logs.mu.Lock()
		defer suite.logs.mu.Unlock()
		for _, l := range suite.logs.lines {
			if l.pod == pod {
				lines = append(lines, l.text)
			}
		}
		return lines
	}, timeout, poll).Should(ContainElement(ContainSubstring(s)), "log of manager pod %s", pod)
}
