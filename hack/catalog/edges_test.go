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
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
	"github.com/operator-framework/operator-registry/alpha/property"
)

// crdVersion is one version of the fixture CRD memcacheds.cache.example.com.
type crdVersion struct {
	name            string
	served, storage bool
}

// fixtureBundle is an olm.bundle of memcached-operator with a CSV whose one Deployment has
// selector (name deployment) and, unless noCRD, the CRD memcacheds.cache.example.com with crd's
// versions. The zero values are those of every release so far: Deployment
// memcached-operator-controller-manager selecting control-plane=controller-manager and
// app.kubernetes.io/name=memcached-operator; v1alpha1 served and stored.
type fixtureBundle struct {
	version    string
	deployment string
	selector   map[string]string
	crd        []crdVersion
	noCRD      bool
}

var (
	v1alpha1Only      = []crdVersion{{"v1alpha1", true, true}}
	v1beta1Only       = []crdVersion{{"v1beta1", true, true}}
	v1beta1KeepsAlpha = []crdVersion{{"v1alpha1", true, false}, {"v1beta1", true, true}}
	v1beta1HidesAlpha = []crdVersion{{"v1alpha1", false, false}, {"v1beta1", true, true}}
)

func (f fixtureBundle) yaml() string {
	if f.deployment == "" {
		f.deployment = "memcached-operator-controller-manager"
	}
	if f.selector == nil {
		f.selector = map[string]string{"control-plane": "controller-manager", "app.kubernetes.io/name": "memcached-operator"}
	}
	if f.crd == nil {
		f.crd = v1alpha1Only
	}
	csv := map[string]any{
		"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
		"metadata": map[string]any{"name": "memcached-operator.v" + f.version},
		"spec": map[string]any{
			"installModes": []any{map[string]any{"type": "AllNamespaces", "supported": true}},
			"install": map[string]any{"strategy": "deployment", "spec": map[string]any{"deployments": []any{map[string]any{
				"name": f.deployment,
				"spec": map[string]any{"selector": map[string]any{"matchLabels": f.selector}},
			}}}},
		},
	}
	objects := []any{csv}
	if !f.noCRD {
		var versions []any
		for _, v := range f.crd {
			versions = append(versions, map[string]any{"name": v.name, "served": v.served, "storage": v.storage})
		}
		objects = append(objects, map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
			"metadata": map[string]any{"name": "memcacheds.cache.example.com"},
			"spec": map[string]any{"group": "cache.example.com", "scope": "Namespaced",
				"names":    map[string]any{"kind": "Memcached", "plural": "memcacheds"},
				"versions": versions},
		})
	}
	s := fmt.Sprintf(`---
schema: olm.bundle
name: memcached-operator.v%[1]s
package: memcached-operator
image: registry.example.com/memcached-operator-bundle:v%[1]s
properties:
- type: olm.package
  value: {packageName: memcached-operator, version: %[1]s}
`, f.version)
	for _, o := range objects {
		j, _ := json.Marshal(o)
		s += fmt.Sprintf("- type: olm.bundle.object\n  value: {data: %q}\n", b64(string(j)))
	}
	return s
}

// entries renders channel entries: "0.2.0<0.1.0" is 0.2.0 replacing 0.1.0; options after
// spaces: "range=<0.2.0", "skips=0.1.0".
func entries(specs ...string) string {
	var s string
	for _, spec := range specs {
		fields := strings.Fields(spec)
		name, replaces, _ := strings.Cut(fields[0], "<")
		s += "- name: memcached-operator.v" + name + "\n"
		if replaces != "" {
			s += "  replaces: memcached-operator.v" + replaces + "\n"
		}
		for _, opt := range fields[1:] {
			k, v, _ := strings.Cut(opt, "=")
			switch k {
			case "range":
				s += fmt.Sprintf("  skipRange: %q\n", strings.ReplaceAll(v, "_", " "))
			case "skips":
				s += "  skips: [memcached-operator.v" + v + "]\n"
			}
		}
	}
	return s
}

func bundles(fs ...fixtureBundle) string {
	var s string
	for _, f := range fs {
		s += f.yaml()
	}
	return s
}

