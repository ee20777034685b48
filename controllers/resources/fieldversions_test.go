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
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"

	"github.com/example/memcached-operator/controllers/internal/fixture"
)

// fieldSpecs are Memcached specs and options that together make the builders write every field
// they can write: each branch of deployment*.go, pdb.go, service.go, networkpolicy.go and the
// monitoring kinds. TestWrittenFieldsExistAtMinKubeVersion fails when a field the builders' source
// sets is never seen set here, so a new optional field needs a spec that reaches it.
func fieldSpecs() map[string]struct {
	mc   *cachev1alpha1.Memcached
	opts Options
} {
	opts := Options{DefaultImage: testImage, DefaultExporterImage: DefaultExporterImage, CertReloaderImage: "registry.example.com/memcached-operator:v1"}
	platformUIDs := opts
	platformUIDs.PlatformAssignsUIDs = true
	return map[string]struct {
		mc   *cachev1alpha1.Memcached
		opts Options
	}{
		"defaults": {mc: fixture.Defaulted("a"), opts: opts},
		"added metadata, monitoring tuned": {mc: fixture.Defaulted("a", func(mc *cachev1alpha1.Memcached) {
			mc.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "registry"}}
			mc.Spec.PodMetadata = &cachev1alpha1.ObjectMetadata{Labels: map[string]string{"team": "a"}, Annotations: map[string]string{"mesh": "on"}}
			mc.Spec.Service.Annotations = map[string]string{"dns": "cache"}
			mc.Spec.Monitoring = cachev1alpha1.MonitoringSpec{Enabled: ptr.To(true), Interval: "30s", Labels: map[string]string{"release": "kps"},
				RunbookBaseURL: "https://wiki.example.com/memcached",
				Resources:      &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("128Mi")}}}
		}), opts: opts},
		"tuned, scheduled, graceful shutdown": {mc: fixture.Defaulted("a", fixture.Tuned, func(mc *cachev1alpha1.Memcached) {
			mc.Spec.Image = "registry.example.com/memcached:1.6.39"
			mc.Spec.AntiAffinityPreset = cachev1alpha1.AntiAffinityHard
			mc.Spec.MinReadySeconds = 10
			mc.Spec.PriorityClassName = "cache"
			mc.Spec.NodeSelector = map[string]string{"disk": "ssd"}
			mc.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "cache",
				Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](60)}}
			mc.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
				MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.ScheduleAnyway}}
			mc.Spec.Resources = &corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")},
				Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}}
			mc.Spec.GracefulShutdown = cachev1alpha1.GracefulShutdownSpec{PreStopDelaySeconds: ptr.To[int32](5), TerminationGracePeriodSeconds: ptr.To[int32](60)}
			mc.Spec.PodDisruptionBudget.MaxUnavailable = ptr.To(intstr.FromString("50%"))
		}), opts: opts},
		"own affinity, platform assigns UIDs": {mc: fixture.Defaulted("a", func(mc *cachev1alpha1.Memcached) {
			mc.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "disk", Operator: corev1.NodeSelectorOpIn, Values: []string{"ssd"}}}}}}}}
		}), opts: platformUIDs},
		"warm restarts with auth": {mc: fixture.Defaulted("a", fixture.WithAuth("auth", "authfile"), func(mc *cachev1alpha1.Memcached) {
			mc.Spec.ServerIdentity = cachev1alpha1.ServerIdentityStable
			mc.Spec.WarmRestart.Enabled = true
			mc.Spec.MinReadySeconds = 5
		}), opts: opts},
		"tls with client CA, auth": {mc: fixture.Defaulted("a",
			fixture.WithTLS("tls"), fixture.WithClientCA("ca", "ca.crt", cachev1alpha1.ClientCertificateRequire), fixture.WithAuth("auth", "authfile")), opts: opts},
		"monitoring with tls, network policy, minAvailable": {mc: fixture.Defaulted("a", fixture.WithTLS("tls"), func(mc *cachev1alpha1.Memcached) {
			mc.Spec.Monitoring = cachev1alpha1.MonitoringSpec{Enabled: ptr.To(true), Image: "registry.example.com/memcached-exporter:v0.16.0"}
			mc.Spec.NetworkPolicy = cachev1alpha1.NetworkPolicySpec{Enabled: true,
				From:        []networkingv1.NetworkPolicyPeer{fixture.ClientPeer, fixture.CIDRPeer},
				MetricsFrom: []networkingv1.NetworkPolicyPeer{fixture.MonitoringPeer}}
			mc.Spec.PodDisruptionBudget.MinAvailable = ptr.To(intstr.FromInt32(1))
		}), opts: opts},
	}
}

