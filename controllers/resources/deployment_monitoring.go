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
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

const (
	// ExporterContainerName is the name of the memcached_exporter sidecar container.
	ExporterContainerName = "memcached-exporter"
	// metricsPortName names the exporter's port on the container and on the headless Service; a
	// NetworkPolicy admits it from the monitoring peers only when the pod template has it.
	metricsPortName = "metrics"
	// loopbackAddress is memcached's plain-text listener on the pod's loopback address that the
	// exporter reads and the certificate reloader writes to when spec.tls is on
	// (loopbackListenArgs).
	loopbackAddress = "127.0.0.1:11212"
	// DefaultExporterImage is the public memcached_exporter image the shipped operator names in
	// RELATED_IMAGE_MEMCACHED_EXPORTER (config/manager), and the default when that variable is
	// unset: the Prometheus project's image on quay.io, the release the Go module proxy serves
	// (https://github.com/prometheus/memcached_exporter/releases/tag/v0.16.0).
	DefaultExporterImage = "quay.io/prometheus/memcached-exporter:v0.16.0"
)

// MonitoringEnabled reports whether mc wants the exporter sidecar, the Service's metrics port and
// the ServiceMonitor (spec.monitoring.enabled, default false).
func MonitoringEnabled(mc *cachev1alpha1.Memcached) bool {
	return mc.Spec.Monitoring.Enabled != nil && *mc.Spec.Monitoring.Enabled
}

// exporterImage is the exporter image for mc: spec.monitoring.image, else the operator's default.
func exporterImage(mc *cachev1alpha1.Memcached, opts Options) string {
	if mc.Spec.Monitoring.Image != "" {
		return mc.Spec.Monitoring.Image
	}
	return opts.DefaultExporterImage
}

// loopbackListenArgs returns memcached's listener flags for the pod's own containers: none
// without TLS (the exporter reads the pod's own server on localhost:11211, and there is nothing to
// reload); with spec.tls and a container that needs it (the exporter of spec.monitoring, or the
// certificate reloader: certReloadEnabled),
//
//	-l *:11211                  every address, port 11211, TLS as -Z sets it for clients ("*" is
//	                            memcached's "every address", IPv4 and IPv6 as without -l)
//	-l notls:127.0.0.1:11212    plain text on the pod's loopback address only, for the sidecars
//
// With -Z memcached speaks only TLS, and the exporter would need a server name that the user's
// certificate names and, when spec.tls.clientCA is set, a client certificate of its own that the
// CA signed; a listener on 127.0.0.1 is reachable only by the pod's own containers (the loopback
// interface of the pod's network namespace, which no NetworkPolicy or Service reaches), so it needs
// neither and no certificate is handed to the exporter. Both forms exist since memcached 1.5.13.
// An instance that needs neither sidecar keeps the arguments it had before the reloader existed.
func loopbackListenArgs(mc *cachev1alpha1.Memcached, opts Options) []string {
	if mc.Spec.TLS == nil || !(MonitoringEnabled(mc) || certReloadEnabled(mc, opts)) {
		return nil
	}
	return []string{
		"-l", "*:" + strconv.Itoa(cachev1alpha1.DefaultPort),
		"-l", "notls:" + loopbackAddress,
	}
}

// podMemcachedAddress is where the pod's own containers read memcached in plain text: the
// loopback listener of loopbackListenArgs when spec.tls is on, else memcached's port on localhost.
func podMemcachedAddress(mc *cachev1alpha1.Memcached) string {
	if mc.Spec.TLS != nil {
		return loopbackAddress
	}
	return "localhost:" + strconv.Itoa(cachev1alpha1.DefaultPort)
}

// exporterAddress is the memcached address the exporter reads: the stats relay's when the pods
// run it (spec.auth: statsRelayEnabled), else podMemcachedAddress.
func exporterAddress(mc *cachev1alpha1.Memcached, opts Options) string {
	if statsRelayEnabled(mc, opts) {
		return relayAddress
	}
	return podMemcachedAddress(mc)
}

// exporterContainers returns the memcached_exporter sidecar of mc's pods when monitoring is on,
// else nil. The exporter reads the pod's own memcached at exporterAddress (never through TLS nor
// with credentials: with spec.auth it reads the stats relay, deployment_statsrelay.go) and
// serves them on :9150/metrics (port "metrics"). It runs under the same restricted security
// context as memcached (the pod's uid 11211, read-only root, no capabilities); the image's
// ENTRYPOINT is the exporter (/bin/memcached_exporter in the public image), so only Args are set.
// Its liveness probe is a TCP check of the metrics port; it has no readiness probe, so a slow
// exporter never takes a memcached server out of the Service. Its resources are exporterResources.
func exporterContainers(mc *cachev1alpha1.Memcached, opts Options) []corev1.Container {
	if !MonitoringEnabled(mc) {
		return nil
	}
	return []corev1.Container{{
		Name:  ExporterContainerName,
		Image: exporterImage(mc, opts),
		Args: []string{
			"--memcached.address=" + exporterAddress(mc, opts),
			"--web.listen-address=:" + strconv.Itoa(cachev1alpha1.ExporterPort),
		},
		Ports: []corev1.ContainerPort{{
			Name:          metricsPortName,
			ContainerPort: cachev1alpha1.ExporterPort,
			Protocol:      corev1.ProtocolTCP,
		}},
		Resources: exporterResources(mc),
		LivenessProbe: &corev1.Probe{
			ProbeHandler: corev1.ProbeHandler{
				TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromString(metricsPortName)},
			},
			InitialDelaySeconds: 10,
			PeriodSeconds:       10,
			TimeoutSeconds:      1,
			SuccessThreshold:    1,
			FailureThreshold:    3,
		},
		SecurityContext: restrictedContainerSecurityContext(),
	}}
}

// exporterResources are the exporter container's resources: spec.monitoring.resources (copied),
// else 10m CPU and 32Mi of memory requested, a 64Mi memory limit (the exporter uses about 15 MiB).
func exporterResources(mc *cachev1alpha1.Memcached) corev1.ResourceRequirements {
	if r := mc.Spec.Monitoring.Resources; r != nil {
		return *r.DeepCopy()
	}
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("32Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")},
	}
}