// Every upgrade edge OLM offers (an entry and what it replaces, skips or covers by skipRange, in
// its channel and from the bundles of other channels a subscriber may switch from) is checked for
// what would make OLM fail to carry it out; each hazard has a catalog that fails and a variant
// that passes (kept in testdata/upgrade-edges), and the real `opm validate` is run on both (the
// check must refuse what opm refuses, so it is never weaker than opm). Sources:
//   - grafana/grafana-operator#1399: a new CSV kept the Deployment's name and changed its selector;
//     the automatic upgrade failed with "spec.selector: field is immutable";
//   - operator-framework/operator-lifecycle-manager#1535 and #983, crossplane/crossplane#4557: a
//     CRD that drops a version in status.storedVersions is refused by OLM, and users jumping over
//     the release that served both versions could not upgrade;
//   - operator-framework/operator-registry#755: stranded bundles and cycles are invalid;
//   - operator-framework/operator-registry#1216: a blob of an older schema name was ignored.
func TestUpgradeEdgeHazards(t *testing.T) {
	v := func(version string) fixtureBundle { return fixtureBundle{version: version} }
	withCRD := func(version string, crd []crdVersion) fixtureBundle {
		return fixtureBundle{version: version, crd: crd}
	}
	twoReleases := func(second fixtureBundle) string {
		return pkgStable + bundles(v("0.1.0"), second) + channel("stable", entries("0.1.0", "0.2.0<0.1.0 range=<0.2.0"))
	}
	edge := "upgrade memcached-operator.v0.1.0 -> memcached-operator.v0.2.0 (replaces, skipRange \"<0.2.0\"): "

	tests := map[string]struct {
		fails, passes string
		want          []string // substrings of the problems of fails
		opmFails      bool     // opm validate refuses fails too
	}{
		"CRD drops the stored version": {
			fails:  twoReleases(withCRD("0.2.0", v1beta1Only)),
			passes: twoReleases(withCRD("0.2.0", v1beta1KeepsAlpha)),
			want:   []string{`package "memcached-operator", channel "stable": ` + edge + "CRD memcacheds.cache.example.com drops version v1alpha1, the storage version of the older bundle"},
		},
		"CRD stops serving the stored version": {
			fails:  twoReleases(withCRD("0.2.0", v1beta1HidesAlpha)),
			passes: twoReleases(withCRD("0.2.0", v1beta1KeepsAlpha)),
			want:   []string{edge + "CRD memcacheds.cache.example.com stops serving version v1alpha1"},
		},
		"CRD dropped over a skipRange jump past the release that served both": {
			fails: pkgStable + bundles(v("0.1.0"), withCRD("0.2.0", v1beta1KeepsAlpha), withCRD("0.3.0", v1beta1Only)) +
				channel("stable", entries("0.1.0", "0.2.0<0.1.0 range=<0.2.0", "0.3.0<0.2.0 range=<0.3.0")),
			passes: pkgStable + bundles(v("0.1.0"), withCRD("0.2.0", v1beta1KeepsAlpha), withCRD("0.3.0", v1beta1KeepsAlpha)) +
				channel("stable", entries("0.1.0", "0.2.0<0.1.0 range=<0.2.0", "0.3.0<0.2.0 range=<0.3.0")),
			want: []string{`upgrade memcached-operator.v0.1.0 -> memcached-operator.v0.3.0 (skipRange "<0.3.0"): CRD memcacheds.cache.example.com drops version v1alpha1`},
		},
		"operator Deployment keeps its name and changes its selector": {
			fails:  twoReleases(fixtureBundle{version: "0.2.0", selector: map[string]string{"control-plane": "controller-manager"}}),
			passes: twoReleases(fixtureBundle{version: "0.2.0", deployment: "memcached-operator-manager", selector: map[string]string{"control-plane": "controller-manager"}}),
			want:   []string{edge + "operator Deployment memcached-operator-controller-manager keeps its name and changes its selector from \"app.kubernetes.io/name=memcached-operator,control-plane=controller-manager\" to \"control-plane=controller-manager\""},
		},
		"version does not increase along replaces (pre-release after its release)": {
			fails:  pkgStable + bundles(v("0.2.0"), v("0.2.0-rc.1")) + channel("stable", entries("0.2.0", "0.2.0-rc.1<0.2.0")),
			passes: pkgStable + bundles(v("0.2.0"), v("0.2.0-rc.1")) + channel("stable", entries("0.2.0-rc.1", "0.2.0<0.2.0-rc.1")),
			want:   []string{"upgrade memcached-operator.v0.2.0 -> memcached-operator.v0.2.0-rc.1 (replaces): the version does not increase (0.2.0 to 0.2.0-rc.1)"},
		},
		"skipRange covers a newer version": {
			fails:  pkgStable + bundles(v("0.1.0"), v("0.2.0"), v("0.3.0")) + channel("stable", entries("0.1.0", "0.3.0<0.1.0", "0.2.0<0.3.0 range=>=0.1.0")),
			passes: pkgStable + bundles(v("0.1.0"), v("0.2.0"), v("0.3.0")) + channel("stable", entries("0.1.0", "0.2.0<0.1.0", "0.3.0<0.2.0 range=>=0.1.0_<0.3.0")),
			want:   []string{"upgrade memcached-operator.v0.3.0 -> memcached-operator.v0.2.0 (replaces, skipRange \">=0.1.0\"): the version does not increase (0.3.0 to 0.2.0)"},
		},
		"skipRange is not a valid range": {
			fails:    twoReleasesRange("<=v0.2.0"),
			passes:   twoReleasesRange(">=0.1.0 <0.2.0"),
			want:     []string{`channel "stable": skipRange "<=v0.2.0" is not a valid range`, "[memcached-operator.v0.2.0]"},
			opmFails: true,
		},
		"bundle stranded by a skipped replaces": {
			fails:    pkgStable + bundles(v("0.1.0"), v("0.2.0"), v("0.3.0")) + channel("stable", entries("0.1.0", "0.2.0<0.1.0", "0.3.0<0.2.0 skips=0.2.0")),
			passes:   pkgStable + bundles(v("0.1.0"), v("0.2.0"), v("0.3.0")) + channel("stable", entries("0.1.0", "0.2.0<0.1.0", "0.3.0<0.2.0 skips=0.1.0")),
			want:     []string{`channel "stable": opm validate refuses it: invalid channel "stable": channel contains one or more stranded bundles: memcached-operator.v0.1.0`},
			opmFails: true,
		},
		"subscriber stranded by a switch of channel": {
			fails: pkgStable + bundles(v("0.1.0"), v("0.2.0")) + channel("stable", entries("0.1.0", "0.2.0<0.1.0")) +
				channel("fast", entries("0.2.0")),
			passes: pkgStable + bundles(v("0.1.0"), v("0.2.0")) + channel("stable", entries("0.1.0", "0.2.0<0.1.0")) +
				channel("fast", entries("0.2.0 range=<0.2.0")),
			want: []string{`channel "fast": a subscriber on memcached-operator.v0.1.0 who switches to this channel is stranded: no entry replaces, skips or covers it by skipRange [memcached-operator.v0.1.0 memcached-operator.v0.2.0]`},
		},
		"hazard on an edge from another channel": {
			fails: pkgStable + bundles(v("0.1.0"), withCRD("0.2.0", v1beta1Only)) + channel("stable", entries("0.1.0")) +
				channel("candidate", entries("0.2.0 range=<0.2.0")),
			passes: pkgStable + bundles(v("0.1.0"), withCRD("0.2.0", v1beta1KeepsAlpha)) + channel("stable", entries("0.1.0")) +
				channel("candidate", entries("0.2.0 range=<0.2.0")),
			want: []string{`channel "candidate": upgrade memcached-operator.v0.1.0 -> memcached-operator.v0.2.0 (skipRange "<0.2.0"): CRD memcacheds.cache.example.com drops version v1alpha1`},
		},
		"channel defined twice": {
			fails:    pkgStable + bundles(v("0.1.0"), v("0.2.0")) + channel("stable", entries("0.1.0")) + channel("stable", entries("0.2.0")),
			passes:   pkgStable + bundles(v("0.1.0"), v("0.2.0")) + channel("stable", entries("0.1.0")) + channel("fast", entries("0.2.0 range=<0.2.0")),
			want:     []string{`channel "stable": the channel is defined twice`, `opm validate refuses it: package "memcached-operator" has duplicate channel "stable"`},
			opmFails: true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			// Each catalog is kept in testdata/upgrade-edges/<hazard>/{fails,passes}/catalog.yaml,
			// so `catalog-tool check` and `opm validate` can be run on it by hand.
			fails := fixtureDir(t, name, "fails", tc.fails)
			passes := fixtureDir(t, name, "passes", tc.passes)
			got := problemsIn(t, fails)
			if got == "" {
				t.Fatalf("the hazardous catalog passed")
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("problems lack %q; got:\n%s", w, got)
				}
			}
			if p := problemsIn(t, passes); p != "" {
				t.Errorf("the variant failed:\n%s", p)
			}
			if out, failed, ok := opmValidate(t, fails); ok && failed != tc.opmFails {
				t.Errorf("opm validate on the hazard failed=%v, want %v: %s", failed, tc.opmFails, out)
			}
			if out, failed, ok := opmValidate(t, passes); ok && failed {
				t.Errorf("opm validate refused the variant: %s", out)
			}
		})
	}
}

