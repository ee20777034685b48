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
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/operator-framework/operator-registry/alpha/declcfg"
)

// bundleYAML is a minimal olm.bundle of memcached-operator at version v supporting install modes.
func bundleYAML(v string, modes ...string) string {
	if len(modes) == 0 {
		modes = []string{"OwnNamespace", "SingleNamespace", "MultiNamespace", "AllNamespaces"}
	}
	var im []string
	for _, m := range modes {
		im = append(im, fmt.Sprintf(`{"type":"%s","supported":true}`, m))
	}
	csv := fmt.Sprintf(`{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"name":"memcached-operator.v%s"},"spec":{"installModes":[%s]}}`, v, strings.Join(im, ","))
	return fmt.Sprintf(`---
schema: olm.bundle
name: memcached-operator.v%[1]s
package: memcached-operator
image: registry.example.com/memcached-operator-bundle:v%[1]s
properties:
- type: olm.package
  value: {packageName: memcached-operator, version: %[1]s}
- type: olm.bundle.object
  value: {data: %[2]q}
`, v, b64(csv))
}

func b64(s string) string {
	return base64.StdEncoding.EncodeToString([]byte(s))
}

const pkgStable = `---
schema: olm.package
name: memcached-operator
defaultChannel: stable
`

func channel(name, entries string) string {
	if entries == "[]\n" {
		return fmt.Sprintf("---\nschema: olm.channel\npackage: memcached-operator\nname: %s\nentries: []\n", name)
	}
	return fmt.Sprintf("---\nschema: olm.channel\npackage: memcached-operator\nname: %s\nentries:\n%s", name, entries)
}

// loadYAML loads a catalog written as one YAML stream into a temporary directory.
func loadYAML(t *testing.T, content string) (*declcfg.DeclarativeConfig, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "index.yaml"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(dir))
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return cfg, dir
}

// opmValidate runs the real `opm validate` (bin/opm, built by `make opm`) on dir; ok is false when
// opm is not built.
func opmValidate(t *testing.T, dir string) (out string, failed, ok bool) {
	t.Helper()
	opm, _ := filepath.Abs("../../bin/opm")
	if _, err := os.Stat(opm); err != nil {
		return "", false, false
	}
	var buf bytes.Buffer
	cmd := exec.Command(opm, "validate", dir)
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	return buf.String(), err != nil, true
}

// Graph faults are reported with package, channel and bundles; opm validate rejects the same
// fixtures. Sources: operator-framework/operator-registry#1101 ("v0.1.0" instead of the bundle name
// gives two heads), operator-framework/operator-registry#755 (replaces cycles),
// operator-framework/operator-registry#928 (empty channel), operator-framework/community-operators#330
// (default channel), operator-framework/kubectl-operator#33 (install modes differ along a channel).
func TestCheck(t *testing.T) {
	two := bundleYAML("0.1.0") + bundleYAML("0.2.0")
	three := two + bundleYAML("0.3.0")
	tests := map[string]struct {
		catalog  string
		want     []string // substrings of the joined problems; empty: valid
		opmFails bool
	}{
		"valid two releases with skipRange": {
			catalog: pkgStable + two + channel("stable", "- name: memcached-operator.v0.1.0\n- name: memcached-operator.v0.2.0\n  replaces: memcached-operator.v0.1.0\n  skipRange: <0.2.0\n"),
		},
		"replaces names a version, not the bundle": {
			catalog:  pkgStable + two + channel("stable", "- name: memcached-operator.v0.1.0\n- name: memcached-operator.v0.2.0\n  replaces: v0.1.0\n"),
			want:     []string{`package "memcached-operator", channel "stable": multiple channel heads`, "memcached-operator.v0.1.0 memcached-operator.v0.2.0"},
			opmFails: true,
		},
		"replaces cycle under a head": {
			catalog: pkgStable + three + channel("stable", "- name: memcached-operator.v0.1.0\n  replaces: memcached-operator.v0.2.0\n"+
				"- name: memcached-operator.v0.2.0\n  replaces: memcached-operator.v0.1.0\n- name: memcached-operator.v0.3.0\n  replaces: memcached-operator.v0.2.0\n"),
			want:     []string{`channel "stable": cycle in the replaces chain [memcached-operator.v0.3.0 memcached-operator.v0.2.0 memcached-operator.v0.1.0 memcached-operator.v0.2.0]`},
			opmFails: true,
		},
		"closed replaces loop without head": {
			catalog: pkgStable + three + channel("stable", "- name: memcached-operator.v0.1.0\n  replaces: memcached-operator.v0.3.0\n"+
				"- name: memcached-operator.v0.2.0\n  replaces: memcached-operator.v0.1.0\n- name: memcached-operator.v0.3.0\n  replaces: memcached-operator.v0.2.0\n"),
			want:     []string{`channel "stable": no channel head`},
			opmFails: true,
		},
		"default channel missing and an empty channel": {
			catalog:  pkgStable + bundleYAML("0.1.0") + channel("alpha", "- name: memcached-operator.v0.1.0\n") + channel("beta", "[]\n"),
			want:     []string{`channel "stable": the default channel does not exist`, `channel "beta": the channel has no bundles`},
			opmFails: true,
		},
		"two bundles with one version": {
			catalog: pkgStable + bundleYAML("0.1.0") + strings.Replace(bundleYAML("0.1.0"), "name: memcached-operator.v0.1.0", "name: memcached-operator.v0.1.0-copy", 1) +
				channel("stable", "- name: memcached-operator.v0.1.0\n- name: memcached-operator.v0.1.0-copy\n  replaces: memcached-operator.v0.1.0\n"),
			want:     []string{`bundles share version 0.1.0 [memcached-operator.v0.1.0 memcached-operator.v0.1.0-copy]`},
			opmFails: true,
		},
		"entries stranded in a loop beside the head": {
			catalog: pkgStable + bundleYAML("0.1.0") + bundleYAML("0.2.0") + bundleYAML("0.3.0") + bundleYAML("0.4.0") +
				channel("stable", "- name: memcached-operator.v0.1.0\n  replaces: memcached-operator.v0.2.0\n- name: memcached-operator.v0.2.0\n  replaces: memcached-operator.v0.1.0\n"+
					"- name: memcached-operator.v0.3.0\n- name: memcached-operator.v0.4.0\n  replaces: memcached-operator.v0.3.0\n"),
			want:     []string{`stranded: cannot upgrade to the head memcached-operator.v0.4.0 [memcached-operator.v0.1.0 memcached-operator.v0.2.0]`},
			opmFails: true,
		},
		"install modes change along the channel": {
			catalog: pkgStable + bundleYAML("0.1.0", "AllNamespaces") + bundleYAML("0.2.0") +
				channel("stable", "- name: memcached-operator.v0.1.0\n- name: memcached-operator.v0.2.0\n  replaces: memcached-operator.v0.1.0\n"),
			want: []string{"bundles declare different install modes"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			cfg, dir := loadYAML(t, tc.catalog)
			var msgs []string
			for _, p := range Check(cfg) {
				msgs = append(msgs, p.String())
			}
			got := strings.Join(msgs, "\n")
			if len(tc.want) == 0 && got != "" {
				t.Errorf("unexpected problems:\n%s", got)
			}
			if len(tc.want) > 0 && got == "" {
				t.Errorf("the broken catalog passed")
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("problems lack %q; got:\n%s", w, got)
				}
			}
			if out, failed, ok := opmValidate(t, dir); ok && failed != tc.opmFails {
				t.Errorf("opm validate failed=%v, want %v: %s", failed, tc.opmFails, out)
			}
		})
	}
}

