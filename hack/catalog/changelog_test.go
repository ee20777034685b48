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
	"os"
	"strings"
	"testing"

	"github.com/operator-framework/operator-registry/alpha/declcfg"
)

// Every release needs a changelog section with text, newest first; a section written ahead of
// its release and an Unreleased section are allowed.
func TestCheckChangelog(t *testing.T) {
	cfg, _ := loadYAML(t, pkgStable+bundleYAML("0.1.0")+bundleYAML("0.2.0")+
		channel("stable", "- name: memcached-operator.v0.1.0\n- name: memcached-operator.v0.2.0\n  replaces: memcached-operator.v0.1.0\n"))
	tests := map[string]struct {
		changelog string
		want      []string // substrings of the problems; empty: none
	}{
		"every release":                   {changelog: "# Changelog\n\n## 0.2.0\n\n- b\n\n## 0.1.0\n\n- a\n"},
		"unreleased and a section ahead":  {changelog: "## Unreleased\n- c\n## 0.3.0\n- c\n## 0.2.0\n- b\n## 0.1.0\n- a\n"},
		"a release without a section":     {changelog: "## 0.2.0\n- b\n", want: []string{`release 0.1.0 of package "memcached-operator" has no section "## 0.1.0"`}},
		"an empty section":                {changelog: "## 0.2.0\n\n## 0.1.0\n- a\n", want: []string{"the section of release 0.2.0 is empty"}},
		"oldest first":                    {changelog: "## 0.1.0\n- a\n## 0.2.0\n- b\n", want: []string{"version 0.2.0 comes after 0.1.0"}},
		"a heading that is not a version": {changelog: "## 0.2.0\n- b\n## Release 0.1.0\n- a\n", want: []string{`heading "Release 0.1.0" is neither a version`, "release 0.1.0"}},
		"a version twice":                 {changelog: "## 0.2.0\n- b\n## 0.2.0\n- b\n## 0.1.0\n- a\n", want: []string{"version 0.2.0 has a second section"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			problems, err := CheckChangelog(strings.NewReader(tc.changelog), cfg, "memcached-operator")
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(problems, "\n")
			if len(tc.want) == 0 && got != "" {
				t.Errorf("unexpected problems:\n%s", got)
			}
			if len(tc.want) > 0 && got == "" {
				t.Errorf("the broken changelog passed")
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("problems lack %q; got:\n%s", w, got)
				}
			}
		})
	}
}

// The project's CHANGELOG.md has a section for every release in catalog/.
func TestProjectChangelog(t *testing.T) {
	cfg, err := declcfg.LoadFS(context.Background(), os.DirFS("../../catalog/memcached-operator"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("../../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	problems, err := CheckChangelog(f, cfg, "memcached-operator")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// The next release must be new, newer than every release in semver order (a pre-release comes
// before its release), and described in the changelog.
func TestCheckNewRelease(t *testing.T) {
	cfg, _ := loadYAML(t, pkgStable+bundleYAML("0.1.0")+bundleYAML("0.3.0-rc.1")+
		channel("stable", "- name: memcached-operator.v0.1.0\n- name: memcached-operator.v0.3.0-rc.1\n  replaces: memcached-operator.v0.1.0\n"))
	log := "## Unreleased\n- x\n## 0.3.0\n- c\n## 0.2.0\n\n## 0.3.0-rc.1\n- rc\n## 0.1.0\n- a\n"
	tests := map[string]struct {
		version string
		want    string // substring of the error; empty: accepted (after 0.3.0-rc.1)
	}{
		"the release after its release candidate": {version: "0.3.0"},
		"with a v prefix":                         {version: "v0.3.0"},
		"released already":                        {version: "0.3.0-rc.1", want: "0.3.0-rc.1 is released"},
		"older than the newest release":           {version: "0.2.0", want: "0.2.0 is not newer than the newest release 0.3.0-rc.1"},
		"an earlier pre-release":                  {version: "0.3.0-alpha.1", want: "is not newer than the newest release 0.3.0-rc.1"},
		"no changelog section":                    {version: "0.4.0", want: `no section "## 0.4.0"`},
		"not a version":                           {version: "0.4", want: "not a semver version"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			newest, err := CheckNewRelease(cfg, "memcached-operator", tc.version, strings.NewReader(log))
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want == "" && newest != "0.3.0-rc.1":
				t.Errorf("the release follows %q; want 0.3.0-rc.1 (the newest in semver order)", newest)
			case tc.want != "" && err == nil:
				t.Errorf("accepted; want an error with %q", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Errorf("error %q lacks %q", err, tc.want)
			}
		})
	}
	// An empty section does not describe a release.
	empty := "## 0.4.0\n\n## 0.3.0-rc.1\n- rc\n"
	if _, err := CheckNewRelease(cfg, "memcached-operator", "0.4.0", strings.NewReader(empty)); err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Errorf("an empty section: got %v", err)
	}
}
