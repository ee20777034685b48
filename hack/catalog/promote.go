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

// ReleaseChannel is the channel a new release enters (AddRelease from `make catalog`).
const ReleaseChannel = "candidate"

// PromotionOrder is the order in which a release moves through the channels: it enters the first
// and is promoted to each next one, one step at a time (candidate, then fast after soak, then
// stable), so a stable subscriber only ever sees a release that fast subscribers ran first.
var PromotionOrder = []string{"candidate", "fast", "stable"}

// Promote makes the released bundle of package pkg at version the new head of channel: its entry
// replaces the channel's previous head and skips, through a skipRange "<version", every older
// release (the rule AddRelease applies), so no installed version is stranded. The bundle must
// already be in the channel before channel in PromotionOrder (candidate before fast, fast before
// stable); candidate itself is entered only by AddRelease. It returns an error, leaving cfg
// unchanged, when the channel is not one of fast and stable, the bundle is not released, not in
// the previous channel, already in channel, or not newer than channel's head.
func Promote(cfg *declcfg.DeclarativeConfig, pkg string, version semver.Version, channel string) error {
	step := slices.Index(PromotionOrder, channel)
	if step <= 0 {
		return fmt.Errorf("cannot promote to channel %q: the channels a release is promoted to are %v (a release enters %q with `make catalog`)", channel, PromotionOrder[1:], ReleaseChannel)
	}
	from := PromotionOrder[step-1]

	var bundle string
	for _, b := range cfg.Bundles {
		if b.Package != pkg {
			continue
		}
		info, err := describeBundle(b)
		if err != nil {
			return fmt.Errorf("bundle %s: %w", b.Name, err)
		}
		if info.version.EQ(version) {
			bundle = b.Name
		}
	}
	if bundle == "" {
		return fmt.Errorf("package %q has no release %s: release it first (make release)", pkg, version)
	}

	idx := func(name string) int {
		return slices.IndexFunc(cfg.Channels, func(c declcfg.Channel) bool { return c.Package == pkg && c.Name == name })
	}
	inChannel := func(i int) bool {
		return i >= 0 && slices.ContainsFunc(cfg.Channels[i].Entries, func(e declcfg.ChannelEntry) bool { return e.Name == bundle })
	}
	if !inChannel(idx(from)) {
		return fmt.Errorf("package %q: %s is not in channel %q: a release reaches %q only from %q (promote it there first)", pkg, bundle, from, channel, from)
	}
	ci := idx(channel)
	if inChannel(ci) {
		return fmt.Errorf("package %q: %s is already in channel %q", pkg, bundle, channel)
	}

	entry := declcfg.ChannelEntry{Name: bundle, SkipRange: "<" + version.String()}
	if ci < 0 {
		// A channel's first entry: nothing to replace; older releases, if any, are still covered
		// by the skipRange.
		cfg.Channels = append(cfg.Channels, declcfg.Channel{Schema: declcfg.SchemaChannel, Package: pkg, Name: channel, Entries: []declcfg.ChannelEntry{entry}})
		return nil
	}
	ch := cfg.Channels[ci]
	heads := Heads(ch)
	if len(heads) != 1 {
		return fmt.Errorf("package %q, channel %q has %d heads %v: fix the catalog first (make catalog-validate)", pkg, channel, len(heads), heads)
	}
	head := heads[0]
	if hi := slices.IndexFunc(cfg.Bundles, func(b declcfg.Bundle) bool { return b.Name == head }); hi >= 0 {
		hInfo, err := describeBundle(cfg.Bundles[hi])
		if err != nil {
			return fmt.Errorf("bundle %s: %w", head, err)
		}
		if !version.GT(hInfo.version) {
			return fmt.Errorf("package %q, channel %q: %s is not newer than the head %s (%s): OLM never downgrades, so the channel can only move forward",
				pkg, channel, bundle, head, hInfo.version)
		}
	}
	entry.Replaces = head
	ch.Entries = append(slices.Clone(ch.Entries), entry)
	next := slices.Clone(cfg.Channels)
	next[ci] = ch
	cfg.Channels = next
	return nil
}