func mustBundle(t *testing.T, v string) declcfg.Bundle {
	t.Helper()
	cfg, _ := loadYAML(t, bundleYAML(v))
	return cfg.Bundles[0]
}

// Releases are appended in version order: each new release replaces the channel head and skips
// every older one; re-releasing or releasing an older version is refused, so the generator never
// produces a cycle (operator-framework/operator-registry#755: replaces cycles).
func TestAddRelease(t *testing.T) {
	channels := []string{"candidate", "fast", "stable"}
	cfg := &declcfg.DeclarativeConfig{}
	for _, v := range []string{"0.1.0", "0.2.0", "0.3.0"} {
		if err := AddRelease(cfg, mustBundle(t, v), channels, "stable"); err != nil {
			t.Fatalf("add %s: %v", v, err)
		}
	}
	if p := Check(cfg); len(p) > 0 {
		t.Fatalf("problems after three releases: %v", p)
	}
	for _, ch := range cfg.Channels {
		if h := Heads(ch); len(h) != 1 || h[0] != "memcached-operator.v0.3.0" {
			t.Errorf("channel %s heads %v, want [memcached-operator.v0.3.0]", ch.Name, h)
		}
		last := ch.Entries[len(ch.Entries)-1]
		if last.Replaces != "memcached-operator.v0.2.0" || last.SkipRange != "<0.3.0" {
			t.Errorf("channel %s head entry %+v, want replaces v0.2.0 and skipRange <0.3.0", ch.Name, last)
		}
		if ch.Entries[0].SkipRange != "" || ch.Entries[0].Replaces != "" {
			t.Errorf("first release entry %+v must neither replace nor skip", ch.Entries[0])
		}
	}
	if cfg.Packages[0].DefaultChannel != "stable" {
		t.Errorf("default channel %q", cfg.Packages[0].DefaultChannel)
	}

	refused := map[string]struct {
		version, defaultChannel string
		channels                []string
		want                    string
	}{
		"re-release of an existing version": {version: "0.2.0", defaultChannel: "stable", channels: channels, want: "never rewritten"},
		"older than the head":               {version: "0.1.5", defaultChannel: "stable", channels: []string{"stable"}, want: "is not newer than the head memcached-operator.v0.3.0"},
		"empty default channel":             {version: "0.4.0", defaultChannel: "", channels: channels, want: "default channel"},
		"unknown default channel":           {version: "0.4.0", defaultChannel: "beta", channels: []string{"stable"}, want: `default channel "beta"`},
	}
	for name, tc := range refused {
		t.Run(name, func(t *testing.T) {
			before := len(cfg.Bundles)
			err := AddRelease(cfg, mustBundle(t, tc.version), tc.channels, tc.defaultChannel)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("AddRelease error = %v, want it to contain %q", err, tc.want)
			}
			if len(cfg.Bundles) != before {
				t.Errorf("catalog changed on error")
			}
		})
	}
}

// The project's own catalog passes the graph check and opm validate.
func TestProjectCatalog(t *testing.T) {
	dir := "../../catalog/memcached-operator"
	cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range Check(cfg) {
		t.Errorf("%s", p)
	}
	if out, failed, ok := opmValidate(t, "../../catalog"); ok && failed {
		t.Errorf("opm validate: %s", out)
	}
}
