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

// Package scorecard holds memcached-operator's own scorecard tests: bundle checks that the
// built-in operator-sdk suites (basic, olm) do not make. Each returns a scorecard v1alpha3
// TestResult; cmd/memcached-scorecard-tests prints them as TestStatus JSON, the contract of a
// custom scorecard test image (https://sdk.operatorframework.io/docs/testing-operators/scorecard/custom-tests/).
package scorecard

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	scapiv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
	"github.com/operator-framework/api/pkg/manifests"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Test names: the entrypoint arguments of the scorecard test program.
const (
	DescriptorsCoverCRD       = "descriptors-cover-crd"
	ALMExamplesMatchCRDSchema = "alm-examples-match-crd-schema"
)

// Tests maps each test name to its implementation.
var Tests = map[string]func(*manifests.Bundle) scapiv1alpha3.TestResult{
	DescriptorsCoverCRD:       DescriptorsCoverCRDTest,
	ALMExamplesMatchCRDSchema: ALMExamplesMatchCRDSchemaTest,
}

// result builds a TestResult that passes when errs is empty.
func result(name string, errs []string, suggestion string) scapiv1alpha3.TestResult {
	r := scapiv1alpha3.TestResult{Name: name, State: scapiv1alpha3.PassState, Errors: errs}
	if len(errs) > 0 {
		r.State = scapiv1alpha3.FailState
		r.Suggestions = []string{suggestion}
	}
	return r
}

// DescriptorsCoverCRDTest checks that every spec and status field of every owned CRD has a spec or
// status descriptor in the CSV, so the OpenShift console shows it. The built-in olm-spec-descriptors
// test only checks the spec fields used in alm-examples, and olm-status-descriptors checks nothing
// when the examples carry no status (operator-sdk#3999). Fields are walked from spec and status
// down; the test descends into an object field only when its descriptor has no x-descriptors (a
// pure grouping such as spec.memcached): a field with x-descriptors (resources, affinity, ...) is
// edited or shown as a whole.
func DescriptorsCoverCRDTest(b *manifests.Bundle) scapiv1alpha3.TestResult {
	var errs []string
	for _, owned := range b.CSV.Spec.CustomResourceDefinitions.Owned {
		schema := crdSchema(b, owned.Name, owned.Version)
		if schema == nil {
			errs = append(errs, fmt.Sprintf("owned CRD %s %s is not in the bundle", owned.Name, owned.Version))
			continue
		}
		specDescs := map[string][]string{}
		for _, d := range owned.SpecDescriptors {
			specDescs[d.Path] = d.XDescriptors
		}
		statusDescs := map[string][]string{}
		for _, d := range owned.StatusDescriptors {
			statusDescs[d.Path] = d.XDescriptors
		}
		if spec, ok := schema.Properties["spec"]; ok {
			errs = append(errs, missingDescriptors(owned.Kind, "spec", "", spec, specDescs)...)
		}
		if status, ok := schema.Properties["status"]; ok {
			errs = append(errs, missingDescriptors(owned.Kind, "status", "", status, statusDescs)...)
		}
	}
	sort.Strings(errs)
	return result(DescriptorsCoverCRD, errs,
		"add +operator-sdk:csv:customresourcedefinitions:type=spec (or type=status) markers to the API fields and run `make bundle`")
}

func missingDescriptors(kind, root, prefix string, s apiextensionsv1.JSONSchemaProps, descs map[string][]string) []string {
	var errs []string
	for name, prop := range s.Properties {
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		xdescs, ok := descs[path]
		if !ok {
			errs = append(errs, fmt.Sprintf("%s: %s.%s has no %s descriptor", kind, root, path, root))
			continue
		}
		if prop.Type == "object" && len(prop.Properties) > 0 && len(xdescs) == 0 {
			errs = append(errs, missingDescriptors(kind, root, path, prop, descs)...)
		}
	}
	return errs
}

// crdSchema returns the OpenAPI schema of version v of the bundle's CRD named name, or nil.
func crdSchema(b *manifests.Bundle, name, v string) *apiextensionsv1.JSONSchemaProps {
	for _, crd := range b.V1CRDs {
		if crd.Name != name {
			continue
		}
		for _, ver := range crd.Spec.Versions {
			if ver.Name == v && ver.Schema != nil {
				return ver.Schema.OpenAPIV3Schema
			}
		}
	}
	return nil
}

