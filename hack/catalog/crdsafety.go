package main

import (
	"context"
	_ "embed"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/operator-framework/operator-registry/alpha/declcfg"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/crdify/pkg/config"
	"sigs.k8s.io/crdify/pkg/runner"
	"sigs.k8s.io/crdify/pkg/validations/property"
	"sigs.k8s.io/crdify/pkg/validators/version"
	"sigs.k8s.io/yaml"
)

// OLM v1 (operator-controller v1.11.0) refuses a ClusterExtension upgrade whose CRDs change
// unsafely: its "CRD upgrade safety" preflight. That preflight lives in an internal package of
// operator-controller (internal/operator-controller/rukpak/preflights/crdupgradesafety), which Go
// does not let us import; it is a thin wrapper of the public library sigs.k8s.io/crdify, at the
// version operator-controller v1.11.0's go.mod pins (v0.6.1-0.20260602124154-bb9957dbf465). We
// use that library with the policy the preflight configures, so our release check refuses what
// OLM v1 would:
//   - the CRD-wide rules: a removed field of the older CRD (existingFieldRemoval), a changed
//     scope, a removed stored version (status.storedVersions; our bundles' CRDs carry no status,
//     so the storage-version rule of edgeHazards covers it);
//   - per version, for each property: a changed, added or removed default; a new or narrowed enum
//     (adding enum values is allowed); a new or tightened maximum, minimum, maxLength, minLength,
//     maxItems, minItems, maxProperties, minProperties; a new or changed pattern; a newly required
//     field; a changed type; nullable and oneOf changes; and any other schema change the library
//     does not classify, x-kubernetes-validations (CEL) among them ("unhandled": refused, fail
//     closed);
//   - the same rules between two served versions of the newer CRD, except when it declares a
//     conversion webhook (conversion policy "ignore");
//   - description changes, which v1.11.0's policy allows, are refused too: the cluster tier runs
//     operator-controller v1.2.0 (the newest the Go proxy serves in full), whose preflight is the
//     older kapp-derived ChangeValidator, and it refuses a changed description of an existing
//     field as an "unknown change" (measured: it refused 0.2.3 -> a head whose CRD changed only
//     four descriptions), so our check holds releases to the stricter of the two.
//
// v1.2.0 refuses the 0.1.0 -> head edge this check lists, naming the same field (^.spec.image
// "unknown change"): test/olmv1real asserts it.
func crdUpgradeRunner() (*runner.Runner, error) {
	cfg := &config.Config{
		Conversion:           config.ConversionPolicyIgnore,
		UnhandledEnforcement: config.EnforcementPolicyError,
		Validations: []config.ValidationConfig{
			{Name: "description", Enforcement: config.EnforcementPolicyError},
			{Name: "enum", Enforcement: config.EnforcementPolicyError,
				Configuration: map[string]interface{}{"additionPolicy": property.AdditionPolicyAllow}},
		},
	}
	r, err := runner.New(cfg, runner.DefaultRegistry())
	if err != nil {
		return nil, fmt.Errorf("failed to create CRD upgrade-safety runner: %w", err)
	}
	return r, nil
}

// crdHazard is one CRD upgrade-safety rule that fails: key names the CRD, the version, the field
// (a JSON path from the version's schema root, "^") and the rule; detail says what changed.
type crdHazard struct {
	key, detail string
}

func (h crdHazard) String() string { return h.key + ": " + h.detail }

// crdUpgradeHazards returns each rule OLM v1 would fail when CRD older (of the bundle upgraded
// from) is replaced by newer (the same CRD name in the bundle upgraded to), sorted.
func crdUpgradeHazards(older, newer *apiextensionsv1.CustomResourceDefinition) ([]crdHazard, error) {
	r, err := crdUpgradeRunner()
	if err != nil {
		return nil, err
	}
	res := r.Run(withSchemas(older), withSchemas(newer))
	var out []crdHazard
	for _, c := range res.CRDValidation {
		for _, e := range c.Errors {
			out = append(out, crdHazard{key: fmt.Sprintf("CRD %s: rule %s", newer.Name, c.Name), detail: concise(e)})
		}
	}
	versioned := func(kind string, results []version.VersionedPropertyComparisonResult) {
		for _, v := range results {
			for _, p := range v.PropertyComparisons {
				for _, c := range p.ComparisonResults {
					for _, e := range c.Errors {
						out = append(out, crdHazard{key: fmt.Sprintf("CRD %s %s %s field %s: rule %s", newer.Name, kind, v.Version, p.Property, c.Name), detail: concise(e)})
					}
				}
			}
		}
	}
	versioned("version", res.SameVersionValidation)
	versioned("served versions", res.ServedVersionValidation)
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out, nil
}

// diffField matches a changed line of the library's schema diff ("- \tXValidations: ...").
var diffField = regexp.MustCompile(`^[-+]\s+([A-Za-z]+):`)

