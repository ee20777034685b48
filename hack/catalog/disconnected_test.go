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
	"strings"
	"testing"
)

// A CSV may say features.operators.openshift.io/disconnected "true" only when every image it
// refers to is pinned by digest (OpenShift's requirement for restricted networks; a tag does not
// follow a mirror: grafana/grafana-operator#1234); the project's own bundle says "false" and
// passes.
func TestCheckDisconnected(t *testing.T) {
	tests := map[string]struct {
		dir  string
		want []string // substrings of the problems; empty: none
	}{
		"the project's bundle says false": {dir: "../../bundle"},
		"tags say true": {dir: "testdata/disconnected/tag-says-true", want: []string{
			`the containerImage annotation; Deployment memcached-operator-controller-manager, container manager: "registry.example.com/memcached-operator:v0.2.3" is not pinned by digest`,
			`env RELATED_IMAGE_MEMCACHED; relatedImages memcached: "docker.io/library/memcached:1.6.38-alpine" is not pinned by digest`,
		}},
		"digests say true": {dir: "testdata/disconnected/digests-say-true"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			csv, err := LoadBundleCSV(tc.dir)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(CheckDisconnected(csv), "\n")
			if len(tc.want) == 0 && got != "" {
				t.Errorf("unexpected problems:\n%s", got)
			}
			if len(tc.want) > 0 && got == "" {
				t.Errorf("the CSV with tags passed")
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("problems lack %q; got:\n%s", w, got)
				}
			}
		})
	}
}
