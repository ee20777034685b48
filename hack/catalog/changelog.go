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
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
)

// Unreleased is the heading of the changelog section that collects changes before a release.
const Unreleased = "Unreleased"

// CheckChangelog returns the problems of a changelog (CHANGELOG.md) against the released bundles
// of package pkg in cfg: every released version must have a section (a line "## X.Y.Z", with
// text under it), headings must be a semver version or "Unreleased", no version twice, and
// versions newest first. A section for a version not (yet) in the catalog is allowed: its author
// writes it before `make release` adds the bundle. It reads the changelog from r; the format is
// the project's own (a plain heading per release), so a few lines of parsing beat a Markdown
// library.
func CheckChangelog(r io.Reader, cfg *declcfg.DeclarativeConfig, pkg string) ([]string, error) {
	sections, problems, err := changelogSections(r)
	if err != nil {
		return nil, err
	}
	for i := 1; i < len(sections); i++ {
		if !sections[i].version.LT(sections[i-1].version) {
			problems = append(problems, fmt.Sprintf("version %s comes after %s: sections go newest first", sections[i].version, sections[i-1].version))
		}
	}
	byVersion := map[string]*changelogSection{}
	for _, s := range sections {
		byVersion[s.version.String()] = s
	}
	var released []semver.Version
	for _, b := range cfg.Bundles {
		if b.Package != pkg {
			continue
		}
		info, err := describeBundle(b)
		if err != nil {
			return nil, fmt.Errorf("bundle %s: %w", b.Name, err)
		}
		released = append(released, info.version)
	}
	sort.Slice(released, func(i, j int) bool { return released[i].LT(released[j]) })
	for _, v := range released {
		switch s, ok := byVersion[v.String()]; {
		case !ok:
			problems = append(problems, fmt.Sprintf("release %s of package %q has no section \"## %s\": write what changed for users and the upgrade notes", v, pkg, v))
		case s.lines == 0:
			problems = append(problems, fmt.Sprintf("the section of release %s is empty", v))
		}
	}
	return problems, nil
}

// changelogSection is one "## X.Y.Z" section of a changelog.
type changelogSection struct {
	version semver.Version
	lines   int // non-empty lines under the heading
}

// changelogSections reads the version sections of a changelog in file order, with the problems of
// its headings (neither a version nor Unreleased, a version twice).
func changelogSections(r io.Reader) ([]*changelogSection, []string, error) {
	var problems []string
	var sections []*changelogSection
	seen := map[string]bool{}
	var cur *changelogSection
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if heading, ok := strings.CutPrefix(line, "## "); ok {
			cur = nil
			heading = strings.TrimSpace(heading)
			if heading == Unreleased {
				continue
			}
			v, err := semver.Parse(strings.TrimPrefix(heading, "v"))
			if err != nil {
				problems = append(problems, fmt.Sprintf("line %d: heading %q is neither a version (X.Y.Z) nor %q", n, heading, Unreleased))
				continue
			}
			if seen[v.String()] {
				problems = append(problems, fmt.Sprintf("line %d: version %s has a second section", n, v))
			}
			seen[v.String()] = true
			cur = &changelogSection{version: v}
			sections = append(sections, cur)
			continue
		}
		if cur != nil && strings.TrimSpace(line) != "" {
			cur.lines++
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("failed to read the changelog: %w", err)
	}
	return sections, problems, nil
}

// CheckNewRelease returns why version cannot be released next in package pkg of cfg, or nil:
// it is not a semver version; it is released already (released bundles are never rewritten); it
// is not newer, in semver order (a pre-release before its release: 0.3.0-rc.1 < 0.3.0), than every
// release; or the changelog read from r has no section "## version" with text under it. When it
// can be released, it returns the newest release of pkg ("" for the first), which version follows.
func CheckNewRelease(cfg *declcfg.DeclarativeConfig, pkg, version string, r io.Reader) (string, error) {
	v, err := semver.Parse(strings.TrimPrefix(version, "v"))
	if err != nil {
		return "", fmt.Errorf("version %q is not a semver version (X.Y.Z[-pre]): %w", version, err)
	}
	var newest *semver.Version
	for _, b := range cfg.Bundles {
		if b.Package != pkg {
			continue
		}
		info, err := describeBundle(b)
		if err != nil {
			return "", fmt.Errorf("bundle %s: %w", b.Name, err)
		}
		if newest == nil || info.version.GT(*newest) {
			newest = &info.version
		}
		if info.version.EQ(v) {
			return "", fmt.Errorf("%s is released (bundle %s): released bundles are never rewritten; choose a new version", v, b.Name)
		}
	}
	if newest != nil && newest.GT(v) {
		return "", fmt.Errorf("%s is not newer than the newest release %s: releases go in version order", v, newest)
	}
	sections, _, err := changelogSections(r)
	if err != nil {
		return "", err
	}
	for _, s := range sections {
		if s.version.EQ(v) {
			if s.lines == 0 {
				return "", fmt.Errorf("the changelog's section \"## %s\" is empty: write what changed for users and the upgrade notes first", v)
			}
			if newest == nil {
				return "", nil
			}
			return newest.String(), nil
		}
	}
	return "", fmt.Errorf("the changelog has no section \"## %s\": write what changed for users and the upgrade notes first", v)
}
