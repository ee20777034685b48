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

// Package utils holds what the end-to-end suites share (test/e2e and test/olm on the kwok tier,
// test/real and test/olmreal on the real node), as kubebuilder's test/utils does: the suite's
// client, a kubectl runner, namespaces that clean up after themselves, ServiceAccount tokens, the
// metrics-reader binding, metrics scraped and parsed with prometheus/common's expfmt, new
// Memcacheds, the restricted client pod, and the phase timings a suite prints for the README's
// figures. Every helper takes the client it uses.
package utils

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// poll is how often the helpers below look again while they wait.
const poll = 100 * time.Millisecond

// NewClient returns a client of the cluster of kubeconfig that knows the core types and those
// addToScheme adds, allowed qps requests per second (burst 2×qps): suites that poll every 200 ms
// would be throttled by client-go's default of 5. Errors name the kubeconfig.
func NewClient(kubeconfig string, qps float32, addToScheme ...func(*runtime.Scheme) error) (client.WithWatch, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("failed to load kubeconfig %s: %w", kubeconfig, err)
	}
	cfg.QPS, cfg.Burst = qps, int(2*qps)
	cfg.Timeout = 30 * time.Second
	scheme := runtime.NewScheme()
	for _, add := range append([]func(*runtime.Scheme) error{clientgoscheme.AddToScheme}, addToScheme...) {
		if err := add(scheme); err != nil {
			return nil, fmt.Errorf("failed to build the scheme: %w", err)
		}
	}
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("failed to create a client for %s: %w", kubeconfig, err)
	}
	return c, nil
}

