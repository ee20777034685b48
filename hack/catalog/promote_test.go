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
	"reflect"
	"strings"
	"testing"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
)

// releasedHistory is a catalog like the project's: 0.1.0 and 0.2.0 released into all three
// channels at once (the policy before candidate-first), then each later version only into
// candidate.
func releasedHistory(t *testing.T, candidateOnly ...string) *declcfg.DeclarativeConfig {
	t.Helper()
	cfg := &declcfg.DeclarativeConfig{}
	for _, v := range []string{"0.1.0", "0.2.0"} {
		if err := AddRelease(cfg, mustBundle(t, v), PromotionOrder, "stable"); err != nil {
			t.Fatalf("add %s: %v", v, err)
		}
	}
	for _, v := range candidateOnly {
		if err := AddRelease(cfg, mustBundle(t, v), []string{ReleaseChannel}, "stable"); err != nil {
			t.Fatalf("add %s to candidate: %v", v, err)
		}
	}
	return cfg
}

// entryLines returns channel name's entries as "name replaces=... skipRange=..." lines.
func entryLines(cfg *declcfg.DeclarativeConfig, name string) []string {
	var out []string
	for _, ch := range cfg.Channels {
		if ch.Name != name {
			continue
		}
		for _, e := range ch.Entries {
			out = append(out, strings.TrimPrefix(e.Name, "memcached-operator.")+" replaces="+strings.TrimPrefix(e.Replaces, "memcached-operator.")+" skipRange="+e.SkipRange)
		}
	}
	return out
}

// A release enters candidate only; promotion moves it to fast, then stable, each time as the new
// head replacing that channel's head with skipRange "<version" (the same rule as a release), and
// a channel never sees a release before it was promoted there. A promotion that would skip a
// channel, repeat, go backwards or name an unreleased version is refused and leaves the catalog
// as it was (a channel head that moves backwards would offer a downgrade, which OLM never
// performs).
func TestPromote(t *testing.T) {
	type step struct {
		version, channel string
	}
	tests := map[string]struct {
		candidateOnly []string
		promotions    []step
		want          map[string][]string // channel -> entries after the promotions
		wantErr       string              // error of the last promotion; earlier ones must pass
	}{
		"release enters candidate only": {
			candidateOnly: []string{"0.3.0"},
			want: map[string][]string{
				"candidate": {"v0.1.0 replaces= skipRange=", "v0.2.0 replaces=v0.1.0 skipRange=<0.2.0", "v0.3.0 replaces=v0.2.0 skipRange=<0.3.0"},
				"fast":      {"v0.1.0 replaces= skipRange=", "v0.2.0 replaces=v0.1.0 skipRange=<0.2.0"},
				"stable":    {"v0.1.0 replaces= skipRange=", "v0.2.0 replaces=v0.1.0 skipRange=<0.2.0"},
			},
		},
		"candidate to fast to stable": {
			candidateOnly: []string{"0.3.0"},
			promotions:    []step{{"0.3.0", "fast"}, {"0.3.0", "stable"}},
			want: map[string][]string{
				"fast":   {"v0.1.0 replaces= skipRange=", "v0.2.0 replaces=v0.1.0 skipRange=<0.2.0", "v0.3.0 replaces=v0.2.0 skipRange=<0.3.0"},
				"stable": {"v0.1.0 replaces= skipRange=", "v0.2.0 replaces=v0.1.0 skipRange=<0.2.0", "v0.3.0 replaces=v0.2.0 skipRange=<0.3.0"},
			},
		},
		"a release never promoted is skipped by the next promotion": {
			candidateOnly: []string{"0.3.0", "0.3.1"},
			promotions:    []step{{"0.3.1", "fast"}},
			want: map[string][]string{
				"candidate": {"v0.1.0 replaces= skipRange=", "v0.2.0 replaces=v0.1.0 skipRange=<0.2.0", "v0.3.0 replaces=v0.2.0 skipRange=<0.3.0", "v0.3.1 replaces=v0.3.0 skipRange=<0.3.1"},
				"fast":      {"v0.1.0 replaces= skipRange=", "v0.2.0 replaces=v0.1.0 skipRange=<0.2.0", "v0.3.1 replaces=v0.2.0 skipRange=<0.3.1"},
			},
		},
		"stable only from fast": {
			candidateOnly: []string{"0.3.0"},
			promotions:    []step{{"0.3.0", "stable"}},
			wantErr:       `not in channel "fast"`,
		},
		"candidate is not a promotion target": {
			candidateOnly: []string{"0.3.0"},
			promotions:    []step{{"0.3.0", "candidate"}},
			wantErr:       `cannot promote to channel "candidate"`,
		},
		"unknown channel": {
			candidateOnly: []string{"0.3.0"},
			promotions:    []step{{"0.3.0", "beta"}},
			wantErr:       `cannot promote to channel "beta"`,
		},
		"unreleased version": {
			promotions: []step{{"0.9.0", "fast"}},
			wantErr:    "has no release 0.9.0",
		},
		"promoted twice": {
			candidateOnly: []string{"0.3.0"},
			promotions:    []step{{"0.3.0", "fast"}, {"0.3.0", "fast"}},
			wantErr:       `already in channel "fast"`,
		},
		"older than the channel head": {
			candidateOnly: []string{"0.3.0", "0.3.1"},
			promotions:    []step{{"0.3.1", "fast"}, {"0.3.0", "fast"}},
			wantErr:       "is not newer than the head memcached-operator.v0.3.1",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			cfg := releasedHistory(t, tc.candidateOnly...)
			for i, p := range tc.promotions {
				before := entryLines(cfg, p.channel)
				err := Promote(cfg, "memcached-operator", semver.MustParse(p.version), p.channel)
				last := i == len(tc.promotions)-1
				if tc.wantErr != "" && last {
					if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
						t.Fatalf("Promote(%s, %s) error = %v, want it to contain %q", p.version, p.channel, err, tc.wantErr)
					}
					if after := entryLines(cfg, p.channel); !reflect.DeepEqual(before, after) {
						t.Errorf("channel %s changed on error: %v -> %v", p.channel, before, after)
					}
					return
				}
				if err != nil {
					t.Fatalf("Promote(%s, %s): %v", p.version, p.channel, err)
				}
			}
			if p := Check(cfg); len(p) > 0 {
				t.Fatalf("problems after the promotions: %v", p)
			}
			for ch, want := range tc.want {
				if got := entryLines(cfg, ch); !reflect.DeepEqual(got, want) {
					t.Errorf("channel %s:\n got %v\nwant %v", ch, got, want)
				}
			}
		})
	}
}

// A stable subscriber never sees an unpromoted release: no upgrade edge into stable leads to a
// bundle that was only released to candidate, and once promoted the head of stable is reachable
// from every older stable entry.
func TestStableNeverSeesUnpromoted(t *testing.T) {
	cfg := releasedHistory(t, "0.3.0", "0.3.1")
	if err := Promote(cfg, "memcached-operator", semver.MustParse("0.3.0"), "fast"); err != nil {
		t.Fatal(err)
	}
	for _, ch := range cfg.Channels {
		if ch.Name != "stable" {
			continue
		}
		for _, e := range ch.Entries {
			if e.Name == "memcached-operator.v0.3.0" || e.Name == "memcached-operator.v0.3.1" {
				t.Errorf("stable offers %s, which was never promoted to stable", e.Name)
			}
		}
		if h := Heads(ch); len(h) != 1 || h[0] != "memcached-operator.v0.2.0" {
			t.Errorf("stable heads %v, want [memcached-operator.v0.2.0]", h)
		}
	}
}
