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

package hostscripts

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A demo's timed-out wait says why (hack/lib/procs.sh explain_memcached): the instance's
// conditions, its recent events and the operator's last 20 log lines, each under its heading, on
// stderr; a kubectl call that fails (here the events one) does not stop the rest. The kubectl here
// is a script printing what kubectl prints for an instance Degraded with InvalidSpec.
func TestExplainMemcached(t *testing.T) {
	dir := t.TempDir()
	kubectl := filepath.Join(dir, "kubectl")
	stub := `#!/bin/sh
case "$1" in
  get) echo '   Available=False ReplicasNotReady: 0 of 3 ready'; echo '   Degraded=True InvalidSpec: spec.memcached.maxConnections: too many' ;;
  events) echo 'error: the server could not find the requested resource' >&2; exit 1 ;;
esac
`
	if err := os.WriteFile(kubectl, []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for i := 1; i <= 30; i++ {
		lines = append(lines, fmt.Sprintf("operator line %d", i))
	}
	log := filepath.Join(dir, "manager.log")
	if err := os.WriteFile(log, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", `set -euo pipefail; . hack/lib/procs.sh; explain_memcached demo web tail -n 20 "$LOG"; echo done`)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "KUBECTL="+kubectl, "LOG="+log)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(out)) != "done" {
		t.Fatalf("explain_memcached: %v, stdout %q, stderr:\n%s", err, out, stderr.String())
	}
	got := stderr.String()
	for _, want := range []string{
		">> memcached/web in demo: conditions", "Degraded=True InvalidSpec: spec.memcached.maxConnections: too many",
		">> memcached/web in demo: recent events", "could not find the requested resource",
		">> the operator's last log lines", "operator line 11\n", "operator line 30\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("stderr lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "operator line 10\n") {
		t.Errorf("more than the last 20 log lines:\n%s", got)
	}
}