// concise shortens the library's multi-line schema diff ("unhandled changes found" and a Go
// struct diff) to its first line and the schema fields that changed.
func concise(msg string) string {
	lines := strings.Split(msg, "\n")
	first := strings.TrimSuffix(strings.TrimSpace(lines[0]), " :")
	var fields []string
	for _, l := range lines[1:] {
		if m := diffField.FindStringSubmatch(strings.TrimSpace(l)); m != nil && !contains(fields, m[1]) {
			fields = append(fields, m[1])
		}
	}
	if len(fields) == 0 {
		return first
	}
	return fmt.Sprintf("%s (changed: %s)", first, strings.Join(fields, ", "))
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// withSchemas returns crd with an empty schema in each version that has none (the library walks
// every version's openAPIV3Schema and does not expect it to be absent); crd is left as it is.
func withSchemas(crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	out := crd.DeepCopy()
	for i := range out.Spec.Versions {
		v := &out.Spec.Versions[i]
		if v.Schema == nil {
			v.Schema = &apiextensionsv1.CustomResourceValidation{}
		}
		if v.Schema.OpenAPIV3Schema == nil {
			v.Schema.OpenAPIV3Schema = &apiextensionsv1.JSONSchemaProps{}
		}
	}
	return out
}

// acceptedCRDChangesFile lists the CRD upgrade-safety failures of upgrades from bundles that are
// already released (released bundles are never rewritten), one "FROM: KEY" a line ('#' starts a
// comment): upgrading from bundle FROM to any newer bundle fails that rule on that field, because
// a released bundle made the change. OLM v1 refuses those upgrades unless the ClusterExtension
// turns the preflight off. Every failure not listed is refused, and the newest release is never
// listed, so the next release (its replaces edge) must be safe.
//
//go:embed crd-upgrade-accepted.txt
var acceptedCRDChangesFile string

// acceptedCRDChanges is acceptedCRDChangesFile parsed (tests replace it).
var acceptedCRDChanges = parseAccepted(acceptedCRDChangesFile)

func parseAccepted(s string) map[string]bool {
	out := map[string]bool{}
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out[l] = true
		}
	}
	return out
}

// crdSafetySuffix ends every problem of the CRD upgrade-safety rules.
const crdSafetySuffix = " (OLM v1 refuses this upgrade: CRD upgrade safety)"

// crdEdgeHazards returns the CRD upgrade-safety failures of the upgrade from bundle from to
// bundle to that acceptedCRDChanges does not list.
func crdEdgeHazards(from, to string, bundles map[string]bundleInfo) []string {
	var out []string
	older, newer := bundles[from].crdObjects, bundles[to].crdObjects
	for _, name := range sortedKeys(older) {
		next, ok := newer[name]
		if !ok {
			continue // a CRD the newer bundle does not ship stays on the cluster as it is
		}
		hazards, err := crdUpgradeHazards(older[name], next)
		if err != nil {
			out = append(out, err.Error())
			continue
		}
		for _, h := range hazards {
			if !acceptedCRDChanges[from+": "+h.key] {
				out = append(out, h.String()+crdSafetySuffix)
			}
		}
	}
	return out
}

// CheckNextCRDs returns, for the CRDs of a release not yet in cfg (next), every CRD
// upgrade-safety failure of an upgrade from any bundle of cfg into it that acceptedCRDChanges
// does not list: what `make catalog` would refuse once the release's skipRange covers them all.
func CheckNextCRDs(cfg *declcfg.DeclarativeConfig, next []*apiextensionsv1.CustomResourceDefinition) ([]string, error) {
	var out []string
	for _, b := range cfg.Bundles {
		info, err := describeBundle(b)
		if err != nil {
			return nil, fmt.Errorf("failed to describe bundle %s: %w", b.Name, err)
		}
		for _, crd := range next {
			older, ok := info.crdObjects[crd.Name]
			if !ok {
				continue
			}
			hazards, err := crdUpgradeHazards(older, crd)
			if err != nil {
				return nil, err
			}
			for _, h := range hazards {
				if !acceptedCRDChanges[b.Name+": "+h.key] {
					out = append(out, fmt.Sprintf("upgrade %s -> the next release: %s%s", b.Name, h, crdSafetySuffix))
				}
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// readBundleCRDs reads the CRDs of a bundle directory's manifests/.
func readBundleCRDs(dir string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	files, err := filepath.Glob(filepath.Join(dir, "manifests", "*.yaml"))
	if err != nil {
		return nil, fmt.Errorf("failed to list %s/manifests: %w", dir, err)
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("failed to read %s: %w", f, err)
		}
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(data, &tm); err != nil {
			return nil, fmt.Errorf("failed to parse %s: %w", f, err)
		}
		if tm.Kind != "CustomResourceDefinition" {
			continue
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(data, &crd); err != nil {
			return nil, fmt.Errorf("failed to parse CRD %s: %w", f, err)
		}
		crds = append(crds, &crd)
	}
	if len(crds) == 0 {
		return nil, fmt.Errorf("failed to find a CRD in %s/manifests", dir)
	}
	return crds, nil
}

func checkCRDUpgrade(args []string) error {
	fs := flag.NewFlagSet("check-crd-upgrade", flag.ExitOnError)
	dir := fs.String("dir", "catalog/memcached-operator", "rendered catalog directory of the package")
	bundleDir := fs.String("bundle-dir", "bundle", "bundle directory of the next release")
	_ = fs.Parse(args)
	cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(*dir))
	if err != nil {
		return fmt.Errorf("failed to load catalog %s: %w", *dir, err)
	}
	crds, err := readBundleCRDs(*bundleDir)
	if err != nil {
		return err
	}
	problems, err := CheckNextCRDs(cfg, crds)
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("%d CRD upgrade-safety problems of %s:\n  %s", len(problems), *bundleDir, strings.Join(problems, "\n  "))
	}
	fmt.Printf("CRD upgrade safety OK: %s against every release of %s\n", *bundleDir, *dir)
	return nil
}
