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
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"sigs.k8s.io/yaml"
)

// shippedDirs are the trees whose files reach users: kustomize bases and overlays, the OLM bundle
// the file-based catalog and the Helm chart.
var shippedDirs = []string{"config", "bundle", "catalog", "catalog-template", "dist/chart"}

// Nothing we ship turns TLS verification off, nor lets a scraped endpoint choose its own target
// labels: no insecureSkipVerify (in any spelling: the Prometheus Operator's insecureSkipVerify,
// Prometheus' insecure_skip_verify), no honorLabels: true, in any file under shippedDirs.
func TestShippedFilesVerifyTLS(t *testing.T) {
	forbidden := map[string]*regexp.Regexp{
		"insecureSkipVerify": regexp.MustCompile(`(?i)insecure_?skip_?verify`),
		"honorLabels: true":  regexp.MustCompile(`(?i)honor_?labels["']?\s*:\s*["']?true`),
	}
	files := 0
	for _, dir := range shippedDirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files++
			for what, re := range forbidden {
				if loc := re.FindIndex(data); loc != nil {
					t.Errorf("%s sets %s (%q): nothing we ship may skip TLS verification or honor scraped labels", path, what, data[loc[0]:loc[1]])
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("failed to walk %s: %v", dir, err)
		}
	}
	if files == 0 {
		t.Fatal("no shipped files found: run the test from the repository root")
	}
}

// The shipped ServiceMonitor of the operator's metrics makes Prometheus verify the certificate:
// a CA from the Secret config/certmanager's Certificate writes, and the name of the metrics
// Service, which that Certificate is issued for, as the server name.
func TestOperatorServiceMonitorVerifiesCertificate(t *testing.T) {
	data, err := os.ReadFile("config/prometheus/monitor.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var sm monitoringv1.ServiceMonitor
	if err := yaml.UnmarshalStrict(data, &sm); err != nil {
		t.Fatalf("config/prometheus/monitor.yaml: %v", err)
	}
	var cert struct {
		Spec struct {
			SecretName string   `json:"secretName"`
			DNSNames   []string `json:"dnsNames"`
		} `json:"spec"`
	}
	certData, err := os.ReadFile("config/certmanager/certificate.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(certData, &cert); err != nil {
		t.Fatalf("config/certmanager/certificate.yaml: %v", err)
	}
	if len(sm.Spec.Endpoints) == 0 {
		t.Fatal("the ServiceMonitor has no endpoint")
	}
	for i, ep := range sm.Spec.Endpoints {
		tc := ep.TLSConfig
		switch {
		case ep.Scheme == nil || *ep.Scheme != "https":
			t.Errorf("endpoint %d: scheme %v, want https", i, ep.Scheme)
		case tc == nil || tc.CA.Secret == nil:
			t.Errorf("endpoint %d: no tlsConfig.ca.secret: Prometheus cannot verify the operator's certificate", i)
		case tc.CA.Secret.Name != cert.Spec.SecretName || tc.CA.Secret.Key != "ca.crt":
			t.Errorf("endpoint %d: CA from Secret %s key %s, want %s key ca.crt (config/certmanager)", i, tc.CA.Secret.Name, tc.CA.Secret.Key, cert.Spec.SecretName)
		case tc.ServerName == nil || !regexp.MustCompile(`^memcached-operator-controller-manager-metrics-service\.[a-z0-9-]+\.svc$`).MatchString(*tc.ServerName):
			t.Errorf("endpoint %d: serverName %v, want the metrics Service's DNS name", i, tc.ServerName)
		}
	}
	if want := []string{"SERVICE_NAME.SERVICE_NAMESPACE.svc", "SERVICE_NAME.SERVICE_NAMESPACE.svc.cluster.local"}; len(cert.Spec.DNSNames) != 2 ||
		cert.Spec.DNSNames[0] != want[0] || cert.Spec.DNSNames[1] != want[1] {
		t.Errorf("config/certmanager/certificate.yaml dnsNames = %v, want %v (config/default's replacements fill them in)", cert.Spec.DNSNames, want)
	}
}
