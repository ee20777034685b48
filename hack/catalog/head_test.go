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
	"slices"
	"testing"

	"github.com/operator-framework/operator-registry/alpha/declcfg"
	"github.com/operator-framework/operator-registry/alpha/property"
)

// versionCopy is the newest release of cfg renamed to version v, as `opm render bundle/` renders
// the head that builds as v.
func versionCopy(t *testing.T, cfg *declcfg.DeclarativeConfig, v string) declcfg.Bundle {
	t.Helper()
	b := bundleCopy(t, cfg, newestRelease(t, cfg))
	b.Name = "memcached-operator.v" + v
	b.Image = ""
	for i, p := range b.Properties {
		if p.Type == property.TypePackage {
			b.Properties[i] = property.MustBuildPackage("memcached-operator", v)
		}
	}
	return b
}

// patchAfter is the patch release after the newest release of cfg.
func patchAfter(t *testing.T, cfg *declcfg.DeclarativeConfig) string {
	t.Helper()
	v := newestVersion(t, cfg)
	v.Patch++
	return v.String()
}

// headsOf returns the head of each channel of cfg.
func headsOf(t *testing.T, cfg *declcfg.DeclarativeConfig) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, ch := range cfg.Channels {
		h := Heads(ch)
		if len(h) != 1 {
			t.Fatalf("channel %s has heads %v", ch.Name, h)
		}
		out[ch.Name] = h[0]
	}
	return out
}

// The OLM tests' catalog with the working tree's bundle: it replaces a release of its name, is
// added above the releases of every channel as the next version, only to channels whose head is
// older, and is left out when every channel has a newer head; the result passes the catalog check.
func TestWithHead(t *testing.T) {
	newest := newestRelease(t, projectCatalog(t))
	next := nextRelease(t, projectCatalog(t)) // the minor after the newest release
	all := func(name string) map[string]string {
		return map[string]string{"candidate": name, "fast": name, "stable": name}
	}
	tests := map[string]struct {
		prepare   func(t *testing.T, cfg *declcfg.DeclarativeConfig) // a release a test cut into a copy
		version   string
		wantHeads map[string]string
		wantImage string // the head's image in the result, when set
		leftOut   bool   // the head is not in the result
	}{
		"the head builds as the newest release: replaced, image kept": {
			version: newestVersion(t, projectCatalog(t)).String(), wantHeads: all(newest),
			wantImage: bundleCopy(t, projectCatalog(t), newest).Image,
		},
		"the head builds as the next version: head of every channel": {
			version: "9.0.1-dev", wantHeads: all("memcached-operator.v9.0.1-dev"),
			wantImage: "registry.example.com/memcached-operator-bundle:v9.0.1-dev",
		},
		"a newer release in candidate: the head only in fast and stable": {
			prepare: func(t *testing.T, cfg *declcfg.DeclarativeConfig) {
				if err := AddRelease(cfg, versionCopy(t, cfg, next), []string{"candidate"}, "stable"); err != nil {
					t.Fatal(err)
				}
			},
			version:   patchAfter(t, projectCatalog(t)),
			wantHeads: map[string]string{"candidate": "memcached-operator.v" + next, "fast": "", "stable": ""},
		},
		"a newer release in every channel: left out": {
			prepare: func(t *testing.T, cfg *declcfg.DeclarativeConfig) {
				if err := AddRelease(cfg, versionCopy(t, cfg, next), []string{"candidate", "fast", "stable"}, "stable"); err != nil {
					t.Fatal(err)
				}
			},
			version: patchAfter(t, projectCatalog(t)), wantHeads: all("memcached-operator.v" + next), leftOut: true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			cfg := projectCatalog(t)
			if tc.prepare != nil {
				tc.prepare(t, cfg)
			}
			head := versionCopy(t, cfg, tc.version)
			before := len(cfg.Bundles)
			did, err := WithHead(cfg, head)
			if err != nil {
				t.Fatal(err)
			}
			t.Log(did)
			got := headsOf(t, cfg)
			for ch, want := range tc.wantHeads {
				if want == "" {
					want = head.Name
				}
				if got[ch] != want {
					t.Errorf("channel %s: head %s, want %s (%s)", ch, got[ch], want, did)
				}
			}
			i := slices.IndexFunc(cfg.Bundles, func(b declcfg.Bundle) bool { return b.Name == head.Name })
			if tc.leftOut && (i >= 0 || len(cfg.Bundles) != before) {
				t.Errorf("the head %s is in the catalog, want it left out", head.Name)
			}
			if !tc.leftOut && i < 0 {
				t.Errorf("the head %s is not in the catalog", head.Name)
			}
			if tc.wantImage != "" && i >= 0 && cfg.Bundles[i].Image != tc.wantImage {
				t.Errorf("the head's image is %s, want %s", cfg.Bundles[i].Image, tc.wantImage)
			}
			if problems := Check(cfg); len(problems) > 0 {
				t.Errorf("the catalog with the head is invalid: %s", joinProblems(problems))
			}
		})
	}
}
