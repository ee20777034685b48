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

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/example/memcached-operator/test/utils"
)

// chartDir is the Helm chart make helm-chart writes from config/default.
const chartDir = "dist/chart"

// tool returns the path of bin/NAME, or stops the test as a missing dependency.
func tool(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("bin", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		utils.MissingDependency(t, "bin/"+name+" is not built: run `make "+name+"` (make test does)")
	}
	return p
}

// runTool runs name with args and returns its standard output, failing the test with its standard
// error when it fails.
func runTool(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s", filepath.Base(name), args, err, errOut.String())
	}
	return out.Bytes()
}

// objects splits a multi-document YAML stream into objects keyed by "Kind name".
func objects(t *testing.T, stream []byte) map[string]*unstructured.Unstructured {
	t.Helper()
	out := map[string]*unstructured.Unstructured{}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(stream), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); err != nil {
			if err.Error() == "EOF" {
				return out
			}
			t.Fatalf("decode: %v", err)
		}
		if len(u.Object) == 0 {
			continue
		}
		out[u.GetKind()+" "+u.GetName()] = u
	}
}

// as converts u into a typed object.
func as[T any](t *testing.T, u *unstructured.Unstructured) *T {
	t.Helper()
	if u == nil {
		t.Fatal("object missing")
	}
	b, err := yaml.Marshal(u.Object)
	if err != nil {
		t.Fatal(err)
	}
	var v T
	if err := yaml.UnmarshalStrict(b, &v); err != nil {
		t.Fatal(err)
	}
	return &v
}

// renderChart renders the chart as release memcached-operator in memcached-operator-system (the
// names config/default gives) with the extra helm template arguments.
func renderChart(t *testing.T, extra ...string) map[string]*unstructured.Unstructured {
	t.Helper()
	args := append([]string{"template", "memcached-operator", chartDir, "--namespace", "memcached-operator-system"}, extra...)
	return objects(t, runTool(t, tool(t, "helm"), args...))
}

// The chart is lint-clean in helm's strict mode.
func TestChartLints(t *testing.T) {
	runTool(t, tool(t, "helm"), "lint", "--strict", chartDir)
}

// The chart installs the operator config/default installs (install.yaml and, through the bundle, OLM):
// the same CRD, the same rules, the same manager container (arguments, environment, probes,
// security context, resources, volumes), so that the three ways in run one operator. What differs
// is Helm's bookkeeping (labels) and what Helm users choose (the release name, the editor and viewer
// roles, off by default).
func TestChartIsConfigDefault(t *testing.T) {
	chart := renderChart(t)
	kust := objects(t, runTool(t, tool(t, "kustomize"), "build", "config/default"))

	crd := "CustomResourceDefinition memcacheds.cache.example.com"
	if got, want := as[apiextensionsv1.CustomResourceDefinition](t, chart[crd]), as[apiextensionsv1.CustomResourceDefinition](t, kust[crd]); !equality.Semantic.DeepEqual(got.Spec, want.Spec) {
		t.Errorf("the chart's CRD spec differs from config/default's: run make helm-chart")
	}
	for _, role := range []string{"ClusterRole memcached-operator-manager-role", "Role memcached-operator-leader-election-role", "ClusterRole memcached-operator-metrics-auth-role"} {
		var got, want []rbacv1.PolicyRule
		if role[0] == 'C' {
			got, want = as[rbacv1.ClusterRole](t, chart[role]).Rules, as[rbacv1.ClusterRole](t, kust[role]).Rules
		} else {
			got, want = as[rbacv1.Role](t, chart[role]).Rules, as[rbacv1.Role](t, kust[role]).Rules
		}
		if !equality.Semantic.DeepEqual(got, want) {
			t.Errorf("%s: the chart's rules differ from config/default's:\n got %v\nwant %v", role, got, want)
		}
	}

	dep := "Deployment memcached-operator-controller-manager"
	gotPod, wantPod := as[appsv1.Deployment](t, chart[dep]).Spec.Template.Spec, as[appsv1.Deployment](t, kust[dep]).Spec.Template.Spec
	got, want := gotPod.Containers[0], wantPod.Containers[0]
	slices.Sort(got.Args)
	slices.Sort(want.Args)
	if !slices.Equal(got.Args, want.Args) {
		t.Errorf("manager arguments:\n got %q\nwant %q", got.Args, want.Args)
	}
	for _, f := range []struct {
		name      string
		got, want any
	}{
		{"env", got.Env, want.Env},
		{"ports", got.Ports, want.Ports},
		{"liveness probe", got.LivenessProbe, want.LivenessProbe},
		{"readiness probe", got.ReadinessProbe, want.ReadinessProbe},
		{"security context", got.SecurityContext, want.SecurityContext},
		{"resources", got.Resources, want.Resources},
		{"volume mounts", got.VolumeMounts, want.VolumeMounts},
		{"volumes", gotPod.Volumes, wantPod.Volumes},
		{"pod security context", gotPod.SecurityContext, wantPod.SecurityContext},
		{"termination grace period", gotPod.TerminationGracePeriodSeconds, wantPod.TerminationGracePeriodSeconds},
	} {
		if !equality.Semantic.DeepEqual(f.got, f.want) {
			t.Errorf("manager %s differ from config/default's:\n got %+v\nwant %+v", f.name, f.got, f.want)
		}
	}
	if got.Image != "registry.example.com/memcached-operator:v"+makeVersion(t) {
		t.Errorf("manager image %q, want the release's public name at the Makefile's VERSION", got.Image)
	}
}

