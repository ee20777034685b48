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
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/internal/fixture"
)

const testReloaderImage = "registry.example.com/memcached-operator@sha256:0123"

// The reloader sidecar: only with spec.tls and a known operator image; the TLS files (and the auth
// file with spec.auth) read-only, memcached's loopback listener, restricted security context; the
// memcached container gains the loopback listener only when a sidecar needs it.
func TestCertReloaderContainer(t *testing.T) {
	withImage := Options{CertReloaderImage: testReloaderImage}
	tests := map[string]struct {
		mc           *cachev1alpha1.Memcached
		opts         Options
		wantReloader []string // its args, nil: no reloader
		wantMounts   []string
		wantLoopback bool
	}{
		"no tls":                 {mc: fixture.Defaulted("c", fixture.WithAuth("u", "")), opts: withImage},
		"tls, no operator image": {mc: fixture.Defaulted("c", fixture.WithTLS("t")), opts: Options{}},
		"tls": {mc: fixture.Defaulted("c", fixture.WithTLS("t")), opts: withImage,
			wantReloader: []string{"--dir=/etc/memcached/tls", "--address=127.0.0.1:11212", "--interval=5s"},
			wantMounts:   []string{"memcached-tls:/etc/memcached/tls"}, wantLoopback: true},
		"tls and auth": {mc: fixture.Defaulted("c", fixture.WithTLS("t"), fixture.WithAuth("u", "")), opts: withImage,
			wantReloader: []string{"--dir=/etc/memcached/tls", "--address=127.0.0.1:11212", "--interval=5s", "--auth-file=/etc/memcached/auth/authfile"},
			wantMounts:   []string{"memcached-tls:/etc/memcached/tls", "memcached-auth:/etc/memcached/auth"}, wantLoopback: true},
		"tls and monitoring, no operator image: the exporter's listener": {
			mc:           fixture.Defaulted("c", fixture.WithTLS("t"), func(mc *cachev1alpha1.Memcached) { mc.Spec.Monitoring.Enabled = ptr.To(true) }),
			wantLoopback: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			pod := DesiredDeployment(tc.mc, tc.opts).Spec.Template.Spec
			i := slices.IndexFunc(pod.Containers, func(c corev1.Container) bool { return c.Name == CertReloaderContainerName })
			if tc.wantReloader == nil {
				if i >= 0 {
					t.Fatalf("unexpected reloader container: %+v", pod.Containers[i])
				}
			} else {
				if i < 0 {
					t.Fatalf("no reloader container in %d containers", len(pod.Containers))
				}
				c := pod.Containers[i]
				fixture.Expect(t, "image", c.Image, testReloaderImage)
				fixture.Expect(t, "command", c.Command, []string{"/cert-reloader"})
				fixture.Expect(t, "args", c.Args, tc.wantReloader)
				var mounts []string
				for _, m := range c.VolumeMounts {
					if !m.ReadOnly {
						t.Errorf("mount %s is writable", m.Name)
					}
					mounts = append(mounts, m.Name+":"+m.MountPath)
				}
				fixture.Expect(t, "mounts", mounts, tc.wantMounts)
				fixture.Expect(t, "security context", c.SecurityContext, restrictedContainerSecurityContext())
				if c.Resources.Limits.Memory().IsZero() || c.Resources.Requests.Cpu().IsZero() {
					t.Errorf("resources %v: want a memory limit and a CPU request", c.Resources)
				}
			}
			args := pod.Containers[0].Args
			if got := slices.Contains(args, "notls:127.0.0.1:11212"); got != tc.wantLoopback {
				t.Errorf("memcached args %q: loopback listener %v, want %v", args, got, tc.wantLoopback)
			}
		})
	}
}

