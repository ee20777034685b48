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

package olmreal

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	scapiv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
	"sigs.k8s.io/yaml"
)

// scorecardTests are the tests of config/scorecard: operator-sdk's basic and olm suites and ours.
var scorecardTests = []string{
	"basic-check-spec", "olm-bundle-validation", "olm-crds-have-validation", "olm-crds-have-resources",
	"olm-spec-descriptors", "olm-status-descriptors", "descriptors-cover-crd", "alm-examples-match-crd-schema",
}

// TestScorecardInCluster is the release pipeline's gate: `operator-sdk scorecard <bundle> -w 120s
// -o json` runs every test of the bundle's scorecard configuration as a pod in the cluster (with the
// local test images of config/scorecard-local); all pass on the bundle as shipped, and a bundle with
// a spec descriptor removed fails, so the pipeline would stop. Sources: operator-framework/operator-sdk#5285
// and #6392 (scorecard's untar and storage images must be replaceable where the public ones cannot be
// pulled: --untar-image, --storage-image).
func TestScorecardInCluster(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)

	start := time.Now()
	dir := scorecardBundle(t, nil)
	list, err := scorecard(t, "scorecard", dir, ns)
	g.Expect(err).NotTo(HaveOccurred(), "operator-sdk scorecard on the shipped bundle")
	states := scorecardStates(list)
	g.Expect(states).To(HaveLen(len(scorecardTests)))
	for _, name := range scorecardTests {
		g.Expect(states).To(HaveKeyWithValue(name, scapiv1alpha3.PassState), "scorecard test %s", name)
	}
	suite.phases.Record(t, "scorecard in the cluster: 8 tests (6 standard, 2 custom) pass", start)

	// The spec descriptor of a field the CSV's alm-examples set (size) removed: the olm suite's
	// spec-descriptor test and our own coverage test fail.
	start = time.Now()
	dir = scorecardBundle(t, func(csv map[string]any) {
		owned := csv["spec"].(map[string]any)["customresourcedefinitions"].(map[string]any)["owned"].([]any)
		crd := owned[0].(map[string]any)
		descs := crd["specDescriptors"].([]any)
		kept := slices.DeleteFunc(slices.Clone(descs), func(d any) bool { return d.(map[string]any)["path"] == "size" })
		if len(kept) != len(descs)-1 {
			t.Fatalf("the CSV has no spec descriptor for size")
		}
		t.Log("broken bundle: the spec descriptor of size removed")
		crd["specDescriptors"] = kept
	})
	list, err = scorecard(t, "scorecard-broken", dir, ns)
	g.Expect(err).To(HaveOccurred(), "operator-sdk scorecard passed a bundle with a spec descriptor removed")
	states = scorecardStates(list)
	g.Expect(states).To(HaveKeyWithValue("olm-spec-descriptors", scapiv1alpha3.FailState))
	g.Expect(states).To(HaveKeyWithValue("descriptors-cover-crd", scapiv1alpha3.FailState))
	g.Expect(states).To(HaveKeyWithValue("basic-check-spec", scapiv1alpha3.PassState))
	suite.phases.Record(t, "scorecard on a bundle missing a spec descriptor: fails (olm-spec-descriptors, descriptors-cover-crd)", start)
}

// scorecardBundle copies BUNDLE_DIR into a temporary directory with SCORECARD_CONFIG as its
// tests/scorecard/config.yaml and, when breakCSV is set, the CSV changed by it; it returns the copy.
func scorecardBundle(t *testing.T, breakCSV func(map[string]any)) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bundle")
	if err := os.CopyFS(dir, os.DirFS(suite.env["BUNDLE_DIR"])); err != nil {
		t.Fatalf("failed to copy the bundle: %v", err)
	}
	cfg, err := os.ReadFile(suite.env["SCORECARD_CONFIG"])
	if err != nil {
		t.Fatalf("failed to read the scorecard configuration: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tests", "scorecard", "config.yaml"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	if breakCSV != nil {
		path := filepath.Join(dir, "manifests", packageName+".clusterserviceversion.yaml")
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		csv := map[string]any{}
		if err := yaml.Unmarshal(raw, &csv); err != nil {
			t.Fatalf("failed to parse the CSV: %v", err)
		}
		breakCSV(csv)
		if raw, err = yaml.Marshal(csv); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// scorecard runs `operator-sdk scorecard dir -n ns -w 120s -o json` with the local untar and
// storage images and returns the decoded test list; err is operator-sdk's exit error.
func scorecard(t *testing.T, name, dir, ns string) (scapiv1alpha3.TestList, error) {
	t.Helper()
	out, err := operatorSDK(t, name, "scorecard", dir, "-n", ns, "-s", "default", "-w", "120s", "-o", "json",
		"-u", suite.env["SCORECARD_UNTAR_IMAGE"], "-b", suite.env["SCORECARD_STORAGE_IMAGE"])
	list := scapiv1alpha3.TestList{}
	// operator-sdk may log before the JSON document: decode from its first '{'.
	if i := strings.IndexByte(out, '{'); i < 0 || json.Unmarshal([]byte(out[i:]), &list) != nil {
		t.Fatalf("operator-sdk scorecard printed no JSON test list (err %v):\n%.3000s", err, out)
	}
	return list, err
}

// scorecardStates maps each test result's name to its state.
func scorecardStates(list scapiv1alpha3.TestList) map[string]scapiv1alpha3.State {
	states := map[string]scapiv1alpha3.State{}
	for _, item := range list.Items {
		for _, r := range item.Status.Results {
			states[r.Name] = r.State
		}
	}
	return states
}
