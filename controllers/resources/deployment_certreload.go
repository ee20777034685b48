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

	appsv1 "k8s.io/api/apps/v1"
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

// deploymentUpdate returns DeploymentNeedsUpdate and UpdateDeployment for mc, comparing the live
// Deployment with the desired one whose template is templateTarget's choice.
func deploymentUpdate(mc *cachev1alpha1.Memcached, opts Options, hashes SecretHashes) (func(live, desired *appsv1.Deployment) bool, func(live, desired *appsv1.Deployment)) {
	return withTargetTemplate(templateTarget(mc, opts, hashes), DeploymentNeedsUpdate, UpdateDeployment,
		func(d *appsv1.Deployment) *corev1.PodTemplateSpec { return &d.Spec.Template },
		func(d *appsv1.Deployment, t *corev1.PodTemplateSpec) *appsv1.Deployment {
			c := *d
			c.Spec.Template = *t
			return &c
		})
}

// statefulSetUpdate is deploymentUpdate for the StatefulSet of spec.serverIdentity Stable.
func statefulSetUpdate(mc *cachev1alpha1.Memcached, opts Options, hashes SecretHashes) (func(live, desired *appsv1.StatefulSet) bool, func(live, desired *appsv1.StatefulSet)) {
	return withTargetTemplate(templateTarget(mc, opts, hashes), StatefulSetNeedsUpdate, UpdateStatefulSet,
		func(s *appsv1.StatefulSet) *corev1.PodTemplateSpec { return &s.Spec.Template },
		func(s *appsv1.StatefulSet, t *corev1.PodTemplateSpec) *appsv1.StatefulSet {
			c := *s
			c.Spec.Template = *t
			return &c
		})
}

// withTargetTemplate wraps a workload's needsUpdate and update so that they compare with, and
// update to, the desired workload carrying the template target picks (target nil: the desired one
// as it is). template reads a workload's pod template; withTemplate returns a shallow copy of a
// workload with another one.
func withTargetTemplate[T any](target func(live, desired *corev1.PodTemplateSpec) *corev1.PodTemplateSpec,
	needsUpdate func(live, desired T) bool, update func(live, desired T),
	template func(T) *corev1.PodTemplateSpec, withTemplate func(T, *corev1.PodTemplateSpec) T) (func(live, desired T) bool, func(live, desired T)) {
	if target == nil {
		return needsUpdate, update
	}
	with := func(live, desired T) T {
		t := target(template(live), template(desired))
		if t == template(desired) {
			return desired
		}
		return withTemplate(desired, t)
	}
	return func(live, desired T) bool { return needsUpdate(live, with(live, desired)) },
		func(live, desired T) { update(live, with(live, desired)) }
}

// templateTarget returns, when mc's pods run a sidecar from the operator's image (the certificate
// reloader, the stats relay), the function that picks the pod template a live workload is compared
// with and updated to: the desired one, or one of two more forms of the live template, so that an
// operator upgrade restarts no memcached server:
//   - the template an operator without the reloader built (no sidecar, no loopback listener unless
//     monitoring needs it, every Secret's data in the hash);
//   - the template with the sidecars of another operator release (their image is the operator's,
//     which changes with every release).
//
// While the live template is one of those and nothing else in it differs, it is what the
// workload is compared with and updated to, so a change outside the template (a scale) rolls no
// pod either. The pods move to the desired template at their next roll for another reason: a
// change of the template's inputs in the spec, an auth file change, or (for the first form) the
// first renewal after the upgrade, which rolls them as it did before; renewals after that are
// applied in place. Without such a sidecar it returns nil: the desired template is the only one.
func templateTarget(mc *cachev1alpha1.Memcached, opts Options, hashes SecretHashes) func(live, desired *corev1.PodTemplateSpec) *corev1.PodTemplateSpec {
	if !certReloadEnabled(mc, opts) && !statsRelayEnabled(mc, opts) {
		return nil
	}
	// The other forms are built only when the live template is not the desired one (after an
	// upgrade, until the next roll): a steady-state reconcile builds nothing more.
	var prior *corev1.PodTemplateSpec
	return func(live, desired *corev1.PodTemplateSpec) *corev1.PodTemplateSpec {
		if templateMatches(live, desired) {
			return desired
		}
		if prior == nil {
			before := opts
			before.CertReloaderImage = ""
			t := podTemplate(mc, before)
			SetSecretHash(&t, hashes.rollout(mc, before))
			prior = &t
		}
		if templateMatches(live, prior) {
			return prior
		}
		if img := sidecarImage(&live.Spec); img != "" && img != opts.CertReloaderImage {
			other := desired.DeepCopy()
			for i := range other.Spec.Containers {
				if c := &other.Spec.Containers[i]; isOperatorSidecar(c.Name) {
					c.Image = img
				}
			}
			if templateMatches(live, other) {
				return other
			}
		}
		return desired
	}
}

// isOperatorSidecar reports whether the container named name runs the operator's image.
func isOperatorSidecar(name string) bool {
	return name == CertReloaderContainerName || name == StatsRelayContainerName
}

// sidecarImage returns the image of pod's first container that runs the operator's image
// (isOperatorSidecar), "" without one.
func sidecarImage(pod *corev1.PodSpec) string {
	for _, c := range pod.Containers {
		if isOperatorSidecar(c.Name) {
			return c.Image
		}
	}
	return ""
}
