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
	"strconv"
	"strings"

	"github.com/blang/semver/v4"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
	"github.com/operator-framework/operator-registry/alpha/property"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Problem is one fault of a catalog, scoped to a package and (when it applies) a channel, naming
// the bundles involved.
type Problem struct {
	// Package and Channel scope the problem; Channel is empty for package-wide problems.
	Package, Channel string
	// Bundles names the bundles involved: for an upgrade edge the installed bundle, then the one
	// it is upgraded to; otherwise sorted.
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

// Check returns every problem of cfg, for each package:
//   - everything `opm validate` refuses (operator-registry's declcfg.ConvertToModel and
//     model.Validate, the code opm runs): duplicate packages, channels, bundles or entries, bad
//     deprecation references, a replaces chain that strands bundles (opm counts only replaces and
//     skips, not skipRange), invalid skipRanges, ...;
//   - a blob of a schema OLM does not know (it would be ignored without a word);
//   - the default channel is set, exists and has entries; no channel is empty;
//   - no two bundles share a version, every channel entry is a bundle of the package;
//   - each channel has exactly one head (an entry no other entry replaces or skips);
//   - the replaces chain from the head has no cycle;
//   - every entry can reach the head through replaces, skips or skipRange edges (none is stranded);
//   - every bundle older than a channel's head has an edge into that channel (a subscriber on it
//     who switches to the channel is not stranded);
//   - every skipRange, of a channel entry or a CSV's olm.skipRange annotation, is a well-formed
//     range (checkSkipRange: blang/semver reads some malformed ones leniently);
//   - every upgrade edge (see upgradeEdges) is one OLM can carry out (see edgeHazards) and whose
//     CRD changes OLM v1's CRD upgrade-safety preflight accepts (see crdEdgeHazards);
//   - a CSV that says features.operators.openshift.io/disconnected "true" refers to every image
//     by digest (CheckDisconnected);
//   - all bundles of a channel declare the same supported install modes (a non-head CSV that lacks
//     the mode of the OperatorGroup fails to install: operator-framework/kubectl-operator#33).
//
// The checks beyond opm's are the operator's own code because no library has them: operator-
// registry checks the graph's shape, not whether each upgrade it offers can be carried out. The
// CRD upgrade-safety rules are sigs.k8s.io/crdify's, the library OLM v1 runs (crdsafety.go).
func Check(cfg *declcfg.DeclarativeConfig) []Problem {
	var problems []Problem
	for _, o := range cfg.Others {
		blob := "a blob"
		if o.Name != "" {
			blob = fmt.Sprintf("blob %q", o.Name)
		}
		problems = append(problems, Problem{Package: o.Package, Message: fmt.Sprintf(
			"%s has schema %q, which OLM does not know (known: %s): it would be ignored without a word (a misspelt olm.deprecations? see operator-framework/operator-registry#1216)",
			blob, o.Schema, strings.Join(knownSchemas, ", "))})
	}
	for _, b := range cfg.Bundles {
		if b.CsvJSON == "" {
			continue
		}
		var csv operatorsv1alpha1.ClusterServiceVersion
		if err := json.Unmarshal([]byte(b.CsvJSON), &csv); err != nil {
			continue // describeBundle reports it
		}
		for _, m := range CheckDisconnected(&csv) {
			problems = append(problems, Problem{Package: b.Package, Bundles: []string{b.Name}, Message: m})
		}
	}
	for _, pkg := range cfg.Packages {
		problems = append(problems, opmProblems(cfg, pkg.Name)...)
		problems = append(problems, checkPackage(cfg, pkg)...)
	}
	if len(cfg.Packages) == 0 {
		problems = append(problems, Problem{Message: "the catalog has no olm.package"})
	}
	return problems
}

// knownSchemas are the blob schemas of a file-based catalog that OLM reads.
var knownSchemas = []string{declcfg.SchemaPackage, declcfg.SchemaChannel, declcfg.SchemaBundle, declcfg.SchemaDeprecation}

// opmProblems returns what `opm validate` refuses in package pkg, with operator-registry's own
// code: declcfg.ConvertToModel, which also runs model.Validate, as opm validate does.
func opmProblems(cfg *declcfg.DeclarativeConfig, pkg string) []Problem {
	one := declcfg.DeclarativeConfig{}
	for _, p := range cfg.Packages {
		if p.Name == pkg {
			one.Packages = append(one.Packages, p)
		}
	}
	for _, c := range cfg.Channels {
		if c.Package == pkg {
			one.Channels = append(one.Channels, c)
		}
	}
	for _, b := range cfg.Bundles {
		if b.Package == pkg {
			one.Bundles = append(one.Bundles, b)
		}
	}
	for _, d := range cfg.Deprecations {
		if d.Package == pkg {
			one.Deprecations = append(one.Deprecations, d)
		}
	}
	if _, err := declcfg.ConvertToModel(one); err != nil {
		var problems []Problem
		for _, l := range leaves(err) {
			problems = append(problems, Problem{Package: pkg, Channel: l.channel, Message: "opm validate refuses it: " + l.message})
		}
		return problems
	}
	return nil
}

// opmLeaf is one error of operator-registry's tree-shaped validation error, with the channel it
// is under, if any.
type opmLeaf struct{ channel, message string }

// leaves splits operator-registry's validation error (a tree drawn with ├── └── │, one error a
// line, parents ending in ':') into its leaves, each with the path of its parents below the
// package and the channel named by an `invalid channel "x"` parent.
func leaves(err error) []opmLeaf {
	var out []opmLeaf
	var stack []string // parent messages by depth
	for _, line := range strings.Split(strings.TrimSpace(err.Error()), "\n") {
		text := strings.TrimLeft(line, "├└│─ ")
		depth := len([]rune(line)) - len([]rune(text))
		depth /= 4
		if depth < len(stack) {
			stack = stack[:depth]
		}
		if strings.HasSuffix(text, ":") {
			stack = append(stack, strings.TrimSuffix(text, ":"))
			continue
		}
		leaf := opmLeaf{}
		var path []string
		for _, p := range stack {
			if p == "invalid index" || strings.HasPrefix(p, "invalid package ") {
				continue
			}
			if n, ok := strings.CutPrefix(p, "invalid channel "); ok {
				leaf.channel, _ = strconv.Unquote(n)
			}
			path = append(path, p)
		}
		leaf.message = strings.Join(append(path, text), ": ")
		out = append(out, leaf)
	}
	return out
}

// bundleInfo is what the checks need of an olm.bundle.
type bundleInfo struct {
	version      semver.Version
	installModes string // supported install modes, sorted and joined
	// crds maps the name of each CRD the bundle ships to its versions.
	crds map[string]crdVersions
	// crdObjects maps the name of each CRD the bundle ships to the CRD itself (OLM v1's CRD
	// upgrade-safety rules compare the schemas).
	crdObjects map[string]*apiextensionsv1.CustomResourceDefinition
	// selectors maps the name of each Deployment of the CSV's install strategy to its selector.
	selectors map[string]string
}

// crdVersions are the versions of a CRD: the storage version, and each version with whether it
// is served.
type crdVersions struct {
	storage string
	served  map[string]bool
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
		if ch.Package != pkg.Name {
			continue
		}
		if _, dup := channels[ch.Name]; dup {
			add(ch.Name, "the channel is defined twice (OLM would keep one of them)")
		}
		channels[ch.Name] = ch
	}
	switch ch, ok := channels[pkg.DefaultChannel]; {
	case pkg.DefaultChannel == "":
		add("", "no default channel is set")
	case !ok:
		add(pkg.DefaultChannel, "the default channel does not exist")
	case len(ch.Entries) == 0:
		add(pkg.DefaultChannel, "the default channel has no bundles")
	}

	for _, n := range sortedKeys(channels) {
		for _, p := range checkChannel(channels[n], bundles) {
			add(n, p.Message, p.Bundles...)
		}
	}
	return problems
}

