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
	"archive/tar"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/internal/kubectlplugin"
	"github.com/example/memcached-operator/test/utils"
)

// The kubectl plugin as a user runs it: built from cmd/kubectl-memcached, found by kubectl on
// PATH (`kubectl memcached ...`), against an instance with authentication. status names every
// server, the Ready verdict and the conditions; report bundles the Memcached, its owned objects,
// pods and events, says what it could not find (no ServiceMonitor kind on this cluster, the
// operator running outside it), and holds none of the auth Secret's data.
func TestKubectlPlugin(t *testing.T) {
	expectHealthyOperator(t)
	ns := newNamespace(t, "plugin")
	const name, password = "plug", "e2e-plugin-secret-value-7f3a"
	ctx := utils.TestContext(t)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "users"},
		StringData: map[string]string{"authfile": "app:" + password + "\n"}}
	if err := suite.k8s.Create(ctx, secret); err != nil {
		t.Fatal(err)
	}
	mc := utils.NewMemcached(ns, name, 2, func(mc *cachev1alpha1.Memcached) {
		mc.Spec.Auth = &cachev1alpha1.AuthSpec{SecretName: "users"}
	})
	if err := suite.k8s.Create(ctx, mc); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKeyFromObject(mc)
	waitConverged(t, key, 2, time.Minute)

	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "kubectl-memcached"), "./cmd/kubectl-memcached")
	build.Dir = suite.repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/kubectl-memcached: %v\n%s", err, out)
	}
	plugin := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(suite.kubectl.Path, append([]string{"memcached"}, args...)...)
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "KUBECONFIG="+suite.kubeconfig)
		cmd.Dir = t.TempDir()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl memcached %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	status := plugin("status", name, "-n", ns)
	t.Logf("kubectl memcached status:\n%s", status)
	pods, err := utils.InstancePods(ctx, suite.k8s, key)
	if err != nil {
		t.Fatal(err)
	}
	// status.version: the version in the tag of the image the servers run (kwok reports the spec's).
	got, err := utils.GetMemcached(ctx, suite.k8s, key)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[0-9]+\.[0-9]+(\.[0-9]+)?$`).MatchString(got.Status.Version) {
		t.Errorf("status.version = %q, want the memcached version of %s", got.Status.Version, pods[0].Spec.Containers[0].Image)
	}
	if image := pods[0].Spec.Containers[0].Image; !strings.HasPrefix(image[strings.LastIndex(image, ":")+1:], got.Status.Version) {
		t.Errorf("status.version %q is not the version in the tag of %s", got.Status.Version, pods[0].Spec.Containers[0].Image)
	}
	for _, want := range append([]string{"Ready=True", "Available", "Stalled", "Server list", "memcached " + got.Status.Version + ";"}, liveNames(pods)...) {
		if !strings.Contains(status, want) {
			t.Errorf("status does not say %q", want)
		}
	}

	report := filepath.Join(t.TempDir(), "report.tar.gz")
	plugin("report", name, "-n", ns, "-o", report)
	files := readTarGz(t, report)
	for _, want := range []string{"status.txt", "memcached.yaml", "objects/Deployment.yaml", "objects/Service.yaml",
		"objects/PodDisruptionBudget.yaml", "pods.yaml", "events.yaml", "missing.txt"} {
		if _, ok := files[want]; !ok {
			t.Errorf("the report has no %s (it has %d files)", want, len(files))
		}
	}
	for _, want := range []string{"ServiceMonitor", "operator pods"} {
		if !strings.Contains(files["missing.txt"], want) {
			t.Errorf("missing.txt does not say %q:\n%s", want, files["missing.txt"])
		}
	}
	for f, content := range files {
		if strings.Contains(content, password) {
			t.Errorf("%s holds the auth Secret's password", f)
		}
	}

	// restart: the annotation reaches the pod template, the Deployment replaces every server, and
	// --wait returns once the instance is Ready on new pods.
	before := liveNames(pods)
	out := plugin("restart", name, "-n", ns, "--wait", "--timeout", "2m")
	t.Logf("kubectl memcached restart --wait:\n%s", out)
	dep := &appsv1.Deployment{}
	if err := suite.k8s.Get(ctx, key, dep); err != nil {
		t.Fatal(err)
	}
	if dep.Spec.Template.Annotations[kubectlplugin.RestartAnnotation] == "" {
		t.Errorf("the pod template has no %s after restart", kubectlplugin.RestartAnnotation)
	}
	if pods, err = utils.InstancePods(ctx, suite.k8s, key); err != nil {
		t.Fatal(err)
	}
	for _, p := range liveNames(pods) {
		if slices.Contains(before, p) {
			t.Errorf("pod %s was not replaced by the restart (before: %v)", p, before)
		}
	}

	// restart refuses a warm instance, whose pod annotations change in place.
	warm := utils.NewMemcached(ns, "warm", 1, func(m *cachev1alpha1.Memcached) {
		m.Spec.ServerIdentity = cachev1alpha1.ServerIdentityStable
		m.Spec.WarmRestart = cachev1alpha1.WarmRestartSpec{Enabled: true}
	})
	if err := suite.k8s.Create(ctx, warm); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(suite.kubectl.Path, "memcached", "restart", "warm", "-n", ns)
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "KUBECONFIG="+suite.kubeconfig)
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "spec.warmRestart") {
		t.Errorf("restart of a warm instance: err %v, output %s; want a refusal naming spec.warmRestart", err, out)
	}
}

// readTarGz returns the files of the gzipped tar at path, by name.
func readTarGz(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	files := map[string]string{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name] = string(b)
	}
}
