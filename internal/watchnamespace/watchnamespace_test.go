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

package watchnamespace

import (
	"slices"
	"strings"
	"testing"
)

// Sources: https://github.com/operator-framework/community-operators/issues/199 ("" must mean all
// namespaces), https://github.com/operator-framework/operator-sdk/issues/2522 (comma-separated
// lists); whitespace and trailing commas must not produce " app-a ".
func TestParse(t *testing.T) {
	tests := map[string]struct {
		value   string
		want    []string
		wantErr string
	}{
		"empty means all namespaces":   {value: "", want: nil},
		"only separators means all":    {value: " , ,", want: nil},
		"one namespace":                {value: "app-a", want: []string{"app-a"}},
		"several":                      {value: "app-b,app-a", want: []string{"app-a", "app-b"}},
		"spaces and trailing comma":    {value: " app-a , app-b ,", want: []string{"app-a", "app-b"}},
		"duplicates dropped":           {value: "app-a,app-a, app-a", want: []string{"app-a"}},
		"upper case is invalid":        {value: "App-A", wantErr: `invalid namespace "App-A"`},
		"inner space is invalid":       {value: "app a,b", wantErr: `invalid namespace "app a"`},
		"too long is invalid":          {value: strings.Repeat("a", 64), wantErr: "invalid namespace"},
		"error names the variable too": {value: "a,B", wantErr: "WATCH_NAMESPACE"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := Parse(tc.value)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Parse(%q) error = %v, want it to contain %q", tc.value, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q) error = %v", tc.value, err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Parse(%q) = %q, want %q", tc.value, got, tc.want)
			}
		})
	}
}

func TestCacheConfig(t *testing.T) {
	if got := CacheConfig(nil); got != nil {
		t.Errorf("CacheConfig(nil) = %v, want nil (all namespaces)", got)
	}
	got := CacheConfig([]string{"a", "b"})
	if len(got) != 2 {
		t.Fatalf("CacheConfig([a b]) has %d entries, want 2", len(got))
	}
	for _, ns := range []string{"a", "b"} {
		if _, ok := got[ns]; !ok {
			t.Errorf("CacheConfig misses namespace %s", ns)
		}
	}
}
