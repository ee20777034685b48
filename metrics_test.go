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
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	certutil "k8s.io/client-go/util/cert"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// The metrics handler the manager builds from metricsOptions answers uncompressed even to a
// scraper that accepts gzip and zstd (as Prometheus does), and still serves the series.
func TestMetricsServedUncompressed(t *testing.T) {
	opts := metricsOptions(settings{metricsAddr: ":8443", secureMetrics: true}, nil)
	if len(opts.HandlerOpts) == 0 {
		t.Fatal("metricsOptions sets no promhttp handler options")
	}
	reg := prometheus.NewRegistry()
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "memcached_operator_test_gauge", Help: "A gauge."})
	g.Set(3)
	reg.MustRegister(g)
	// The defaults controller-runtime's metrics server starts from, then ours (metricsserver
	// applies HandlerOpts the same way).
	ho := promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}
	for _, f := range opts.HandlerOpts {
		f(&ho)
	}
	srv := httptest.NewServer(promhttp.HandlerFor(reg, ho))
	defer srv.Close()

	for _, accept := range []string{"gzip", "zstd, gzip", "identity"} {
		req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept-Encoding", accept)
		// A transport that does not ask for gzip itself nor decode it, so the header is the server's.
		resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		if err != nil {
			t.Fatalf("Accept-Encoding %q: %v", accept, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("Accept-Encoding %q: read body: %v", accept, err)
		}
		if ce := resp.Header.Get("Content-Encoding"); ce != "" {
			t.Errorf("Accept-Encoding %q: Content-Encoding = %q, want none", accept, ce)
			continue
		}
		if !strings.Contains(string(body), "memcached_operator_test_gauge 3") {
			t.Errorf("Accept-Encoding %q: body does not carry the gauge:\n%s", accept, body)
		}
	}
}

// metricsOptions keeps the flags' meaning: the bind address as given, HTTPS behind the
// authentication and authorization filter only with --metrics-secure, and HTTP/1.1 only unless
// --enable-http2 (the TLS options leave NextProtos alone then).
func TestMetricsOptions(t *testing.T) {
	tests := map[string]struct {
		s          settings
		wantFilter bool
		wantProtos []string // NextProtos after the TLS options, starting from controller-runtime's ["h2"]
	}{
		"secure, HTTP/1.1 only":     {s: settings{metricsAddr: ":8443", secureMetrics: true}, wantFilter: true, wantProtos: []string{"http/1.1"}},
		"secure, HTTP/2 enabled":    {s: settings{metricsAddr: ":8443", secureMetrics: true, enableHTTP2: true}, wantFilter: true, wantProtos: []string{"h2"}},
		"plain HTTP on loopback":    {s: settings{metricsAddr: "127.0.0.1:8080"}, wantProtos: []string{"http/1.1"}},
		"disabled (bind address 0)": {s: settings{metricsAddr: "0", secureMetrics: true}, wantFilter: true, wantProtos: []string{"http/1.1"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			opts := metricsOptions(tc.s, nil)
			if opts.BindAddress != tc.s.metricsAddr {
				t.Errorf("BindAddress = %q, want %q", opts.BindAddress, tc.s.metricsAddr)
			}
			if opts.SecureServing != tc.s.secureMetrics {
				t.Errorf("SecureServing = %v, want %v", opts.SecureServing, tc.s.secureMetrics)
			}
			if got := opts.FilterProvider != nil; got != tc.wantFilter {
				t.Errorf("authentication and authorization filter set = %v, want %v", got, tc.wantFilter)
			}
			cfg := &tls.Config{NextProtos: []string{"h2"}}
			for _, f := range opts.TLSOpts {
				f(cfg)
			}
			if !slices.Equal(cfg.NextProtos, tc.wantProtos) {
				t.Errorf("NextProtos = %v, want %v", cfg.NextProtos, tc.wantProtos)
			}
		})
	}
}

// The metrics server the manager starts (controller-runtime's, with metricsOptions and
// metricsCertificate as run builds them) serves the certificate mounted in --metrics-cert-path:
// a client that trusts its CA and names the metrics Service, as the shipped ServiceMonitor makes
// Prometheus do, completes the handshake; none would with the self-signed certificate.
func TestMetricsServerServesMountedCertificate(t *testing.T) {
	const serverName = "memcached-operator-controller-manager-metrics-service.memcached-operator-system.svc"
	dir := t.TempDir()
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey(serverName, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"tls.crt": certPEM, "tls.key": keyPEM} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(certPEM)

	// A free loopback port: controller-runtime's server does not report the one it bound.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()

	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s := settings{metricsAddr: addr, secureMetrics: true, metricsCertPath: dir, metricsCertName: "tls.crt", metricsCertKey: "tls.key"}
	getCertificate, err := metricsCertificate(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	opts := metricsOptions(s, getCertificate)
	// The token filter needs an API server; the certificate is chosen before it runs.
	opts.FilterProvider = nil
	srv, err := metricsserver.NewServer(opts, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()

	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: serverName, MinVersion: tls.VersionTLS12}}}
	var lastErr error
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := client.Get("https://" + addr + "/metrics")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET /metrics = %s, want 200 OK", resp.Status)
			}
			return
		}
		lastErr = err
		var certErr *tls.CertificateVerificationError
		if errors.As(err, &certErr) {
			t.Fatalf("the metrics server does not serve the mounted certificate: %v", err)
		}
		select {
		case err := <-done:
			t.Fatalf("metrics server stopped: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("the metrics server did not answer within 10s: %v", lastErr)
}
