package main

import (
	"path/filepath"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/utils/ptr"
)

// baseCRD is the older CRD of each pair: one served, stored version with a few typed fields.
func baseCRD() *apiextensionsv1.CustomResourceDefinition {
	spec := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"size":  {Type: "integer", Minimum: ptr.To(0.0), Maximum: ptr.To(10.0)},
		"image": {Type: "string", MaxLength: ptr.To[int64](200), Pattern: `^\S+$`},
		"mode":  {Type: "string", Enum: []apiextensionsv1.JSON{{Raw: []byte(`"a"`)}, {Raw: []byte(`"b"`)}}},
		"port":  {Type: "integer", Default: &apiextensionsv1.JSON{Raw: []byte(`11211`)}},
	}}
	return &apiextensionsv1.CustomResourceDefinition{
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "cache.example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "memcacheds", Kind: "Memcached"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1alpha1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": spec}}},
			}},
		},
	}
}

func TestCRDUpgradeHazards(t *testing.T) {
	specOf := func(c *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.JSONSchemaProps {
		s := c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
		return &s
	}
	setSpec := func(c *apiextensionsv1.CustomResourceDefinition, s *apiextensionsv1.JSONSchemaProps) {
		c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = *s
	}
	field := func(c *apiextensionsv1.CustomResourceDefinition, name string, edit func(*apiextensionsv1.JSONSchemaProps)) {
		s := specOf(c)
		p := s.Properties[name]
		edit(&p)
		s.Properties[name] = p
		setSpec(c, s)
	}
	tests := map[string]struct {
		change func(*apiextensionsv1.CustomResourceDefinition)
		// want are the parts every message must hold: the field and the rule (nil: safe).
		want []string
	}{
		"removed field": {
			change: func(c *apiextensionsv1.CustomResourceDefinition) {
				s := specOf(c)
				delete(s.Properties, "port")
				setSpec(c, s)
			},
			want: []string{"rule existingFieldRemoval", "^.spec.port"},
		},
		"new required field": {
			change: func(c *apiextensionsv1.CustomResourceDefinition) {
				s := specOf(c)
				s.Required = []string{"size"}
				setSpec(c, s)
			},
			want: []string{"field ^.spec: rule required", "size"},
		},
		"narrowed enum": {
			change: func(c *apiextensionsv1.CustomResourceDefinition) {
				field(c, "mode", func(p *apiextensionsv1.JSONSchemaProps) { p.Enum = p.Enum[:1] })
			},
			want: []string{"field ^.spec.mode: rule enum", "removed"},
		},
		"changed default": {
			change: func(c *apiextensionsv1.CustomResourceDefinition) {
				field(c, "port", func(p *apiextensionsv1.JSONSchemaProps) { p.Default = &apiextensionsv1.JSON{Raw: []byte(`11212`)} })
			},
			want: []string{"field ^.spec.port: rule default", "changed"},
		},
		"lowered maximum": {
			change: func(c *apiextensionsv1.CustomResourceDefinition) {
				field(c, "size", func(p *apiextensionsv1.JSONSchemaProps) { p.Maximum = ptr.To(5.0) })
			},
			want: []string{"field ^.spec.size: rule maximum"},
		},
		"raised minimum": {
			change: func(c *apiextensionsv1.CustomResourceDefinition) {
				field(c, "size", func(p *apiextensionsv1.JSONSchemaProps) { p.Minimum = ptr.To(1.0) })
			},
			want: []string{"field ^.spec.size: rule minimum"},
		},
		"lowered maxLength": {
			change: func(c *apiextensionsv1.CustomResourceDefinition) {
				field(c, "image", func(p *apiextensionsv1.JSONSchemaProps) { p.MaxLength = ptr.To[int64](100) })
			},
			want: []string{"field ^.spec.image: rule maxLength"},
		},
		"changed pattern": {
			change: func(c *apiextensionsv1.CustomResourceDefinition) {
				field(c, "image", func(p *apiextensionsv1.JSONSchemaProps) { p.Pattern = `^[a-z]+$` })
			},
			want: []string{"field ^.spec.image: rule pattern"},
		},
		"changed type": {
			change: func(c *apiextensionsv1.CustomResourceDefinition) {
				field(c, "port", func(p *apiextensionsv1.JSONSchemaProps) {
					p.Type = "string"
					p.Default = &apiextensionsv1.JSON{Raw: []byte(`11211`)}
				})
			},
			want: []string{"field ^.spec.port: rule type"},
		},
		"new CEL rule (unhandled, fail closed)": {
			change: func(c *apiextensionsv1.CustomResourceDefinition) {
				field(c, "size", func(p *apiextensionsv1.JSONSchemaProps) {
					p.XValidations = apiextensionsv1.ValidationRules{{Rule: "self % 2 == 1", Message: "odd"}}
				})
			},
			want: []string{"field ^.spec.size: rule unhandled"},
		},
		"changed scope": {
			change: func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Scope = apiextensionsv1.ClusterScoped },
			want:   []string{"rule scope", "Namespaced", "Cluster"},
		},
		"safe: new optional field with a description, added enum value": {
			change: func(c *apiextensionsv1.CustomResourceDefinition) {
				s := specOf(c)
				s.Properties["threads"] = apiextensionsv1.JSONSchemaProps{Type: "integer", Description: "worker threads"}
				setSpec(c, s)
				field(c, "mode", func(p *apiextensionsv1.JSONSchemaProps) {
					p.Enum = append(p.Enum, apiextensionsv1.JSON{Raw: []byte(`"c"`)})
				})
			},
		},
		// operator-controller v1.2.0's preflight refuses it ("unknown change"), v1.11.0's allows it.
		"a changed description of an existing field": {
			change: func(c *apiextensionsv1.CustomResourceDefinition) {
				field(c, "mode", func(p *apiextensionsv1.JSONSchemaProps) { p.Description = "the mode" })
			},
			want: []string{"rule description", "^.spec.mode"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			older, newer := baseCRD(), baseCRD()
			older.Name, newer.Name = "memcacheds.cache.example.com", "memcacheds.cache.example.com"
			tc.change(newer)
			hazards, err := crdUpgradeHazards(older, newer)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				if len(hazards) > 0 {
					t.Errorf("a safe change was refused: %v", hazards)
				}
				return
			}
			if len(hazards) == 0 {
				t.Fatalf("the unsafe change passed")
			}
			// Some changes fail several rules (a removed field also loses its type and default):
			// one message must hold every wanted part, and every message names the CRD.
			found := false
			for _, h := range hazards {
				all := true
				for _, w := range tc.want {
					all = all && strings.Contains(h.String(), w)
				}
				found = found || all
				if !strings.HasPrefix(h.String(), "CRD memcacheds.cache.example.com") {
					t.Errorf("%q does not name the CRD", h)
				}
			}
			if !found {
				t.Errorf("no message holds all of %q: %v", tc.want, hazards)
			}
		})
	}
}

