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
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"

	"github.com/example/memcached-operator/controllers/internal/fixture"
)

// monitored turns spec.monitoring on.
func monitored(mc *cachev1alpha1.Memcached) { mc.Spec.Monitoring.Enabled = ptr.To(true) }

// The exporter sidecar, the Service's metrics port: present exactly when monitoring is on, with
// the exporter's default port (9150, memcached_exporter's --web.listen-address default) named
// "metrics", scraping the pod's own memcached on localhost, under the memcached container's
// restricted security context. Sidecar layout after prometheus/memcached_exporter's README
// (https://github.com/prometheus/memcached_exporter#usage).
func TestMonitoringBuilders(t *testing.T) {
	opts := Options{DefaultImage: "memcached:1", DefaultExporterImage: "exporter:default"}
	tests := map[string]struct {
		mc           *cachev1alpha1.Memcached
		wantExporter string // image, or "" for no sidecar
		wantAddress  string // the exporter's --memcached.address; "" is localhost:11211
		wantListen   []string
	}{
		"off by default":          {mc: fixture.Defaulted("a")},
		"explicitly off":          {mc: fixture.Defaulted("a", func(mc *cachev1alpha1.Memcached) { mc.Spec.Monitoring.Enabled = ptr.To(false) })},
		"off with an image set":   {mc: fixture.Defaulted("a", func(mc *cachev1alpha1.Memcached) { mc.Spec.Monitoring.Image = "exporter:mine" })},
		"on: the default image":   {mc: fixture.Defaulted("a", monitored), wantExporter: "exporter:default"},
		"on: the image override":  {mc: fixture.Defaulted("a", monitored, func(mc *cachev1alpha1.Memcached) { mc.Spec.Monitoring.Image = "exporter:mine" }), wantExporter: "exporter:mine"},
		"on with a tuned memcach": {mc: fixture.Defaulted("a", monitored, fixture.Tuned), wantExporter: "exporter:default"},
		"tls, monitoring off":     {mc: fixture.Defaulted("a", fixture.WithTLS("cert"))},
		"on with tls: the loopback listener": {
			mc: fixture.Defaulted("a", monitored, fixture.WithTLS("cert")), wantExporter: "exporter:default",
			wantAddress: "127.0.0.1:11212", wantListen: []string{"-l", "*:11211", "-l", "notls:127.0.0.1:11212"},
		},
		"on with tls and client certificates": {
			mc:           fixture.Defaulted("a", monitored, fixture.WithTLS("cert"), fixture.WithClientCA("ca", "ca.crt", cachev1alpha1.ClientCertificateRequire)),
			wantExporter: "exporter:default",
			wantAddress:  "127.0.0.1:11212", wantListen: []string{"-l", "*:11211", "-l", "notls:127.0.0.1:11212"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dep := DesiredDeployment(tc.mc, opts)
			svc := DesiredService(tc.mc)
			containers := dep.Spec.Template.Spec.Containers
			fixture.Expect(t, "first container", containers[0].Name, ContainerName)
			fixture.Expect(t, "memcached image", containers[0].Image, "memcached:1")
			// The listener flags come right after the TLS ones (-Z -o ...), which they need.
			args := containers[0].Args
			var listen []string
			if i := slices.Index(args, "-l"); i >= 0 {
				listen = args[i : i+4]
				fixture.Expect(t, "listener after TLS", args[i-2], "-o")
			}
			fixture.Expect(t, "memcached listeners", listen, tc.wantListen)
			for _, c := range containers {
				for _, a := range append(c.Args, c.Command...) {
					if strings.Contains(a, "BEGIN") || strings.Contains(a, "users") {
						t.Errorf("container %s has a credential in its args: %q", c.Name, a)
					}
				}
			}
			if tc.wantExporter == "" {
				fixture.Expect(t, "containers", len(containers), 1)
				fixture.Expect(t, "service ports", len(svc.Spec.Ports), 1)
				return
			}
			fixture.Expect(t, "containers", len(containers), 2)
			c := containers[1]
			fixture.Expect(t, "exporter name", c.Name, "memcached-exporter")
			fixture.Expect(t, "exporter image", c.Image, tc.wantExporter)
			fixture.Expect(t, "exporter command (the image's entrypoint)", len(c.Command), 0)
			addr := tc.wantAddress
			if addr == "" {
				addr = "localhost:11211"
			}
			fixture.Expect(t, "exporter args", c.Args, []string{"--memcached.address=" + addr, "--web.listen-address=:9150"})
			fixture.Expect(t, "exporter mounts (no certificate, no credential)", len(c.VolumeMounts), 0)
			fixture.Expect(t, "exporter ports", c.Ports, []corev1.ContainerPort{{Name: "metrics", ContainerPort: 9150, Protocol: corev1.ProtocolTCP}})
			fixture.Expect(t, "exporter security context = memcached's", c.SecurityContext, containers[0].SecurityContext)
			fixture.Expect(t, "no readiness probe (a slow exporter never unpublishes a server)", c.ReadinessProbe == nil, true)
			fixture.Expect(t, "liveness on the metrics port", c.LivenessProbe.TCPSocket.Port, intstr.FromString("metrics"))
			if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
				t.Errorf("exporter resources = %v, want CPU and memory requests and a memory limit", c.Resources)
			}
			fixture.Expect(t, "no proxy env (it only talks to localhost)", len(c.Env), 0)
			fixture.Expect(t, "service ports", svc.Spec.Ports, []corev1.ServicePort{
				{Name: "memcached", Port: 11211, TargetPort: intstr.FromString("memcached"), Protocol: corev1.ProtocolTCP},
				{Name: "metrics", Port: 9150, TargetPort: intstr.FromString("metrics"), Protocol: corev1.ProtocolTCP},
			})
		})
	}
}

