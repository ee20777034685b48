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
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
	"github.com/operator-framework/operator-registry/alpha/property"
)

// Problem is one fault of a catalog's upgrade graph, scoped to a package and (when it applies) a
// channel, naming the bundles involved.
type Problem struct {
	// Package and Channel scope the problem; Channel is empty for package-wide problems.
	Package, Channel string
	// Bundles names the bundles involved, sorted.
	Bundles []string
	// Message says what is wrong.
	Message string
}

// String renders the problem as `package "p", channel "c": message [bundles]`.
func (p Problem) String() string {
	s := fmt.Sprintf("package %q", p.Package)
	if p.Channel != "" {
		s += fmt.Sprintf(", channel %q", p.Channel)
	}
	s += ": " + p.Message
	if len(p.Bundles) > 0 {
		s += fmt.Sprintf(" %v", p.Bundles)
	}
	return s
}

// Check returns every problem of cfg's upgrade graphs, for each package:
//   - the default channel is set, exists and has entries; no channel is empty;
//   - no two bundles share a version, every channel entry is a bundle of the package;
//   - each channel has exactly one head (an entry no other entry replaces or skips);
//   - the replaces chain from the head has no cycle;
//   - every entry can reach the head through replaces, skips or skipRange edges (none is stranded);
//   - all bundles of a channel declare the same supported install modes (case 20).
//
// opm validate checks the first points too; Check adds reachability through skipRange and the
// install modes, and names package, channel and bundles in every message. It is the operator's
// own code because no library exposes these graph rules (operator-registry's model.Validate stops
// at the first error and does not test reachability).
func Check(cfg *declcfg.DeclarativeConfig) []Problem {
	var problems []Problem
	for _, pkg := range cfg.Packages {
		problems = append(problems, checkPackage(cfg, pkg)...)
	}
	if len(cfg.Packages) == 0 {
		problems = append(problems, Problem{Message: "the catalog has no olm.package"})
	}
	return problems
}

// bundleInfo is what the graph checks need of an olm.bundle.
type bundleInfo struct {
	version      semver.Version
	installModes string // supported install modes, sorted and joined
}

func checkPackage(cfg *declcfg.DeclarativeConfig, pkg declcfg.Package) []Problem {
	var problems []Problem
	add := func(channel, msg string, bundles ...string) {
		problems = append(problems, Problem{Package: pkg.Name, Channel: channel, Bundles: bundles, Message: msg})
	}

	bundles := map[string]bundleInfo{}
	byVersion := map[string][]string{}
	for _, b := range cfg.Bundles {
		if b.Package != pkg.Name {
			continue
		}
		info, err := describeBundle(b)
		if err != nil {
			add("", err.Error(), b.Name)
			continue
		}
		bundles[b.Name] = info
		byVersion[info.version.String()] = append(byVersion[info.version.String()], b.Name)
	}
	for v, names := range byVersion {
		if len(names) > 1 {
			sort.Strings(names)
			add("", "bundles share version "+v, names...)
		}
	}

	channels := map[string]declcfg.Channel{}
	for _, ch := range cfg.Channels {
		if ch.Package == pkg.Name {
			channels[ch.Name] = ch
		}
	}
	switch ch, ok := channels[pkg.DefaultChannel]; {
	case pkg.DefaultChannel == "":
		add("", "no default channel is set")
	case !ok:
		add(pkg.DefaultChannel, "the default channel does not exist")
	case len(ch.Entries) == 0:
		add(pkg.DefaultChannel, "the default channel has no bundles")
	}

	names := make([]string, 0, len(channels))
	for n := range channels {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, p := range checkChannel(channels[n], bundles) {
			add(n, p.Message, p.Bundles...)
		}
	}
	return problems
}

// describeBundle reads a bundle's version (olm.package property) and install modes (from its CSV).
func describeBundle(b declcfg.Bundle) (bundleInfo, error) {
	var info bundleInfo
	props, err := property.Parse(b.Properties)
	if err != nil {
		return info, fmt.Errorf("bundle properties do not parse: %v", err)
	}
	if len(props.Packages) != 1 {
		return info, fmt.Errorf("bundle has %d olm.package properties, want 1", len(props.Packages))
	}
	if info.version, err = semver.Parse(props.Packages[0].Version); err != nil {
		return info, fmt.Errorf("bundle version %q is not semver: %v", props.Packages[0].Version, err)
	}
	if b.CsvJSON != "" {
		var csv struct {
			Spec struct {
				InstallModes []struct {
					Type      string `json:"type"`
					Supported bool   `json:"supported"`
				} `json:"installModes"`
			} `json:"spec"`
		}
		if err := json.Unmarshal([]byte(b.CsvJSON), &csv); err != nil {
			return info, fmt.Errorf("bundle CSV does not parse: %v", err)
		}
		var modes []string
		for _, m := range csv.Spec.InstallModes {
			if m.Supported {
				modes = append(modes, m.Type)
			}
		}
		sort.Strings(modes)
		info.installModes = strings.Join(modes, ",")
	}
	return info, nil
}

