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
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Metrics are the metric families of one scrape, by metric name, as prometheus/common's expfmt
// parses the text exposition format.
type Metrics map[string]*dto.MetricFamily

// ParseMetrics parses body, a scrape in the Prometheus text exposition format (what the operator's
// /metrics serves: controller-runtime's promhttp handler without content negotiation), with
// expfmt's TextParser. Metric and label names follow Prometheus' UTF-8 validation (the default of
// prometheus/common since v0.62). It returns expfmt's error for a malformed body.
func ParseMetrics(body string) (Metrics, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("failed to parse the metrics: %w", err)
	}
	return families, nil
}

// Sum returns the sum of the values of the samples of metric name (a counter, gauge or untyped
// metric) whose labels include every pair of want, and whether any sample matched. Samples of
// other types (summaries, histograms) never match.
func (m Metrics) Sum(name string, want map[string]string) (float64, bool) {
	mf, ok := m[name]
	if !ok {
		return 0, false
	}
	var sum float64
	found := false
	for _, s := range mf.GetMetric() {
		if !hasLabels(s, want) {
			continue
		}
		switch mf.GetType() {
		case dto.MetricType_COUNTER:
			sum += s.GetCounter().GetValue()
		case dto.MetricType_GAUGE:
			sum += s.GetGauge().GetValue()
		case dto.MetricType_UNTYPED:
			sum += s.GetUntyped().GetValue()
		default:
			continue
		}
		found = true
	}
	return sum, found
}

// hasLabels reports whether sample s has every label of want with its value.
func hasLabels(s *dto.Metric, want map[string]string) bool {
	have := make(map[string]string, len(s.GetLabel()))
	for _, l := range s.GetLabel() {
		have[l.GetName()] = l.GetValue()
	}
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// metricsClient is the HTTPS client for an operator's metrics endpoint on loopback: the manager
// serves controller-runtime's self-signed certificate, so verification is skipped; it never uses a
// proxy.
var metricsClient = &http.Client{
	Timeout: 10 * time.Second,
	Transport: &http.Transport{
		Proxy:           nil,
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // self-signed, loopback only
	},
}

// ScrapeMetrics GETs url (an operator's https://127.0.0.1:<port>/metrics), with
// "Authorization: Bearer <token>" unless token is empty, and returns the HTTP status code and the
// body. The error is a transport or read error; any status is returned as it is.
func ScrapeMetrics(ctx context.Context, url, token string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, "", fmt.Errorf("failed to build a request for %s: %w", url, err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := metricsClient.Do(req)
	if err != nil {
		return 0, "", fmt.Errorf("failed to GET %s: %w", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, string(body), fmt.Errorf("failed to read the body of %s: %w", url, err)
	}
	return resp.StatusCode, string(body), nil
}