// Turning monitoring on or off, and changing the exporter or its image by hand, is drift of the
// pod template; the server's defaults on the sidecar are not.
func TestExporterDrift(t *testing.T) {
	opts := Options{DefaultImage: "memcached:1", DefaultExporterImage: "exporter:1"}
	on := DesiredDeployment(fixture.Defaulted("cache", monitored), opts)
	off := DesiredDeployment(fixture.Defaulted("cache"), opts)
	withDefaults := func(d *appsv1.Deployment) *appsv1.Deployment {
		d = fixture.ServerDefaulted(d)
		for i := range d.Spec.Template.Spec.Containers {
			c := &d.Spec.Template.Spec.Containers[i]
			c.TerminationMessagePath = corev1.TerminationMessagePathDefault
			c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
			c.ImagePullPolicy = corev1.PullIfNotPresent
		}
		return d
	}
	tests := map[string]struct {
		live, desired *appsv1.Deployment
		mutate        func(*appsv1.Deployment)
		want          bool
	}{
		"on, as stored":  {live: withDefaults(on), desired: on, want: false},
		"turned on":      {live: withDefaults(off), desired: on, want: true},
		"turned off":     {live: withDefaults(on), desired: off, want: true},
		"exporter image": {live: withDefaults(on), desired: on, mutate: func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[1].Image = "exporter:2" }, want: true},
		"exporter args":  {live: withDefaults(on), desired: on, mutate: func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[1].Args = nil }, want: true},
		"exporter port":  {live: withDefaults(on), desired: on, mutate: func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[1].Ports[0].ContainerPort = 9151 }, want: true},
		"exporter privilege": {live: withDefaults(on), desired: on, mutate: func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[1].SecurityContext.AllowPrivilegeEscalation = ptr.To(true)
		}, want: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if tc.mutate != nil {
				tc.mutate(tc.live)
			}
			if got := DeploymentNeedsUpdate(tc.live, tc.desired); got != tc.want {
				t.Fatalf("deploymentNeedsUpdate() = %v, want %v", got, tc.want)
			}
			if tc.want {
				UpdateDeployment(tc.live, tc.desired)
				if DeploymentNeedsUpdate(tc.live, tc.desired) {
					t.Errorf("still needs an update after updateDeployment")
				}
			}
		})
	}
}

