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
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/operator-framework/operator-registry/alpha/declcfg"
	"github.com/operator-framework/operator-registry/alpha/property"
)

// deprecationsBlob is an olm.deprecations blob (schema given, so the misspelt older name can be
// tried) of memcached-operator with the given entries.
func deprecationsBlob(schema, entries string) string {
	return "---\nschema: " + schema + "\npackage: memcached-operator\nentries:\n" + entries
}

// olm.deprecations is read, its references are checked, and a blob of a schema OLM does not know
// is refused rather than ignored. Sources: operator-framework/olm-docs#323 (the olm.deprecations
// schema: one blob per package, references to the package, a channel or a bundle, each with a
// message); operator-framework/operator-registry#1216 (a blob with an older schema name was
// silently ignored).
func TestDeprecations(t *testing.T) {
	graph := pkgStable + bundleYAML("0.1.0") + bundleYAML("0.2.0") +
		channel("stable", "- name: memcached-operator.v0.1.0\n- name: memcached-operator.v0.2.0\n  replaces: memcached-operator.v0.1.0\n  skipRange: <0.2.0\n") +
		channel("fast", "- name: memcached-operator.v0.2.0\n  skipRange: <0.2.0\n")
	bundle010 := "- reference: {schema: olm.bundle, name: memcached-operator.v0.1.0}\n  message: \"0.1.0 cannot record leader-election events; upgrade to 0.2.1 or later.\"\n"
	tests := map[string]struct {
		blob     string
		want     string // substring of the problems; empty: valid
		opmFails bool
	}{
		"bundle deprecated": {blob: deprecationsBlob("olm.deprecations", bundle010)},
		"package, channel and bundle deprecated": {blob: deprecationsBlob("olm.deprecations", bundle010+
			"- reference: {schema: olm.channel, name: fast}\n  message: fast is deprecated, use stable\n"+
			"- reference: {schema: olm.package}\n  message: memcached-operator is deprecated\n")},
		"older schema name olm.catalog.deprecation": {
			blob: deprecationsBlob("olm.catalog.deprecation", bundle010),
			want: `package "memcached-operator": a blob has schema "olm.catalog.deprecation", which OLM does not know`,
		},
		"unknown bundle": {
			blob:     deprecationsBlob("olm.deprecations", "- reference: {schema: olm.bundle, name: memcached-operator.v0.0.9}\n  message: gone\n"),
			want:     `opm validate refuses it: cannot deprecate bundle "memcached-operator.v0.0.9" for package "memcached-operator": bundle not found`,
			opmFails: true,
		},
		"unknown channel": {
			blob:     deprecationsBlob("olm.deprecations", "- reference: {schema: olm.channel, name: alpha}\n  message: gone\n"),
			want:     `cannot deprecate channel "alpha"`,
			opmFails: true,
		},
		"reference of an unknown schema": {
			blob:     deprecationsBlob("olm.deprecations", "- reference: {schema: olm.bundles, name: memcached-operator.v0.1.0}\n  message: gone\n"),
			want:     "object schema unknown",
			opmFails: true,
		},
		"entry without a message": {
			blob:     deprecationsBlob("olm.deprecations", "- reference: {schema: olm.bundle, name: memcached-operator.v0.1.0}\n"),
			want:     "message must be set",
			opmFails: true,
		},
		"two blobs for the package": {
			blob:     deprecationsBlob("olm.deprecations", bundle010) + deprecationsBlob("olm.deprecations", "- reference: {schema: olm.channel, name: fast}\n  message: use stable\n"),
			want:     "expected a maximum of one deprecation per package",
			opmFails: true,
		},
	}
	plain := problemsOf(t, graph)
	if plain != "" {
		t.Fatalf("the catalog without deprecations has problems:\n%s", plain)
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := problemsOf(t, graph+tc.blob)
			switch {
			case tc.want == "" && got != "":
				t.Errorf("unexpected problems:\n%s", got)
			case tc.want != "" && !strings.Contains(got, tc.want):
				t.Errorf("problems lack %q; got:\n%s", tc.want, got)
			}
			cfg, dir := loadYAML(t, graph+tc.blob)
			if tc.want == "" {
				// The upgrade graph is the same with and without the deprecations.
				without, _ := loadYAML(t, graph)
				if !reflect.DeepEqual(cfg.Channels, without.Channels) || !reflect.DeepEqual(cfg.Bundles, without.Bundles) {
					t.Errorf("the deprecations changed the channels or bundles")
				}
			}
			if out, failed, ok := opmValidate(t, dir); ok && failed != tc.opmFails {
				t.Errorf("opm validate failed=%v, want %v: %s", failed, tc.opmFails, out)
			}
		})
	}
}

