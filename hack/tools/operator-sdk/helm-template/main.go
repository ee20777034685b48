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

// Command helm-template renders a Helm chart to one multi-document manifest as `helm template` does,
// with Helm's own chart loader, values parser (--set syntax) and template engine: the way OLM v0
// and cert-manager cut their release manifests (OLM: scripts/package_release.sh, `helm template -n
// olm -f deploy/upstream/values.yaml` with the image values set; cert-manager: make/manifests.mk,
// `helm template --api-versions="" --namespace=cert-manager --set installCRDs=true ...`). No Helm
// binary is built here (the Go proxy serves its module, not a release binary), and the helm CLI
// package would drag in its whole command tree for one call.
//
//	helm-template -chart DIR -name RELEASE -namespace NS [-values FILE]... [-set K=V]... [-skip-kind KIND,...]
//
// Templates are written in file-name order, each document once, with a "# Source:" line as Helm
// writes it; NOTES.txt and partials (_*.tpl) are not manifests and are left out, as are documents
// of a kind in -skip-kind (comma-separated). It lives in the operator-sdk tools module because its
// Helm version (v3.18.6) is the one operator-sdk v1.42.3 pins.
package main

import (
	"flag"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/strvals"
	"sigs.k8s.io/yaml"
)

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	var valuesFiles, sets list
	chartDir := flag.String("chart", "", "the chart's directory")
	name := flag.String("name", "", "the release name")
	namespace := flag.String("namespace", "default", "the release namespace")
	flag.Var(&valuesFiles, "values", "a values file (repeatable; later ones win)")
	flag.Var(&sets, "set", "a value as helm's --set takes it, KEY=VALUE (repeatable; applied after -values)")
	skipKinds := flag.String("skip-kind", "", "comma-separated kinds to leave out")
	flag.Parse()
	if *chartDir == "" || *name == "" || flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*chartDir, *name, *namespace, valuesFiles, sets, strings.Split(*skipKinds, ",")); err != nil {
		fmt.Fprintf(os.Stderr, "helm-template: %v\n", err)
		os.Exit(1)
	}
}

func run(chartDir, name, namespace string, valuesFiles, sets, skip []string) error {
	ch, err := loader.Load(chartDir)
	if err != nil {
		return fmt.Errorf("failed to load chart %s: %w", chartDir, err)
	}
	vals := map[string]interface{}{}
	for _, f := range valuesFiles {
		v, err := chartutil.ReadValuesFile(f)
		if err != nil {
			return fmt.Errorf("failed to read values %s: %w", f, err)
		}
		vals = chartutil.MergeTables(v, vals)
	}
	for _, s := range sets {
		if err := strvals.ParseInto(s, vals); err != nil {
			return fmt.Errorf("failed to parse -set %q: %w", s, err)
		}
	}
	rv, err := chartutil.ToRenderValues(ch, vals, chartutil.ReleaseOptions{Name: name, Namespace: namespace, IsInstall: true}, nil)
	if err != nil {
		return fmt.Errorf("failed to compute the render values: %w", err)
	}
	out, err := engine.Render(ch, rv)
	if err != nil {
		return fmt.Errorf("failed to render the chart: %w", err)
	}
	names := make([]string, 0, len(out))
	for name := range out {
		if strings.HasPrefix(path.Base(name), "_") || !strings.HasSuffix(name, ".yaml") {
			continue
		}
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for _, doc := range strings.Split(out[name], "\n---") {
			var meta struct {
				Kind string `json:"kind"`
			}
			if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
				return fmt.Errorf("failed to read a document of %s: %w", name, err)
			}
			if meta.Kind == "" || slices.Contains(skip, meta.Kind) {
				continue
			}
			fmt.Printf("---\n# Source: %s\n%s\n", strings.TrimPrefix(name, ch.Name()+"/"), strings.TrimSpace(strings.TrimPrefix(doc, "---")))
		}
	}
	return nil
}
