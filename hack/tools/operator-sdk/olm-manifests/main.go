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

// Command olm-manifests renders OLM's release manifest olm.yaml from OLM's Helm chart, the way OLM's
// release does it (operator-lifecycle-manager scripts/package_release.sh and package_quickstart.sh:
// `helm template -n olm -f deploy/upstream/values.yaml` with the image values set, then every
// non-CRD template concatenated in file order), with Helm's own chart loader and template engine.
// The olm.yaml checked into OLM's source tree (deploy/upstream/quickstart/) is stale: it predates
// the release's binaries (its catalog operator flags are refused by them), so it cannot be used.
//
//	olm-manifests -chart DIR -values FILE -olm-image REF -opm-image REF [-skip-kind CatalogSource]
//
// -olm-image is set as olm.image.ref, catalog.image.ref and package.image.ref, -opm-image as
// catalog.opmImageArgs=--opmImage=REF, as the release sets its public images. Documents of a kind in
// -skip-kind (comma-separated) are left out. It lives in this tools module because its Helm version
// (v3.18.6) is the one operator-sdk v1.42.3 pins.
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
	"sigs.k8s.io/yaml"
)

func main() {
	chartDir := flag.String("chart", "", "OLM's chart directory (deploy/chart)")
	valuesFile := flag.String("values", "", "values file (deploy/upstream/values.yaml)")
	olmImage := flag.String("olm-image", "", "image of the olm and catalog operators, packageserver and the util image")
	opmImage := flag.String("opm-image", "", "opm image of the catalog operator (--opmImage)")
	skipKinds := flag.String("skip-kind", "", "comma-separated kinds to leave out")
	flag.Parse()
	if *chartDir == "" || *valuesFile == "" || *olmImage == "" || *opmImage == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*chartDir, *valuesFile, *olmImage, *opmImage, strings.Split(*skipKinds, ",")); err != nil {
		fmt.Fprintf(os.Stderr, "olm-manifests: %v\n", err)
		os.Exit(1)
	}
}

func run(chartDir, valuesFile, olmImage, opmImage string, skip []string) error {
	ch, err := loader.Load(chartDir)
	if err != nil {
		return fmt.Errorf("failed to load chart %s: %w", chartDir, err)
	}
	vals, err := chartutil.ReadValuesFile(valuesFile)
	if err != nil {
		return fmt.Errorf("failed to read values %s: %w", valuesFile, err)
	}
	for _, key := range []string{"olm", "catalog", "package"} {
		sub, err := vals.Table(key)
		if err != nil {
			return fmt.Errorf("values %s: %w", key, err)
		}
		img, err := sub.Table("image")
		if err != nil {
			return fmt.Errorf("values %s.image: %w", key, err)
		}
		img["ref"] = olmImage
	}
	catalog, _ := vals.Table("catalog")
	catalog["opmImageArgs"] = "--opmImage=" + opmImage

	rv, err := chartutil.ToRenderValues(ch, vals, chartutil.ReleaseOptions{Name: "olm", Namespace: "olm", IsInstall: true}, nil)
	if err != nil {
		return err
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
				return fmt.Errorf("%s: %w", name, err)
			}
			if meta.Kind == "" || slices.Contains(skip, meta.Kind) {
				continue
			}
			fmt.Printf("---\n# Source: %s\n%s\n", strings.TrimPrefix(name, ch.Name()+"/"), strings.TrimSpace(strings.TrimPrefix(doc, "---")))
		}
	}
	return nil
}
