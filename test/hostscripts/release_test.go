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
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// make release pins each related image of the manager's Deployment by digest
// (hack/lib/release.sh pin_related_image), each in its own variable: RELATED_IMAGE_MEMCACHED is a
// prefix of RELATED_IMAGE_MEMCACHED_EXPORTER, and a pattern that matched both once gave the
// exporter sidecar memcached's image; the other variables are left alone, and a variable the file
// lacks is an error naming it.
func TestPinRelatedImage(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := os.ReadFile(filepath.Join(root, "config", "manager", "manager.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "manager.yaml")
	if err := os.WriteFile(file, manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	const (
		memcached = "127.0.0.1:5000/memcached@sha256:df66f47c0a7f9f0b6a32a46c28b446de11cfafb1e68f8f373fa639e039c4ca8c"
		exporter  = "127.0.0.1:5000/memcached-exporter@sha256:e0fd94b0888bf5e459b54772e4880a4cd209b23f2384f1196de3d719322e305b"
	)
	run := func(script string) (string, error) {
		cmd := exec.Command("bash", "-c", `set -euo pipefail; . hack/lib/release.sh; `+script)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "FILE="+file)
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	before, err := run(`related_image "$FILE" CERT_RELOADER`)
	if err != nil || before == "" {
		t.Fatalf("related_image CERT_RELOADER: %q, %v", before, err)
	}
	// The exporter first: pinning memcached after it must leave it alone.
	if out, err := run(`pin_related_image "$FILE" MEMCACHED_EXPORTER ` + exporter + `; pin_related_image "$FILE" MEMCACHED ` + memcached); err != nil {
		t.Fatalf("pin_related_image: %v\n%s", err, out)
	}
	for name, want := range map[string]string{"MEMCACHED": memcached, "MEMCACHED_EXPORTER": exporter, "CERT_RELOADER": before} {
		if got, err := run(`related_image "$FILE" ` + name); err != nil || got != want {
			t.Errorf("RELATED_IMAGE_%s = %q (%v), want %q", name, got, err, want)
		}
	}
	out, err := run(`pin_related_image "$FILE" NO_SUCH ` + memcached)
	if err == nil || !strings.Contains(out, "no RELATED_IMAGE_NO_SUCH in "+file) {
		t.Errorf("pin_related_image of a missing variable: %v, %q; want an error naming it", err, out)
	}
}
