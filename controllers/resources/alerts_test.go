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

package resources

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"sigs.k8s.io/yaml"

	"github.com/example/memcached-operator/controllers/internal/fixture"
)

// promtool returns the path of promtool ($PROMTOOL, else the one on PATH, from Debian's prometheus
// package: hack/cluster/host-packages.sh base installs it).
func promtool(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("PROMTOOL"); p != "" {
		return p
	}
	p, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatalf("promtool not found (install it with hack/cluster/host-packages.sh base, or set PROMTOOL): %v", err)
	}
	return p
}

// writeRuleFile writes groups as a Prometheus rule file at path.
func writeRuleFile(t *testing.T, path string, groups []monitoringv1.RuleGroup) {
	t.Helper()
	b, err := yaml.Marshal(map[string]any{"groups": groups})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// Every alert we ship, the instance's (DesiredPrometheusRule for Memcached cache/web) and the
// operator's (config/prometheus/operator_rules.yaml), passes `promtool check rules` and the unit
// tests of testdata/alerts_test.yaml under `promtool test rules`: each fires on the series that
// should fire it, with its labels and annotations, and stays silent on the others
// (https://prometheus.io/docs/prometheus/latest/configuration/unit_testing_rules/). Every alert
// has a test there and a runbook section in docs/runbooks.md, which its runbook_url names.
func TestAlertRules(t *testing.T) {
	tool := promtool(t)
	dir := t.TempDir()

	mc := fixture.Defaulted("web", monitored)
	mc.Namespace = "cache"
	instance := DesiredPrometheusRule(mc)
	writeRuleFile(t, filepath.Join(dir, "instance_rules.yaml"), instance.Spec.Groups)

	raw, err := os.ReadFile(filepath.Join("..", "..", "config", "prometheus", "operator_rules.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	operator := &monitoringv1.PrometheusRule{}
	if err := yaml.UnmarshalStrict(raw, operator); err != nil {
		t.Fatalf("config/prometheus/operator_rules.yaml: %v", err)
	}
	writeRuleFile(t, filepath.Join(dir, "operator_rules.yaml"), operator.Spec.Groups)

	tests, err := os.ReadFile(filepath.Join("testdata", "alerts_test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "alerts_test.yaml"), tests, 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) {
		cmd := exec.Command(tool, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		t.Logf("promtool %s:\n%s", strings.Join(args, " "), out)
	}
	run("check", "rules", "instance_rules.yaml", "operator_rules.yaml")
	run("test", "rules", "alerts_test.yaml")

	runbooks, err := os.ReadFile(filepath.Join("..", "..", "docs", "runbooks.md"))
	if err != nil {
		t.Fatal(err)
	}
	headings := regexp.MustCompile(`(?m)^## (\S+)$`).FindAllStringSubmatch(string(runbooks), -1)
	var anchors []string
	for _, h := range headings {
		anchors = append(anchors, strings.ToLower(h[1]))
	}
	tested := regexp.MustCompile(`(?m)^\s+alertname: (\S+)$`).FindAllStringSubmatch(string(tests), -1)
	for _, g := range slices.Concat(instance.Spec.Groups, operator.Spec.Groups) {
		for _, r := range g.Rules {
			if !slices.ContainsFunc(tested, func(m []string) bool { return m[1] == r.Alert }) {
				t.Errorf("alert %s has no test in testdata/alerts_test.yaml", r.Alert)
			}
			anchor := strings.ToLower(r.Alert)
			if !slices.Contains(anchors, anchor) {
				t.Errorf("alert %s has no section \"## %s\" in docs/runbooks.md", r.Alert, r.Alert)
			}
			if want := RunbookBaseURL + "#" + anchor; r.Annotations["runbook_url"] != want {
				t.Errorf("alert %s: runbook_url %q, want %q", r.Alert, r.Annotations["runbook_url"], want)
			}
		}
	}
}
