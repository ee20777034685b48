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
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
	"github.com/operator-framework/operator-registry/alpha/property"
)

// PrepareLocalServe turns cfg into a catalog that OLM can install from a grpc-address
// CatalogSource (opm serve on 127.0.0.1) without pulling any image:
//
//   - every olm.bundle's image is blanked. OLM then takes the bundle's manifests from its inline
//     olm.bundle.object properties instead of starting an unpack Job that pulls the bundle image
//     (which never produces content on a cluster without a container runtime). A bundle without
//     olm.bundle.object properties could not be installed that way: that is an error.
//   - with maxVersion set, every bundle newer than maxVersion is left out, together with the
//     channel entries naming it, the replaces/skips that point at it, the channels left empty and
//     the deprecation entries of what was left out. It is an error when a package would be left
//     without bundles or its default channel would be left empty. This stages an older catalog, so
//     that serving the full catalog afterwards publishes an upgrade.
//
// It returns the names of the bundles it left out. cfg is unchanged on error.
func PrepareLocalServe(cfg *declcfg.DeclarativeConfig, maxVersion *semver.Version) ([]string, error) {
	dropped := map[string]bool{}
	var droppedNames []string
	kept := map[string]int{} // package -> bundles kept
	for _, b := range cfg.Bundles {
		props, err := property.Parse(b.Properties)
		if err != nil {
			return nil, fmt.Errorf("package %q, bundle %s: properties do not parse: %v", b.Package, b.Name, err)
		}
		if len(props.BundleObjects) == 0 {
			return nil, fmt.Errorf("package %q, bundle %s has no olm.bundle.object properties: with its image blanked OLM would have no manifests to install (render the bundle with `opm render` so its objects are inline)", b.Package, b.Name)
		}
		if maxVersion != nil {
			info, err := describeBundle(b)
			if err != nil {
				return nil, fmt.Errorf("package %q, bundle %s: %w", b.Package, b.Name, err)
			}
			if info.version.GT(*maxVersion) {
				dropped[b.Name] = true
				droppedNames = append(droppedNames, b.Name)
				continue
			}
		}
		kept[b.Package]++
	}
	for _, p := range cfg.Packages {
		if kept[p.Name] == 0 {
			return nil, fmt.Errorf("package %q has no bundle left at or below version %s", p.Name, maxVersion)
		}
	}

	var channels []declcfg.Channel
	channelKept := map[string]bool{} // package/channel
	for _, ch := range cfg.Channels {
		var entries []declcfg.ChannelEntry
		for _, e := range ch.Entries {
			if dropped[e.Name] {
				continue
			}
			if dropped[e.Replaces] {
				e.Replaces = ""
			}
			e.Skips = slices.DeleteFunc(slices.Clone(e.Skips), func(s string) bool { return dropped[s] })
			if len(e.Skips) == 0 {
				e.Skips = nil
			}
			entries = append(entries, e)
		}
		if len(entries) == 0 {
			continue
		}
		ch.Entries = entries
		channels = append(channels, ch)
		channelKept[ch.Package+"/"+ch.Name] = true
	}
	for _, p := range cfg.Packages {
		if !channelKept[p.Name+"/"+p.DefaultChannel] {
			return nil, fmt.Errorf("package %q: the default channel %q has no bundle left at or below version %s", p.Name, p.DefaultChannel, maxVersion)
		}
	}

	var deprecations []declcfg.Deprecation
	for _, d := range cfg.Deprecations {
		d.Entries = slices.DeleteFunc(slices.Clone(d.Entries), func(e declcfg.DeprecationEntry) bool {
			switch e.Reference.Schema {
			case declcfg.SchemaBundle:
				return dropped[e.Reference.Name]
			case declcfg.SchemaChannel:
				return !channelKept[d.Package+"/"+e.Reference.Name]
			}
			return false
		})
		if len(d.Entries) > 0 {
			deprecations = append(deprecations, d)
		}
	}

	var bundles []declcfg.Bundle
	for _, b := range cfg.Bundles {
		if dropped[b.Name] {
			continue
		}
		b.Image = ""
		bundles = append(bundles, b)
	}
	cfg.Bundles, cfg.Channels, cfg.Deprecations = bundles, channels, deprecations
	return droppedNames, nil
}

// blankImages is the blank-images subcommand: it writes a copy of a file-based catalog for
// hack/olm/catalog-serve.sh (PrepareLocalServe), one <package>/catalog.yaml per package.
func blankImages(args []string) error {
	fs := flag.NewFlagSet("blank-images", flag.ExitOnError)
	in := fs.String("in", "catalog", "file-based catalog directory to copy")
	out := fs.String("out", "", "directory to write the copy to (must not exist or be empty)")
	maxVersion := fs.String("max-version", "", "leave out bundles newer than this version (semver; empty: keep all)")
	_ = fs.Parse(args)
	if *out == "" {
		return fmt.Errorf("-out is required")
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %v", fs.Args())
	}
	var maxV *semver.Version
	if *maxVersion != "" {
		v, err := semver.Parse(strings.TrimPrefix(*maxVersion, "v"))
		if err != nil {
			return fmt.Errorf("-max-version %q is not semver: %v", *maxVersion, err)
		}
		maxV = &v
	}
	if entries, err := os.ReadDir(*out); err == nil && len(entries) > 0 {
		return fmt.Errorf("-out %s is not empty", *out)
	}

	cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(*in))
	if err != nil {
		return fmt.Errorf("failed to load catalog %s: %w", *in, err)
	}
	if len(cfg.Packages) == 0 {
		return fmt.Errorf("catalog %s has no olm.package", *in)
	}
	dropped, err := PrepareLocalServe(cfg, maxV)
	if err != nil {
		return err
	}
	if err := declcfg.WriteFS(*cfg, *out, declcfg.WriteYAML, ".yaml"); err != nil {
		return fmt.Errorf("failed to write %s: %w", *out, err)
	}
	var names []string
	for _, b := range cfg.Bundles {
		names = append(names, b.Name)
	}
	msg := fmt.Sprintf("wrote %s: bundles %s with their images blanked", *out, strings.Join(names, ", "))
	if len(dropped) > 0 {
		msg += fmt.Sprintf("; left out (newer than %s): %s", maxV, strings.Join(dropped, ", "))
	}
	fmt.Println(msg)
	return nil
}
