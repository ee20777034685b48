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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
	"github.com/operator-framework/operator-registry/alpha/property"
	"sigs.k8s.io/yaml"
)

// BasicTemplateSchema is the schema of an opm basic catalog template (`opm alpha render-template
// basic`, operator-registry alpha/template/basic): a document {schema, entries} whose entries are
// FBC blobs, olm.bundle blobs reduced to an image that opm renders from the registry.
const BasicTemplateSchema = "olm.template.basic"

// Template is the project's catalog source: an opm basic template holding one package, its
// channels (entries with replaces/skipRange), its deprecations and one olm.bundle per release.
// Each bundle entry has the schema, the image (the public name pinned by digest) and the bundle's
// name, which opm ignores when rendering (it takes the name from the image) but our tools need to
// edit channels without a registry; Render checks that the name is the rendered one.
type Template struct {
	Packages     []declcfg.Package
	Channels     []declcfg.Channel
	Deprecations []declcfg.Deprecation
	Bundles      []TemplateBundle
}

// TemplateBundle is a release in the template: Name is "<package>.v<version>" (operator-sdk's CSV
// name), Image the bundle image reference.
type TemplateBundle struct {
	Schema string `json:"schema"`
	Name   string `json:"name"`
	Image  string `json:"image"`
}

type templateDoc struct {
	Schema  string          `json:"schema"`
	Entries []*declcfg.Meta `json:"entries"`
}

// LoadTemplate reads a basic template from file. It returns an error when the file does not parse,
// is not a basic template, has a blob of another schema than olm.package, olm.channel,
// olm.deprecations and olm.bundle, or a bundle entry without a name or image or with other fields.
func LoadTemplate(file string) (*Template, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("failed to read template: %w", err)
	}
	var doc templateDoc
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("failed to parse template %s: %w", file, err)
	}
	if doc.Schema != BasicTemplateSchema {
		return nil, fmt.Errorf("template %s has schema %q, want %q", file, doc.Schema, BasicTemplateSchema)
	}
	t := &Template{}
	for i, m := range doc.Entries {
		if m == nil {
			return nil, fmt.Errorf("template %s: entry %d is empty", file, i)
		}
		var target any
		switch m.Schema {
		case declcfg.SchemaPackage:
			target = &declcfg.Package{}
		case declcfg.SchemaChannel:
			target = &declcfg.Channel{}
		case declcfg.SchemaDeprecation:
			target = &declcfg.Deprecation{}
		case declcfg.SchemaBundle:
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(m.Blob, &fields); err != nil {
				return nil, fmt.Errorf("template %s: entry %d: %w", file, i, err)
			}
			for k := range fields {
				if k != "schema" && k != "name" && k != "image" {
					return nil, fmt.Errorf("template %s: bundle entry %d has field %q: a bundle entry is {schema, name, image}, opm renders the rest from the image", file, i, k)
				}
			}
			target = &TemplateBundle{}
		default:
			return nil, fmt.Errorf("template %s: entry %d has schema %q, not one of the package, channel, deprecations and bundle schemas", file, i, m.Schema)
		}
		if err := json.Unmarshal(m.Blob, target); err != nil {
			return nil, fmt.Errorf("template %s: entry %d (%s): %w", file, i, m.Schema, err)
		}
		switch v := target.(type) {
		case *declcfg.Package:
			t.Packages = append(t.Packages, *v)
		case *declcfg.Channel:
			t.Channels = append(t.Channels, *v)
		case *declcfg.Deprecation:
			t.Deprecations = append(t.Deprecations, *v)
		case *TemplateBundle:
			if v.Name == "" || v.Image == "" {
				return nil, fmt.Errorf("template %s: bundle entry %d needs a name and an image", file, i)
			}
			t.Bundles = append(t.Bundles, *v)
		}
	}
	if len(t.Packages) != 1 {
		return nil, fmt.Errorf("template %s has %d packages, want 1", file, len(t.Packages))
	}
	return t, nil
}