var update = flag.Bool("update", false, "rewrite the fixture catalogs under testdata/upgrade-edges from the tests")

// fixtureDir returns testdata/upgrade-edges/<hazard>/<variant>, whose catalog.yaml must hold
// content (-update writes it).
func fixtureDir(t *testing.T, hazard, variant, content string) string {
	t.Helper()
	slug := strings.Trim(regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(strings.ToLower(hazard), "-"), "-")
	dir := filepath.Join("testdata", "upgrade-edges", slug, variant)
	file := filepath.Join(dir, "catalog.yaml")
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(file)
	if err != nil || string(got) != content {
		t.Fatalf("%s is missing or differs from the test (err %v): run go test -run TestUpgradeEdgeHazards -update", file, err)
	}
	return dir
}

// problemsIn loads the catalog in dir and returns its problems, one a line.
func problemsIn(t *testing.T, dir string) string {
	t.Helper()
	cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(dir))
	if err != nil {
		t.Fatalf("load %s: %v", dir, err)
	}
	var msgs []string
	for _, p := range Check(cfg) {
		msgs = append(msgs, p.String())
	}
	return strings.Join(msgs, "\n")
}

func twoReleasesRange(r string) string {
	return pkgStable + bundles(fixtureBundle{version: "0.1.0"}, fixtureBundle{version: "0.2.0"}) +
		channel("stable", fmt.Sprintf("- name: memcached-operator.v0.1.0\n- name: memcached-operator.v0.2.0\n  replaces: memcached-operator.v0.1.0\n  skipRange: %q\n", r))
}