// channelProblem is a problem found inside one channel.
type channelProblem struct {
	Message string
	Bundles []string
}

// checkChannel checks one channel's entries against the package's bundles.
func checkChannel(ch declcfg.Channel, bundles map[string]bundleInfo) []channelProblem {
	var problems []channelProblem
	add := func(msg string, b ...string) { problems = append(problems, channelProblem{Message: msg, Bundles: b}) }
	if len(ch.Entries) == 0 {
		add("the channel has no bundles")
		return problems
	}
	entries := map[string]declcfg.ChannelEntry{}
	for _, e := range ch.Entries {
		if _, dup := entries[e.Name]; dup {
			add("entry listed twice", e.Name)
		}
		entries[e.Name] = e
		if _, ok := bundles[e.Name]; !ok {
			add("entry is not a bundle of the package", e.Name)
		}
	}
	heads := Heads(ch)
	switch {
	case len(heads) == 0:
		add("no channel head: every entry is replaced or skipped by another (a closed replaces loop)", sortedKeys(entries)...)
		return problems
	case len(heads) > 1:
		add("multiple channel heads (check the replaces and skips fields)", heads...)
		return problems
	}
	head := heads[0]

	// The replaces chain from the head must end without revisiting an entry.
	seen := map[string]bool{}
	for cur := head; cur != ""; cur = entries[cur].Replaces {
		if seen[cur] {
			add("cycle in the replaces chain", chain(entries, head)...)
			return problems
		}
		seen[cur] = true
		if _, ok := entries[cur]; !ok {
			break // a dangling replaces (a bundle pruned from the channel) ends the chain
		}
	}

	// Every entry must reach the head. upgrades[x] lists the entries x can upgrade to.
	upgrades := map[string][]string{}
	for _, to := range ch.Entries {
		var skipRange semver.Range
		if to.SkipRange != "" {
			r, err := semver.ParseRange(to.SkipRange)
			if err != nil {
				add(fmt.Sprintf("skipRange %q does not parse: %v", to.SkipRange, err), to.Name)
			}
			skipRange = r
		}
		for _, from := range ch.Entries {
			if from.Name == to.Name {
				continue
			}
			inRange := skipRange != nil && skipRange(bundles[from.Name].version)
			if to.Replaces == from.Name || slices.Contains(to.Skips, from.Name) || inRange {
				upgrades[from.Name] = append(upgrades[from.Name], to.Name)
			}
		}
	}
	var stranded []string
	for _, e := range ch.Entries {
		if !reaches(e.Name, head, upgrades) {
			stranded = append(stranded, e.Name)
		}
	}
	if len(stranded) > 0 {
		sort.Strings(stranded)
		add("stranded: cannot upgrade to the head "+head, stranded...)
	}

	// Install modes must not change along the channel.
	modes := map[string][]string{}
	for _, e := range ch.Entries {
		if b, ok := bundles[e.Name]; ok && b.installModes != "" {
			modes[b.installModes] = append(modes[b.installModes], e.Name)
		}
	}
	if len(modes) > 1 {
		var desc []string
		for m, names := range modes {
			sort.Strings(names)
			desc = append(desc, fmt.Sprintf("%v support %s", names, m))
		}
		sort.Strings(desc)
		add("bundles declare different install modes: " + strings.Join(desc, "; "))
	}
	return problems
}

// Heads returns the sorted entries of ch that no other entry replaces or skips.
func Heads(ch declcfg.Channel) []string {
	incoming := map[string]bool{}
	for _, e := range ch.Entries {
		if e.Replaces != "" {
			incoming[e.Replaces] = true
		}
		for _, s := range e.Skips {
			incoming[s] = true
		}
	}
	var heads []string
	for _, e := range ch.Entries {
		if !incoming[e.Name] {
			heads = append(heads, e.Name)
		}
	}
	sort.Strings(heads)
	return heads
}

// reaches reports whether from reaches to along upgrades (breadth-first).
func reaches(from, to string, upgrades map[string][]string) bool {
	seen := map[string]bool{from: true}
	queue := []string{from}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if cur == to {
			return true
		}
		for _, next := range upgrades[cur] {
			if !seen[next] {
				seen[next] = true
				queue = append(queue, next)
			}
		}
	}
	return false
}

// chain lists the replaces chain from head until it repeats, for cycle messages.
func chain(entries map[string]declcfg.ChannelEntry, head string) []string {
	var out []string
	seen := map[string]bool{}
	for cur := head; cur != "" && !seen[cur]; cur = entries[cur].Replaces {
		seen[cur] = true
		out = append(out, cur)
		if e, ok := entries[cur]; ok && seen[e.Replaces] {
			out = append(out, e.Replaces)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