// ALMExamplesMatchCRDSchemaTest checks that the CSV's alm-examples annotation is a JSON list with
// an example for every owned CRD, and that each example is valid against its CRD's OpenAPI schema
// (types, bounds, enums, patterns) and has no field the schema does not know (which the API server
// would prune or, with strict field validation, reject). It uses the API server's own schema
// validation and pruning code (k8s.io/apiextensions-apiserver); CEL rules are not evaluated here.
func ALMExamplesMatchCRDSchemaTest(b *manifests.Bundle) scapiv1alpha3.TestResult {
	var errs []string
	raw := b.CSV.Annotations["alm-examples"]
	var examples []unstructured.Unstructured
	if err := json.Unmarshal([]byte(raw), &examples); err != nil {
		errs = append(errs, fmt.Sprintf("metadata.annotations.alm-examples is not a valid JSON list: %v", err))
		return result(ALMExamplesMatchCRDSchema, errs, "fix the JSON in config/samples and run `make bundle`")
	}
	covered := map[string]bool{}
	for i := range examples {
		ex := &examples[i]
		gvk := ex.GroupVersionKind()
		crdName, version := "", gvk.Version
		for _, owned := range b.CSV.Spec.CustomResourceDefinitions.Owned {
			if owned.Kind == gvk.Kind && owned.Version == gvk.Version && strings.HasSuffix(owned.Name, "."+gvk.Group) {
				crdName = owned.Name
			}
		}
		if crdName == "" {
			errs = append(errs, fmt.Sprintf("alm-examples[%d]: %s is not an owned CRD of the CSV", i, gvk))
			continue
		}
		covered[crdName+"/"+version] = true
		schema := crdSchema(b, crdName, version)
		if schema == nil {
			errs = append(errs, fmt.Sprintf("alm-examples[%d]: CRD %s version %s is not in the bundle", i, crdName, version))
			continue
		}
		errs = append(errs, validateExample(fmt.Sprintf("alm-examples[%d] (%s %s)", i, gvk.Kind, ex.GetName()), schema, ex.Object)...)
	}
	for _, owned := range b.CSV.Spec.CustomResourceDefinitions.Owned {
		if !covered[owned.Name+"/"+owned.Version] {
			errs = append(errs, fmt.Sprintf("owned CRD %s %s has no example in alm-examples", owned.Name, owned.Version))
		}
	}
	return result(ALMExamplesMatchCRDSchema, errs, "fix config/samples so every sample is accepted by the CRD, and run `make bundle`")
}

// validateExample validates obj against schema and reports unknown fields, each error prefixed.
func validateExample(prefix string, schema *apiextensionsv1.JSONSchemaProps, obj map[string]any) []string {
	internal := &apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(schema, internal, nil); err != nil {
		return []string{fmt.Sprintf("%s: cannot convert the CRD schema: %v", prefix, err)}
	}
	var errs []string
	validator, _, err := apiservervalidation.NewSchemaValidator(internal)
	if err != nil {
		return []string{fmt.Sprintf("%s: cannot build a validator from the CRD schema: %v", prefix, err)}
	}
	for _, e := range apiservervalidation.ValidateCustomResource(nil, obj, validator) {
		errs = append(errs, fmt.Sprintf("%s: %v", prefix, e))
	}
	structural, err := structuralschema.NewStructural(internal)
	if err != nil {
		return append(errs, fmt.Sprintf("%s: the CRD schema is not structural: %v", prefix, err))
	}
	copied := runtimeDeepCopy(obj)
	for _, path := range structuralpruning.PruneWithOptions(copied, structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true}) {
		errs = append(errs, fmt.Sprintf("%s: unknown field %q", prefix, path))
	}
	return errs
}

// runtimeDeepCopy copies a JSON object so pruning does not change the caller's example.
func runtimeDeepCopy(obj map[string]any) map[string]any {
	return (&unstructured.Unstructured{Object: obj}).DeepCopy().Object
}
