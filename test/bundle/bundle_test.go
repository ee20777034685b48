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

package bundle

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/operator-framework/api/pkg/manifests"
	"sigs.k8s.io/yaml"

	"github.com/example/memcached-operator/test/scorecard"
	"github.com/example/memcached-operator/test/utils"
)

const (
	shippedBundle = "../../bundle"
	csvFile       = "manifests/memcached-operator.clusterserviceversion.yaml"
	// k8sVersion is the Kubernetes version the deprecated-API validator checks against: the one
	// this project builds and tests on.
	k8sVersion = "1.37"
)

// copyBundle copies the shipped bundle into a temporary directory and returns it.
func copyBundle(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk(shippedBundle, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(shippedBundle, path)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatalf("copy bundle: %v", err)
	}
	return dst
}

// mutateCSV rewrites the CSV of the bundle in dir with mutate applied to its YAML tree.
func mutateCSV(t *testing.T, dir string, mutate func(csv map[string]any)) {
	t.Helper()
	path := filepath.Join(dir, csvFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	csv := map[string]any{}
	if err := yaml.Unmarshal(raw, &csv); err != nil {
		t.Fatal(err)
	}
	mutate(csv)
	out, err := yaml.Marshal(csv)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// field walks the YAML tree along keys (string) and list indexes (int).
func field(tree any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			tree = tree.(map[string]any)[k]
		case int:
			tree = tree.([]any)[k]
		}
	}
	return tree
}

func ownedCRD(csv map[string]any) map[string]any {
	return field(csv, "spec", "customresourcedefinitions", "owned", 0).(map[string]any)
}

func annotations(csv map[string]any) map[string]any {
	return field(csv, "metadata", "annotations").(map[string]any)
}

func loadBundle(t *testing.T, dir string) *manifests.Bundle {
	t.Helper()
	b, err := manifests.GetBundleFromDir(dir)
	if err != nil {
		t.Fatalf("load bundle: %v", err)
	}
	return b
}

