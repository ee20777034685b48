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
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/internal/fixture"
)

func withMonitoring(mc *cachev1alpha1.Memcached) { mc.Spec.Monitoring.Enabled = ptr.To(true) }

// The stats relay: only with spec.monitoring and spec.auth and a known operator image; it reads
// memcached where the exporter otherwise would, mounts only the auth file, read-only, and the
// exporter reads it; every other combination keeps the containers and exporter address it had.
func TestStatsRelayContainer(t *testing.T) {
	withImage := Options{CertReloaderImage: testReloaderImage}
	tests := map[string]struct {
		mc             *cachev1alpha1.Memcached
		opts           Options
		wantContainers []string
		wantExporter   string   // the exporter's --memcached.address, "" without the exporter
		wantRelay      []string // the relay's args, nil: no relay
	}{
		"monitoring": {mc: fixture.Defaulted("c", withMonitoring), opts: withImage,
			wantContainers: []string{"memcached", "memcached-exporter"}, wantExporter: "localhost:11211"},
		"auth": {mc: fixture.Defaulted("c", fixture.WithAuth("u", "")), opts: withImage,
			wantContainers: []string{"memcached"}},
		"monitoring and tls": {mc: fixture.Defaulted("c", withMonitoring, fixture.WithTLS("t")), opts: withImage,
			wantContainers: []string{"memcached", "memcached-exporter", "cert-reloader"}, wantExporter: "127.0.0.1:11212"},
		"monitoring and auth": {mc: fixture.Defaulted("c", withMonitoring, fixture.WithAuth("u", "")), opts: withImage,
			wantContainers: []string{"memcached", "memcached-exporter", "stats-relay"}, wantExporter: "127.0.0.1:11213",
			wantRelay: []string{"--listen=127.0.0.1:11213", "--memcached-address=localhost:11211", "--auth-file=/etc/memcached/auth/authfile"}},
		"monitoring, auth and tls": {mc: fixture.Defaulted("c", withMonitoring, fixture.WithAuth("u", "users"), fixture.WithTLS("t")), opts: withImage,
			wantContainers: []string{"memcached", "memcached-exporter", "cert-reloader", "stats-relay"}, wantExporter: "127.0.0.1:11213",
			wantRelay: []string{"--listen=127.0.0.1:11213", "--memcached-address=127.0.0.1:11212", "--auth-file=/etc/memcached/auth/authfile"}},
		"monitoring and auth, no operator image": {mc: fixture.Defaulted("c", withMonitoring, fixture.WithAuth("u", "")),
			wantContainers: []string{"memcached", "memcached-exporter"}, wantExporter: "localhost:11211"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			pod := DesiredDeployment(tc.mc, tc.opts).Spec.Template.Spec
			var names []string
			for _, c := range pod.Containers {
				names = append(names, c.Name)
				switch c.Name {
				case ExporterContainerName:
					fixture.Expect(t, "exporter address", c.Args[0], "--memcached.address="+tc.wantExporter)
				case StatsRelayContainerName:
					fixture.Expect(t, "image", c.Image, testReloaderImage)
					fixture.Expect(t, "command", c.Command, []string{"/stats-relay"})
					fixture.Expect(t, "args", c.Args, tc.wantRelay)
					fixture.Expect(t, "mounts", c.VolumeMounts, []corev1.VolumeMount{{Name: "memcached-auth", MountPath: "/etc/memcached/auth", ReadOnly: true}})
					fixture.Expect(t, "ports", c.Ports, []corev1.ContainerPort(nil))
					fixture.Expect(t, "security context", c.SecurityContext, restrictedContainerSecurityContext())
					if c.Resources.Limits.Memory().IsZero() || c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() {
						t.Errorf("resources %v: want a memory request and limit and a CPU request", c.Resources)
					}
				}
			}
			fixture.Expect(t, "containers", names, tc.wantContainers)
		})
	}
}

// An operator upgrade restarts no server with the relay either: a pod template whose relay runs
// another release's image is kept while nothing else differs, and moves to this release's at the
// next roll for another reason.
func TestStatsRelayUpgrade(t *testing.T) {
	opts := Options{DefaultImage: testImage, CertReloaderImage: testReloaderImage}
	older := Options{DefaultImage: testImage, CertReloaderImage: "registry.example.com/memcached-operator:v0.2.2"}
	hashes := SecretHashes{All: "auth", NotTLS: "auth"}
	deployment := func(mc *cachev1alpha1.Memcached, opts Options) *appsv1.Deployment {
		return DesiredState(mc, opts, Read{Secrets: hashes})[0].Object.(*appsv1.Deployment)
	}
	mc := func(mutate ...func(*cachev1alpha1.Memcached)) *cachev1alpha1.Memcached {
		return fixture.Defaulted("c", append([]func(*cachev1alpha1.Memcached){withMonitoring, fixture.WithAuth("u", "")}, mutate...)...)
	}
	tests := map[string]struct {
		mc         *cachev1alpha1.Memcached
		wantUpdate bool
		wantImage  string
	}{
		"nothing changed: kept":                  {mc: mc(), wantImage: older.CertReloaderImage},
		"scaled: kept, size updated":             {mc: mc(func(m *cachev1alpha1.Memcached) { m.Spec.Size = 5 }), wantUpdate: true, wantImage: older.CertReloaderImage},
		"template changed: this release's image": {mc: mc(func(m *cachev1alpha1.Memcached) { m.Spec.Memcached.Threads = 8 }), wantUpdate: true, wantImage: testReloaderImage},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			live := deployment(mc(), older)
			desired := deployment(tc.mc, opts)
			needsUpdate, update := deploymentUpdate(templateTarget(tc.mc, opts, hashes))
			if got := needsUpdate(live, desired); got != tc.wantUpdate {
				t.Fatalf("needs update = %v, want %v", got, tc.wantUpdate)
			}
			update(live, desired)
			if needsUpdate(live, desired) {
				t.Errorf("still needs an update after it")
			}
			fixture.Expect(t, "the relay's image", sidecarImage(&live.Spec.Template.Spec), tc.wantImage)
			fixture.Expect(t, "replicas", live.Spec.Replicas, desired.Spec.Replicas)
		})
	}
}
