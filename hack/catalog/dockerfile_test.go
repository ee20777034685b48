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
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const annotations = `annotations:
  operators.operatorframework.io.bundle.package.v1: memcached-operator
  operators.operatorframework.io.bundle.channels.v1: candidate,fast,stable
`

func TestCheckDockerfile(t *testing.T) {
	tests := map[string]struct {
		dockerfile string
		want       []string // substrings of the problems; empty: clean
	}{
		"labels match, sources exist": {
			dockerfile: "FROM scratch\nLABEL operators.operatorframework.io.bundle.package.v1=memcached-operator\n" +
				"LABEL operators.operatorframework.io.bundle.channels.v1=candidate,fast,stable\nCOPY bundle/manifests /manifests/\n",
		},
		"label differs from annotations.yaml": {
			dockerfile: "FROM scratch\nLABEL operators.operatorframework.io.bundle.package.v1=memcached-operator\n" +
				"LABEL operators.operatorframework.io.bundle.channels.v1=alpha\nCOPY bundle/manifests /manifests/\n",
			want: []string{`LABEL operators.operatorframework.io.bundle.channels.v1="alpha" but bundle/metadata/annotations.yaml has "candidate,fast,stable"`},
		},
		"label missing and a source that does not exist": {
			dockerfile: "FROM scratch\nLABEL operators.operatorframework.io.bundle.package.v1=memcached-operator\nCOPY bundle/tests/scorecard /tests/scorecard/\n",
			want:       []string{"no LABEL operators.operatorframework.io.bundle.channels.v1", "COPY source bundle/tests/scorecard does not exist"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			for path, content := range map[string]string{
				"bundle.Dockerfile":                tc.dockerfile,
				"bundle/metadata/annotations.yaml": annotations,
				"bundle/manifests/csv.yaml":        "kind: ClusterServiceVersion\n",
			} {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(root, path)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(root, path), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			problems, err := CheckDockerfile(root, "bundle.Dockerfile", "bundle/metadata/annotations.yaml")
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(problems, "\n")
			if len(tc.want) == 0 && got != "" {
				t.Errorf("unexpected problems: %s", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("problems lack %q; got:\n%s", w, got)
				}
			}
		})
	}
}

// The project's own Dockerfiles pass.
func TestProjectDockerfiles(t *testing.T) {
	for _, d := range []struct{ file, annotations string }{
		{"Dockerfile", ""}, {"bundle.Dockerfile", "bundle/metadata/annotations.yaml"}, {"catalog.Dockerfile", ""},
	} {
		problems, err := CheckDockerfile("../..", d.file, d.annotations)
		if err != nil {
			t.Fatalf("%s: %v", d.file, err)
		}
		for _, p := range problems {
			t.Error(p)
		}
	}
}
