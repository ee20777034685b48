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

// Command catalog maintains the project's file-based catalog (FBC) with operator-registry's declcfg.
//
// The catalog's source is an opm basic template (catalog-template/memcached-operator.yaml, see
// template.go); catalog/ is rendered from it by opm (hack/release/catalog-render.sh, catalog render).
//
//	catalog add -template T -version X.Y.Z -image IMG -channels c1,c2 -default-channel c [-dir DIR -bundle-dir DIR -opm bin/opm]
//	    adds the release to the template (AddRelease): a bundle entry {schema, name, image} and an
//	    entry as the new head of each channel. With -dir (a test copy without a registry) it also
//	    writes the release into that rendered catalog: the bundle as `opm render` renders -bundle-dir,
//	    the package, channels and deprecations from the template. Bundles are never rewritten.
//	catalog promote -template T -version X.Y.Z -channel fast|stable [-dir DIR]
//	    makes the release the new head of the channel in the template (Promote): it must already be
//	    in the channel before it (candidate, then fast, then stable). With -dir it also writes the
//	    template's channels into that rendered catalog (opm passes them through unchanged).
//	catalog render -template T -opm bin/opm -image-map PUBLIC=LOCAL [-use-http] -out DIR
//	    renders the template with `opm alpha render-template basic`, bundle images pulled under their
//	    LOCAL names and named PUBLIC in the result (ImageMap), checks it (Check) and writes it into DIR
//	    in our layout (WriteCatalog).
//	catalog template-bundles -template T
//	    prints "NAME VERSION IMAGE" for each bundle of the template.
//	catalog check DIR...
//	    prints every problem of the catalogs (Check) and exits 1 if there is one: what opm validate
//	    refuses, blobs of unknown schema, the graph's shape, and every upgrade edge OLM offers that
//	    it could not carry out (versions not increasing, a stored CRD version dropped or no longer
//	    served, a CRD change OLM v1's CRD upgrade-safety preflight refuses, an operator Deployment's
//	    selector changed, subscribers stranded by a channel switch), and malformed skipRanges.
//	catalog check-crd-upgrade -dir catalog/memcached-operator -bundle-dir bundle
//	    fails when the CRDs of the next release (bundle/) fail OLM v1's CRD upgrade-safety rules
//	    against a release of the catalog (CheckNextCRDs), before the release is cut.
//	catalog check-version -dir catalog/memcached-operator -version X.Y.Z -bundle-dir bundle
//	    fails when the head's bundle (bundle/, built as VERSION) carries a released version's name
//	    with other content, or a version not newer than every release (CheckHeadVersion).
//	catalog check-changelog -dir catalog/memcached-operator -changelog CHANGELOG.md
//	    fails unless every release in the catalog has a section in the changelog (CheckChangelog).
//	catalog check-disconnected -bundle-dir bundle
//	    fails when the bundle's CSV says features.operators.openshift.io/disconnected "true" and
//	    refers to an image by tag (CheckDisconnected).
//	catalog check-dockerfiles -root DIR
//	    statically checks Dockerfile, bundle.Dockerfile, catalog.Dockerfile and scorecard.Dockerfile (CheckDockerfile):
//	    they parse, their base images have defaults, their COPY/ADD sources exist and no ignore file
//	    (<Dockerfile>.dockerignore, .dockerignore, ...) hides any of them, bundle labels match.
//	catalog with-head -in DIR -out DIR -bundle-dir DIR [-opm bin/opm]
//	    writes into -out (which must not exist) the catalog of package directory -in with the bundle
//	    -bundle-dir renders to as its head (WithHead): for the OLM tests, the working tree's bundle.
//	catalog blank-images -in DIR -out DIR [-max-version V]
//	    writes a copy of the catalog with every bundle image blanked (and, with -max-version, without
//	    the bundles newer than V) for hack/olm/catalog-serve.sh (PrepareLocalServe).
//
// Every error names the package, channel and bundles involved.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
	"github.com/operator-framework/operator-registry/alpha/property"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "add":
		err = add(os.Args[2:])
	case "promote":
		err = promote(os.Args[2:])
	case "render":
		err = render(os.Args[2:])
	case "template-bundles":
		err = templateBundles(os.Args[2:])
	case "check":
		err = check(os.Args[2:])
	case "check-changelog":
		err = checkChangelog(os.Args[2:])
	case "check-release":
		err = checkRelease(os.Args[2:])
	case "check-disconnected":
		err = checkDisconnected(os.Args[2:])
	case "check-crd-upgrade":
		err = checkCRDUpgrade(os.Args[2:])
	case "check-version":
		err = checkVersion(os.Args[2:])
	case "check-dockerfiles":
		err = checkDockerfiles(os.Args[2:])
	case "blank-images":
		err = blankImages(os.Args[2:])
	case "with-head":
		err = withHead(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "catalog %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: catalog add -template T -version X.Y.Z -image IMG -channels C1,C2 -default-channel C [-dir DIR -bundle-dir DIR -opm PATH]\n       catalog promote -template T -version X.Y.Z -channel fast|stable [-dir DIR]\n       catalog render -template T -opm PATH -image-map PUBLIC=LOCAL [-use-http] -out DIR\n       catalog template-bundles -template T\n       catalog check DIR...\n       catalog check-changelog -dir DIR -changelog FILE\n       catalog check-release -version X.Y.Z [-dir DIR -changelog FILE]\n       catalog check-disconnected -bundle-dir DIR\n       catalog check-version -version X.Y.Z [-dir DIR -bundle-dir DIR]\n       catalog check-dockerfiles [-root DIR]\n       catalog blank-images -in DIR -out DIR [-max-version V]\n       catalog with-head -in DIR -out DIR -bundle-dir DIR [-opm PATH]")
	os.Exit(2)
}

