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

package resources

import (
	"encoding/json"
	"reflect"
	"strings"
)

// Field paths of built objects, in the API's JSON names: "spec.template.spec.containers[].ports[].name"
// ("[]" for any element of a list). Used by TestWrittenFieldsExistAtMinKubeVersion.
//
// Written with reflect rather than runtime.DefaultUnstructuredConverter: the converter turns both
// structs and maps into map[string]any, so the keys of labels, nodeSelector or resources.limits
// would read as field names, and the paths a user-supplied subtree can hold (typePaths) need the Go
// types, which only reflect gives. Neither apimachinery nor structured-merge-diff exports a walk of
// a typed object without the API's OpenAPI schema, which k8s.io/api does not ship.

var jsonMarshaler = reflect.TypeFor[json.Marshaler]()

// leafType reports whether values of t are written as one JSON value, not as an object of
// fields: scalars, maps (their keys are data, not fields), []byte, and types that marshal
// themselves (resource.Quantity, intstr.IntOrString, metav1.Time).
func leafType(t reflect.Type) bool {
	if t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler) {
		return true
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Pointer:
		return false
	case reflect.Slice:
		return t.Elem().Kind() == reflect.Uint8
	default:
		return true
	}
}

// jsonField returns the JSON name of struct field f, inline for an embedded struct written into
// its parent (`json:",inline"`, or anonymous without a name), and skip for a field never written.
func jsonField(f reflect.StructField) (name string, inline, skip bool) {
	tag := f.Tag.Get("json")
	if tag == "-" || !f.IsExported() {
		return "", false, true
	}
	name, _, _ = strings.Cut(tag, ",")
	if name == "" && (f.Anonymous || strings.Contains(tag, "inline")) {
		return "", true, false
	}
	if name == "" {
		name = f.Name
	}
	return name, false, false
}

// join appends name to path.
func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// setPaths records in paths every field path of v that is set: a non-zero scalar or non-empty map
// or list, or a non-nil pointer (a pointer to false or 0 is written). A non-nil pointer to an
// object with nothing set is recorded itself (it is written as {}). goNames records the Go names of
// the struct fields that are set, for the coverage check of the builders' source.
func setPaths(path string, v reflect.Value, paths, goNames map[string]bool) bool {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return false
		}
		if !setPaths(path, v.Elem(), paths, goNames) {
			paths[path] = true
		}
		return true
	}
	t := v.Type()
	switch {
	case leafType(t):
		if v.IsZero() || ((t.Kind() == reflect.Map || t.Kind() == reflect.Slice) && v.Len() == 0) {
			return false
		}
		paths[path] = true
		return true
	case t.Kind() == reflect.Slice:
		set := false
		for i := range v.Len() {
			set = setPaths(path+"[]", v.Index(i), paths, goNames) || set
		}
		return set
	}
	set := false
	for i := range t.NumField() {
		name, inline, skip := jsonField(t.Field(i))
		if skip {
			continue
		}
		p := path
		if !inline {
			p = join(path, name)
		}
		if setPaths(p, v.Field(i), paths, goNames) {
			goNames[t.Field(i).Name] = true
			set = true
		}
	}
	return set
}

// typePaths records in paths every leaf field path that a value of type t could hold under path,
// and in goNames the Go names of every struct field on the way. It serves the subtrees the
// builders copy from the user's spec (spec.affinity and the like), whose every field the operator
// may write.
func typePaths(path string, t reflect.Type, paths, goNames map[string]bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case leafType(t):
		paths[path] = true
		return
	case t.Kind() == reflect.Slice:
		typePaths(path+"[]", t.Elem(), paths, goNames)
		return
	}
	for i := range t.NumField() {
		name, inline, skip := jsonField(t.Field(i))
		if skip {
			continue
		}
		goNames[t.Field(i).Name] = true
		p := path
		if !inline {
			p = join(path, name)
		}
		typePaths(p, t.Field(i).Type, paths, goNames)
	}
}