// ArtifactsDir returns the absolute directory named by the environment variable env, created if
// needed, or a new temporary directory named prefix-* when env is empty.
func ArtifactsDir(env, prefix string) (string, error) {
	dir := os.Getenv(env)
	if dir == "" {
		return os.MkdirTemp("", prefix+"-")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return dir, os.MkdirAll(dir, 0o755)
}

// Phases records how long the named steps of a suite took, for the table it prints at the end. The
// zero value is ready; it is safe for concurrent use.
type Phases struct {
	mu     sync.Mutex
	phases []phase
}

type phase struct {
	name string
	took time.Duration
}

// Record logs how long phase name took since start, keeps it for Print and returns it.
func (p *Phases) Record(t testing.TB, name string, start time.Time) time.Duration {
	t.Helper()
	took := time.Since(start)
	t.Logf("phase %q took %s", name, Ms(took))
	p.mu.Lock()
	p.phases = append(p.phases, phase{name: name, took: took})
	p.mu.Unlock()
	return took
}

// Print writes the recorded phases and the suite's total as a table under the heading title.
func (p *Phases) Print(w io.Writer, title string, total time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintln(w, title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, ph := range p.phases {
		fmt.Fprintf(tw, "  %s\t%s\n", ph.name, Ms(ph.took))
	}
	fmt.Fprintf(tw, "  suite total\t%s\n", Ms(total))
	tw.Flush()
}

// Ms formats d rounded to milliseconds.
func Ms(d time.Duration) string { return d.Round(time.Millisecond).String() }

// NewNamespace creates a namespace named <prefix>-<random> with labels, waits until its default
// ServiceAccount exists (the ServiceAccount admission refuses pods until then), and, when t ends,
// deletes it and waits up to goneTimeout until it is gone, so the next test starts from a quiet
// cluster. A namespace stuck in Terminating fails the test with the pods left in it
// (operator-framework/operator-sdk#1513).
func NewNamespace(t testing.TB, c client.Client, prefix string, labels map[string]string, goneTimeout time.Duration) string {
	t.Helper()
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-", Labels: labels}}
	if err := c.Create(ctx, ns); err != nil {
		t.Fatalf("failed to create namespace %s-*: %v", prefix, err)
	}
	name := ns.Name
	t.Cleanup(func() { deleteNamespace(t, c, name, goneTimeout) })
	start := time.Now()
	err := waitFor(30*time.Second, func() error {
		return c.Get(ctx, client.ObjectKey{Namespace: name, Name: "default"}, &corev1.ServiceAccount{})
	})
	if err != nil {
		t.Fatalf("ServiceAccount %s/default never appeared: %v", name, err)
	}
	t.Logf("namespace %s ready (default ServiceAccount after %s)", name, Ms(time.Since(start)))
	return name
}

func deleteNamespace(t testing.TB, c client.Client, name string, goneTimeout time.Duration) {
	t.Helper()
	ctx := context.Background()
	start := time.Now()
	if err := c.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("failed to delete namespace %s: %v", name, err)
		return
	}
	err := waitFor(goneTimeout, func() error {
		if err := c.Get(ctx, client.ObjectKey{Name: name}, &corev1.Namespace{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("still there (get: %v)", err)
		}
		return nil
	})
	if err != nil {
		pods := &corev1.PodList{}
		_ = c.List(ctx, pods, client.InNamespace(name))
		left := make([]string, 0, len(pods.Items))
		for _, p := range pods.Items {
			left = append(left, p.Name)
		}
		t.Errorf("namespace %s still exists %s after its deletion: %v; pods left: %v", name, goneTimeout, err, left)
		return
	}
	t.Logf("namespace %s deleted in %s", name, Ms(time.Since(start)))
}

// PodRunningReady reports whether p is Running with its Ready condition True.
func PodRunningReady(p *corev1.Pod) bool {
	if p.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// ClientPod returns pod name in ns running command (args "idle": it waits to be exec'd into) from
// image under the restricted Pod Security profile: uid/gid 65532, RuntimeDefault seccomp, no
// privilege escalation, read-only root filesystem, no capabilities, no ServiceAccount token;
// requests 10m CPU and 32 MiB, limit 64 MiB.
func ClientPod(ns, name, image, command string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app.kubernetes.io/name": name}},
		Spec: corev1.PodSpec{
			AutomountServiceAccountToken:  ptr.To(false),
			EnableServiceLinks:            ptr.To(false),
			TerminationGracePeriodSeconds: ptr.To[int64](5),
			SecurityContext: &corev1.PodSecurityContext{
				RunAsNonRoot:   ptr.To(true),
				RunAsUser:      ptr.To[int64](65532),
				RunAsGroup:     ptr.To[int64](65532),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
			Containers: []corev1.Container{{
				Name:    name,
				Image:   image,
				Command: []string{command},
				Args:    []string{"idle"},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("32Mi")},
					Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")},
				},
				SecurityContext: &corev1.SecurityContext{
					AllowPrivilegeEscalation: ptr.To(false),
					ReadOnlyRootFilesystem:   ptr.To(true),
					Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				},
			}},
		},
	}
}

// BindMetricsReader binds ServiceAccount ns/name to ClusterRole role (the operator's
// metrics-reader) with a ClusterRoleBinding labelled labels, deleted when t ends, and waits until
// the API server authorizes the ServiceAccount to GET /metrics, so the operator's first
// SubjectAccessReview is already allowed (the operator caches denials for 30 s).
func BindMetricsReader(t testing.TB, c client.Client, ns, name, role string, labels map[string]string) {
	t.Helper()
	ctx := context.Background()
	crb := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "metrics-reader-", Labels: labels},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name}},
	}
	if err := c.Create(ctx, crb); err != nil {
		t.Fatalf("failed to create a ClusterRoleBinding to %s: %v", role, err)
	}
	t.Cleanup(func() {
		if err := c.Delete(context.Background(), crb); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("failed to delete ClusterRoleBinding %s: %v", crb.Name, err)
		}
	})
	user := "system:serviceaccount:" + ns + ":" + name
	err := waitFor(30*time.Second, func() error {
		ok, err := CanGetMetrics(ctx, c, user, ns)
		if err == nil && !ok {
			err = fmt.Errorf("not allowed yet")
		}
		return err
	})
	if err != nil {
		t.Fatalf("%s may not GET /metrics after the binding: %v", user, err)
	}
}

// CanGetMetrics asks the API server (SubjectAccessReview) whether the ServiceAccount user of
// namespace ns may GET the /metrics non-resource URL.
func CanGetMetrics(ctx context.Context, c client.Client, user, ns string) (bool, error) {
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:                  user,
		Groups:                []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
		NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"},
	}}
	if err := c.Create(ctx, sar); err != nil {
		return false, err
	}
	return sar.Status.Allowed, nil
}

// waitFor calls check every poll (wait.PollUntilContextTimeout) until it returns nil or timeout
// passes; then it returns check's last error.
func waitFor(timeout time.Duration, check func() error) error {
	var last error
	err := wait.PollUntilContextTimeout(context.Background(), poll, timeout, true, func(context.Context) (bool, error) {
		last = check()
		return last == nil, nil
	})
	if err != nil && last != nil {
		return last
	}
	return err
}