// userSubtrees are the parts of the built objects that the builders copy from the user's spec
// (spec.affinity, spec.tolerations, spec.topologySpreadConstraints, spec.networkPolicy's peers):
// the operator writes whatever field of these types the user sets, so every field of the type must
// be in fieldVersions, not only those fieldSpecs happen to set.
var userSubtrees = map[string]reflect.Type{
	"Deployment spec.template.spec.affinity":                    reflect.TypeFor[corev1.Affinity](),
	"Deployment spec.template.spec.tolerations[]":               reflect.TypeFor[corev1.Toleration](),
	"Deployment spec.template.spec.topologySpreadConstraints[]": reflect.TypeFor[corev1.TopologySpreadConstraint](),
	"NetworkPolicy spec.ingress[].from[]":                       reflect.TypeFor[networkingv1.NetworkPolicyPeer](),
}

// underUserSubtree reports whether path lies in one of userSubtrees.
func underUserSubtree(path string) bool {
	for root := range userSubtrees {
		if path == root || strings.HasPrefix(path, root+".") || strings.HasPrefix(path, root+"[]") {
			return true
		}
	}
	return false
}

// minKubeVersion returns spec.minKubeVersion of the ClusterServiceVersion in dir.
func minKubeVersion(t *testing.T, dir string) (*version.Version, string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.clusterserviceversion.yaml"))
	if err != nil || len(files) != 1 {
		t.Fatalf("want one ClusterServiceVersion in %s, found %v (%v)", dir, files, err)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var csv struct {
		Spec struct {
			MinKubeVersion string `json:"minKubeVersion"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(b, &csv); err != nil {
		t.Fatalf("failed to read %s: %v", files[0], err)
	}
	v, err := version.ParseGeneric(csv.Spec.MinKubeVersion)
	if err != nil {
		t.Fatalf("%s: spec.minKubeVersion %q: %v", files[0], csv.Spec.MinKubeVersion, err)
	}
	return v, files[0]
}

// writtenPaths returns every field path the builders write for fieldSpecs, by kind ("Deployment
// spec.replicas"), and the Go names of the struct fields they set.
func writtenPaths(t *testing.T) (paths, goNames map[string]bool) {
	t.Helper()
	paths, goNames = map[string]bool{}, map[string]bool{}
	for name, s := range fieldSpecs() {
		if errs := s.mc.Validate(); len(errs) > 0 {
			t.Fatalf("spec %q is invalid: %v", name, errs.ToAggregate())
		}
		for _, d := range DesiredState(s.mc, s.opts, Read{Secrets: SecretHashes{All: "0123abcd", NotTLS: "4567"}}) {
			if !d.Absent {
				setPaths(d.Kind, reflect.ValueOf(d.Object), paths, goNames)
			}
		}
	}
	// setPaths joins the kind and the first field with "."; the table separates them with a space.
	// The StatefulSet's pod template is the Deployment's (podTemplate builds both), so its paths
	// are checked under the Deployment's.
	out := map[string]bool{}
	for p := range paths {
		kind, rest, _ := strings.Cut(p, ".")
		if kind == "StatefulSet" && strings.HasPrefix(rest, "spec.template.") {
			kind = "Deployment"
		}
		out[kind+" "+rest] = true
	}
	return out, goNames
}

// Every field the builders write exists, and is on by default, at the CSV's minKubeVersion: each
// field path of the objects built for fieldSpecs, and every field of userSubtrees, must be in
// fieldVersions with a release no newer than minKubeVersion (a field of a user subtree may be newer
// when its entry says what an older server does with it). fieldVersions lists nothing the builders
// never write, and every field the builders' source sets is seen set for some spec of fieldSpecs.
func TestWrittenFieldsExistAtMinKubeVersion(t *testing.T) {
	minKube, csv := minKubeVersion(t, "../../config/manifests/bases")
	if b, bundleCSV := minKubeVersion(t, "../../bundle/manifests"); !b.EqualTo(minKube) {
		t.Errorf("minKubeVersion is %s in %s but %s in %s: run make bundle", minKube, csv, b, bundleCSV)
	}
	written, setNames := writtenPaths(t)
	may := maps.Clone(written)
	for root, typ := range userSubtrees {
		typePaths(root, typ, may, map[string]bool{})
	}
	for _, p := range slices.Sorted(maps.Keys(may)) {
		v, ok := fieldVersions[p]
		if !ok {
			t.Errorf("%s is written but not in fieldVersions: add it with the Kubernetes release that made it available and on by default (GA, or beta on by default) and its feature gate", p)
			continue
		}
		kind, _, _ := strings.Cut(p, " ")
		if crdKinds[kind] != (v.since == "") {
			t.Errorf("%s: since %q: want a Kubernetes release for a built-in kind, none for a CRD's", p, v.since)
			continue
		}
		if crdKinds[kind] {
			continue
		}
		since, err := version.ParseGeneric(v.since)
		if err != nil {
			t.Errorf("%s: since %q: %v", p, v.since, err)
			continue
		}
		switch {
		case !since.GreaterThan(minKube):
		case underUserSubtree(p) && v.older != "":
			t.Logf("%s (written only when the user sets it) needs Kubernetes %s (%s), newer than minKubeVersion %s: %s", p, v.since, v.gate, minKube, v.older)
		default:
			t.Errorf("%s needs Kubernetes %s (%s), newer than minKubeVersion %s of %s", p, v.since, v.gate, minKube, csv)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(fieldVersions)) {
		if !may[p] {
			t.Errorf("fieldVersions lists %s, which the builders never write for fieldSpecs: remove it, or add a spec that writes it", p)
		}
	}
	for name, pos := range builderFieldNames(t) {
		if !setNames[name] {
			t.Errorf("%s: the builders set field %s, which no spec of fieldSpecs makes them write: add a spec that does", pos, name)
		}
	}
}

// builderFieldNames returns the Go names of the API fields that the builders' source (this
// package's non-test files) sets, each with a position where it does: the keys of composite
// literals and the fields assigned to, outside the Update functions (which copy what the builders
// built). Only names of fields of the built kinds count; the check is by name, so it proves that
// a field like Sleep or RunAsGroup is reached by some spec, not which of its uses is.
func builderFieldNames(t *testing.T) map[string]string {
	t.Helper()
	apiNames := map[string]bool{}
	for _, obj := range []any{appsv1.Deployment{}, corev1.Service{}, policyv1.PodDisruptionBudget{}, networkingv1.NetworkPolicy{},
		monitoringv1.ServiceMonitor{}, monitoringv1.PrometheusRule{}} {
		typePaths("", reflect.TypeOf(obj), map[string]bool{}, apiNames)
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	out := map[string]string{}
	local := map[*ast.CompositeLit]bool{}
	add := func(id *ast.Ident) {
		if apiNames[id.Name] {
			if _, seen := out[id.Name]; !seen {
				out[id.Name] = fset.Position(id.Pos()).String()
			}
		}
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil || strings.HasPrefix(strings.ToLower(fn.Name.Name), "update") {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CompositeLit:
					if n.Type != nil && !apiType(n.Type) {
						// A local type: neither it nor the literals of elided type inside it are API objects.
						ast.Inspect(n, func(m ast.Node) bool {
							if c, ok := m.(*ast.CompositeLit); ok && c.Type == nil {
								local[c] = true
							}
							return true
						})
					}
					if (n.Type == nil && local[n]) || (n.Type != nil && !apiType(n.Type)) {
						return true
					}
					for _, e := range n.Elts {
						if kv, ok := e.(*ast.KeyValueExpr); ok {
							if id, ok := kv.Key.(*ast.Ident); ok {
								add(id)
							}
						}
					}
				case *ast.AssignStmt:
					for _, lhs := range n.Lhs {
						if ix, ok := lhs.(*ast.IndexExpr); ok {
							lhs = ix.X
						}
						if sel, ok := lhs.(*ast.SelectorExpr); ok {
							add(sel.Sel)
						}
					}
				}
				return true
			})
		}
	}
	return out
}

// apiPackages are the import names of the API types the builders build.
var apiPackages = map[string]bool{"corev1": true, "appsv1": true, "policyv1": true, "networkingv1": true, "metav1": true, "monitoringv1": true}

// apiType reports whether the type of a composite literal is an API type, or a slice or map of
// one.
func apiType(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.ArrayType:
		return apiType(e.Elt)
	case *ast.MapType:
		return apiType(e.Value)
	case *ast.StarExpr:
		return apiType(e.X)
	case *ast.SelectorExpr:
		id, ok := e.X.(*ast.Ident)
		return ok && apiPackages[id.Name]
	default:
		return false
	}
}
