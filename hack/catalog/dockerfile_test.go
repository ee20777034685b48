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

// A bundle.Dockerfile whose labels match annotations and whose only source exists.
const (
	cleanBody = "LABEL operators.operatorframework.io.bundle.package.v1=memcached-operator\n" +
		"LABEL operators.operatorframework.io.bundle.channels.v1=candidate,fast,stable\nCOPY bundle/manifests /manifests/\n"
	clean = "FROM scratch\n" + cleanBody
)

func TestCheckDockerfile(t *testing.T) {
	tests := map[string]struct {
		dockerfile string
		files      map[string]string // more files of the build context (ignore files)
		want       []string          // substrings of the problems; empty: clean
	}{
		"labels match, sources exist": {
			dockerfile: clean,
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
		"own ignore file re-includes what it copies": {
			dockerfile: clean,
			files:      map[string]string{"bundle.Dockerfile.dockerignore": "# only the bundle\n*\n!bundle/\n"},
		},
		"own ignore file hides the source": {
			dockerfile: clean,
			files:      map[string]string{"bundle.Dockerfile.dockerignore": "*\n!go.mod\n!api/\n"},
			want:       []string{"COPY source bundle/manifests is hidden by bundle.Dockerfile.dockerignore"},
		},
		"own ignore file does not excuse a generic .dockerignore that hides the source": {
			dockerfile: clean,
			files:      map[string]string{"bundle.Dockerfile.dockerignore": "*\n!bundle/\n", ".dockerignore": "/bundle\n"},
			want:       []string{"COPY source bundle/manifests is hidden by .dockerignore"},
		},
		".containerignore is a generic ignore file too": {
			dockerfile: clean,
			files:      map[string]string{".containerignore": "**/manifests\n"},
			want:       []string{"COPY source bundle/manifests is hidden by .containerignore"},
		},
		"a file hidden inside a copied directory": {
			dockerfile: clean,
			files:      map[string]string{"bundle/manifests/extra.yaml": "kind: Service\n", ".dockerignore": "bundle/manifests/extra.*\n"},
			want:       []string{"COPY source bundle/manifests: 1 of its 2 files are hidden by .dockerignore and would be missing from the image, e.g. bundle/manifests/extra.yaml"},
		},
		"an exception after the pattern keeps the file": {
			dockerfile: clean,
			files:      map[string]string{"bundle/manifests/extra.yaml": "kind: Service\n", ".dockerignore": "bundle/manifests/*\n!bundle/manifests/*.yaml\n"},
		},
		"base image as a build arg with the public image as default": {
			dockerfile: "ARG BASE_IMAGE=gcr.io/distroless/static:nonroot\nFROM ${BASE_IMAGE} AS base\nFROM base\n" + cleanBody,
		},
		"base image as a build arg without a default": {
			dockerfile: "ARG BASE_IMAGE\nFROM ${BASE_IMAGE}\n" + cleanBody,
			want:       []string{"FROM ${BASE_IMAGE} names no image with the default build args"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			files := map[string]string{
				"bundle.Dockerfile":                tc.dockerfile,
				"bundle/metadata/annotations.yaml": annotations,
				"bundle/manifests/csv.yaml":        "kind: ClusterServiceVersion\n",
			}
			for path, content := range tc.files {
				files[path] = content
			}
			for path, content := range files {
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

// The build context of bundle.Dockerfile before each Dockerfile had its own ignore file: the
// manager image's .dockerignore hid bundle/ (testdata/dockerignore-hides-bundle/README).
func TestCheckDockerfileIgnoreFixture(t *testing.T) {
	problems, err := CheckDockerfile("testdata/dockerignore-hides-bundle", "bundle.Dockerfile", "bundle/metadata/annotations.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(problems, "\n")
	for _, src := range []string{"bundle/manifests", "bundle/metadata", "bundle/tests/scorecard"} {
		if w := "COPY source " + src + " is hidden by .dockerignore"; !strings.Contains(got, w) {
			t.Errorf("problems lack %q; got:\n%s", w, got)
		}
	}
	if len(problems) != 3 {
		t.Errorf("want exactly the 3 hidden sources, got %d problems:\n%s", len(problems), got)
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
