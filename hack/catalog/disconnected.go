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
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/distribution/reference"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"sigs.k8s.io/yaml"
)

// DisconnectedAnnotation is the CSV annotation that tells OpenShift's OperatorHub the operator runs
// in a disconnected (restricted-network) cluster. OpenShift's requirements for that: the CSV lists
// its related images and references every image by digest, not by tag, because mirroring
// (ImageContentSourcePolicy) maps digests only ("Enabling your Operator for restricted network
// environments", docs.openshift.com/container-platform/4.9/operators/operator_sdk/osdk-generating-csvs.html;
// grafana/grafana-operator#1234).
const DisconnectedAnnotation = "features.operators.openshift.io/disconnected"

// CSVImages returns every image reference of the CSV, sorted and without duplicates, each with
// where it is: the containerImage annotation, each container and init container of the install
// strategy's Deployments, each RELATED_IMAGE_* environment variable of those containers, and
// spec.relatedImages.
func CSVImages(csv *operatorsv1alpha1.ClusterServiceVersion) map[string][]string {
	images := map[string][]string{}
	add := func(img, where string) {
		if img != "" {
			images[img] = append(images[img], where)
		}
	}
	add(csv.Annotations["containerImage"], "the containerImage annotation")
	for _, d := range csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs {
		pod := d.Spec.Template.Spec
		for _, c := range append(append(pod.InitContainers[:0:0], pod.InitContainers...), pod.Containers...) {
			add(c.Image, fmt.Sprintf("Deployment %s, container %s", d.Name, c.Name))
			for _, e := range c.Env {
				if strings.HasPrefix(e.Name, "RELATED_IMAGE_") {
					add(e.Value, fmt.Sprintf("Deployment %s, container %s, env %s", d.Name, c.Name, e.Name))
				}
			}
		}
	}
	for _, r := range csv.Spec.RelatedImages {
		add(r.Image, fmt.Sprintf("relatedImages %s", r.Name))
	}
	return images
}

// CheckDisconnected returns why the CSV may not say DisconnectedAnnotation "true": each image that
// is not a valid reference pinned by digest (name@sha256:..., the grammar of
// github.com/distribution/reference), naming where the CSV uses it. A CSV without the annotation
// or with any other value has no problem: "false" is always true.
func CheckDisconnected(csv *operatorsv1alpha1.ClusterServiceVersion) []string {
	if csv.Annotations[DisconnectedAnnotation] != "true" {
		return nil
	}
	var problems []string
	images := CSVImages(csv)
	names := make([]string, 0, len(images))
	for img := range images {
		names = append(names, img)
	}
	sort.Strings(names)
	for _, img := range names {
		where := strings.Join(images[img], "; ")
		ref, err := reference.ParseNormalizedNamed(img)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %q is not an image reference: %v", where, img, err))
			continue
		}
		if _, ok := ref.(reference.Digested); !ok {
			problems = append(problems, fmt.Sprintf("%s: %q is not pinned by digest (name@sha256:...)", where, img))
		}
	}
	for i := range problems {
		problems[i] = fmt.Sprintf("CSV %s says %s: \"true\", but %s", csv.Name, DisconnectedAnnotation, problems[i])
	}
	return problems
}

// LoadBundleCSV reads the ClusterServiceVersion of the bundle directory dir
// (manifests/*.clusterserviceversion.yaml, exactly one).
func LoadBundleCSV(dir string) (*operatorsv1alpha1.ClusterServiceVersion, error) {
	files, err := filepath.Glob(filepath.Join(dir, "manifests", "*.clusterserviceversion.yaml"))
	if err != nil {
		return nil, fmt.Errorf("failed to list the CSV of bundle %s: %w", dir, err)
	}
	if len(files) != 1 {
		return nil, fmt.Errorf("bundle %s has %d manifests/*.clusterserviceversion.yaml, want 1", dir, len(files))
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		return nil, fmt.Errorf("failed to read the CSV: %w", err)
	}
	var csv operatorsv1alpha1.ClusterServiceVersion
	if err := yaml.UnmarshalStrict(data, &csv); err != nil {
		return nil, fmt.Errorf("failed to parse the CSV %s: %w", files[0], err)
	}
	return &csv, nil
}