// describeBundle reads a bundle's version (olm.package property), its CSV (install modes, the
// selectors of its Deployments) and its CRDs, from the objects declcfg loaded from its
// olm.bundle.object properties (a bundle without them has no CSV or CRDs to compare).
func describeBundle(b declcfg.Bundle) (bundleInfo, error) {
	info := bundleInfo{crds: map[string]crdVersions{}, crdObjects: map[string]*apiextensionsv1.CustomResourceDefinition{}, selectors: map[string]string{}}
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
		var csv operatorsv1alpha1.ClusterServiceVersion
		if err := json.Unmarshal([]byte(b.CsvJSON), &csv); err != nil {
			return info, fmt.Errorf("bundle CSV does not parse: %v", err)
		}
		var modes []string
		for _, m := range csv.Spec.InstallModes {
			if m.Supported {
				modes = append(modes, string(m.Type))
			}
		}
		sort.Strings(modes)
		info.installModes = strings.Join(modes, ",")
		if r, ok := csv.Annotations["olm.skipRange"]; ok {
			if err := checkSkipRange(r); err != nil {
				return info, fmt.Errorf("bundle CSV annotation olm.skipRange %q is not a valid range: %v", r, err)
			}
		}
		for _, d := range csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs {
			info.selectors[d.Name] = metav1.FormatLabelSelector(d.Spec.Selector)
		}
	}
	for _, obj := range b.Objects {
		var tm metav1.TypeMeta
		if err := json.Unmarshal([]byte(obj), &tm); err != nil {
			return info, fmt.Errorf("bundle object does not parse: %v", err)
		}
		if tm.Kind != "CustomResourceDefinition" {
			continue
		}
		if tm.APIVersion != apiextensionsv1.SchemeGroupVersion.String() {
			return info, fmt.Errorf("bundle has a CRD of apiVersion %s; only %s is served by Kubernetes 1.22 and later", tm.APIVersion, apiextensionsv1.SchemeGroupVersion)
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := json.Unmarshal([]byte(obj), &crd); err != nil {
			return info, fmt.Errorf("bundle CRD does not parse: %v", err)
		}
		v := crdVersions{served: map[string]bool{}}
		for _, ver := range crd.Spec.Versions {
			if ver.Storage {
				v.storage = ver.Name
			}
			v.served[ver.Name] = ver.Served
		}
		info.crds[crd.Name] = v
		info.crdObjects[crd.Name] = &crd
	}
	return info, nil
}

