//go:build real

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

// Package olmreal proves the product's OLM story on the real-node tier (`make test-olm-real`): OLM
// v0.46.0 runs in the cluster as pods (hack/olm/olm-up.sh NODE=real), and `operator-sdk run bundle`,
// `run bundle-upgrade` and `cleanup` (v1.42.3) install, upgrade and remove the operator from bundle
// images in the local registry, with real operator and memcached pods and a memcached client.
//
// Environment (make test-olm-real sets all of it): KUBECONFIG, KUBECTL, OPERATOR_SDK;
// BUNDLE_PREVIOUS and BUNDLE_HEAD (bundle images, by tag, under the registry's HTTPS address);
// BUNDLE_PREVIOUS_HTTP (the same bundle under the plain-HTTP address); INDEX_IMAGE and
// INDEX_IMAGE_HTTP (the empty FBC index, under both addresses); DECOMPRESSION_IMAGE;
// SSL_CERT_FILE (the host's CAs plus the local registry's CA, for operator-sdk); MCCLIENT_IMAGE
// (test/real/cmd/mcclient); OPERATOR_IMAGE_PREVIOUS and OPERATOR_IMAGE_HEAD (what each CSV must
// run, by digest); OLMREAL_ARTIFACTS (operator-sdk output, default a temporary directory).
// For the catalog tests: CATALOG_IMAGE_HEAD (our catalog with every release, local names),
// CATALOG_IMAGE_PREVIOUS (the same cut at the release before the head, VERSION_PREVIOUS) and
// CATALOG_IMAGE_POLLED (the tag the CatalogSource polls; the tests push the two others over it
// with skopeo). For scorecard: BUNDLE_DIR (the bundle as shipped), SCORECARD_CONFIG (its
// scorecard configuration with the local test images, hack/olm/scorecard-real.sh config),
// SCORECARD_UNTAR_IMAGE and SCORECARD_STORAGE_IMAGE.
package olmreal

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	operatorsv2 "github.com/operator-framework/api/pkg/operators/v2"
	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/test/utils"
)

var suite struct {
	env       map[string]string
	k8s       client.Client
	artifacts string
	phases    utils.Phases
}

func TestMain(m *testing.M) {
	start := time.Now()
	if err := setUp(); err != nil {
		fmt.Fprintf(os.Stderr, "olmreal: setup failed: %v\n", err)
		os.Exit(1)
	}
	code := m.Run()
	if err := deleteCatalogSources(); err != nil {
		fmt.Fprintf(os.Stderr, "olmreal: %v\n", err)
		code = 1
	}
	suite.phases.Print(os.Stdout, "olmreal: phase timings", time.Since(start))
	fmt.Printf("olmreal: operator-sdk output in %s\n", suite.artifacts)
	os.Exit(code)
}

func setUp() error {
	suite.env = map[string]string{}
	for _, k := range []string{"KUBECONFIG", "KUBECTL", "OPERATOR_SDK", "BUNDLE_PREVIOUS", "BUNDLE_HEAD",
		"BUNDLE_PREVIOUS_HTTP", "INDEX_IMAGE", "INDEX_IMAGE_HTTP", "DECOMPRESSION_IMAGE", "SSL_CERT_FILE",
		"MCCLIENT_IMAGE", "OPERATOR_IMAGE_PREVIOUS", "OPERATOR_IMAGE_HEAD", "CATALOG_IMAGE_HEAD", "CATALOG_IMAGE_PREVIOUS",
		"CATALOG_IMAGE_POLLED", "VERSION_PREVIOUS", "BUNDLE_DIR", "SCORECARD_CONFIG",
		"SCORECARD_UNTAR_IMAGE", "SCORECARD_STORAGE_IMAGE"} {
		if suite.env[k] = os.Getenv(k); suite.env[k] == "" {
			return fmt.Errorf("%s is not set: run `make test-olm-real` (see the package doc of test/olmreal)", k)
		}
	}
	for _, k := range []string{"OPERATOR_IMAGE_PREVIOUS", "OPERATOR_IMAGE_HEAD", "MCCLIENT_IMAGE"} {
		if !strings.Contains(suite.env[k], "@sha256:") {
			return fmt.Errorf("%s=%s is not a reference by digest", k, suite.env[k])
		}
	}
	var err error
	if suite.artifacts, err = utils.ArtifactsDir("OLMREAL_ARTIFACTS", "memcached-olmreal"); err != nil {
		return err
	}
	suite.k8s, err = utils.NewClient(suite.env["KUBECONFIG"], 100, operatorsv1.AddToScheme,
		operatorsv1alpha1.AddToScheme, operatorsv2.AddToScheme, cachev1alpha1.AddToScheme)
	if err != nil {
		return err
	}
	return noOtherOperator()
}

// noOtherOperator returns an error when a memcached operator that OLM does not manage runs in the
// cluster (`make deploy-real` or `make demo-real` leave one watching every namespace): it would
// reconcile the Memcacheds the suite creates outside the target namespaces of an install.
func noOtherOperator() error {
	deps := &appsv1.DeploymentList{}
	if err := suite.k8s.List(context.Background(), deps, client.MatchingLabels{"control-plane": "controller-manager"}); err != nil {
		return fmt.Errorf("failed to list Deployments: %w", err)
	}
	for _, d := range deps.Items {
		if d.Labels["olm.owner"] == "" {
			return fmt.Errorf("Deployment %s/%s runs a memcached operator outside OLM: remove it first (make undeploy-real)", d.Namespace, d.Name)
		}
	}
	return nil
}
