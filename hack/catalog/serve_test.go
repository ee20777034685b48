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
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
)

const serveFixture = pkgStable + `---
schema: olm.channel
package: memcached-operator
name: stable
entries:
- name: memcached-operator.v0.1.0
- name: memcached-operator.v0.2.0
  replaces: memcached-operator.v0.1.0
  skipRange: <0.2.0
- name: memcached-operator.v0.3.0
  replaces: memcached-operator.v0.2.0
  skips: [memcached-operator.v0.1.0]
  skipRange: <0.3.0
---
schema: olm.channel
package: memcached-operator
name: candidate
entries:
- name: memcached-operator.v0.3.0
---
schema: olm.deprecations
package: memcached-operator
entries:
- reference: {schema: olm.bundle, name: memcached-operator.v0.3.0}
  message: v0.3.0 is deprecated
- reference: {schema: olm.bundle, name: memcached-operator.v0.1.0}
  message: v0.1.0 is deprecated
- reference: {schema: olm.channel, name: candidate}
  message: candidate is deprecated
`

func serveFixtureYAML() string {
	return serveFixture + bundleYAML("0.1.0") + bundleYAML("0.2.0") + bundleYAML("0.3.0")
}

func names[T any](xs []T, name func(T) string) []string {
	var out []string
	for _, x := range xs {
		out = append(out, name(x))
	}
	slices.Sort(out)
	return out
}

func bundleNames(cfg *declcfg.DeclarativeConfig) []string {
	return names(cfg.Bundles, func(b declcfg.Bundle) string { return b.Name })
}

func ver(s string) *semver.Version {
	v := semver.MustParse(s)
	return &v
}

func TestPrepareLocalServe(t *testing.T) {
	t.Run("all bundles, images blanked", func(t *testing.T) {
		cfg, _ := loadYAML(t, serveFixtureYAML())
		before, _ := loadYAML(t, serveFixtureYAML())
		dropped, err := PrepareLocalServe(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(dropped) != 0 {
			t.Errorf("dropped %v, want none", dropped)
		}
		for i, b := range cfg.Bundles {
			if b.Image != "" {
				t.Errorf("bundle %s image %q, want blank", b.Name, b.Image)
			}
			// Everything but the image is kept: the inline objects are what OLM installs.
			b.Image = before.Bundles[i].Image
			if !reflect.DeepEqual(b, before.Bundles[i]) {
				t.Errorf("bundle %s changed beyond its image", b.Name)
			}
		}
		if !reflect.DeepEqual(cfg.Channels, before.Channels) || !reflect.DeepEqual(cfg.Deprecations, before.Deprecations) ||
			!reflect.DeepEqual(cfg.Packages, before.Packages) {
			t.Errorf("packages, channels or deprecations changed without -max-version")
		}
	})

	t.Run("max version stages an older catalog", func(t *testing.T) {
		cfg, _ := loadYAML(t, serveFixtureYAML())
		dropped, err := PrepareLocalServe(cfg, ver("0.2.0"))
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"memcached-operator.v0.3.0"}; !reflect.DeepEqual(dropped, want) {
			t.Errorf("dropped %v, want %v", dropped, want)
		}
		if got, want := bundleNames(cfg), []string{"memcached-operator.v0.1.0", "memcached-operator.v0.2.0"}; !reflect.DeepEqual(got, want) {
			t.Errorf("bundles %v, want %v", got, want)
		}
		if got := names(cfg.Channels, func(c declcfg.Channel) string { return c.Name }); !reflect.DeepEqual(got, []string{"stable"}) {
			t.Errorf("channels %v, want [stable] (candidate only had v0.3.0)", got)
		}
		stable := cfg.Channels[0]
		if h := Heads(stable); !reflect.DeepEqual(h, []string{"memcached-operator.v0.2.0"}) {
			t.Errorf("stable heads %v, want [memcached-operator.v0.2.0]", h)
		}
		if len(cfg.Deprecations) != 1 || len(cfg.Deprecations[0].Entries) != 1 ||
			cfg.Deprecations[0].Entries[0].Reference.Name != "memcached-operator.v0.1.0" {
			t.Errorf("deprecations %+v, want only the one of v0.1.0", cfg.Deprecations)
		}
		if p := Check(cfg); len(p) > 0 {
			t.Errorf("graph problems in the staged catalog: %v", p)
		}
		dir := filepath.Join(t.TempDir(), "out")
		if err := declcfg.WriteFS(*cfg, dir, declcfg.WriteYAML, ".yaml"); err != nil {
			t.Fatal(err)
		}
		if out, failed, ok := opmValidate(t, dir); ok && failed {
			t.Errorf("opm validate of the staged catalog: %s", out)
		}
	})

	t.Run("edges to left-out bundles are removed", func(t *testing.T) {
		// A downgrade edge is odd but legal FBC: v0.1.0 replaces and skips the newer v0.3.0.
		odd := strings.Replace(serveFixtureYAML(), "name: candidate\nentries:\n- name: memcached-operator.v0.3.0\n",
			"name: candidate\nentries:\n- name: memcached-operator.v0.3.0\n- name: memcached-operator.v0.1.0\n  replaces: memcached-operator.v0.3.0\n  skips: [memcached-operator.v0.3.0, memcached-operator.v0.0.9]\n", 1)
		cfg, _ := loadYAML(t, odd)
		if _, err := PrepareLocalServe(cfg, ver("0.2.0")); err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(cfg.Channels, func(c declcfg.Channel) bool { return c.Name == "candidate" })
		if i < 0 {
			t.Fatal("channel candidate was dropped although v0.1.0 is still in it")
		}
		want := []declcfg.ChannelEntry{{Name: "memcached-operator.v0.1.0", Skips: []string{"memcached-operator.v0.0.9"}}}
		if !reflect.DeepEqual(cfg.Channels[i].Entries, want) {
			t.Errorf("candidate entries %+v, want %+v", cfg.Channels[i].Entries, want)
		}
	})

	refused := map[string]struct {
		catalog string
		max     *semver.Version
		want    string
	}{
		"nothing left": {catalog: serveFixtureYAML(), max: ver("0.0.1"), want: `package "memcached-operator" has no bundle left at or below version 0.0.1`},
		"default channel left empty": {
			catalog: strings.Replace(serveFixtureYAML(), "defaultChannel: stable", "defaultChannel: candidate", 1), max: ver("0.2.0"),
			want: `the default channel "candidate" has no bundle left`,
		},
		"bundle without inline objects": {
			catalog: serveFixture + bundleYAML("0.1.0") + bundleYAML("0.2.0") + `---
schema: olm.bundle
name: memcached-operator.v0.3.0
package: memcached-operator
image: registry.example.com/memcached-operator-bundle:v0.3.0
properties:
- type: olm.package
  value: {packageName: memcached-operator, version: 0.3.0}
`,
			want: "memcached-operator.v0.3.0 has no olm.bundle.object properties",
		},
	}
	for name, tc := range refused {
		t.Run(name, func(t *testing.T) {
			cfg, _ := loadYAML(t, tc.catalog)
			before, _ := loadYAML(t, tc.catalog)
			_, err := PrepareLocalServe(cfg, tc.max)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tc.want)
			}
			if !reflect.DeepEqual(cfg, before) {
				t.Errorf("catalog changed on error")
			}
		})
	}
}