// An operator upgrade that brings the reloader restarts no server: the Deployment an operator
// without it built is kept as long as its pod template is otherwise what the spec asks, also when
// something outside the template (the size) changes; a change that rolls the pods anyway (a
// renewal before the reloader runs, a spec change of the template) moves them to the reloader.
func TestCertReloaderUpgrade(t *testing.T) {
	opts := Options{DefaultImage: testImage, CertReloaderImage: testReloaderImage}
	before := Options{DefaultImage: testImage}
	hashes := SecretHashes{All: "cert-1+auth", NotTLS: "auth"}
	mc := func(mutate ...func(*cachev1alpha1.Memcached)) *cachev1alpha1.Memcached {
		return fixture.Defaulted("c", append([]func(*cachev1alpha1.Memcached){fixture.WithTLS("t"), fixture.WithAuth("u", "")}, mutate...)...)
	}
	deployment := func(mc *cachev1alpha1.Memcached, opts Options, hashes SecretHashes) *appsv1.Deployment {
		return DesiredState(mc, opts, Read{Secrets: hashes})[0].Object.(*appsv1.Deployment)
	}
	hasReloader := func(d *appsv1.Deployment) bool {
		return slices.ContainsFunc(d.Spec.Template.Spec.Containers, func(c corev1.Container) bool { return c.Name == CertReloaderContainerName })
	}
	tests := map[string]struct {
		live         *appsv1.Deployment
		mc           *cachev1alpha1.Memcached
		hashes       SecretHashes
		wantUpdate   bool
		wantReloader bool   // after the update (or as it is, without one)
		wantImage    string // the reloader's image after it; "" for this release's
	}{
		"old form, nothing changed: kept":                            {live: deployment(mc(), before, hashes), mc: mc(), hashes: hashes},
		"old form, scaled: kept, size updated":                       {live: deployment(mc(), before, hashes), mc: mc(func(m *cachev1alpha1.Memcached) { m.Spec.Size = 5 }), hashes: hashes, wantUpdate: true},
		"old form, renewed: rolls to the reloader":                   {live: deployment(mc(), before, hashes), mc: mc(), hashes: SecretHashes{All: "cert-2+auth", NotTLS: "auth"}, wantUpdate: true, wantReloader: true},
		"old form, spec changes the template: rolls to the reloader": {live: deployment(mc(), before, hashes), mc: mc(func(m *cachev1alpha1.Memcached) { m.Spec.Memcached.Threads = 8 }), hashes: hashes, wantUpdate: true, wantReloader: true},
		"new form, renewed: in place":                                {live: deployment(mc(), opts, hashes), mc: mc(), hashes: SecretHashes{All: "cert-2+auth", NotTLS: "auth"}, wantReloader: true},
		"new form, auth file changed: rolls":                         {live: deployment(mc(), opts, hashes), mc: mc(), hashes: SecretHashes{All: "cert-1+auth2", NotTLS: "auth2"}, wantUpdate: true, wantReloader: true},
		"another release's reloader: kept": {
			live: deployment(mc(), Options{DefaultImage: testImage, CertReloaderImage: "registry.example.com/memcached-operator:v0.2.2"}, hashes),
			mc:   mc(), hashes: hashes, wantReloader: true, wantImage: "registry.example.com/memcached-operator:v0.2.2"},
		"another release's reloader, scaled: kept, size updated": {
			live: deployment(mc(), Options{DefaultImage: testImage, CertReloaderImage: "registry.example.com/memcached-operator:v0.2.2"}, hashes),
			mc:   mc(func(m *cachev1alpha1.Memcached) { m.Spec.Size = 5 }), hashes: hashes, wantUpdate: true, wantReloader: true, wantImage: "registry.example.com/memcached-operator:v0.2.2"},
		"another release's reloader, template changed: this release's": {
			live: deployment(mc(), Options{DefaultImage: testImage, CertReloaderImage: "registry.example.com/memcached-operator:v0.2.2"}, hashes),
			mc:   mc(func(m *cachev1alpha1.Memcached) { m.Spec.Memcached.Threads = 8 }), hashes: hashes, wantUpdate: true, wantReloader: true},
		"new form, reloader removed by hand: restored": {
			live: func() *appsv1.Deployment {
				d := deployment(mc(), opts, hashes)
				d.Spec.Template.Spec.Containers = d.Spec.Template.Spec.Containers[:1]
				return d
			}(), mc: mc(), hashes: hashes, wantUpdate: true, wantReloader: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			live := tc.live.DeepCopy()
			for _, d := range DesiredState(tc.mc, opts, Read{Secrets: tc.hashes})[:1] {
				needsUpdate, update := deploymentUpdate(templateTarget(tc.mc, opts, tc.hashes))
				desired := d.Object.(*appsv1.Deployment)
				if got := needsUpdate(live, desired); got != tc.wantUpdate {
					t.Fatalf("needs update = %v, want %v", got, tc.wantUpdate)
				}
				if tc.wantUpdate {
					update(live, desired)
					if needsUpdate(live, desired) {
						t.Errorf("still needs an update after it")
					}
				}
				if got := hasReloader(live); got != tc.wantReloader {
					t.Errorf("reloader in the pod template = %v, want %v", got, tc.wantReloader)
				}
				if want := tc.wantImage; tc.wantReloader {
					if want == "" {
						want = testReloaderImage
					}
					fixture.Expect(t, "the reloader's image", sidecarImage(&live.Spec.Template.Spec), want)
				}
				fixture.Expect(t, "replicas", live.Spec.Replicas, desired.Spec.Replicas)
			}
		})
	}
}
