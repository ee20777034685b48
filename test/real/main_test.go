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

// Package real proves the operator on the real-node tier of the local cluster
// (hack/cluster/cluster-up.sh NODE=real): the operator runs as the pod `make deploy-real` created from
// config/default with images of the local registry, memcached pods run the Debian memcached image
// behind their real probes, and a client pod (test/real/cmd/mcclient) talks to them through
// cluster DNS, the headless Service and kube-proxy.
//
// Run it with `make test-real` (starts the node, the registry, builds and pushes the images,
// deploys the operator), or by hand once all of that is up:
//
//	KUBECONFIG=$PWD/.cluster-real/kubeconfig KUBECTL=$PWD/bin/kubectl \
//	  MEMCACHED_IMAGE=127.0.0.1:5000/memcached@sha256:... MCCLIENT_IMAGE=127.0.0.1:5000/mcclient@sha256:... \
//	  go test -tags real ./test/real/ -v -count=1 -timeout 30m
//
// Environment: KUBECONFIG, KUBECTL, MEMCACHED_IMAGE (the operand image the operator was deployed
// with, by digest) and MCCLIENT_IMAGE (the client image) are required; PYCLIENTS_IMAGE (the Python
// clients of test/real/pyclients) is required by TestClientsKeepKeys; OPERATOR_IMAGE (the manager
// image the Deployment must run; not checked when empty), OPERATOR_NAMESPACE (default
// memcached-operator-system) and REAL_ARTIFACTS (directory for the manager logs, default a new
// temporary directory) are optional. TestPrometheusScrapesMemcached also needs PROMETHEUS_IMAGE and
// the Prometheus Operator of `make prometheus-operator-up` (PROMETHEUS_OPERATOR_NAMESPACE, default
// prometheus-operator).
//
// The suite runs on the node's host, as root: it also checks what the kernel sees of the memcached
// containers (/proc and the memory cgroup), which no API object can fake.
package real

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/test/utils"
)

const (
	// defaultOperatorNamespace is where config/default puts the operator.
	defaultOperatorNamespace = "memcached-operator-system"
	// managerDeployment is the operator's Deployment in config/default (namePrefix + name).
	managerDeployment = "memcached-operator-controller-manager"
	// metricsService is the operator's HTTPS metrics Service in config/default.
	metricsService = "memcached-operator-controller-manager-metrics-service"
	// metricsReaderRole is the ClusterRole a scraper's ServiceAccount is bound to.
	metricsReaderRole = "memcached-operator-metrics-reader"
	// leaseName is the operator's leader election Lease (main.go LeaderElectionID).
	leaseName = "memcached-operator.cache.example.com"
)

// suite holds what TestMain sets up for every test.
var suite struct {
	repoRoot                    string
	kubeconfig, kubectl         string
	memcachedImage, clientImage string
	operatorImage, operatorNS   string
	artifacts                   string
	k8s                         client.WithWatch
	logs                        *managerLogs
	// phases are the timed steps of the suite, reported at the end for the README's figures.
	phases utils.Phases
}

// TestMain checks the environment, starts following the manager's logs, runs the tests and prints
// the phase timings.
func TestMain(m *testing.M) {
	os.Exit(runSuite(m))
}

func runSuite(m *testing.M) int {
	start := time.Now()
	if err := setUp(); err != nil {
		fmt.Fprintf(os.Stderr, "real: setup failed: %v\n", err)
		return 1
	}
	code := m.Run()
	suite.logs.stop()
	suite.phases.Print(os.Stdout, "real: phase timings", time.Since(start))
	fmt.Printf("real: manager logs in %s\n", suite.artifacts)
	return code
}

func setUp() error {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		return err
	}
	suite.repoRoot = root
	for _, v := range []struct {
		env string
		dst *string
	}{
		{"KUBECONFIG", &suite.kubeconfig}, {"KUBECTL", &suite.kubectl},
		{"MEMCACHED_IMAGE", &suite.memcachedImage}, {"MCCLIENT_IMAGE", &suite.clientImage},
	} {
		if *v.dst = os.Getenv(v.env); *v.dst == "" {
			return fmt.Errorf("%s is not set: run `make test-real` (see the package doc of test/real)", v.env)
		}
	}
	if !strings.Contains(suite.memcachedImage, "@sha256:") {
		return fmt.Errorf("MEMCACHED_IMAGE=%s is not a reference by digest (repo@sha256:...)", suite.memcachedImage)
	}
	suite.operatorImage = os.Getenv("OPERATOR_IMAGE")
	if suite.operatorNS = os.Getenv("OPERATOR_NAMESPACE"); suite.operatorNS == "" {
		suite.operatorNS = defaultOperatorNamespace
	}
	if suite.artifacts, err = utils.ArtifactsDir("REAL_ARTIFACTS", "memcached-operator-real"); err != nil {
		return err
	}

	// The watchers poll every 200 ms: the client-go default of 5 QPS would throttle them.
	// monitoring.coreos.com/v1: the Prometheus Operator's kinds (TestPrometheusScrapesMemcached).
	if suite.k8s, err = utils.NewClient(suite.kubeconfig, 200, cachev1alpha1.AddToScheme, monitoringv1.AddToScheme); err != nil {
		return err
	}
	suite.logs = followManagerLogs(suite.operatorNS, suite.artifacts)
	fmt.Printf("real: operator namespace %s, memcached image %s, client image %s, artifacts %s\n",
		suite.operatorNS, suite.memcachedImage, suite.clientImage, suite.artifacts)
	return nil
}