func add(args []string) error {
	fs := flag.NewFlagSet("add", flag.ExitOnError)
	tmpl := fs.String("template", "catalog-template/memcached-operator.yaml", "catalog template (opm basic template)")
	version := fs.String("version", "", "version of the release")
	image := fs.String("image", "", "bundle image reference of the release (public name by digest)")
	channels := fs.String("channels", "", "comma-separated channels of the release")
	defaultChannel := fs.String("default-channel", "", "default channel of the package")
	dir := fs.String("dir", "", "offline: also write the release into this rendered catalog directory (test copies without a registry)")
	bundleDir := fs.String("bundle-dir", "bundle", "offline (-dir): bundle directory rendered with opm render")
	opm := fs.String("opm", "opm", "offline (-dir): opm binary")
	_ = fs.Parse(args)
	if *image == "" {
		return fmt.Errorf("-image is required")
	}
	t, err := LoadTemplate(*tmpl)
	if err != nil {
		return err
	}
	v, err := semver.Parse(*version)
	if err != nil {
		return fmt.Errorf("-version %q is not a semver version: %w", *version, err)
	}
	cfg, err := t.Config()
	if err != nil {
		return err
	}
	pkg := t.Package()
	bundle := declcfg.Bundle{Schema: declcfg.SchemaBundle, Name: pkg + ".v" + v.String(), Package: pkg, Image: *image,
		Properties: []property.Property{property.MustBuildPackage(pkg, v.String())}}
	if err := AddRelease(cfg, bundle, splitList(*channels), *defaultChannel); err != nil {
		return err
	}
	if *dir != "" {
		// A test copy without a registry: the bundle as opm renders it from its directory, the
		// package, channels and deprecations as opm passes them through from the template.
		rendered, err := renderBundleDir(*opm, *bundleDir)
		if err != nil {
			return err
		}
		if rendered.Name != bundle.Name {
			return fmt.Errorf("%s holds bundle %s, not %s", *bundleDir, rendered.Name, bundle.Name)
		}
		rendered.Image = *image
		if err := syncCatalog(*dir, cfg, &rendered); err != nil {
			return err
		}
	}
	t.SetConfig(cfg)
	if err := t.Write(*tmpl); err != nil {
		return err
	}
	fmt.Printf("added %s (%s) to channels %s of %s; default channel %s\n", bundle.Name, bundle.Image, *channels, *tmpl, *defaultChannel)
	return nil
}

