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
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// The metrics handler the manager builds from metricsOptions answers uncompressed even to a
// scraper that accepts gzip and zstd (as Prometheus does), and still serves the series.
func TestMetricsServedUncompressed(t *testing.T) {
	opts := metricsOptions(settings{metricsAddr: ":8443", secureMetrics: true})
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
			opts := metricsOptions(tc.s)
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
