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
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/operator-framework/operator-registry/alpha/declcfg"
)

const projectTemplate = "../../catalog-template/memcached-operator.yaml"

// The committed template is in the form our tools write (an edit by make release / make promote
// changes only what it edits), and its package, channels, deprecations and bundle names and images
// are the rendered catalog's (the part of `make catalog-check-render` that needs no registry).
func TestProjectTemplate(t *testing.T) {
	tmpl, err := LoadTemplate(projectTemplate)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "t.yaml")
	if err := tmpl.Write(out); err != nil {
		t.Fatal(err)
	}
	if got, want := mustRead(t, out), mustRead(t, projectTemplate); !bytes.Equal(got, want) {
		t.Errorf("the template is not in the form Template.Write writes:\n%s", got)
	}
	cfg := projectCatalog(t)
	if got, want := jsonOf(t, tmpl.Packages), jsonOf(t, cfg.Packages); got != want {
		t.Errorf("template packages %s, catalog %s", got, want)
	}
	if got, want := jsonOf(t, tmpl.Channels), jsonOf(t, cfg.Channels); got != want {
		t.Errorf("template channels %s, catalog %s", got, want)
	}
	if got, want := jsonOf(t, tmpl.Deprecations), jsonOf(t, cfg.Deprecations); got != want {
		t.Errorf("template deprecations %s, catalog %s", got, want)
	}
	var tb, cb []string
	for _, b := range tmpl.Bundles {
		tb = append(tb, b.Name+" "+b.Image)
		if !strings.Contains(b.Image, "@sha256:") {
			t.Errorf("bundle %s: image %s is not pinned by digest", b.Name, b.Image)
		}
	}
	for _, b := range cfg.Bundles {
		cb = append(cb, b.Name+" "+b.Image)
		// opm render-template adds the bundle's own image to its relatedImages.
		if !slices.ContainsFunc(b.RelatedImages, func(r declcfg.RelatedImage) bool { return r.Image == b.Image }) {
			t.Errorf("bundle %s: relatedImages do not list its image %s", b.Name, b.Image)
		}
	}
	slices.Sort(tb)
	slices.Sort(cb)
	if !slices.Equal(tb, cb) {
		t.Errorf("template bundles %v, catalog bundles %v", tb, cb)
	}
}

func TestLoadTemplateRefuses(t *testing.T) {
	for name, content := range map[string]string{
		"not a basic template": "schema: olm.template.semver\n",
		"inline bundle": `schema: olm.template.basic
entries:
- {schema: olm.package, name: p, defaultChannel: c}
- {schema: olm.bundle, name: p.v1.0.0, image: "r/b@sha256:00", properties: []}
`,
		"bundle without name": `schema: olm.template.basic
entries:
- {schema: olm.package, name: p, defaultChannel: c}
- {schema: olm.bundle, image: "r/b@sha256:00"}
`,
		"unknown schema": `schema: olm.template.basic
entries:
- {schema: olm.package, name: p, defaultChannel: c}
- {schema: example.com/other, name: x}
`,
	} {
		file := filepath.Join(t.TempDir(), "t.yaml")
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadTemplate(file); err == nil {
			t.Errorf("%s: LoadTemplate accepted it", name)
		}
	}
}

// make catalog then make promote, on a copy of the project's template: the release enters
// candidate only, as {schema, name, image}; promoted, it heads fast; the other channels, the
// deprecations and the other bundles are unchanged.
func TestTemplateAddPromote(t *testing.T) {
	file := filepath.Join(t.TempDir(), "t.yaml")
	if err := os.WriteFile(file, mustRead(t, projectTemplate), 0o644); err != nil {
		t.Fatal(err)
	}
	before, err := LoadTemplate(file)
	if err != nil {
		t.Fatal(err)
	}
	next := nextRelease(t, projectCatalog(t))
	img := "registry.example.com/memcached-operator-bundle@sha256:" + strings.Repeat("ab", 32)
	if err := add([]string{"-template", file, "-version", next, "-image", img, "-channels", "candidate", "-default-channel", "stable"}); err != nil {
		t.Fatal(err)
	}
	if err := add([]string{"-template", file, "-version", next, "-image", img, "-channels", "candidate", "-default-channel", "stable"}); err == nil {
		t.Error("a second add of the same version succeeded: released bundles are never rewritten")
	}
	if err := promote([]string{"-template", file, "-version", next, "-channel", "fast"}); err != nil {
		t.Fatal(err)
	}
	after, err := LoadTemplate(file)
	if err != nil {
		t.Fatal(err)
	}
	name := "memcached-operator.v" + next
	if got, want := after.Bundles[len(after.Bundles)-1], (TemplateBundle{Schema: declcfg.SchemaBundle, Name: name, Image: img}); got != want {
		t.Errorf("last bundle entry %+v, want %+v", got, want)
	}
	if got, want := after.Bundles[:len(after.Bundles)-1], before.Bundles; !slices.Equal(got, want) {
		t.Errorf("bundles before the release changed: %v, want %v", got, want)
	}
	if got, want := jsonOf(t, after.Deprecations), jsonOf(t, before.Deprecations); got != want {
		t.Errorf("deprecations changed: %s, want %s", got, want)
	}
	for _, ch := range after.Channels {
		heads := Heads(ch)
		switch ch.Name {
		case "candidate", "fast":
			if !slices.Equal(heads, []string{name}) {
				t.Errorf("channel %s heads %v, want [%s]", ch.Name, heads, name)
			}
			last := ch.Entries[len(ch.Entries)-1]
			if last.SkipRange != "<"+next || last.Replaces == "" {
				t.Errorf("channel %s: new entry %+v, want replaces the previous head and skipRange <%s", ch.Name, last, next)
			}
		case "stable":
			i := slices.IndexFunc(before.Channels, func(c declcfg.Channel) bool { return c.Name == "stable" })
			if jsonOf(t, ch) != jsonOf(t, before.Channels[i]) {
				t.Errorf("stable changed by a release and a promotion to fast: %s", jsonOf(t, ch))
			}
		}
	}
}