// problemsOf loads the catalog content and returns its problems, one a line.
func problemsOf(t *testing.T, content string) string {
	t.Helper()
	cfg, _ := loadYAML(t, content)
	var msgs []string
	for _, p := range Check(cfg) {
		msgs = append(msgs, p.String())
	}
	return strings.Join(msgs, "\n")
}

// projectCatalog loads catalog/memcached-operator.
// nextRelease returns the version after the newest release of cfg (its minor version bumped), so
// a test that adds "the next release" to the project's catalog keeps working after each release.
func nextRelease(t *testing.T, cfg *declcfg.DeclarativeConfig) string {
	t.Helper()
	newest := newestVersion(t, cfg)
	return semver.Version{Major: newest.Major, Minor: newest.Minor + 1}.String()
}

// newestRelease returns the bundle name of the newest release in cfg.
func newestRelease(t *testing.T, cfg *declcfg.DeclarativeConfig) string {
	t.Helper()
	return "memcached-operator.v" + newestVersion(t, cfg).String()
}

// newestVersion returns the version of the newest release in cfg.
func newestVersion(t *testing.T, cfg *declcfg.DeclarativeConfig) semver.Version {
	t.Helper()
	var newest semver.Version
	for _, b := range cfg.Bundles {
		info, err := describeBundle(b)
		if err != nil {
			t.Fatal(err)
		}
		if info.version.GT(newest) {
			newest = info.version
		}
	}
	return newest
}