// Write writes t to file as YAML: the package, the channels, the deprecations, then the bundles,
// each in the order of t.
func (t *Template) Write(file string) error {
	doc := templateDoc{Schema: BasicTemplateSchema}
	add := func(schema, pkg, name string, v any) error {
		blob, err := json.Marshal(v)
		if err != nil {
			return err
		}
		doc.Entries = append(doc.Entries, &declcfg.Meta{Schema: schema, Package: pkg, Name: name, Blob: blob})
		return nil
	}
	for _, p := range t.Packages {
		if err := add(p.Schema, p.Name, p.Name, p); err != nil {
			return fmt.Errorf("failed to write template: %w", err)
		}
	}
	for _, c := range t.Channels {
		if err := add(c.Schema, c.Package, c.Name, c); err != nil {
			return fmt.Errorf("failed to write template: %w", err)
		}
	}
	for _, d := range t.Deprecations {
		if err := add(d.Schema, d.Package, "", d); err != nil {
			return fmt.Errorf("failed to write template: %w", err)
		}
	}
	for _, b := range t.Bundles {
		if err := add(b.Schema, "", b.Name, b); err != nil {
			return fmt.Errorf("failed to write template: %w", err)
		}
	}
	out, err := yaml.Marshal(doc)
	if err != nil {
		return fmt.Errorf("failed to write template: %w", err)
	}
	header := "# The catalog's source: an opm basic template. catalog/ is rendered from it by `make catalog-render`\n" +
		"# (opm alpha render-template basic, each bundle from its image); edit it with `make release` and\n" +
		"# `make promote`, never catalog/ by hand. Bundle entries: {schema, name, image}, image by digest.\n"
	if err := os.WriteFile(file, append([]byte(header), out...), 0o644); err != nil {
		return fmt.Errorf("failed to write template: %w", err)
	}
	return nil
}

// Package returns the name of the template's package.
func (t *Template) Package() string { return t.Packages[0].Name }

// BundleVersion returns the version of the bundle named name of package pkg, read from the name
// ("<pkg>.v<version>", the CSV name operator-sdk generates). Render checks the rendered bundle has
// that name, and `catalog-tool check` that its olm.package version is the same.
func BundleVersion(pkg, name string) (semver.Version, error) {
	v, ok := strings.CutPrefix(name, pkg+".v")
	if !ok {
		return semver.Version{}, fmt.Errorf("bundle name %q is not %q", name, pkg+".v<version>")
	}
	ver, err := semver.Parse(v)
	if err != nil {
		return semver.Version{}, fmt.Errorf("bundle name %q: version is not semver: %w", name, err)
	}
	return ver, nil
}

// Config returns t as a DeclarativeConfig for AddRelease and Promote: package, channels and
// deprecations as they are, each bundle a stub with its name, package, image and olm.package
// property (version from its name), nothing opm renders from the image.
func (t *Template) Config() (*declcfg.DeclarativeConfig, error) {
	cfg := &declcfg.DeclarativeConfig{
		Packages:     slices.Clone(t.Packages),
		Channels:     slices.Clone(t.Channels),
		Deprecations: slices.Clone(t.Deprecations),
	}
	pkg := t.Package()
	for _, b := range t.Bundles {
		v, err := BundleVersion(pkg, b.Name)
		if err != nil {
			return nil, err
		}
		cfg.Bundles = append(cfg.Bundles, declcfg.Bundle{
			Schema: declcfg.SchemaBundle, Name: b.Name, Package: pkg, Image: b.Image,
			Properties: []property.Property{property.MustBuildPackage(pkg, v.String())},
		})
	}
	return cfg, nil
}

// SetConfig takes package, channels and deprecations from cfg and its bundles as template entries
// (name and image), keeping the template's order and appending new bundles.
func (t *Template) SetConfig(cfg *declcfg.DeclarativeConfig) {
	t.Packages, t.Channels, t.Deprecations = cfg.Packages, cfg.Channels, cfg.Deprecations
	for _, b := range cfg.Bundles {
		if !slices.ContainsFunc(t.Bundles, func(x TemplateBundle) bool { return x.Name == b.Name }) {
			t.Bundles = append(t.Bundles, TemplateBundle{Schema: declcfg.SchemaBundle, Name: b.Name, Image: b.Image})
		}
	}
}

// ImageMap maps the repository part of image references from one name to another: From is the
// public repository the catalog names (registry.example.com/memcached-operator-bundle), To the
// repository the same images are pulled from while rendering (the local registry).
//
// Why our own mapping: opm render-template pulls each bundle image by the name in the template and
// writes that name into the catalog; it has no option to pull from a mirror. A registries.conf
// mirror does not fit either: containers/image falls back to the public host when the mirror
// misses, which sends lookups off the machine. So the template is rendered with local names and
// the names are mapped back; a reference is only rewritten when its repository is exactly From
// (or To) and it is pinned by digest, so the content is the same whichever registry served it.
type ImageMap struct {
	From, To string
}

// ParseImageMap parses "FROM=TO".
func ParseImageMap(s string) (ImageMap, error) {
	from, to, ok := strings.Cut(s, "=")
	if !ok || from == "" || to == "" {
		return ImageMap{}, fmt.Errorf("image map %q is not PUBLIC_REPO=LOCAL_REPO", s)
	}
	return ImageMap{From: from, To: to}, nil
}

func swapRepo(image, from, to string) (string, bool) {
	rest, ok := strings.CutPrefix(image, from+"@sha256:")
	if !ok {
		return image, false
	}
	return to + "@sha256:" + rest, true
}

