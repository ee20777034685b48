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

// Command catalog maintains the project's file-based catalog (FBC) with operator-registry's declcfg:
//
//	catalog add -dir catalog/memcached-operator -bundle-dir bundle -image IMG -channels c1,c2 -default-channel c -opm bin/opm
//	    renders the bundle with `opm render`, gives it its image reference and adds it as the new
//	    head of each channel (AddRelease), then writes package.yaml, channels.yaml and
//	    bundles/<bundle>.yaml. Bundle files already in the catalog are never rewritten.
//	catalog promote -dir catalog/memcached-operator -version X.Y.Z -channel fast|stable
//	    makes the released bundle of version X.Y.Z the new head of the channel (Promote): it must
//	    already be in the channel before it (candidate, then fast, then stable). Rewrites only
//	    channels.yaml.
//	catalog check DIR...
//	    prints every problem of the catalogs (Check) and exits 1 if there is one: what opm validate
//	    refuses, blobs of unknown schema, the graph's shape, and every upgrade edge OLM offers that
//	    it could not carry out (versions not increasing, a stored CRD version dropped or no longer
//	    served, an operator Deployment's selector changed, subscribers stranded by a channel switch).
//	catalog check-changelog -dir catalog/memcached-operator -changelog CHANGELOG.md
//	    fails unless every release in the catalog has a section in the changelog (CheckChangelog).
//	catalog check-disconnected -bundle-dir bundle
//	    fails when the bundle's CSV says features.operators.openshift.io/disconnected "true" and
//	    refers to an image by tag (CheckDisconnected).
//	catalog check-dockerfiles -root DIR
//	    statically checks Dockerfile, bundle.Dockerfile and catalog.Dockerfile (CheckDockerfile):
//	    they parse, their base images have defaults, their COPY/ADD sources exist and no ignore file
//	    (<Dockerfile>.dockerignore, .dockerignore, ...) hides any of them, bundle labels match.
//	catalog blank-images -in DIR -out DIR [-max-version V]
//	    writes a copy of the catalog with every bundle image blanked (and, with -max-version, without
//	    the bundles newer than V) for hack/catalog-serve.sh (PrepareLocalServe).
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
	case "check":
		err = check(os.Args[2:])
	case "check-changelog":
		err = checkChangelog(os.Args[2:])
	case "check-disconnected":
		err = checkDisconnected(os.Args[2:])
	case "check-dockerfiles":
		err = checkDockerfiles(os.Args[2:])
	case "blank-images":
		err = blankImages(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "catalog %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: catalog add -dir DIR -bundle-dir DIR -image IMG -channels C1,C2 -default-channel C [-opm PATH]\n       catalog promote -dir DIR -version X.Y.Z -channel fast|stable\n       catalog check DIR...\n       catalog check-changelog -dir DIR -changelog FILE\n       catalog check-disconnected -bundle-dir DIR\n       catalog check-dockerfiles [-root DIR]\n       catalog blank-images -in DIR -out DIR [-max-version V]")
	os.Exit(2)
}

