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
	"path"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// Monitoring with authentication. memcached with -Y (spec.auth) asks every connection on every
// listener to authenticate, and memcached_exporter v0.16.0 has no way to (its flags: address,
// timeout, pid file, TLS). So with spec.monitoring and spec.auth each pod runs one more small
// sidecar from the operator's own image (its /stats-relay binary, cmd/stats-relay and
// internal/statsrelay): it listens on the pod's loopback address (relayAddress), authenticates
// each connection it relays to memcached with the auth file's first entry, and forwards only the
// read-only statistics commands the exporter sends, closing the connection on anything else. The
// exporter reads the relay instead of memcached. Nothing of the credential leaves the mounted
// file: no argument, variable or status carries it.
//
// A password rotation rolls the pods (the auth file's data is in SecretHashAnnotation), so the
// relay, like memcached, reads the file once at its start.
const (
	// StatsRelayContainerName is the name of the stats relay sidecar.
	StatsRelayContainerName = "stats-relay"
	// statsRelayCommand is the relay's binary in the operator's image (Dockerfile).
	statsRelayCommand = "/stats-relay"
	// relayAddress is where the relay listens and the exporter reads: the pod's loopback address,
	// which only the pod's own containers reach, on the port after the sidecars' plain-text
	// listener (loopbackAddress).
	relayAddress = "127.0.0.1:11213"
	// statsRelayMemoryRequest and statsRelayMemoryLimit bound the relay's memory: it holds at
	// most 8 connections (--max-connections) of a few kilobytes each and the Go runtime: 4.9 MiB
	// resident measured idle (1.0 MiB anonymous), as the certificate reloader's figures.
	statsRelayMemoryRequest = "8Mi"
	statsRelayMemoryLimit   = "32Mi"
)

// statsRelayEnabled reports whether mc's pods run the stats relay: with spec.monitoring and
// spec.auth, when the operator knows its own image (opts.CertReloaderImage, the image of every
// sidecar the operator ships). Without that image (an operator started by `make run` without
// RELATED_IMAGE_CERT_RELOADER) there is no relay: the exporter reads memcached, which refuses it,
// and reports memcached_up 0; memcached stays as protected as spec.auth asks.
func statsRelayEnabled(mc *cachev1alpha1.Memcached, opts Options) bool {
	return MonitoringEnabled(mc) && mc.Spec.Auth != nil && opts.CertReloaderImage != ""
}

// statsRelayContainers returns the stats relay sidecar of mc's pods, nil when statsRelayEnabled
// is false. It listens on relayAddress, reads memcached where the exporter did (podMemcachedAddress),
// mounts only the auth file, read-only (the volume memcached's -Y reads), has no Kubernetes
// credentials (the pod mounts no service account token) and runs under the restricted security
// context of every operand container. Requests 5m CPU and statsRelayMemoryRequest, limit
// statsRelayMemoryLimit.
func statsRelayContainers(mc *cachev1alpha1.Memcached, opts Options) []corev1.Container {
	if !statsRelayEnabled(mc, opts) {
		return nil
	}
	var mounts []corev1.VolumeMount
	for _, m := range secretMounts(mc) {
		if m.Name == authVolume {
			mounts = append(mounts, m)
		}
	}
	return []corev1.Container{{
		Name:    StatsRelayContainerName,
		Image:   opts.CertReloaderImage,
		Command: []string{statsRelayCommand},
		Args: []string{
			"--listen=" + relayAddress,
			"--memcached-address=" + podMemcachedAddress(mc),
			"--auth-file=" + path.Join(authDir, authFile),
		},
		VolumeMounts: mounts,
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("5m"), corev1.ResourceMemory: resource.MustParse(statsRelayMemoryRequest)},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(statsRelayMemoryLimit)},
		},
		SecurityContext: restrictedContainerSecurityContext(),
	}}
}
