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
	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// The ServiceMonitor type is the Prometheus Operator's own Go API
// (github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring, a module of its own
// that depends only on k8s.io/api, apimachinery and controller-runtime at our versions), so the
// objects we build are the ones the Prometheus Operator reads.

// desiredServiceMonitor builds the ServiceMonitor named like mc that makes a Prometheus (one run
// by the Prometheus Operator whose serviceMonitorSelector matches its labels) scrape the
// exporters through the headless Service: it selects the Service by the instance's selector labels
// (the Service carries ObjectLabels) and scrapes its "metrics" port at /metrics over HTTP, every
// spec.monitoring.interval (when empty, the Prometheus' own interval). It carries
// spec.monitoring.labels, which a Prometheus' serviceMonitorSelector may need. The
// job label is the Service name.
func desiredServiceMonitor(mc *cachev1alpha1.Memcached) *monitoringv1.ServiceMonitor {
	labels, annotations := withAdded(ObjectLabels(mc), added{labels: mc.Spec.Monitoring.Labels})
	return &monitoringv1.ServiceMonitor{
		ObjectMeta: metav1.ObjectMeta{
			Name:        DeploymentName(mc),
			Namespace:   mc.Namespace,
			Labels:      labels,
			Annotations: annotations,
		},
		Spec: monitoringv1.ServiceMonitorSpec{
			Selector: metav1.LabelSelector{MatchLabels: selectorLabels(mc)},
			Endpoints: []monitoringv1.Endpoint{{
				Port:     metricsPortName,
				Path:     "/metrics",
				Interval: monitoringv1.Duration(mc.Spec.Monitoring.Interval),
			}},
		},
	}
}

// serviceMonitorNeedsUpdate reports whether live differs from desired in what the operator owns:
// our labels, the selector, the namespace selector and the endpoints (exactly: an endpoint field
// someone added, such as a TLS config or a relabeling, is drift).
func serviceMonitorNeedsUpdate(live, desired *monitoringv1.ServiceMonitor) bool {
	return !addedMatches(live.Labels, live.Annotations, desired.Labels, desired.Annotations) ||
		!equality.Semantic.DeepEqual(live.Spec.Selector, desired.Spec.Selector) ||
		!equality.Semantic.DeepEqual(live.Spec.NamespaceSelector, desired.Spec.NamespaceSelector) ||
		!equality.Semantic.DeepEqual(live.Spec.Endpoints, desired.Spec.Endpoints)
}

// updateServiceMonitor copies the fields the operator owns from desired into live.
func updateServiceMonitor(live, desired *monitoringv1.ServiceMonitor) {
	updateAdded(&live.Labels, &live.Annotations, desired.Labels, desired.Annotations)
	live.Spec.Selector = desired.Spec.Selector
	live.Spec.NamespaceSelector = desired.Spec.NamespaceSelector
	live.Spec.Endpoints = desired.Spec.Endpoints
}