// blank-images on the project's catalog: the full copy and the copy staged at 0.1.0 load, pass
// opm validate, have no bundle image left, and catalog/ itself is untouched.
func TestBlankImagesProjectCatalog(t *testing.T) {
	src := "../../catalog"
	before := snapshot(t, src)
	orig, err := declcfg.LoadFS(context.Background(), os.DirFS(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(orig.Bundles) < 2 {
		t.Skipf("the project catalog has %d bundles; staging needs two", len(orig.Bundles))
	}
	var oldest declcfg.Bundle
	var oi bundleInfo
	for i, b := range orig.Bundles {
		bi, err := describeBundle(b)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 || bi.version.LT(oi.version) {
			oldest, oi = b, bi
		}
	}

	for name, args := range map[string][]string{
		"full":   nil,
		"staged": {"-max-version", oi.version.String()},
	} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "serve")
			if err := blankImages(append([]string{"-in", src, "-out", out}, args...)); err != nil {
				t.Fatal(err)
			}
			cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(out))
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range cfg.Bundles {
				if b.Image != "" {
					t.Errorf("bundle %s image %q, want blank", b.Name, b.Image)
				}
				if len(b.Objects) == 0 || b.CsvJSON == "" {
					t.Errorf("bundle %s lost its inline objects", b.Name)
				}
			}
			want := bundleNames(orig)
			if name == "staged" {
				want = []string{oldest.Name}
			}
			if got := bundleNames(cfg); !reflect.DeepEqual(got, want) {
				t.Errorf("bundles %v, want %v", got, want)
			}
			if p := Check(cfg); len(p) > 0 {
				t.Errorf("graph problems: %v", p)
			}
			// The served copy keeps the deprecations of what it serves (OLM shows them on the
			// Subscription).
			var wantDeprecated, gotDeprecated []string
			for _, d := range orig.Deprecations {
				for _, e := range d.Entries {
					if e.Reference.Schema != declcfg.SchemaBundle || slices.Contains(want, e.Reference.Name) {
						wantDeprecated = append(wantDeprecated, e.Reference.Schema+"/"+e.Reference.Name+": "+e.Message)
					}
				}
			}
			for _, d := range cfg.Deprecations {
				for _, e := range d.Entries {
					gotDeprecated = append(gotDeprecated, e.Reference.Schema+"/"+e.Reference.Name+": "+e.Message)
				}
			}
			if !slices.Equal(gotDeprecated, wantDeprecated) {
				t.Errorf("served deprecations %q, want %q", gotDeprecated, wantDeprecated)
			}
			if out, failed, ok := opmValidate(t, out); ok && failed {
				t.Errorf("opm validate: %s", out)
			}
			if err := blankImages([]string{"-in", src, "-out", out}); err == nil || !strings.Contains(err.Error(), "not empty") {
				t.Errorf("second run into the same -out: error = %v, want 'not empty'", err)
			}
		})
	}

	if after := snapshot(t, src); !reflect.DeepEqual(after, before) {
		t.Errorf("blank-images modified %s", src)
	}
	if err := blankImages([]string{"-in", src, "-out", filepath.Join(t.TempDir(), "x"), "-max-version", "not-a-version"}); err == nil {
		t.Errorf("an invalid -max-version was accepted")
	}
}

// snapshot returns the content of every file under dir by path.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		files[path] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
