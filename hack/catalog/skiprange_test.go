package main

import (
	"strings"
	"testing"
)

func TestCheckSkipRange(t *testing.T) {
	tests := []struct {
		name, skipRange string
		wantErr         string // "" : well-formed
	}{
		{"below a version", "<0.2.0", ""},
		{"between two versions", ">=0.1.0 <0.2.0", ""},
		{"alternatives", "<0.1.5 || >=0.1.7 <0.2.0", ""},
		{"pre-release", "<0.2.0-rc.1", ""},
		{"dangling hyphen after a range", ">=0.1.0 <0.2.0 -", "stray hyphen"},
		{"dangling hyphen after a version", "0.1.0 -", "stray hyphen"},
		{"leading hyphen", "- <0.2.0", "stray hyphen"},
		{"hyphen range", "0.1.0 - 0.2.0", "stray hyphen"},
		{"hyphen glued to a version", "<0.2.0-", "stray hyphen"},
		{"operator and version apart", ">= 0.1.0", "not followed by a version"},
		{"v prefix", "<=v0.2.0", "not a full X.Y.Z version"},
		{"short version", "<0.2", "not a full X.Y.Z version"},
		{"wildcard", "0.1.x", "not a full X.Y.Z version"},
		{"trailing comma", "<0.2.0,", "not a full X.Y.Z version"},
		{"empty alternative", "<0.2.0 ||", "empty alternative"},
		{"blank", " ", "empty range"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := checkSkipRange(tc.skipRange)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("%q refused: %v", tc.skipRange, err)
			case tc.wantErr != "" && err == nil:
				t.Errorf("%q accepted", tc.skipRange)
			case tc.wantErr != "" && !strings.Contains(err.Error(), tc.wantErr):
				t.Errorf("%q: error %q lacks %q", tc.skipRange, err, tc.wantErr)
			}
		})
	}
}

// TestMalformedSkipRangeNamesTheBundle: a channel entry's skipRange and a CSV's olm.skipRange
// annotation that blang/semver reads leniently are refused, naming the bundle.
func TestMalformedSkipRangeNamesTheBundle(t *testing.T) {
	for _, r := range []string{">=0.1.0 <0.2.0 -", "0.1.0 -"} {
		got := problemsOf(t, twoReleasesRange(r))
		if want := `skipRange "` + r + `" is not a valid range`; !strings.Contains(got, want) || !strings.Contains(got, "[memcached-operator.v0.2.0]") {
			t.Errorf("channel entry skipRange %q: problems lack %q naming memcached-operator.v0.2.0; got:\n%s", r, want, got)
		}

		cfg := projectCatalog(t)
		for i := range cfg.Bundles {
			if cfg.Bundles[i].Name != "memcached-operator.v0.2.3" {
				continue
			}
			rewriteObjects(t, &cfg.Bundles[i], func(obj map[string]any) {
				if obj["kind"] == "ClusterServiceVersion" {
					md := obj["metadata"].(map[string]any)
					ann, _ := md["annotations"].(map[string]any)
					if ann == nil {
						ann = map[string]any{}
					}
					ann["olm.skipRange"] = r
					md["annotations"] = ann
				}
			})
		}
		var found bool
		for _, p := range Check(cfg) {
			if strings.Contains(p.Message, "olm.skipRange") && len(p.Bundles) == 1 && p.Bundles[0] == "memcached-operator.v0.2.3" {
				found = true
			}
		}
		if !found {
			t.Errorf("CSV annotation olm.skipRange %q: no problem names memcached-operator.v0.2.3: %v", r, Check(cfg))
		}
	}
}