// renderBundleDir renders the bundle directory dir with `opm render`.
func renderBundleDir(opm, dir string) (declcfg.Bundle, error) {
	var out, stderr bytes.Buffer
	cmd := exec.Command(opm, "render", dir, "-o", "yaml")
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return declcfg.Bundle{}, fmt.Errorf("failed to run opm render %s: %w: %s", dir, err, stderr.String())
	}
	rendered, err := declcfg.LoadReader(&out)
	if err != nil {
		return declcfg.Bundle{}, fmt.Errorf("failed to load the rendered bundle: %w", err)
	}
	if len(rendered.Bundles) != 1 {
		return declcfg.Bundle{}, fmt.Errorf("opm render %s produced %d bundles, want 1", dir, len(rendered.Bundles))
	}
	return rendered.Bundles[0], nil
}

// syncCatalog writes into the rendered catalog dir the package, channels and deprecations of the
// template's cfg (opm's basic template passes those blobs through unchanged) and, when newBundle is
// not nil, that bundle's file; the bundles already in dir are kept. The result is checked first.
func syncCatalog(dir string, cfg *declcfg.DeclarativeConfig, newBundle *declcfg.Bundle) error {
	current, err := declcfg.LoadFS(context.Background(), os.DirFS(dir))
	if err != nil {
		return fmt.Errorf("failed to load catalog %s: %w", dir, err)
	}
	next := &declcfg.DeclarativeConfig{Packages: cfg.Packages, Channels: cfg.Channels, Deprecations: cfg.Deprecations, Bundles: current.Bundles}
	files := map[string]declcfg.DeclarativeConfig{
		"package.yaml":  {Packages: cfg.Packages},
		"channels.yaml": {Channels: cfg.Channels},
	}
	if len(cfg.Deprecations) > 0 {
		files["deprecations.yaml"] = declcfg.DeclarativeConfig{Deprecations: cfg.Deprecations}
	}
	if newBundle != nil {
		next.Bundles = append(next.Bundles, *newBundle)
		files[filepath.Join("bundles", newBundle.Name+".yaml")] = declcfg.DeclarativeConfig{Bundles: []declcfg.Bundle{*newBundle}}
	}
	if problems := Check(next); len(problems) > 0 {
		return fmt.Errorf("the catalog would be invalid:\n%s", joinProblems(problems))
	}
	return writeFiles(dir, files)
}