// The ServiceMonitor selects the instance's Service (by the selector labels the Service carries)
// and scrapes its "metrics" port at /metrics; drift in what the operator owns is corrected and
// labels others add are kept. ServiceMonitor API:
// https://prometheus-operator.dev/docs/api-reference/api/#monitoring.coreos.com/v1.ServiceMonitor
func TestServiceMonitor(t *testing.T) {
	mc := fixture.Defaulted("cache", monitored)
	desired := desiredServiceMonitor(mc)
	fixture.Expect(t, "name", desired.Name, "cache")
	fixture.Expect(t, "namespace", desired.Namespace, "ns")
	fixture.Expect(t, "labels", desired.Labels, ObjectLabels(mc))
	fixture.Expect(t, "selector", desired.Spec.Selector, metav1.LabelSelector{MatchLabels: selectorLabels(mc)})
	fixture.Expect(t, "endpoints", desired.Spec.Endpoints, []monitoringv1.Endpoint{{Port: "metrics", Path: "/metrics"}})
	svc := DesiredService(mc)
	for k, v := range desired.Spec.Selector.MatchLabels {
		fixture.Expect(t, "the Service carries selector label "+k, svc.Labels[k], v)
	}

	tests := map[string]struct {
		mutate func(*monitoringv1.ServiceMonitor)
		want   bool
	}{
		"as built":             {mutate: func(*monitoringv1.ServiceMonitor) {}, want: false},
		"foreign label":        {mutate: func(sm *monitoringv1.ServiceMonitor) { sm.Labels["release"] = "prometheus" }, want: false},
		"our label removed":    {mutate: func(sm *monitoringv1.ServiceMonitor) { delete(sm.Labels, LabelManagedBy) }, want: true},
		"port changed":         {mutate: func(sm *monitoringv1.ServiceMonitor) { sm.Spec.Endpoints[0].Port = "memcached" }, want: true},
		"endpoint field added": {mutate: func(sm *monitoringv1.ServiceMonitor) { sm.Spec.Endpoints[0].Interval = "5s" }, want: true},
		"second endpoint": {mutate: func(sm *monitoringv1.ServiceMonitor) {
			sm.Spec.Endpoints = append(sm.Spec.Endpoints, monitoringv1.Endpoint{Port: "x"})
		}, want: true},
		"selector changed":      {mutate: func(sm *monitoringv1.ServiceMonitor) { sm.Spec.Selector.MatchLabels = map[string]string{"a": "b"} }, want: true},
		"other namespaces":      {mutate: func(sm *monitoringv1.ServiceMonitor) { sm.Spec.NamespaceSelector.Any = true }, want: true},
		"job label (not owned)": {mutate: func(sm *monitoringv1.ServiceMonitor) { sm.Spec.JobLabel = "app" }, want: false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			live := desired.DeepCopy()
			live.Labels = MergeLabels(map[string]string{}, live.Labels)
			tc.mutate(live)
			if got := serviceMonitorNeedsUpdate(live, desired); got != tc.want {
				t.Fatalf("serviceMonitorNeedsUpdate() = %v, want %v", got, tc.want)
			}
			updateServiceMonitor(live, desired)
			if serviceMonitorNeedsUpdate(live, desired) {
				t.Errorf("still needs an update after updateServiceMonitor")
			}
			if !equality.Semantic.DeepEqual(live.Spec.Endpoints, desired.Spec.Endpoints) {
				t.Errorf("endpoints = %v, want %v", live.Spec.Endpoints, desired.Spec.Endpoints)
			}
		})
	}
}
