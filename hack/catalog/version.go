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
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
	"github.com/operator-framework/operator-registry/alpha/property"
	"sigs.k8s.io/yaml"
)

// createdAtAnnotation is the CSV annotation operator-sdk stamps with the time of `make bundle`: the one
// field a regenerated bundle may change without changing what it installs.
const createdAtAnnotation = "createdAt"

// CheckHeadVersion enforces "one version, one content" for the bundle the head builds (bundleObjs,
// the objects of bundle/manifests) under version: when version is a release of package pkg in
// cfg, the bundle must be that release's, object for object (createdAt aside); when it is not, it
// must be newer than every release, so that nothing the head builds carries a released version's
// name with other content, and the next release is the version the head already builds as. It
// returns every difference it finds.
func CheckHeadVersion(cfg *declcfg.DeclarativeConfig, pkg, version string, bundleObjs []map[string]any) ([]string, error) {
	v, err := semver.Parse(strings.TrimPrefix(version, "v"))
	if err != nil {
		return nil, fmt.Errorf("VERSION %q is not a semver version: %w", version, err)
	}
	var newest *semver.Version
	for _, b := range cfg.Bundles {
		if b.Package != pkg {
			continue
		}
		info, err := describeBundle(b)
		if err != nil {
			return nil, fmt.Errorf("bundle %s: %w", b.Name, err)
		}
		if newest == nil || info.version.GT(*newest) {
			newest = &info.version
		}
		if !info.version.EQ(v) {
			continue
		}
		released, err := bundleObjects(b)
		if err != nil {
			return nil, fmt.Errorf("bundle %s: %w", b.Name, err)
		}
		diffs := objectDiffs(released, bundleObjs)
		for i, d := range diffs {
			diffs[i] = fmt.Sprintf("VERSION %s is released (%s), and the head's bundle differs from it: %s; "+
				"bump VERSION to the next version (docs/releasing.md)", v, b.Name, d)
		}
		return diffs, nil
	}
	if newest != nil && !v.GT(*newest) {
		return []string{fmt.Sprintf("VERSION %s is not newer than the newest release %s: the head must build as the next version", v, newest)}, nil
	}
	return nil, nil
}

// bundleObjects decodes the olm.bundle.object properties of b.
func bundleObjects(b declcfg.Bundle) ([]map[string]any, error) {
	var objs []map[string]any
	for _, p := range b.Properties {
		if p.Type != property.TypeBundleObject {
			continue
		}
		var bo property.BundleObject
		if err := json.Unmarshal(p.Value, &bo); err != nil {
			return nil, fmt.Errorf("failed to decode an olm.bundle.object: %w", err)
		}
		var obj map[string]any
		if err := json.Unmarshal(bo.Data, &obj); err != nil {
			return nil, fmt.Errorf("failed to decode an olm.bundle.object's data: %w", err)
		}
		objs = append(objs, obj)
	}
	return objs, nil
}

// LoadBundleObjects reads every manifest of a bundle directory's manifests/ as an object.
func LoadBundleObjects(dir string) ([]map[string]any, error) {
	files, err := filepath.Glob(filepath.Join(dir, "manifests", "*"))
	if err != nil {
		return nil, fmt.Errorf("failed to list %s/manifests: %w", dir, err)
	}
	var objs []map[string]any
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("failed to read %s: %w", f, err)
		}
		var obj map[string]any
		if err := yaml.Unmarshal(data, &obj); err != nil {
			return nil, fmt.Errorf("failed to parse %s: %w", f, err)
		}
		objs = append(objs, obj)
	}
	return objs, nil
}

// objectDiffs compares two sets of objects by kind and name (createdAt aside, both normalized by
// withoutCreatedAt) and names each one that is missing on either side or differs.
func objectDiffs(released, head []map[string]any) []string {
	index := func(objs []map[string]any) map[string]map[string]any {
		m := map[string]map[string]any{}
		for _, o := range objs {
			m[objectKey(o)] = withoutCreatedAt(o)
		}
		return m
	}
	r, h := index(released), index(head)
	var diffs []string
	for k, ro := range r {
		ho, ok := h[k]
		switch {
		case !ok:
			diffs = append(diffs, k+" is not in the head's bundle")
		case !reflect.DeepEqual(ro, ho):
			diffs = append(diffs, k+" differs")
		}
	}
	for k := range h {
		if _, ok := r[k]; !ok {
			diffs = append(diffs, k+" is not in the release")
		}
	}
	sort.Strings(diffs)
	return diffs
}

// objectKey is "Kind name" of an object.
func objectKey(o map[string]any) string {
	name := ""
	if md, ok := o["metadata"].(map[string]any); ok {
		name, _ = md["name"].(string)
	}
	kind, _ := o["kind"].(string)
	return kind + " " + name
}

// withoutCreatedAt returns a copy of o without the createdAt annotation (a CSV's only field that
// changes with each regeneration).
func withoutCreatedAt(o map[string]any) map[string]any {
	c := normalize(o).(map[string]any)
	if md, ok := c["metadata"].(map[string]any); ok {
		if ann, ok := md["annotations"].(map[string]any); ok {
			delete(ann, createdAtAnnotation)
		}
	}
	return c
}

// normalize returns a deep copy of v through JSON, so that numbers and maps from YAML and from
// JSON compare equal.
func normalize(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		return v
	}
	return out
}
