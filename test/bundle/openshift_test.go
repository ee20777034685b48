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

package bundle

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/version"
	"sigs.k8s.io/yaml"
)

// openShiftKube is the Kubernetes minor each OpenShift 4 minor is built on (OpenShift's release
// notes: 4.14 ships Kubernetes 1.27, and each minor since has moved up by one).
var openShiftKube = map[int]string{
	14: "1.27", 15: "1.28", 16: "1.29", 17: "1.30", 18: "1.31", 19: "1.32", 20: "1.33", 21: "1.34",
}

// TestOpenShiftVersionsMatchMinKubeVersion checks com.redhat.openshift.versions, which
// OperatorHub's OpenShift catalogs use to place a bundle: the bundle's metadata and its image's
// labels say the same "vX.Y" (X.Y and later), and X.Y is the first OpenShift release whose
// Kubernetes is at least the CSV's minKubeVersion: not one the operator cannot run on, and not
// one later than needed, which would hide the operator from users it supports.
func TestOpenShiftVersionsMatchMinKubeVersion(t *testing.T) {
	var meta struct {
		Annotations map[string]string `json:"annotations"`
	}
	data, err := os.ReadFile(filepath.Join(shippedBundle, "metadata", "annotations.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	got := meta.Annotations["com.redhat.openshift.versions"]
	dockerfile, err := os.ReadFile(filepath.Join(shippedBundle, "..", "bundle.Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	if label := "LABEL com.redhat.openshift.versions=" + got + "\n"; !strings.Contains(string(dockerfile), label) {
		t.Errorf("bundle.Dockerfile has no %q: the image's labels and the metadata must agree", strings.TrimSpace(label))
	}
	m := regexp.MustCompile(`^v4\.(\d+)$`).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("com.redhat.openshift.versions = %q, want v4.N (that release and later)", got)
	}
	var minor int
	fmt.Sscan(m[1], &minor)
	kube, ok := openShiftKube[minor]
	if !ok {
		t.Fatalf("OpenShift 4.%d is not in the table of Kubernetes versions", minor)
	}
	minKube := version.MustParseGeneric(loadBundle(t, shippedBundle).CSV.Spec.MinKubeVersion)
	if !version.MustParseGeneric(kube).AtLeast(minKube) {
		t.Errorf("OpenShift 4.%d runs Kubernetes %s, below the CSV's minKubeVersion %s", minor, kube, minKube)
	}
	if prev, ok := openShiftKube[minor-1]; ok && version.MustParseGeneric(prev).AtLeast(minKube) {
		t.Errorf("OpenShift 4.%d (Kubernetes %s) already meets minKubeVersion %s: %s leaves its users out", minor-1, prev, minKube, got)
	}
}
