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

// Certificate renewals in place. With spec.tls, each pod runs a small sidecar from the operator's
// own image (its /cert-reloader binary, cmd/cert-reloader and internal/certreload) that reads the
// mounted TLS files every few seconds and sends memcached's refresh_certs command over the pod's
// loopback listener when they change, so a renewed certificate reaches every running server
// without a restart and the cache stays warm. The TLS data is then left out of the pod template's
// SecretHashAnnotation: a renewal changes no template and rolls no pod. What memcached cannot
// reload in place (the auth file: memcached re-reads it only on SIGHUP, which another container
// cannot send without sharing the pod's process namespace) still rolls the pods, one server at a
// time (rollingUpdate), as does turning TLS on or off or naming another Secret.
const (
	// CertReloaderContainerName is the name of the certificate reloader sidecar.
	CertReloaderContainerName = "cert-reloader"
	// certReloaderCommand is the reloader's binary in the operator's image (Dockerfile).
	certReloaderCommand = "/cert-reloader"
	// CertReloaderInterval is how often the reloader reads the files. The kubelet writes an
	// updated Secret into the pod at its next sync of the pod (within about a minute,
	// its --sync-frequency, plus its watch's delay), so a renewal reaches memcached within that
	// plus this interval.
	CertReloaderInterval = "5s"
	// certReloaderMemoryRequest and certReloaderMemoryLimit bound the reloader's memory: it idles
	// between reads of three small files; what it holds is the manager binary's pages it touched
	// and the Go runtime: 4.4 MiB resident measured idle (cmd/cert-reloader).
	certReloaderMemoryRequest = "8Mi"
	certReloaderMemoryLimit   = "32Mi"
)

// certReloadEnabled reports whether mc's pods run the certificate reloader: with spec.tls, when
// the operator knows its own image (opts.CertReloaderImage; empty, the pods roll on a renewal as
// they did before the reloader).
func certReloadEnabled(mc *cachev1alpha1.Memcached, opts Options) bool {
	return mc.Spec.TLS != nil && opts.CertReloaderImage != ""
}

// certReloaderContainers returns the certificate reloader sidecar of mc's pods, nil when
// certReloadEnabled is false. It mounts the TLS files read-only (and the auth file, whose first
// entry it authenticates with, as memcached's -Y asks of every connection), talks only to
// memcached's loopback listener (loopbackListenArgs), has no Kubernetes credentials (the pod
// mounts no service account token) and runs under the restricted security context of every
// operand container. Requests 5m CPU and certReloaderMemoryRequest, limit certReloaderMemoryLimit.
func certReloaderContainers(mc *cachev1alpha1.Memcached, opts Options) []corev1.Container {
	if !certReloadEnabled(mc, opts) {
		return nil
	}
	args := []string{
		"--dir=" + tlsDir,
		"--address=" + loopbackAddress,
		"--interval=" + CertReloaderInterval,
	}
	var mounts []corev1.VolumeMount
	for _, m := range secretMounts(mc) {
		mounts = append(mounts, m)
		if m.Name == authVolume {
			args = append(args, "--auth-file="+path.Join(authDir, authFile))
		}
	}
	return []corev1.Container{{
		Name:         CertReloaderContainerName,
		Image:        opts.CertReloaderImage,
		Command:      []string{certReloaderCommand},
		Args:         args,
		VolumeMounts: mounts,
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("5m"), corev1.ResourceMemory: resource.MustParse(certReloaderMemoryRequest)},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(certReloaderMemoryLimit)},
		},
		SecurityContext: restrictedContainerSecurityContext(),
	}}
}
