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

package controllers

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// The blocks of README.md and docs/ marked as snippets (hack/demo/snippets.sh) are what a user pastes:
// every Memcached in them passes the API server's validation (a dry-run create with strict field
// validation, as kubectl applies) and the operator's own rules, every object has an apiVersion, a
// kind and a name, and every shell block parses. hack/demo/snippets.sh run applies them on the kwok tier.
func TestDocSnippets(t *testing.T) {
	dir := t.TempDir()
	out, err := exec.Command("bash", "../hack/demo/snippets.sh", "extract", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("hack/demo/snippets.sh extract: %v\n%s", err, out)
	}
	index, err := os.ReadFile(filepath.Join(dir, "index"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(index)), "\n")
	// The README's install and first-Memcached blocks are marked; losing the markers loses the test.
	if len(lines) < 3 {
		t.Fatalf("want at least 3 marked snippets, got %d:\n%s", len(lines), index)
	}
	memcacheds := 0
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) != 4 {
			t.Fatalf("bad index line %q", line)
		}
		n, typ, src := f[0], f[2], f[3]
		path := filepath.Join(dir, n+"."+typ)
		t.Run(src, func(t *testing.T) {
			switch typ {
			case "sh":
				if out, err := exec.Command("bash", "-n", path).CombinedOutput(); err != nil {
					t.Errorf("shell block does not parse: %v\n%s", err, out)
				}
			case "yaml":
				memcacheds += checkYAMLSnippet(t, path)
			default:
				t.Errorf("unknown block type %q", typ)
			}
		})
	}
	if memcacheds == 0 {
		t.Error("no marked snippet creates a Memcached")
	}
}

// checkYAMLSnippet checks every object of one YAML block and returns how many were Memcacheds.
func checkYAMLSnippet(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	memcacheds := 0
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("read YAML: %v", err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		u := &unstructured.Unstructured{}
		if err := utilyaml.Unmarshal(doc, &u.Object); err != nil {
			t.Errorf("object does not parse: %v\n%s", err, doc)
			continue
		}
		if u.GetAPIVersion() == "" || u.GetKind() == "" || u.GetName() == "" {
			t.Errorf("object without apiVersion, kind or name:\n%s", doc)
			continue
		}
		if u.GroupVersionKind() != cachev1alpha1.GroupVersion.WithKind("Memcached") {
			continue
		}
		memcacheds++
		// t-unwatched: nothing reconciles there, and a dry run writes nothing anyway.
		u.SetNamespace("t-unwatched")
		if err := k8sClient.Create(testCtx, u, client.DryRunAll, client.FieldValidation("Strict")); err != nil {
			t.Errorf("the API server refuses Memcached %s: %v", u.GetName(), err)
			continue
		}
		// u is now the server's answer, defaults applied, as the operator would read it.
		var mc cachev1alpha1.Memcached
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &mc); err != nil {
			t.Errorf("Memcached %s: %v", u.GetName(), err)
			continue
		}
		if err := validateSpec(&mc); err != nil {
			t.Errorf("the operator refuses Memcached %s: %v", u.GetName(), err)
		}
	}
	return memcacheds
}

// Every sample in config/samples (the basic one and one per feature: TLS, auth, monitoring,
// NetworkPolicy, graceful shutdown, scheduling) passes the API server's validation and the
// operator's rules.
func TestSamples(t *testing.T) {
	files, err := filepath.Glob("../config/samples/cache_v1alpha1_memcached*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 7 {
		t.Fatalf("want the basic sample and 6 feature samples, got %v", files)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if n := checkYAMLSnippet(t, f); n != 1 {
				t.Errorf("want one Memcached, got %d", n)
			}
		})
	}
}
