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
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The release workflow (.github/workflows/release.yaml, run on a tag by GitHub, never here) passes
// actionlint: its syntax, expressions, action inputs and the steps they name. A copy naming a step
// that does not exist fails, so the lint is really run.
func TestReleaseWorkflowLints(t *testing.T) {
	actionlint := tool(t, "actionlint")
	const workflow = ".github/workflows/release.yaml"
	out, err := exec.Command(actionlint, "-shellcheck=", "-pyflakes=", workflow).CombinedOutput()
	if err != nil {
		t.Fatalf("actionlint %s: %v\n%s", workflow, err, out)
	}
	b, err := os.ReadFile(workflow)
	if err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(t.TempDir(), "release.yaml")
	if err := os.WriteFile(broken, []byte(strings.ReplaceAll(string(b), "steps.release.outputs.operator", "steps.relase.outputs.operator")), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(actionlint, "-shellcheck=", "-pyflakes=", broken).CombinedOutput(); err == nil {
		t.Errorf("actionlint accepted a workflow naming a step that does not exist:\n%s", out)
	}
}
