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

package bundle

import (
	"bytes"
	"os"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/util/jsonpath"
	"sigs.k8s.io/yaml"
)

// kubectl get memcached shows why an instance is unhealthy: the Degraded condition's reason as a
// column, and its message under -o wide (priority 1), beside Available (which stays True while the
// previous servers keep serving a refused spec). Checked in the generated CRD and in the bundle's
// copy of it, and evaluated as kubectl evaluates the columns' JSONPath.
func TestPrinterColumnsShowDegraded(t *testing.T) {
	type col struct {
		name     string
		priority int32
		value    string
	}
	want := []col{
		{"Size", 0, "3"},
		{"Ready", 0, "2"},
		{"Version", 0, "1.6.38 (1), 1.6.46 (1)"},
		{"Available", 0, "True"},
		{"Degraded", 0, "InvalidSpec"},
		{"Message", 1, "spec.resources.limits.memory: must be larger than maxMemoryMB"},
		{"Age", 0, "2026-12-02T00:00:00Z"},
	}
	// A Memcached whose new spec the operator refused while its previous servers keep serving.
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(`
metadata: {name: web, creationTimestamp: "2026-12-02T00:00:00Z"}
spec: {size: 3}
status:
  readyReplicas: 2
  version: "1.6.38 (1), 1.6.46 (1)"
  conditions:
  - {type: Available, status: "True", reason: AllReplicasReady, message: ""}
  - {type: Degraded, status: "True", reason: InvalidSpec, message: "spec.resources.limits.memory: must be larger than maxMemoryMB"}
`), &obj); err != nil {
		t.Fatal(err)
	}

	for name, path := range map[string]string{
		"config/crd": "../../config/crd/bases/cache.example.com_memcacheds.yaml",
		"bundle":     shippedBundle + "/manifests/cache.example.com_memcacheds.yaml",
	} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var crd apiextensionsv1.CustomResourceDefinition
			if err := yaml.Unmarshal(data, &crd); err != nil {
				t.Fatal(err)
			}
			if len(crd.Spec.Versions) != 1 {
				t.Fatalf("want one version, got %d", len(crd.Spec.Versions))
			}
			cols := crd.Spec.Versions[0].AdditionalPrinterColumns
			if len(cols) != len(want) {
				t.Fatalf("want %d printer columns, got %d: %+v", len(want), len(cols), cols)
			}
			for i, w := range want {
				c := cols[i]
				if c.Name != w.name || c.Priority != w.priority {
					t.Errorf("column %d: want %s (priority %d), got %s (priority %d)", i, w.name, w.priority, c.Name, c.Priority)
					continue
				}
				jp := jsonpath.New(c.Name).AllowMissingKeys(true)
				// kubectl wraps a column's JSONPath in braces.
				if err := jp.Parse("{" + c.JSONPath + "}"); err != nil {
					t.Errorf("column %s: JSONPath %q: %v", c.Name, c.JSONPath, err)
					continue
				}
				var out bytes.Buffer
				if err := jp.Execute(&out, obj); err != nil {
					t.Errorf("column %s: %v", c.Name, err)
					continue
				}
				if out.String() != w.value {
					t.Errorf("column %s: want %q, got %q", c.Name, w.value, out.String())
				}
			}
		})
	}
}