// The project deprecates 0.1.0 and 0.2.0 (they lack the RBAC for leader election's Event, fixed in
// 0.2.1), says why and what to upgrade to, and deprecates nothing else.
func TestProjectCatalogDeprecations(t *testing.T) {
	cfg := projectCatalog(t)
	if len(cfg.Deprecations) != 1 {
		t.Fatalf("%d olm.deprecations blobs, want 1", len(cfg.Deprecations))
	}
	var got []string
	for _, e := range cfg.Deprecations[0].Entries {
		got = append(got, e.Reference.Schema+"/"+e.Reference.Name)
		for _, w := range []string{"leader election", "Upgrade to 0.2.1 or later"} {
			if !strings.Contains(e.Message, w) {
				t.Errorf("deprecation of %s: message %q does not say %q", e.Reference.Name, e.Message, w)
			}
		}
	}
	want := []string{"olm.bundle/memcached-operator.v0.1.0", "olm.bundle/memcached-operator.v0.2.0"}
	if !slices.Equal(got, want) {
		t.Errorf("deprecated %v, want %v", got, want)
	}
}

// `catalog add -dir` (a test copy's release without a registry) keeps the deprecations file byte
// for byte, and the catalog it writes still carries the deprecations and passes the check and opm
// validate.
func TestAddKeepsDeprecations(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "memcached-operator")
	if err := os.CopyFS(dir, os.DirFS("../../catalog/memcached-operator")); err != nil {
		t.Fatal(err)
	}
	before := projectCatalog(t)
	next := nextRelease(t, before)
	deprecations, err := os.ReadFile(filepath.Join(dir, "deprecations.yaml"))
	if err != nil {
		t.Fatal(err)
	}

	// opm render of the next release: a copy of the newest release with version and names
	// changed (its CRD, the same as the newest's, passes the CRD upgrade-safety rules).
	b := bundleCopy(t, before, newestRelease(t, before))
	b.Name = "memcached-operator.v" + next
	for i, p := range b.Properties {
		if p.Type == property.TypePackage {
			b.Properties[i] = property.MustBuildPackage("memcached-operator", next)
		}
	}
	rewriteObjects(t, &b, func(obj map[string]any) {
		if obj["kind"] == "ClusterServiceVersion" {
			obj["metadata"].(map[string]any)["name"] = b.Name
		}
	})
	var rendered bytes.Buffer
	if err := declcfg.WriteYAML(declcfg.DeclarativeConfig{Bundles: []declcfg.Bundle{b}}, &rendered); err != nil {
		t.Fatal(err)
	}
	renderFile := filepath.Join(t.TempDir(), "render.yaml")
	fakeOpm := filepath.Join(t.TempDir(), "opm")
	if err := os.WriteFile(renderFile, rendered.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fakeOpm, []byte("#!/bin/sh\nexec cat "+renderFile+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Fatalf("no sh to run the stand-in opm: %v", err)
	}

	tmpl := filepath.Join(t.TempDir(), "template.yaml")
	if err := os.WriteFile(tmpl, mustRead(t, "../../catalog-template/memcached-operator.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := add([]string{"-template", tmpl, "-version", next, "-dir", dir, "-bundle-dir", "unused", "-image", "registry.example.com/memcached-operator-bundle:v" + next,
		"-channels", "candidate,fast,stable", "-default-channel", "stable", "-opm", fakeOpm}); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(filepath.Join(dir, "deprecations.yaml"))
	if err != nil || !bytes.Equal(after, deprecations) {
		t.Errorf("deprecations.yaml changed by add (err %v):\n%s", err, after)
	}
	cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := jsonOf(t, cfg.Deprecations), jsonOf(t, before.Deprecations); got != want {
		t.Errorf("deprecations after add %s, want %s", got, want)
	}
	if len(cfg.Bundles) != len(before.Bundles)+1 {
		t.Errorf("%d bundles after add, want %d", len(cfg.Bundles), len(before.Bundles)+1)
	}
	for _, p := range Check(cfg) {
		t.Errorf("after add: %s", p)
	}
	if out, failed, ok := opmValidate(t, filepath.Dir(dir)); ok && failed {
		t.Errorf("opm validate after add: %s", out)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustRead(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
