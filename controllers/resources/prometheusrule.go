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

package resources

import (
	"fmt"
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// RunbookBaseURL is where the runbooks of the alerts live (docs/runbooks.md); each alert's
// runbook_url is this plus "#" and the alert's name in lower case (the page's heading anchor).
const RunbookBaseURL = "https://github.com/example/memcached-operator/blob/main/docs/runbooks.md"

// instanceAlert is one alerting rule of an instance's PrometheusRule. expr is a PromQL expression
// with one %[1]s where the instance's label matchers go (inside the braces of each selector).
type instanceAlert struct {
	name, expr, forDuration, severity, summary, description string
}

// instanceAlerts are the alerts of every instance with monitoring on, after the memcached mixin
// (grafana/jsonnet-libs, memcached-mixin/alerts.libsonnet: the same expressions, thresholds and
// durations) plus one for evictions, which the mixin leaves out. Thresholds:
//   - MemcachedDown: the exporter reports memcached_up 0 for 15 minutes (critical);
//   - MemcachedConnectionLimitApproaching: open connections above 80 % of -c for 15 minutes
//     (warning), above 95 % (critical: memcached refuses connections at 100 %);
//   - MemcachedOutOfMemoryErrors: any "SERVER_ERROR out of memory" for 15 minutes (warning: an
//     item could not be stored at all, e.g. larger than the memory of its slab class);
//   - MemcachedEvicting: items evicted before expiring, every 5 minutes for an hour (info: the
//     cache is full and keeps only the recent items; spec.memcached.maxMemoryMB or size is small
//     for the working set).
var instanceAlerts = []instanceAlert{
	{
		name: "MemcachedDown", expr: `memcached_up{%[1]s} == 0`, forDuration: "15m", severity: "critical",
		summary:     "Memcached server is down.",
		description: "The exporter of {{ $labels.namespace }}/{{ $labels.service }} pod {{ $labels.pod }} cannot read its memcached server for 15 minutes.",
	},
	{
		name: "MemcachedConnectionLimitApproaching", expr: `(memcached_current_connections{%[1]s} / memcached_max_connections{%[1]s} * 100) > 80`, forDuration: "15m", severity: "warning",
		summary:     "Memcached max connection limit is approaching.",
		description: "Memcached {{ $labels.namespace }}/{{ $labels.service }} pod {{ $labels.pod }} uses {{ printf \"%0.0f\" $value }}% of its connection limit (spec.memcached.maxConnections) for 15 minutes.",
	},
	{
		name: "MemcachedConnectionLimitApproaching", expr: `(memcached_current_connections{%[1]s} / memcached_max_connections{%[1]s} * 100) > 95`, forDuration: "15m", severity: "critical",
		summary:     "Memcached connections at critical level.",
		description: "Memcached {{ $labels.namespace }}/{{ $labels.service }} pod {{ $labels.pod }} uses {{ printf \"%0.0f\" $value }}% of its connection limit (spec.memcached.maxConnections) for 15 minutes.",
	},
	{
		name: "MemcachedOutOfMemoryErrors", expr: `sum without (slab) (rate(memcached_slab_items_outofmemory_total{%[1]s}[5m])) > 0`, forDuration: "15m", severity: "warning",
		summary:     "Memcached has out-of-memory errors.",
		description: "Memcached {{ $labels.namespace }}/{{ $labels.service }} pod {{ $labels.pod }} refuses to store items for lack of memory for 15 minutes.",
	},
	{
		name: "MemcachedEvicting", expr: `sum without (slab) (rate(memcached_items_evicted_total{%[1]s}[5m])) > 0`, forDuration: "1h", severity: "info",
		summary:     "Memcached evicts items before they expire.",
		description: "Memcached {{ $labels.namespace }}/{{ $labels.service }} pod {{ $labels.pod }} has evicted items for an hour: the cache is smaller than its working set.",
	},
}

// runbookBase is where mc's alerts' runbooks live: spec.monitoring.runbookBaseURL, else
// RunbookBaseURL.
func runbookBase(mc *cachev1alpha1.Memcached) string {
	if u := mc.Spec.Monitoring.RunbookBaseURL; u != "" {
		return u
	}
	return RunbookBaseURL
}

// instanceMatchers are the label matchers of mc's exporter series as a Prometheus run by the
// Prometheus Operator labels them from desiredServiceMonitor: the namespace, and the Service
// (named like mc) the targets were found through.
func instanceMatchers(mc *cachev1alpha1.Memcached) string {
	return fmt.Sprintf(`namespace=%q, service=%q`, mc.Namespace, DeploymentName(mc))
}

// DesiredPrometheusRule builds the PrometheusRule named like mc holding instanceAlerts for mc's
// servers (one group, "memcached.rules"), each scoped to mc by instanceMatchers and carrying a
// runbook_url (under spec.monitoring.runbookBaseURL when set). Like the ServiceMonitor it is
// labelled like mc's other objects plus spec.monitoring.labels, so a Prometheus' ruleSelector can
// pick it.
func DesiredPrometheusRule(mc *cachev1alpha1.Memcached) *monitoringv1.PrometheusRule {
	matchers := instanceMatchers(mc)
	rules := make([]monitoringv1.Rule, 0, len(instanceAlerts))
	for _, a := range instanceAlerts {
		d := monitoringv1.Duration(a.forDuration)
		rules = append(rules, monitoringv1.Rule{
			Alert:  a.name,
			Expr:   intstr.FromString(fmt.Sprintf(a.expr, matchers)),
			For:    &d,
			Labels: map[string]string{"severity": a.severity},
			Annotations: map[string]string{
				"summary":     a.summary,
				"description": a.description,
				"runbook_url": runbookBase(mc) + "#" + strings.ToLower(a.name),
			},
		})
	}
	labels, annotations := withAdded(ObjectLabels(mc), added{labels: mc.Spec.Monitoring.Labels})
	return &monitoringv1.PrometheusRule{
		ObjectMeta: metav1.ObjectMeta{
			Name:        DeploymentName(mc),
			Namespace:   mc.Namespace,
			Labels:      labels,
			Annotations: annotations,
		},
		Spec: monitoringv1.PrometheusRuleSpec{Groups: []monitoringv1.RuleGroup{{Name: "memcached.rules", Rules: rules}}},
	}
}

// prometheusRuleNeedsUpdate reports whether live differs from desired in what the operator owns:
// our labels and the rule groups (exactly: a rule someone added or edited is drift).
func prometheusRuleNeedsUpdate(live, desired *monitoringv1.PrometheusRule) bool {
	return !addedMatches(live.Labels, live.Annotations, desired.Labels, desired.Annotations) || !equality.Semantic.DeepEqual(live.Spec.Groups, desired.Spec.Groups)
}

// updatePrometheusRule copies the fields the operator owns from desired into live.
func updatePrometheusRule(live, desired *monitoringv1.PrometheusRule) {
	updateAdded(&live.Labels, &live.Annotations, desired.Labels, desired.Annotations)
	live.Spec.Groups = desired.Spec.Groups
}
