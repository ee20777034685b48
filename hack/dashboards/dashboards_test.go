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

// Package dashboards tests the Grafana dashboards of config/grafana.
package dashboards

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/memcached_exporter/pkg/exporter"
	"github.com/prometheus/prometheus/promql/parser"
)

// dashboard is the part of a Grafana dashboard JSON model these checks read.
type dashboard struct {
	Title  string `json:"title"`
	Panels []struct {
		Title   string `json:"title"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

// grafanaVariables are the template variables the dashboards use, each replaced by a value of its
// kind before parsing (Grafana interpolates them before it sends a query).
var grafanaVariables = strings.NewReplacer("$__rate_interval", "5m", "$namespace", "ns", "$instance", ".*")

// knownSeries returns every metric name the dashboards may query: those memcached_exporter (the
// pinned version) describes, and the operator's own memcached_operator_* (the names in
// controllers/metrics.go).
func knownSeries(t *testing.T) map[string]bool {
	t.Helper()
	known := map[string]bool{}
	descs := make(chan *prometheus.Desc)
	go func() {
		exporter.New("127.0.0.1:0", time.Second, slog.New(slog.DiscardHandler), nil).Describe(descs)
		close(descs)
	}()
	// A Desc exposes its name only through String(): Desc{fqName: "memcached_up", ...}.
	fqName := regexp.MustCompile(`fqName: "([^"]+)"`)
	for d := range descs {
		if m := fqName.FindStringSubmatch(d.String()); m != nil {
			known[m[1]] = true
		}
	}
	if !known["memcached_up"] {
		t.Fatalf("the exporter describes no memcached_up: %v", known)
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "controllers", "metrics.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`"(memcached_operator_[a-z_]+)"`).FindAllStringSubmatch(string(src), -1) {
		known[m[1]] = true
	}
	return known
}

// Every panel of every dashboard has queries; each parses with Prometheus' parser
// (promql/parser, the one the server runs) once Grafana's variables are interpolated, and every
// series it selects is one the exporter or the operator serves.
func TestDashboardQueries(t *testing.T) {
	known := knownSeries(t)
	promql := parser.NewParser(parser.Options{}) // the server's defaults: no experimental functions
	files, err := filepath.Glob(filepath.Join("..", "..", "config", "grafana", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no dashboard in config/grafana: %v", err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var d dashboard
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(d.Panels) == 0 {
			t.Errorf("%s has no panels", f)
		}
		queries := 0
		for _, p := range d.Panels {
			if len(p.Targets) == 0 {
				t.Errorf("%s: panel %q has no query", f, p.Title)
			}
			for _, target := range p.Targets {
				queries++
				expr, err := promql.ParseExpr(grafanaVariables.Replace(target.Expr))
				if err != nil {
					t.Errorf("%s: panel %q: %q does not parse: %v", f, p.Title, target.Expr, err)
					continue
				}
				parser.Inspect(expr, func(n parser.Node, _ []parser.Node) error {
					if vs, ok := n.(*parser.VectorSelector); ok && !known[vs.Name] {
						t.Errorf("%s: panel %q selects %s, which neither the exporter nor the operator serves", f, p.Title, vs.Name)
					}
					return nil
				})
			}
		}
		t.Logf("%s (%s): %d panels, %d queries parsed", filepath.Base(f), d.Title, len(d.Panels), queries)
	}
}