// TestCRDUpgradeSafetyInCatalogCheck: the rules run on every upgrade edge of a catalog and name
// both bundles; the accepted list silences a failure only for the release it names.
func TestCRDUpgradeSafetyInCatalogCheck(t *testing.T) {
	cfg := projectCatalog(t)
	if got := Check(cfg); len(got) > 0 {
		t.Fatalf("today's catalog/ is refused: %v", got)
	}
	saved := acceptedCRDChanges
	t.Cleanup(func() { acceptedCRDChanges = saved })
	acceptedCRDChanges = map[string]bool{}
	var refused int
	for _, p := range Check(cfg) {
		if !strings.HasSuffix(p.Message, crdSafetySuffix) {
			t.Errorf("unexpected problem: %s", p)
		}
		if !strings.Contains(p.Message, " field ^") || !strings.Contains(p.Message, ": rule ") || len(p.Bundles) != 2 {
			t.Errorf("problem does not name the field, the rule and both bundles: %s", p)
		}
		refused++
	}
	if refused == 0 {
		t.Errorf("without the accepted list the released CEL and pattern changes passed")
	}
}

// nextReleaseKnown are the CRD upgrade-safety failures of bundle/ (the next release) against the
// released bundles that are known and accepted (key: the rule, as crdHazard names it). None today:
// the cross-field rules the next release adds are the operator's, not CEL on spec (see
// api/v1alpha1's MemcachedSpec). A new failure fails this test; a fixed one must be removed here.
var nextReleaseKnown = map[string]bool{}

// TestNextReleaseCRD: the CRDs in bundle/ (the next release) against every release's CRDs fail
// OLM v1's rules exactly as nextReleaseKnown says (what release.sh's check-crd-upgrade refuses).
func TestNextReleaseCRD(t *testing.T) {
	crds, err := readBundleCRDs(filepath.Join("..", "..", "bundle"))
	if err != nil {
		t.Fatal(err)
	}
	problems, err := CheckNextCRDs(projectCatalog(t), crds)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range problems {
		known := false
		for k := range nextReleaseKnown {
			if strings.Contains(p, ": "+k+": ") {
				known, seen[k] = true, true
			}
		}
		if !known {
			t.Errorf("%s", p)
		}
	}
	for k := range nextReleaseKnown {
		if !seen[k] {
			t.Errorf("bundle/ no longer fails %q: remove it from nextReleaseKnown", k)
		}
	}
}
