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
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestCommunitySubmission runs hack/release/community.sh (make community-submission) for a
// released version: the tree holds ci.yaml and the release's bundle/ exactly as its commit has it
// (every file, byte for byte, nothing else), and it validated; an unknown version is refused and
// writes nothing.
func TestCommunitySubmission(t *testing.T) {
	sdk, err := filepath.Abs("../../bin/operator-sdk")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sdk); err != nil {
		t.Fatalf("%v: run make test, which builds operator-sdk into ./bin", err)
	}
	const version = "0.2.2"
	commit := ""
	releases, err := os.ReadFile("../../hack/release/releases")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(releases), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == version {
			commit = f[1]
		}
	}
	if commit == "" {
		t.Fatalf("release %s is not in hack/release/releases", version)
	}
	run := func(v, out string) ([]byte, error) {
		cmd := exec.Command("../../hack/release/community.sh", v, out)
		cmd.Env = append(os.Environ(), "OPERATOR_SDK="+sdk, "KUBE_VERSION=v"+k8sVersion, "HEAD_VERSION=", "COMMUNITY_REVIEWERS=alice,bob")
		return cmd.CombinedOutput()
	}

	out := t.TempDir()
	if log, err := run(version, out); err != nil {
		t.Fatalf("community.sh %s: %v\n%s", version, err, log)
	}
	var ci struct {
		UpdateGraph string   `json:"updateGraph"`
		Reviewers   []string `json:"reviewers"`
	}
	data, err := os.ReadFile(filepath.Join(out, "operators", "memcached-operator", "ci.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &ci); err != nil || ci.UpdateGraph != "semver-mode" || !slices.Equal(ci.Reviewers, []string{"alice", "bob"}) {
		t.Errorf("ci.yaml = %+v (%v), want semver-mode and reviewers [alice bob]:\n%s", ci, err, data)
	}

	ls, err := exec.Command("git", "-C", "../..", "ls-tree", "-r", "--name-only", commit, "bundle").Output()
	if err != nil {
		t.Fatalf("git ls-tree %s: %v", commit, err)
	}
	want := strings.Fields(string(ls))
	dir := filepath.Join(out, "operators", "memcached-operator", version)
	var got []string
	err = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			got = append(got, "bundle/"+rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("files = %v, want the release's bundle/ %v", got, want)
	}
	for _, f := range want {
		released, err := exec.Command("git", "-C", "../..", "show", commit+":"+f).Output()
		if err != nil {
			t.Fatal(err)
		}
		written, err := os.ReadFile(filepath.Join(dir, strings.TrimPrefix(f, "bundle/")))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(released, written) {
			t.Errorf("%s differs from the release's", f)
		}
	}

	other := t.TempDir()
	if log, err := run("9.9.9", other); err == nil || !strings.Contains(string(log), "neither released") {
		t.Errorf("an unknown version: want a refusal, got %v\n%s", err, log)
	}
	if entries, _ := os.ReadDir(filepath.Join(other, "operators", "memcached-operator")); len(entries) > 0 {
		t.Errorf("an unknown version wrote %d entries", len(entries))
	}
}