// Forward returns image with its repository From replaced by To (when it is From, by digest).
func (m ImageMap) Forward(image string) (string, bool) { return swapRepo(image, m.From, m.To) }

// Back returns image with its repository To replaced by From (when it is To, by digest).
func (m ImageMap) Back(image string) (string, bool) { return swapRepo(image, m.To, m.From) }

// MapBack rewrites, in every bundle of cfg, the image and the relatedImages that name m.To by
// digest to m.From. It returns an error when a reference to m.To is left (one not by digest).
func (m ImageMap) MapBack(cfg *declcfg.DeclarativeConfig) error {
	for i := range cfg.Bundles {
		b := &cfg.Bundles[i]
		b.Image, _ = m.Back(b.Image)
		for j := range b.RelatedImages {
			b.RelatedImages[j].Image, _ = m.Back(b.RelatedImages[j].Image)
		}
		refs := []string{b.Image}
		for _, r := range b.RelatedImages {
			refs = append(refs, r.Image)
		}
		for _, r := range refs {
			if strings.HasPrefix(r, m.To+"@") || strings.HasPrefix(r, m.To+":") {
				return fmt.Errorf("bundle %s still refers to %s after mapping %s back to %s: only references by digest are mapped", b.Name, r, m.To, m.From)
			}
		}
	}
	return nil
}

// Render renders t with `opm alpha render-template basic` (opm is the binary, useHTTP adds
// --use-http for a plain-HTTP registry on loopback): bundle images are pulled under m.To and named
// m.From in the result. It returns an error when opm fails, a bundle image is not m.From by digest,
// or a rendered bundle's name is not the name its template entry gives.
func Render(ctx context.Context, t *Template, opm string, m ImageMap, useHTTP bool) (*declcfg.DeclarativeConfig, error) {
	local := *t
	local.Bundles = nil
	want := map[string]string{} // local image -> template name
	for _, b := range t.Bundles {
		img, ok := m.Forward(b.Image)
		if !ok {
			return nil, fmt.Errorf("bundle %s: image %s is not %s@sha256:...: the template pins every bundle image by digest", b.Name, b.Image, m.From)
		}
		want[img] = b.Name
		local.Bundles = append(local.Bundles, TemplateBundle{Schema: b.Schema, Name: b.Name, Image: img})
	}
	dir, err := os.MkdirTemp("", "catalog-render-")
	if err != nil {
		return nil, fmt.Errorf("failed to create a temporary directory: %w", err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "template.yaml")
	if err := local.Write(file); err != nil {
		return nil, err
	}
	args := []string{"alpha", "render-template", "basic", "-o", "yaml", file}
	if useHTTP {
		args = append(args, "--use-http")
	}
	var out, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, opm, args...)
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("failed to run opm %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	cfg, err := declcfg.LoadReader(&out)
	if err != nil {
		return nil, fmt.Errorf("failed to load opm's rendered catalog: %w", err)
	}
	for _, b := range cfg.Bundles {
		name, ok := want[b.Image]
		if !ok {
			return nil, fmt.Errorf("opm rendered bundle %s from %s, an image not in the template", b.Name, b.Image)
		}
		if name != b.Name {
			return nil, fmt.Errorf("the template names the bundle of %s %q, but the image holds %q: fix the template entry", b.Image, name, b.Name)
		}
		delete(want, b.Image)
	}
	if len(want) > 0 {
		return nil, fmt.Errorf("opm rendered no bundle for %v", want)
	}
	if err := m.MapBack(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// WriteCatalog writes cfg into dir in the project's layout: package.yaml, channels.yaml,
// deprecations.yaml (when there are deprecations) and bundles/<bundle>.yaml. dir must not exist.
func WriteCatalog(dir string, cfg *declcfg.DeclarativeConfig) error {
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("failed to write the catalog: %s exists", dir)
	}
	if err := os.MkdirAll(filepath.Join(dir, "bundles"), 0o755); err != nil {
		return fmt.Errorf("failed to write the catalog: %w", err)
	}
	files := map[string]declcfg.DeclarativeConfig{
		"package.yaml":  {Packages: cfg.Packages},
		"channels.yaml": {Channels: cfg.Channels},
	}
	if len(cfg.Deprecations) > 0 {
		files["deprecations.yaml"] = declcfg.DeclarativeConfig{Deprecations: cfg.Deprecations}
	}
	for _, b := range cfg.Bundles {
		files[filepath.Join("bundles", b.Name+".yaml")] = declcfg.DeclarativeConfig{Bundles: []declcfg.Bundle{b}}
	}
	if len(cfg.Others) > 0 {
		return fmt.Errorf("failed to write the catalog: %d blobs of unknown schema", len(cfg.Others))
	}
	return writeFiles(dir, files)
}