// channelProblem is a problem found inside one channel.
type channelProblem struct {
	Message string
	Bundles []string
}

// edge is an upgrade OLM offers in a channel: a subscriber on from is offered to, an entry of
// the channel, because to replaces from, skips it or covers its version by skipRange (how says
// which). from may be an entry of another channel: that is the upgrade offered to a subscriber
// who switches to this channel.
type edge struct {
	from, to string
	how      []string
}

// upgradeEdges returns every upgrade edge into the entries of ch, from any bundle of the package
// (bundles), in entry order, and the problems of unparsable skipRanges.
func upgradeEdges(ch declcfg.Channel, bundles map[string]bundleInfo) ([]edge, []channelProblem) {
	var edges []edge
	var problems []channelProblem
	from := sortedKeys(bundles)
	for _, to := range ch.Entries {
		var skipRange semver.Range
		if to.SkipRange != "" {
			if err := checkSkipRange(to.SkipRange); err != nil {
				problems = append(problems, channelProblem{Message: fmt.Sprintf("skipRange %q is not a valid range: %v", to.SkipRange, err), Bundles: []string{to.Name}})
			} else {
				skipRange = semver.MustParseRange(to.SkipRange)
			}
		}
		for _, f := range from {
			if f == to.Name {
				continue
			}
			var how []string
			if to.Replaces == f {
				how = append(how, "replaces")
			}
			if slices.Contains(to.Skips, f) {
				how = append(how, "skips")
			}
			if skipRange != nil && skipRange(bundles[f].version) {
				how = append(how, fmt.Sprintf("skipRange %q", to.SkipRange))
			}
			if len(how) > 0 {
				edges = append(edges, edge{from: f, to: to.Name, how: how})
			}
		}
	}
	return edges, problems
}

// edgeHazards returns why OLM cannot carry out the upgrade from a bundle described by from to
// one described by to:
//   - the version does not increase (semver order, pre-releases included): OLM would offer a
//     downgrade or a sideways move;
//   - a CRD of both bundles drops, or stops serving, the version from stores objects in: OLM
//     refuses a CRD update that removes a version in status.storedVersions
//     (operator-framework/operator-lifecycle-manager#1535), and clients of it break;
//   - a Deployment of both CSVs keeps its name and changes spec.selector, which is immutable: the
//     upgrade fails with "field is immutable" (grafana/grafana-operator#1399).
func edgeHazards(from, to bundleInfo) []string {
	var hazards []string
	if !to.version.GT(from.version) {
		hazards = append(hazards, fmt.Sprintf("the version does not increase (%s to %s)", from.version, to.version))
	}
	for _, name := range sortedKeys(from.crds) {
		next, ok := to.crds[name]
		stored := from.crds[name].storage
		if !ok || stored == "" {
			continue // a CRD the newer bundle does not ship stays on the cluster as it is
		}
		switch served, listed := next.served[stored]; {
		case !listed:
			hazards = append(hazards, fmt.Sprintf("CRD %s drops version %s, the storage version of the older bundle (OLM refuses to remove a version in status.storedVersions)", name, stored))
		case !served:
			hazards = append(hazards, fmt.Sprintf("CRD %s stops serving version %s, the storage version of the older bundle", name, stored))
		}
	}
	for _, name := range sortedKeys(from.selectors) {
		if sel, ok := to.selectors[name]; ok && sel != from.selectors[name] {
			hazards = append(hazards, fmt.Sprintf("operator Deployment %s keeps its name and changes its selector from %q to %q (spec.selector is immutable: the upgrade would fail with \"field is immutable\")", name, from.selectors[name], sel))
		}
	}
	return hazards
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

	// Every upgrade OLM offers into this channel must be one it can carry out.
	edges, rangeProblems := upgradeEdges(ch, bundles)
	problems = append(problems, rangeProblems...)
	for _, e := range edges {
		for _, h := range edgeHazards(bundles[e.from], bundles[e.to]) {
			add(fmt.Sprintf("upgrade %s -> %s (%s): %s", e.from, e.to, strings.Join(e.how, ", "), h), e.from, e.to)
		}
		for _, h := range crdEdgeHazards(e.from, e.to, bundles) {
			add(fmt.Sprintf("upgrade %s -> %s (%s): %s", e.from, e.to, strings.Join(e.how, ", "), h), e.from, e.to)
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
	for _, e := range edges {
		upgrades[e.from] = append(upgrades[e.from], e.to)
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

	// A subscriber on an older bundle of another channel who switches to this one must be offered
	// an entry of it (OLM looks for one that replaces, skips or covers the installed version).
	if hb, ok := bundles[head]; ok {
		for _, name := range sortedKeys(bundles) {
			if _, in := entries[name]; in || !bundles[name].version.LT(hb.version) || len(upgrades[name]) > 0 {
				continue
			}
			add(fmt.Sprintf("a subscriber on %s who switches to this channel is stranded: no entry replaces, skips or covers it by skipRange", name), name, head)
		}
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
