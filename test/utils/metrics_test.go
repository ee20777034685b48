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

package utils

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// A scrape of a real promhttp handler over TLS (what controller-runtime serves) parses, and Sum
// adds the samples whose labels include the wanted ones: counters by result, a gauge whose label
// value needs escaping, nothing for a missing label value or metric, never a histogram.
func TestScrapeAndParseMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	reconciles := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "controller_runtime_reconcile_total", Help: "Reconciles."}, []string{"controller", "result"})
	ready := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "memcached_operator_instance_ready_replicas", Help: "Ready pods."}, []string{"namespace", "name"})
	latency := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "reconcile_seconds", Help: "Latency."}, []string{"controller"})
	reg.MustRegister(reconciles, ready, latency)
	reconciles.WithLabelValues("memcached", "success").Add(3)
	reconciles.WithLabelValues("memcached", "error").Add(2)
	reconciles.WithLabelValues("upgradeable", "success").Add(7)
	ready.WithLabelValues("ns-a", `odd "name"\`+"\n").Set(2)
	latency.WithLabelValues("memcached").Observe(0.5)

	handler := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer good" {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		handler.ServeHTTP(w, r)
	}))
	defer srv.Close()

	code, _, err := ScrapeMetrics(context.Background(), srv.URL+"/metrics", "")
	if err != nil || code != http.StatusUnauthorized {
		t.Fatalf("scrape without token: %d, %v; want 401", code, err)
	}
	code, body, err := ScrapeMetrics(context.Background(), srv.URL+"/metrics", "good")
	if err != nil || code != http.StatusOK {
		t.Fatalf("scrape with token: %d, %v; want 200", code, err)
	}
	m, err := ParseMetrics(body)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		want  map[string]string
		sum   float64
		found bool
	}{
		{"controller_runtime_reconcile_total", map[string]string{"controller": "memcached", "result": "success"}, 3, true},
		{"controller_runtime_reconcile_total", map[string]string{"controller": "memcached"}, 5, true},
		{"controller_runtime_reconcile_total", nil, 12, true},
		{"controller_runtime_reconcile_total", map[string]string{"controller": "nope"}, 0, false},
		{"memcached_operator_instance_ready_replicas", map[string]string{"namespace": "ns-a", "name": `odd "name"\` + "\n"}, 2, true},
		{"reconcile_seconds", nil, 0, false},
		{"no_such_metric", nil, 0, false},
	} {
		sum, found := m.Sum(tc.name, tc.want)
		if sum != tc.sum || found != tc.found {
			t.Errorf("Sum(%s, %v) = %v, %v; want %v, %v", tc.name, tc.want, sum, found, tc.sum, tc.found)
		}
	}
}

// A body that is not the text format is an error, not an empty set of metrics.
func TestParseMetricsRefusesMalformedBody(t *testing.T) {
	for _, body := range []string{
		"metric{label=\"unterminated} 1\n",
		"metric 1 2 3\n",
		"# TYPE metric counter\nmetric not-a-number\n",
	} {
		if _, err := ParseMetrics(body); err == nil {
			t.Errorf("ParseMetrics(%q): no error", body)
		}
	}
}
