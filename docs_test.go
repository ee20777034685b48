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

// TestDocsShowTheOLMv1Samples: docs/olm.md shows each file of config/samples/olmv1 verbatim as a
// YAML block, so the YAML a user copies is the YAML test/olmv1real applies on the real node.
func TestDocsShowTheOLMv1Samples(t *testing.T) {
	doc, err := os.ReadFile("docs/olm.md")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("config/samples/olmv1/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples in config/samples/olmv1 (%v)", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), "```yaml\n"+string(data)+"```\n") {
			t.Errorf("docs/olm.md does not show %s verbatim in a ```yaml block: copy it there", f)
		}
	}
}