// writeFiles writes each part of a catalog to its file (a path relative to dir) as YAML.
func writeFiles(dir string, files map[string]declcfg.DeclarativeConfig) error {
	for name, part := range files {
		var buf bytes.Buffer
		if err := declcfg.WriteYAML(part, &buf); err != nil {
			return fmt.Errorf("failed to write %s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("failed to write %s: %w", name, err)
		}
	}
	return nil
}

func promote(args []string) error {
	fs := flag.NewFlagSet("promote", flag.ExitOnError)
	tmpl := fs.String("template", "catalog-template/memcached-operator.yaml", "catalog template (opm basic template)")
	dir := fs.String("dir", "", "also write the channels into this rendered catalog directory")
	version := fs.String("version", "", "version of the release to promote")
	channel := fs.String("channel", "", "channel to promote it to (fast or stable)")
	_ = fs.Parse(args)
	v, err := semver.Parse(*version)
	if err != nil {
		return fmt.Errorf("-version %q is not a semver version: %w", *version, err)
	}
	t, err := LoadTemplate(*tmpl)
	if err != nil {
		return err
	}
	cfg, err := t.Config()
	if err != nil {
		return err
	}
	if err := Promote(cfg, t.Package(), v, *channel); err != nil {
		return err
	}
	if *dir != "" {
		if err := syncCatalog(*dir, cfg, nil); err != nil {
			return err
		}
	}
	t.SetConfig(cfg)
	if err := t.Write(*tmpl); err != nil {
		return err
	}
	fmt.Printf("promoted %s %s to channel %s of %s\n", t.Package(), v, *channel, *tmpl)
	return nil
}

func render(args []string) error {
	fs := flag.NewFlagSet("render", flag.ExitOnError)
	tmpl := fs.String("template", "catalog-template/memcached-operator.yaml", "catalog template (opm basic template)")
	out := fs.String("out", "", "directory to write the rendered catalog of the package into (must not exist)")
	opm := fs.String("opm", "opm", "opm binary")
	imageMap := fs.String("image-map", "", "PUBLIC_REPO=LOCAL_REPO: pull the bundle images from LOCAL_REPO, name them PUBLIC_REPO")
	useHTTP := fs.Bool("use-http", false, "pull over plain HTTP (a registry on loopback)")
	_ = fs.Parse(args)
	if *out == "" {
		return fmt.Errorf("-out is required")
	}
	m, err := ParseImageMap(*imageMap)
	if err != nil {
		return err
	}
	t, err := LoadTemplate(*tmpl)
	if err != nil {
		return err
	}
	cfg, err := Render(context.Background(), t, *opm, m, *useHTTP)
	if err != nil {
		return err
	}
	if problems := Check(cfg); len(problems) > 0 {
		return fmt.Errorf("the rendered catalog is invalid:\n%s", joinProblems(problems))
	}
	if err := WriteCatalog(*out, cfg); err != nil {
		return err
	}
	fmt.Printf("rendered %s (%d bundles) into %s\n", *tmpl, len(cfg.Bundles), *out)
	return nil
}

// templateBundles prints "NAME VERSION IMAGE" for each bundle of the template.
func templateBundles(args []string) error {
	fs := flag.NewFlagSet("template-bundles", flag.ExitOnError)
	tmpl := fs.String("template", "catalog-template/memcached-operator.yaml", "catalog template (opm basic template)")
	_ = fs.Parse(args)
	t, err := LoadTemplate(*tmpl)
	if err != nil {
		return err
	}
	for _, b := range t.Bundles {
		v, err := BundleVersion(t.Package(), b.Name)
		if err != nil {
			return err
		}
		fmt.Println(b.Name, v, b.Image)
	}
	return nil
}

func check(dirs []string) error {
	if len(dirs) == 0 {
		return fmt.Errorf("no catalog directory given")
	}
	var all []Problem
	for _, d := range dirs {
		cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(d))
		if err != nil {
			return fmt.Errorf("failed to load catalog %s: %w", d, err)
		}
		all = append(all, Check(cfg)...)
	}
	if len(all) > 0 {
		return fmt.Errorf("%d problems:\n%s", len(all), joinProblems(all))
	}
	fmt.Printf("catalog graph OK: %s\n", strings.Join(dirs, " "))
	return nil
}

func joinProblems(ps []Problem) string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = "  " + p.String()
	}
	return strings.Join(lines, "\n")
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// changelogFlags are the flags of the subcommands that read the catalog and the changelog.
type changelogFlags struct {
	dir, pkg, changelog *string
}

// addChangelogFlags defines -dir, -package and -changelog on fs.
func addChangelogFlags(fs *flag.FlagSet) changelogFlags {
	return changelogFlags{
		dir:       fs.String("dir", "catalog/memcached-operator", "catalog directory of the package"),
		pkg:       fs.String("package", "memcached-operator", "package name"),
		changelog: fs.String("changelog", "CHANGELOG.md", "changelog file"),
	}
}

// open loads the catalog directory and opens the changelog; the caller closes the file.
func (c changelogFlags) open() (*declcfg.DeclarativeConfig, *os.File, error) {
	cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(*c.dir))
	if err != nil {
		return nil, nil, fmt.Errorf("failed to load catalog %s: %w", *c.dir, err)
	}
	f, err := os.Open(*c.changelog)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to open the changelog: %w", err)
	}
	return cfg, f, nil
}

func checkChangelog(args []string) error {
	fs := flag.NewFlagSet("check-changelog", flag.ExitOnError)
	c := addChangelogFlags(fs)
	_ = fs.Parse(args)
	cfg, f, err := c.open()
	if err != nil {
		return err
	}
	defer f.Close()
	problems, err := CheckChangelog(f, cfg, *c.pkg)
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s: %d problems:\n  %s", *c.changelog, len(problems), strings.Join(problems, "\n  "))
	}
	fmt.Printf("%s: every release of %s has a section\n", *c.changelog, *c.dir)
	return nil
}