func add(args []string) error {
	fs := flag.NewFlagSet("add", flag.ExitOnError)
	dir := fs.String("dir", "catalog/memcached-operator", "catalog directory of the package")
	bundleDir := fs.String("bundle-dir", "bundle", "bundle directory to release")
	image := fs.String("image", "", "bundle image reference of the release")
	channels := fs.String("channels", "", "comma-separated channels of the release")
	defaultChannel := fs.String("default-channel", "", "default channel of the package")
	opm := fs.String("opm", "opm", "opm binary")
	_ = fs.Parse(args)
	if *image == "" {
		return fmt.Errorf("-image is required")
	}

	var out, stderr bytes.Buffer
	cmd := exec.Command(*opm, "render", *bundleDir, "-o", "yaml")
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("opm render %s: %v: %s", *bundleDir, err, stderr.String())
	}
	rendered, err := declcfg.LoadReader(&out)
	if err != nil {
		return fmt.Errorf("failed to load the rendered bundle: %w", err)
	}
	if len(rendered.Bundles) != 1 {
		return fmt.Errorf("opm render %s produced %d bundles, want 1", *bundleDir, len(rendered.Bundles))
	}
	bundle := rendered.Bundles[0]
	bundle.Image = *image

	cfg := &declcfg.DeclarativeConfig{}
	if _, err := os.Stat(*dir); err == nil {
		if cfg, err = declcfg.LoadFS(context.Background(), os.DirFS(*dir)); err != nil {
			return fmt.Errorf("failed to load catalog %s: %w", *dir, err)
		}
	}
	if err := AddRelease(cfg, bundle, splitList(*channels), *defaultChannel); err != nil {
		return err
	}
	if problems := Check(cfg); len(problems) > 0 {
		return fmt.Errorf("the catalog would be invalid:\n%s", joinProblems(problems))
	}

	if err := os.MkdirAll(filepath.Join(*dir, "bundles"), 0o755); err != nil {
		return err
	}
	if err := writeFiles(*dir, map[string]declcfg.DeclarativeConfig{
		"package.yaml":  {Packages: cfg.Packages},
		"channels.yaml": {Channels: cfg.Channels},
		filepath.Join("bundles", bundle.Name+".yaml"): {Bundles: []declcfg.Bundle{bundle}},
	}); err != nil {
		return err
	}
	fmt.Printf("added %s (%s) to channels %s of %s; default channel %s\n", bundle.Name, bundle.Image, *channels, *dir, *defaultChannel)
	return nil
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
	dir := fs.String("dir", "catalog/memcached-operator", "catalog directory of the package")
	pkg := fs.String("package", "memcached-operator", "package name")
	version := fs.String("version", "", "version of the release to promote")
	channel := fs.String("channel", "", "channel to promote it to (fast or stable)")
	_ = fs.Parse(args)
	v, err := semver.Parse(*version)
	if err != nil {
		return fmt.Errorf("-version %q is not a semver version: %w", *version, err)
	}
	cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(*dir))
	if err != nil {
		return fmt.Errorf("failed to load catalog %s: %w", *dir, err)
	}
	if err := Promote(cfg, *pkg, v, *channel); err != nil {
		return err
	}
	if problems := Check(cfg); len(problems) > 0 {
		return fmt.Errorf("the catalog would be invalid:\n%s", joinProblems(problems))
	}
	if err := writeFiles(*dir, map[string]declcfg.DeclarativeConfig{"channels.yaml": {Channels: cfg.Channels}}); err != nil {
		return err
	}
	fmt.Printf("promoted %s %s to channel %s of %s\n", *pkg, v, *channel, *dir)
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

func checkChangelog(args []string) error {
	fs := flag.NewFlagSet("check-changelog", flag.ExitOnError)
	dir := fs.String("dir", "catalog/memcached-operator", "catalog directory of the package")
	pkg := fs.String("package", "memcached-operator", "package name")
	changelog := fs.String("changelog", "CHANGELOG.md", "changelog file")
	_ = fs.Parse(args)
	cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(*dir))
	if err != nil {
		return fmt.Errorf("failed to load catalog %s: %w", *dir, err)
	}
	f, err := os.Open(*changelog)
	if err != nil {
		return fmt.Errorf("failed to open the changelog: %w", err)
	}
	defer f.Close()
	problems, err := CheckChangelog(f, cfg, *pkg)
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s: %d problems:\n  %s", *changelog, len(problems), strings.Join(problems, "\n  "))
	}
	fmt.Printf("%s: every release of %s has a section\n", *changelog, *dir)
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
	fmt.Println("Dockerfile, bundle.Dockerfile and catalog.Dockerfile: base images default to public images, COPY/ADD sources exist and no ignore file hides them, bundle labels match metadata/annotations.yaml")
	return nil
}
