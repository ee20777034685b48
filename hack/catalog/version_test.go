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
	"context"
	"os"
	"strings"
	"testing"

	"github.com/operator-framework/operator-registry/alpha/declcfg"
)

// TestCheckHeadVersion runs the "one version, one content" rule against the committed catalog:
// the head may build under a released version only with that release's objects (createdAt aside),
// and otherwise only under a version newer than every release.
func TestCheckHeadVersion(t *testing.T) {
	cfg, err := declcfg.LoadFS(context.Background(), os.DirFS("../../catalog/memcached-operator"))
	if err != nil {
		t.Fatal(err)
	}
	const pkg, released = "memcached-operator", "0.2.2"
	var objs []map[string]any
	for _, b := range cfg.Bundles {
		if b.Name == pkg+".v"+released {
			if objs, err = bundleObjects(b); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(objs) == 0 {
		t.Fatalf("no objects of release %s in the catalog", released)
	}
	// edit returns a deep copy of the release's objects with f applied to its CSV.
	edit := func(f func(csv map[string]any)) []map[string]any {
		var out []map[string]any
		for _, o := range objs {
			c := normalize(o).(map[string]any)
			if c["kind"] == "ClusterServiceVersion" {
				f(c)
			}
			out = append(out, c)
		}
		return out
	}
	annotations := func(csv map[string]any) map[string]any {
		return csv["metadata"].(map[string]any)["annotations"].(map[string]any)
	}
	tests := map[string]struct {
		version string
		objs    []map[string]any
		want    []string // substrings, one per problem; none for no problem
	}{
		"the release's own bundle":    {version: released, objs: objs},
		"regenerated at another time": {version: released, objs: edit(func(csv map[string]any) { annotations(csv)["createdAt"] = "2030-01-01T00:00:00Z" })},
		"the release's name, other content": {version: released, objs: edit(func(csv map[string]any) {
			annotations(csv)["containerImage"] = "registry.example.com/memcached-operator:head"
		}), want: []string{"VERSION 0.2.2 is released", "ClusterServiceVersion memcached-operator.v0.2.2 differs", "bump VERSION"}},
		"an object left out":                {version: released, objs: objs[1:], want: []string{"is not in the head's bundle"}},
		"the next version":                  {version: "0.9.0", objs: edit(func(csv map[string]any) { annotations(csv)["containerImage"] = "x" })},
		"a pre-release of the next version": {version: "0.9.0-dev", objs: objs},
		"older than the newest release":     {version: "0.2.1-rc.1", objs: objs, want: []string{"is not newer than the newest release"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := CheckHeadVersion(cfg, pkg, tc.version, tc.objs)
			if err != nil {
				t.Fatal(err)
			}
			if (len(got) == 0) != (len(tc.want) == 0) {
				t.Fatalf("CheckHeadVersion(%s) = %q, want problems saying %q", tc.version, got, tc.want)
			}
			all := strings.Join(got, "\n")
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("CheckHeadVersion(%s) = %q, want it to say %q", tc.version, got, w)
				}
			}
		})
	}
}
