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
	"fmt"
	"slices"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
)

// AddRelease adds the released bundle b to cfg: it becomes the new head of each channel in
// channels (created when missing), replacing the previous head and skipping, through a skipRange
// "<version", every older release, so no installed version is stranded. The package is created
// when missing and its default channel set to defaultChannel, which must be one of channels or an
// existing channel. Released bundles are never rewritten: it returns an error when a bundle of the
// same name or version is already in cfg, or when the new version is not newer than a channel's
// head (releases are appended in version order, so a re-release of an older version cannot create
// a cycle). cfg is unchanged on error.
func AddRelease(cfg *declcfg.DeclarativeConfig, b declcfg.Bundle, channels []string, defaultChannel string) error {
	info, err := describeBundle(b)
	if err != nil {
		return fmt.Errorf("bundle %s: %w", b.Name, err)
	}
	if len(channels) == 0 {
		return fmt.Errorf("no channels given for bundle %s", b.Name)
	}
	var older []semver.Version
	for _, existing := range cfg.Bundles {
		if existing.Package != b.Package {
			continue
		}
		ei, err := describeBundle(existing)
		if err != nil {
			return fmt.Errorf("bundle %s: %w", existing.Name, err)
		}
		if existing.Name == b.Name || ei.version.EQ(info.version) {
			return fmt.Errorf("package %q already has a release %s (version %s): released bundles are never rewritten; bump VERSION", b.Package, existing.Name, ei.version)
		}
		older = append(older, ei.version)
	}

	pkgIdx := slices.IndexFunc(cfg.Packages, func(p declcfg.Package) bool { return p.Name == b.Package })
	knownChannel := func(n string) bool {
		return slices.Contains(channels, n) || slices.ContainsFunc(cfg.Channels, func(c declcfg.Channel) bool { return c.Package == b.Package && c.Name == n })
	}
	if defaultChannel == "" || !knownChannel(defaultChannel) {
		return fmt.Errorf("default channel %q is not one of the channels %v", defaultChannel, channels)
	}

	next := slices.Clone(cfg.Channels)
	for _, name := range channels {
		idx := slices.IndexFunc(next, func(c declcfg.Channel) bool { return c.Package == b.Package && c.Name == name })
		entry := declcfg.ChannelEntry{Name: b.Name}
		if len(older) > 0 {
			entry.SkipRange = "<" + info.version.String()
		}
		if idx < 0 {
			next = append(next, declcfg.Channel{Schema: declcfg.SchemaChannel, Package: b.Package, Name: name, Entries: []declcfg.ChannelEntry{entry}})
			continue
		}
		ch := next[idx]
		heads := Heads(ch)
		if len(heads) != 1 {
			return fmt.Errorf("package %q, channel %q has %d heads %v: fix the catalog first (make catalog-validate)", b.Package, name, len(heads), heads)
		}
		head := heads[0]
		hi := slices.IndexFunc(cfg.Bundles, func(x declcfg.Bundle) bool { return x.Name == head })
		if hi >= 0 {
			hInfo, err := describeBundle(cfg.Bundles[hi])
			if err != nil {
				return fmt.Errorf("bundle %s: %w", head, err)
			}
			if !info.version.GT(hInfo.version) {
				return fmt.Errorf("package %q, channel %q: %s (%s) is not newer than the head %s (%s); releases are added in version order",
					b.Package, name, b.Name, info.version, head, hInfo.version)
			}
		}
		entry.Replaces = head
		ch.Entries = append(slices.Clone(ch.Entries), entry)
		next[idx] = ch
	}

	cfg.Channels = next
	cfg.Bundles = append(cfg.Bundles, b)
	if pkgIdx < 0 {
		cfg.Packages = append(cfg.Packages, declcfg.Package{Schema: declcfg.SchemaPackage, Name: b.Package, DefaultChannel: defaultChannel})
	} else {
		cfg.Packages[pkgIdx].DefaultChannel = defaultChannel
	}
	return nil
}