func TestImageMap(t *testing.T) {
	m, err := ParseImageMap("registry.example.com/op-bundle=127.0.0.1:5003/op-bundle")
	if err != nil {
		t.Fatal(err)
	}
	d := "@sha256:" + strings.Repeat("0", 64)
	for _, c := range []struct {
		in, fwd, back string
	}{
		{"registry.example.com/op-bundle" + d, "127.0.0.1:5003/op-bundle" + d, "registry.example.com/op-bundle" + d},
		{"127.0.0.1:5003/op-bundle" + d, "127.0.0.1:5003/op-bundle" + d, "registry.example.com/op-bundle" + d},
		// Only the repository itself, by digest.
		{"registry.example.com/op-bundle:v1", "registry.example.com/op-bundle:v1", "registry.example.com/op-bundle:v1"},
		{"registry.example.com/op-bundle-other" + d, "registry.example.com/op-bundle-other" + d, "registry.example.com/op-bundle-other" + d},
		{"docker.io/library/memcached:1.6", "docker.io/library/memcached:1.6", "docker.io/library/memcached:1.6"},
	} {
		if got, _ := m.Forward(c.in); got != c.fwd {
			t.Errorf("Forward(%s) = %s, want %s", c.in, got, c.fwd)
		}
		if got, _ := m.Back(c.in); got != c.back {
			t.Errorf("Back(%s) = %s, want %s", c.in, got, c.back)
		}
	}
	for _, s := range []string{"", "a", "=b", "a="} {
		if _, err := ParseImageMap(s); err == nil {
			t.Errorf("ParseImageMap(%q) succeeded", s)
		}
	}

	cfg := &declcfg.DeclarativeConfig{Bundles: []declcfg.Bundle{{
		Name: "b", Image: "127.0.0.1:5003/op-bundle" + d,
		RelatedImages: []declcfg.RelatedImage{{Image: "127.0.0.1:5003/op-bundle" + d}, {Name: "memcached", Image: "docker.io/library/memcached:1.6"}},
	}}}
	if err := m.MapBack(cfg); err != nil {
		t.Fatal(err)
	}
	b := cfg.Bundles[0]
	if b.Image != "registry.example.com/op-bundle"+d || b.RelatedImages[0].Image != b.Image || b.RelatedImages[1].Image != "docker.io/library/memcached:1.6" {
		t.Errorf("after MapBack: %+v", b)
	}
	cfg.Bundles[0].RelatedImages = append(cfg.Bundles[0].RelatedImages, declcfg.RelatedImage{Image: "127.0.0.1:5003/op-bundle:v1"})
	if err := m.MapBack(cfg); err == nil {
		t.Error("MapBack left a local reference by tag without an error")
	}
}

// Render runs opm on the template with local names and maps them back; a template entry whose
// name is not the image's bundle is refused.
func TestRender(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Fatalf("no sh to run the stand-in opm: %v", err)
	}
	tmpl, err := LoadTemplate(projectTemplate)
	if err != nil {
		t.Fatal(err)
	}
	m := ImageMap{From: "registry.example.com/memcached-operator-bundle", To: "127.0.0.1:5003/memcached-operator-bundle"}
	// What opm would render: the committed catalog with local names (opm is tested upstream; this
	// checks our side: the names it is given and what we do with its output).
	cfg := projectCatalog(t)
	for i := range cfg.Bundles {
		b := &cfg.Bundles[i]
		b.Image, _ = m.Forward(b.Image)
		for j := range b.RelatedImages {
			b.RelatedImages[j].Image, _ = m.Forward(b.RelatedImages[j].Image)
		}
	}
	var rendered bytes.Buffer
	if err := declcfg.WriteYAML(*cfg, &rendered); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out.yaml")
	if err := os.WriteFile(out, rendered.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	args := filepath.Join(dir, "args")
	fakeOpm := filepath.Join(dir, "opm")
	script := "#!/bin/sh\necho \"$@\" >" + args + "\nfor a; do f=$a; done\ngrep -q 'image: registry.example.com' \"$f\" && exit 3\nexec cat " + out + "\n"
	if err := os.WriteFile(fakeOpm, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := Render(context.Background(), tmpl, fakeOpm, m, true)
	if err != nil {
		t.Fatal(err)
	}
	if a := string(mustRead(t, args)); !strings.HasPrefix(a, "alpha render-template basic -o yaml ") || !strings.Contains(a, "--use-http") {
		t.Errorf("opm ran with %q", a)
	}
	want := projectCatalog(t)
	byName := func(a, b declcfg.Bundle) int { return strings.Compare(a.Name, b.Name) }
	slices.SortFunc(got.Bundles, byName)
	slices.SortFunc(want.Bundles, byName)
	for _, part := range [][2]any{{got.Packages, want.Packages}, {got.Channels, want.Channels}, {got.Deprecations, want.Deprecations}, {got.Bundles, want.Bundles}} {
		if g, w := jsonOf(t, part[0]), jsonOf(t, part[1]); g != w {
			t.Errorf("Render did not map the names back to the committed catalog:\n%.2000s\nwant\n%.2000s", g, w)
		}
	}

	tmpl.Bundles[0].Name = "memcached-operator.v9.9.9"
	if _, err := Render(context.Background(), tmpl, fakeOpm, m, true); err == nil || !strings.Contains(err.Error(), "image holds") {
		t.Errorf("Render with a wrong bundle name: %v", err)
	}
}