func clusterScoped(t *testing.T) map[string]bool {
	t.Helper()
	f, err := os.Open("testdata/cluster-scoped-resources.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := ReadResourceList(f)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The shipped bundle passes every validator with neither errors nor warnings, its YAML parses,
// its RBAC has no wildcard and no cluster-scoped rule in namespaced permissions, and our own
// scorecard checks pass.
func TestShippedBundleIsClean(t *testing.T) {
	lint, err := LintYAML(shippedBundle)
	if err != nil || len(lint) > 0 {
		t.Fatalf("YAML lint: %v %v", err, lint)
	}
	msgs, err := Validate(shippedBundle, k8sVersion)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		t.Errorf("validator: %s", m)
	}
	b := loadBundle(t, shippedBundle)
	for _, m := range append(ClusterScopedRulesInPermissions(b, clusterScoped(t)), WildcardRules(b)...) {
		t.Errorf("RBAC: %s", m)
	}
	for name, test := range scorecard.Tests {
		if r := test(b); r.State != "pass" {
			t.Errorf("scorecard test %s: %s %v", name, r.State, r.Errors)
		}
	}
	if len(b.CSV.Spec.InstallStrategy.StrategySpec.ClusterPermissions) == 0 {
		t.Errorf("clusterPermissions must hold tokenreviews and subjectaccessreviews for metrics auth")
	}
	if b.CompressedSize > 1<<20 {
		t.Errorf("bundle is %d bytes compressed, over OLM's 1 MiB limit", b.CompressedSize)
	}
}

// The operator's WATCH_NAMESPACE comes from the pod's olm.targetNamespaces annotation, which OLM
// sets to the OperatorGroup's target namespaces ("" for AllNamespaces), not from the pod's own
// namespace. Sources: https://github.com/openshift/kubefed-operator/issues/49 (metadata.namespace in
// the CSV made a cluster-wide install watch one namespace),
// https://github.com/operator-framework/community-operators/issues/199 (the empty value for
// AllNamespaces).
func TestWatchNamespaceFromTargetNamespaces(t *testing.T) {
	const want = "metadata.annotations['olm.targetNamespaces']"
	b := loadBundle(t, shippedBundle)
	found := 0
	for _, d := range b.CSV.Spec.InstallStrategy.StrategySpec.DeploymentSpecs {
		for _, c := range d.Spec.Template.Spec.Containers {
			for _, e := range c.Env {
				if e.Name != "WATCH_NAMESPACE" {
					continue
				}
				found++
				if e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != want {
					t.Errorf("Deployment %s container %s: WATCH_NAMESPACE is %+v, want valueFrom.fieldRef.fieldPath %s",
						d.Name, c.Name, e, want)
				}
			}
		}
	}
	if found == 0 {
		t.Errorf("no container of the CSV's Deployments sets WATCH_NAMESPACE")
	}
}

// projectChecks runs what `make test` runs on a bundle: the validators and our scorecard tests.
func projectChecks(t *testing.T, dir string) []string {
	msgs, err := Validate(dir, k8sVersion)
	if err != nil {
		return []string{err.Error()}
	}
	b := loadBundle(t, dir)
	for _, test := range scorecard.Tests {
		msgs = append(msgs, test(b).Errors...)
	}
	return msgs
}

// Broken variants of the shipped bundle are caught by the validators, naming what is wrong.
// Sources: operator-framework/operator-sdk#4374 and minio/operator#1104 (owned CRD and bundle CRD
// disagree), openshift/local-storage-operator#312, operator-framework/operator-lifecycle-manager#2227
// and scylladb/scylla-operator#2924 (alm-examples invalid or missing), elastic/cloud-on-k8s#9654
// (cluster-scoped rules in namespaced permissions).
func TestBrokenBundlesAreRejected(t *testing.T) {
	tests := map[string]struct {
		mutate  func(t *testing.T, dir string)
		check   func(t *testing.T, dir string) []string // what the project's checks report
		wantAny []string                                // each must appear in some message
	}{
		"owned CRD version not served (25A)": {
			mutate: func(t *testing.T, dir string) {
				mutateCSV(t, dir, func(c map[string]any) { ownedCRD(c)["version"] = "v1beta1" })
			},
			wantAny: []string{"cache.example.com/v1beta1, Kind=Memcached", "not found in bundle"},
		},
		"owned CRD kind with wrong case (25B)": {
			mutate: func(t *testing.T, dir string) {
				mutateCSV(t, dir, func(c map[string]any) { ownedCRD(c)["kind"] = "MemCached" })
			},
			wantAny: []string{"Kind=MemCached", "not found in bundle"},
		},
		"CRD in the bundle but not owned by the CSV (25C)": {
			mutate: func(t *testing.T, dir string) {
				mutateCSV(t, dir, func(c map[string]any) {
					field(c, "spec", "customresourcedefinitions").(map[string]any)["owned"] = []any{}
				})
			},
			wantAny: []string{`CRD "cache.example.com/v1alpha1, Kind=Memcached" is present in bundle`, "but not defined in CSV"},
		},
		"alm-examples with a trailing comma (26A)": {
			mutate: func(t *testing.T, dir string) {
				mutateCSV(t, dir, func(c map[string]any) {
					annotations(c)["alm-examples"] = `[{"apiVersion":"cache.example.com/v1alpha1","kind":"Memcached","metadata":{"name":"memcached-sample"},"spec":{"size":1}},]`
				})
			},
			wantAny: []string{"invalid example", "alm-examples is not a valid JSON list"},
		},
		"stray line at the end of the CSV (26B)": {
			mutate: func(t *testing.T, dir string) {
				f, err := os.OpenFile(filepath.Join(dir, csvFile), os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				_, _ = f.WriteString("foobar\n")
			},
			check: func(t *testing.T, dir string) []string {
				errs, err := LintYAML(dir)
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for _, e := range errs {
					out = append(out, e.Error())
				}
				return out
			},
			wantAny: []string{"memcached-operator.clusterserviceversion.yaml"},
		},
		"no example for the owned API (26C)": {
			mutate: func(t *testing.T, dir string) {
				mutateCSV(t, dir, func(c map[string]any) { annotations(c)["alm-examples"] = "[]" })
			},
			wantAny: []string{"example"},
		},
		"example violating the CRD schema (26D)": {
			mutate: func(t *testing.T, dir string) {
				mutateCSV(t, dir, func(c map[string]any) {
					annotations(c)["alm-examples"] = `[{"apiVersion":"cache.example.com/v1alpha1","kind":"Memcached","metadata":{"name":"m"},"spec":{"size":-1,"replicas":3}}]`
				})
			},
			check: func(t *testing.T, dir string) []string {
				return scorecard.ALMExamplesMatchCRDSchemaTest(loadBundle(t, dir)).Errors
			},
			wantAny: []string{"spec.size", "should be greater than or equal to 1", `unknown field "spec.replicas"`},
		},
		"spec field without a descriptor": {
			mutate: func(t *testing.T, dir string) {
				mutateCSV(t, dir, func(c map[string]any) {
					descs := ownedCRD(c)["specDescriptors"].([]any)
					var kept []any
					for _, d := range descs {
						if d.(map[string]any)["path"] != "memcached.threads" {
							kept = append(kept, d)
						}
					}
					ownedCRD(c)["specDescriptors"] = kept
				})
			},
			check: func(t *testing.T, dir string) []string {
				return scorecard.DescriptorsCoverCRDTest(loadBundle(t, dir)).Errors
			},
			wantAny: []string{"spec.memcached.threads has no spec descriptor"},
		},
		"cluster-scoped rules in namespaced permissions (30)": {
			mutate: func(t *testing.T, dir string) {
				mutateCSV(t, dir, func(c map[string]any) {
					install := field(c, "spec", "install", "spec").(map[string]any)
					perm := install["permissions"].([]any)[0].(map[string]any)
					perm["rules"] = append(perm["rules"].([]any), field(install, "clusterPermissions", 0, "rules").([]any)...)
					delete(install, "clusterPermissions")
				})
			},
			check: func(t *testing.T, dir string) []string {
				return ClusterScopedRulesInPermissions(loadBundle(t, dir), clusterScoped(t))
			},
			wantAny: []string{"tokenreviews.authentication.k8s.io", "subjectaccessreviews.authorization.k8s.io", "clusterPermissions"},
		},
		"wildcard verbs (30)": {
			mutate: func(t *testing.T, dir string) {
				mutateCSV(t, dir, func(c map[string]any) {
					rule := field(c, "spec", "install", "spec", "permissions", 0, "rules", 0).(map[string]any)
					rule["verbs"] = []any{"*"}
				})
			},
			check:   func(t *testing.T, dir string) []string { return WildcardRules(loadBundle(t, dir)) },
			wantAny: []string{"permissions[0].rules[0] uses a wildcard"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := copyBundle(t)
			tc.mutate(t, dir)
			check := tc.check
			if check == nil {
				check = projectChecks
			}
			msgs := check(t, dir)
			if len(msgs) == 0 {
				t.Fatalf("the broken bundle passed")
			}
			all := strings.Join(msgs, "\n")
			for _, want := range tc.wantAny {
				if !strings.Contains(all, want) {
					t.Errorf("no message contains %q; got:\n%s", want, all)
				}
			}
		})
	}
}

// The shipped bundle passes every test of its scorecard configuration, run with operator-sdk's real
// scorecard-test program; without status descriptors and resources, olm-status-descriptors and
// olm-crds-have-resources fail. Sources: operator-framework/operator-sdk#4564,
// openshift/cincinnati-operator#131.
// It needs root (a private mount namespace puts the bundle at /bundle) and the programs that
// `make scorecard-tools` builds into LOCALBIN (./bin); `make test` provides both in CI.
func TestScorecard(t *testing.T) {
	binDir := os.Getenv("LOCALBIN") // make exports it
	if binDir == "" {
		binDir, _ = filepath.Abs("../../bin")
	}
	if os.Geteuid() != 0 {
		utils.MissingDependency(t, "not root: the local scorecard runner needs root to bind-mount the bundle at /bundle (unshare --mount); CI runs it as root")
	}
	for _, p := range []string{"scorecard-test", "memcached-scorecard-tests"} {
		if _, err := os.Stat(filepath.Join(binDir, p)); err != nil {
			utils.MissingDependency(t, p+" is not built: run `make scorecard-tools` (make test does)")
		}
	}
	const image = "quay.io/operator-framework/scorecard-test:v1.42.3"

	failed, err := scorecard.RunLocal(shippedBundle, binDir, image, io.Discard)
	if err != nil || len(failed) > 0 {
		t.Fatalf("shipped bundle: err=%v, failed tests %v", err, failed)
	}

	dir := copyBundle(t)
	mutateCSV(t, dir, func(c map[string]any) {
		delete(ownedCRD(c), "statusDescriptors")
		delete(ownedCRD(c), "resources")
	})
	var out strings.Builder
	failed, err = scorecard.RunLocal(dir, binDir, image, &out)
	if err != nil {
		t.Fatal(err)
	}
	// operator-sdk's olm-status-descriptors checks only examples that carry a status
	// (operator-sdk#3999); our descriptors-cover-crd test catches the missing status descriptors.
	slices.Sort(failed)
	if want := []string{"descriptors-cover-crd", "olm-crds-have-resources"}; !slices.Equal(failed, want) {
		t.Errorf("failed tests = %v, want %v", failed, want)
	}
	for _, msg := range []string{"status.nodes has no status descriptor", "Owned CRDs do not have resources specified"} {
		if !strings.Contains(out.String(), msg) {
			t.Errorf("scorecard output lacks %q", msg)
		}
	}
}