func checkRelease(args []string) error {
	fs := flag.NewFlagSet("check-release", flag.ExitOnError)
	c := addChangelogFlags(fs)
	version := fs.String("version", "", "version to release")
	_ = fs.Parse(args)
	cfg, f, err := c.open()
	if err != nil {
		return err
	}
	defer f.Close()
	newest, err := CheckNewRelease(cfg, *c.pkg, *version, f)
	if err != nil {
		return err
	}
	fmt.Println(newest) // the release the new one follows ("" for the first), for hack/release/release.sh
	return nil
}

func checkVersion(args []string) error {
	fs := flag.NewFlagSet("check-version", flag.ExitOnError)
	dir := fs.String("dir", "catalog/memcached-operator", "rendered catalog directory of the package")
	pkg := fs.String("package", "memcached-operator", "package name")
	version := fs.String("version", "", "the version the head builds as (the Makefile's VERSION)")
	bundleDir := fs.String("bundle-dir", "bundle", "the head's bundle directory")
	_ = fs.Parse(args)
	cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(*dir))
	if err != nil {
		return fmt.Errorf("failed to load catalog %s: %w", *dir, err)
	}
	objs, err := LoadBundleObjects(*bundleDir)
	if err != nil {
		return err
	}
	problems, err := CheckHeadVersion(cfg, *pkg, *version, objs)
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("%d problems:\n  %s", len(problems), strings.Join(problems, "\n  "))
	}
	fmt.Printf("%s builds as %s: one version, one content\n", *bundleDir, *version)
	return nil
}

func withHead(args []string) error {
	fs := flag.NewFlagSet("with-head", flag.ExitOnError)
	in := fs.String("in", "catalog/memcached-operator", "rendered catalog directory of the package")
	out := fs.String("out", "", "directory to write the catalog with the head to (must not exist)")
	bundleDir := fs.String("bundle-dir", "bundle", "the head's bundle directory")
	opm := fs.String("opm", "opm", "opm binary")
	_ = fs.Parse(args)
	if *out == "" {
		return fmt.Errorf("-out is required")
	}
	cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(*in))
	if err != nil {
		return fmt.Errorf("failed to load catalog %s: %w", *in, err)
	}
	head, err := renderBundleDir(*opm, *bundleDir)
	if err != nil {
		return err
	}
	did, err := WithHead(cfg, head)
	if err != nil {
		return err
	}
	if problems := Check(cfg); len(problems) > 0 {
		return fmt.Errorf("the catalog with the head would be invalid:\n%s", joinProblems(problems))
	}
	if err := WriteCatalog(*out, cfg); err != nil {
		return err
	}
	fmt.Printf("%s: %s\n", *out, did)
	return nil
}

func checkDisconnected(args []string) error {
	fs := flag.NewFlagSet("check-disconnected", flag.ExitOnError)
	dir := fs.String("bundle-dir", "bundle", "bundle directory")
	_ = fs.Parse(args)
	csv, err := LoadBundleCSV(*dir)
	if err != nil {
		return err
	}
	if problems := CheckDisconnected(csv); len(problems) > 0 {
		return fmt.Errorf("%d problems:\n  %s", len(problems), strings.Join(problems, "\n  "))
	}
	fmt.Printf("%s: %s %q, consistent with its images\n", *dir, DisconnectedAnnotation, csv.Annotations[DisconnectedAnnotation])
	return nil
}

func checkDockerfiles(args []string) error {
	fs := flag.NewFlagSet("check-dockerfiles", flag.ExitOnError)
	root := fs.String("root", ".", "repository root")
	_ = fs.Parse(args)
	var problems []string
	for _, d := range []struct{ file, annotations string }{
		{"Dockerfile", ""},
		{"bundle.Dockerfile", "bundle/metadata/annotations.yaml"},
		{"catalog.Dockerfile", ""},
		{"scorecard.Dockerfile", ""},
	} {
		p, err := CheckDockerfile(*root, d.file, d.annotations)
		if err != nil {
			return err
		}
		problems = append(problems, p...)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%d problems:\n  %s", len(problems), strings.Join(problems, "\n  "))
	}
	fmt.Println("Dockerfile, bundle.Dockerfile, catalog.Dockerfile and scorecard.Dockerfile: base images default to public images, COPY/ADD sources exist and no ignore file hides them, bundle labels match metadata/annotations.yaml")
	return nil
}