// makeVersion is the Makefile's VERSION.
func makeVersion(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(l, []byte("VERSION ?= ")); ok {
			return string(v)
		}
	}
	t.Fatal("no VERSION in the Makefile")
	return ""
}

// The values a user sets reach the objects: the watched namespace with namespaced RBAC, the
// operand images, the operator's image, resources and pull secrets, and the metrics NetworkPolicy.
func TestChartValues(t *testing.T) {
	env := func(c corev1.Container) map[string]string {
		t.Helper()
		m := map[string]string{}
		for _, e := range c.Env {
			// Helm 4 applies server-side, which refuses two entries of one name.
			if _, dup := m[e.Name]; dup {
				t.Errorf("env %s twice: the server-side apply of helm install refuses it", e.Name)
			}
			m[e.Name] = e.Value
		}
		return m
	}
	dep := "Deployment memcached-operator-controller-manager"

	t.Run("one namespace", func(t *testing.T) {
		objs := renderChart(t, "--set", "rbac.namespaced=true", "--set", "manager.envOverrides.WATCH_NAMESPACE=memcached-operator-system")
		if objs["Role memcached-operator-manager-role"] == nil || objs["ClusterRole memcached-operator-manager-role"] != nil {
			t.Errorf("rbac.namespaced: want the manager's rules in a Role, not a ClusterRole")
		}
		c := as[appsv1.Deployment](t, objs[dep]).Spec.Template.Spec.Containers[0]
		if got := env(c)["WATCH_NAMESPACE"]; got != "memcached-operator-system" {
			t.Errorf("WATCH_NAMESPACE = %q", got)
		}
	})
	t.Run("images, resources, pull secrets", func(t *testing.T) {
		objs := renderChart(t,
			"--set", "manager.image.repository=mirror.example.com/memcached-operator", "--set", "manager.image.tag=v9.9.9",
			"--set", "manager.envOverrides.RELATED_IMAGE_MEMCACHED=mirror.example.com/memcached:1.6.46",
			"--set", "manager.resources.limits.memory=512Mi",
			"--set", "manager.imagePullSecrets[0].name=mirror")
		spec := as[appsv1.Deployment](t, objs[dep]).Spec.Template.Spec
		c := spec.Containers[0]
		if c.Image != "mirror.example.com/memcached-operator:v9.9.9" {
			t.Errorf("image %q", c.Image)
		}
		if got := env(c)["RELATED_IMAGE_MEMCACHED"]; got != "mirror.example.com/memcached:1.6.46" {
			t.Errorf("RELATED_IMAGE_MEMCACHED = %q", got)
		}
		if got := c.Resources.Limits.Memory().String(); got != "512Mi" {
			t.Errorf("memory limit %s", got)
		}
		if len(spec.ImagePullSecrets) != 1 || spec.ImagePullSecrets[0].Name != "mirror" {
			t.Errorf("imagePullSecrets %v", spec.ImagePullSecrets)
		}
	})
	t.Run("metrics network policy", func(t *testing.T) {
		if objs := renderChart(t); objs["NetworkPolicy memcached-operator-allow-metrics-traffic"] != nil {
			t.Error("a NetworkPolicy by default")
		}
		if objs := renderChart(t, "--set", "networkPolicy.enabled=true"); objs["NetworkPolicy memcached-operator-allow-metrics-traffic"] == nil {
			t.Error("networkPolicy.enabled: no NetworkPolicy")
		}
	})
}