func projectCatalog(t *testing.T) *declcfg.DeclarativeConfig {
	t.Helper()
	cfg, err := declcfg.LoadFS(context.Background(), os.DirFS("../../catalog/memcached-operator"))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// channelEntries returns the entries of channel name in cfg, in the catalog's order.
func channelEntries(t *testing.T, cfg *declcfg.DeclarativeConfig, name string) []declcfg.ChannelEntry {
	t.Helper()
	i := slices.IndexFunc(cfg.Channels, func(c declcfg.Channel) bool { return c.Name == name })
	if i < 0 {
		t.Fatalf("no channel %s in the project catalog", name)
	}
	return cfg.Channels[i].Entries
}

// rewriteObjects passes each object of b (its olm.bundle.object properties) to edit and stores
// the result, as `opm render` would have written it.
func rewriteObjects(t *testing.T, b *declcfg.Bundle, edit func(obj map[string]any)) {
	t.Helper()
	b.Objects, b.CsvJSON = nil, ""
	for i, p := range b.Properties {
		if p.Type != property.TypeBundleObject {
			continue
		}
		var bo property.BundleObject
		var obj map[string]any
		if err := json.Unmarshal(p.Value, &bo); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(bo.Data, &obj); err != nil {
			t.Fatal(err)
		}
		edit(obj)
		data, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		b.Properties[i] = property.MustBuildBundleObject(data)
		b.Objects = append(b.Objects, string(data))
		if obj["kind"] == "ClusterServiceVersion" {
			b.CsvJSON = string(data)
		}
	}
}

// bundleCopy returns a deep copy of the catalog's bundle name (its properties are rewritten).
func bundleCopy(t *testing.T, cfg *declcfg.DeclarativeConfig, name string) declcfg.Bundle {
	t.Helper()
	i := slices.IndexFunc(cfg.Bundles, func(b declcfg.Bundle) bool { return b.Name == name })
	if i < 0 {
		t.Fatalf("no bundle %s in the project catalog", name)
	}
	b := cfg.Bundles[i]
	b.Properties = slices.Clone(b.Properties)
	b.Objects = slices.Clone(b.Objects)
	return b
}

// A copy of the project's catalog where only 0.1.0's CSV selects its Deployment with other labels
// (a scaffold bump does that) is refused on every edge out of 0.1.0, in every channel, naming the
// package, the bundles and the Deployment. Source: grafana/grafana-operator#1399 (the automatic
// upgrade failed with "spec.selector: field is immutable").
func TestProjectCatalogSelectorChange(t *testing.T) {
	cfg := projectCatalog(t)
	old := bundleCopy(t, cfg, "memcached-operator.v0.1.0")
	var deployment string
	rewriteObjects(t, &old, func(obj map[string]any) {
		if obj["kind"] != "ClusterServiceVersion" {
			return
		}
		d := obj["spec"].(map[string]any)["install"].(map[string]any)["spec"].(map[string]any)["deployments"].([]any)[0].(map[string]any)
		deployment = d["name"].(string)
		labels := d["spec"].(map[string]any)["selector"].(map[string]any)["matchLabels"].(map[string]any)
		if len(labels) < 2 {
			t.Fatalf("selector %v: want at least two labels to remove one", labels)
		}
		delete(labels, slices.Sorted(maps.Keys(labels))[0])
	})
	cfg.Bundles[slices.IndexFunc(cfg.Bundles, func(b declcfg.Bundle) bool { return b.Name == old.Name })] = old

	got := map[string][]string{} // channel -> newer bundles whose edge from 0.1.0 is refused
	for _, p := range Check(cfg) {
		if !strings.Contains(p.Message, "operator Deployment "+deployment+" keeps its name and changes its selector") {
			t.Errorf("unexpected problem: %s", p)
			continue
		}
		if p.Package != "memcached-operator" || len(p.Bundles) != 2 || p.Bundles[0] != old.Name {
			t.Errorf("problem does not name the package and both bundles: %s", p)
			continue
		}
		got[p.Channel] = append(got[p.Channel], p.Bundles[1])
	}
	for _, ch := range []string{"candidate", "fast", "stable"} {
		// Every later release of the channel, in the channel's order: each offers an upgrade
		// from 0.1.0 (its replaces chain or skipRange).
		var want []string
		for _, e := range channelEntries(t, cfg, ch) {
			if e.Name != old.Name {
				want = append(want, e.Name)
			}
		}
		if !slices.Equal(got[ch], want) {
			t.Errorf("channel %s: refused edges from 0.1.0 to %v, want %v", ch, got[ch], want)
		}
	}
}

// A next release (nextRelease) whose CRD drops v1alpha1, the version every release so far stores, is refused when it
// is added the way `make catalog` adds a release (AddRelease, then Check before anything is
// written), naming the package, each channel, both bundles and v1alpha1; one that keeps
// v1alpha1 served while storing v1beta1 passes. Sources: operator-framework/operator-lifecycle-
// manager#1535 (OLM refuses a CRD update removing a version in status.storedVersions) and #983;
// crossplane/crossplane#4557 (users jumping over the release that served both versions were stuck).
func TestProjectCatalogReleaseDropsStoredCRDVersion(t *testing.T) {
	next := nextRelease(t, projectCatalog(t))
	release := func(crd []crdVersion) []Problem {
		cfg := projectCatalog(t)
		b := bundleCopy(t, cfg, "memcached-operator.v0.2.2")
		b.Name, b.Image = "memcached-operator.v"+next, "registry.example.com/memcached-operator-bundle:v"+next
		for i, p := range b.Properties {
			if p.Type == property.TypePackage {
				b.Properties[i] = property.MustBuildPackage("memcached-operator", next)
			}
		}
		rewriteObjects(t, &b, func(obj map[string]any) {
			switch obj["kind"] {
			case "ClusterServiceVersion":
				obj["metadata"].(map[string]any)["name"] = b.Name
			case "CustomResourceDefinition":
				spec := obj["spec"].(map[string]any)
				template := spec["versions"].([]any)[0].(map[string]any)
				var versions []any
				for _, v := range crd {
					nv := maps.Clone(template)
					nv["name"], nv["served"], nv["storage"] = v.name, v.served, v.storage
					versions = append(versions, nv)
				}
				spec["versions"] = versions
			}
		})
		if err := AddRelease(cfg, b, []string{"candidate", "fast", "stable"}, "stable"); err != nil {
			t.Fatal(err)
		}
		// This test is about the storage-version rule: the CRD upgrade-safety rules (which the
		// copied bundle's CRD fails against newer releases) have their own tests.
		var out []Problem
		for _, p := range Check(cfg) {
			if !strings.HasSuffix(p.Message, crdSafetySuffix) {
				out = append(out, p)
			}
		}
		return out
	}

	problems := release(v1beta1Only)
	refused := map[string]int{}
	for _, p := range problems {
		if !strings.Contains(p.Message, "CRD memcacheds.cache.example.com drops version v1alpha1") || p.Package != "memcached-operator" ||
			len(p.Bundles) != 2 || p.Bundles[1] != "memcached-operator.v"+next {
			t.Errorf("unexpected problem: %s", p)
		}
		refused[p.Channel]++
	}
	for _, ch := range []string{"candidate", "fast", "stable"} {
		// One edge from each release of the package: the skipRange covers every older release,
		// in this channel or another (a subscriber switching channels), the head also by replaces.
		if want := len(projectCatalog(t).Bundles); refused[ch] != want {
			t.Errorf("channel %s: %d edges into %s refused, want %d", ch, refused[ch], next, want)
		}
	}
	if p := release(v1beta1KeepsAlpha); len(p) > 0 {
		t.Errorf("%s keeping v1alpha1 served was refused: %v", next, p)
	}
}
