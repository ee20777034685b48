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
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// serviceEnabled reports whether mc wants its headless Service (spec.service.enabled, default true).
func serviceEnabled(mc *cachev1alpha1.Memcached) bool {
	return mc.Spec.Service.Enabled == nil || *mc.Spec.Service.Enabled
}

// DesiredService builds the headless Service (clusterIP None) named like mc that publishes its
// memcached pods on port 11211 for client discovery by DNS, and the exporters on port 9150
// ("metrics") when monitoring is on. Not-ready pods are not published. It carries
// spec.service.annotations.
func DesiredService(mc *cachev1alpha1.Memcached) *corev1.Service {
	labels, annotations := withAdded(ObjectLabels(mc), added{annotations: mc.Spec.Service.Annotations})
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{
			Name:        DeploymentName(mc),
			Namespace:   mc.Namespace,
			Labels:      labels,
			Annotations: annotations,
		},
		Spec: corev1.ServiceSpec{
			ClusterIP: corev1.ClusterIPNone,
			Selector:  selectorLabels(mc),
			Ports: append([]corev1.ServicePort{{
				Name:       portName,
				Port:       cachev1alpha1.DefaultPort,
				TargetPort: intstr.FromString(portName),
				Protocol:   corev1.ProtocolTCP,
			}}, metricsServicePorts(mc)...),
		},
	}
}

// ServiceNeedsUpdate reports whether live differs from desired in what the operator owns: our
// labels, the annotations of spec.service.annotations, the selector and the ports (clusterIP None
// is immutable).
func ServiceNeedsUpdate(live, desired *corev1.Service) bool {
	return !addedMatches(live.Labels, live.Annotations, desired.Labels, desired.Annotations) ||
		!equality.Semantic.DeepEqual(live.Spec.Selector, desired.Spec.Selector) ||
		len(live.Spec.Ports) != len(desired.Spec.Ports) ||
		!equality.Semantic.DeepDerivative(desired.Spec.Ports, live.Spec.Ports)
}

// UpdateService copies the fields the operator owns from desired into live.
func UpdateService(live, desired *corev1.Service) {
	updateAdded(&live.Labels, &live.Annotations, desired.Labels, desired.Annotations)
	live.Spec.Selector = desired.Spec.Selector
	live.Spec.Ports = desired.Spec.Ports
}

// metricsServicePorts returns the headless Service's "metrics" port (9150, to the exporter's
// named port) when monitoring is on, else nil.
func metricsServicePorts(mc *cachev1alpha1.Memcached) []corev1.ServicePort {
	if !MonitoringEnabled(mc) {
		return nil
	}
	return []corev1.ServicePort{{
		Name:       metricsPortName,
		Port:       cachev1alpha1.ExporterPort,
		TargetPort: intstr.FromString(metricsPortName),
		Protocol:   corev1.ProtocolTCP,
	}}
}
