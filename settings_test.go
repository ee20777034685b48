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

package main

import (
	"cmp"
	"math"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/resources"
	"github.com/example/memcached-operator/internal/platform"
)

// Every setting read at start is checked before anything is written, and a bad one stops the
// operator with an error naming it. Source: operator-framework/operator-lifecycle-manager#2496
// (administrators override RELATED_IMAGE_* per Subscription in spec.config.env).
func TestSettingsCheck(t *testing.T) {
	valid := map[string]string{relatedImageEnv: "docker.io/library/memcached:1.6.38"}
	tests := map[string]struct {
		flags   func(*settings)
		env     map[string]string
		wantErr []string // substrings; empty means valid
	}{
		"defaults":                   {},
		"digest-pinned image":        {env: map[string]string{relatedImageEnv: "registry.example.com:5000/memcached@sha256:" + strings.Repeat("a", 64)}},
		"image unset":                {env: map[string]string{relatedImageEnv: ""}, wantErr: []string{relatedImageEnv, "must be set"}},
		"image not a reference":      {env: map[string]string{relatedImageEnv: "not a ref::"}, wantErr: []string{relatedImageEnv + `="not a ref::"`, "not an image reference"}},
		"image upper-case path":      {env: map[string]string{relatedImageEnv: "docker.io/Library/memcached"}, wantErr: []string{relatedImageEnv, "not an image reference"}},
		"image too long":             {env: map[string]string{relatedImageEnv: strings.Repeat("a", 513)}, wantErr: []string{relatedImageEnv, "more than 512"}},
		"exporter image":             {env: map[string]string{relatedImageExporterEnv: "registry.example.com/memcached-exporter@sha256:" + strings.Repeat("b", 64)}},
		"exporter image invalid":     {env: map[string]string{relatedImageExporterEnv: "Quay.io/x y"}, wantErr: []string{relatedImageExporterEnv, "not an image reference"}},
		"exporter image too long":    {env: map[string]string{relatedImageExporterEnv: strings.Repeat("a", 513)}, wantErr: []string{relatedImageExporterEnv, "more than 512"}},
		"watch namespaces":           {env: map[string]string{"WATCH_NAMESPACE": "a, b,"}},
		"watch namespace invalid":    {env: map[string]string{"WATCH_NAMESPACE": "a,B_b"}, wantErr: []string{"WATCH_NAMESPACE", `"B_b"`}},
		"operator condition":         {env: map[string]string{operatorConditionEnv: "memcached-operator.v0.3.0"}},
		"operator condition invalid": {env: map[string]string{operatorConditionEnv: "Memcached Operator"}, wantErr: []string{operatorConditionEnv}},
		"proxy host:port":            {env: map[string]string{"HTTP_PROXY": "proxy.example.com:3128", "HTTPS_PROXY": "https://proxy.example.com"}},
		"proxy invalid":              {env: map[string]string{"HTTPS_PROXY": "http://proxy example.com"}, wantErr: []string{"HTTPS_PROXY", "not a proxy URL"}},
		"proxy lower-case invalid":   {env: map[string]string{"http_proxy": "http://"}, wantErr: []string{"http_proxy", "not a proxy URL", "no host"}},
		"metrics disabled":           {flags: func(s *settings) { s.metricsAddr = "0" }},
		"metrics loopback":           {flags: func(s *settings) { s.metricsAddr = "127.0.0.1:8080" }},
		"metrics port missing":       {flags: func(s *settings) { s.metricsAddr = "8443" }, wantErr: []string{"--metrics-bind-address", "host:port"}},
		"metrics port out of range":  {flags: func(s *settings) { s.metricsAddr = ":70000" }, wantErr: []string{"--metrics-bind-address", "between 0 and 65535"}},
		"metrics certificate": {flags: func(s *settings) {
			s.metricsCertPath, s.metricsCertName, s.metricsCertKey = "/certs", "tls.crt", "tls.key"
		}},
		"metrics certificate unnamed": {flags: func(s *settings) { s.metricsCertPath, s.metricsCertName = "/certs", "" }, wantErr: []string{"--metrics-cert-name"}},
		"probe port named":            {flags: func(s *settings) { s.probeAddr = ":http" }, wantErr: []string{"--health-probe-bind-address"}},
		"lease namespace invalid":     {flags: func(s *settings) { s.leaderElectionNamespace = "Kube_System" }, wantErr: []string{"--leader-election-namespace"}},
		"pprof loopback":              {flags: func(s *settings) { s.pprofAddr = "127.0.0.1:6060" }},
		"pprof port missing":          {flags: func(s *settings) { s.pprofAddr = "6060" }, wantErr: []string{"--pprof-bind-address"}},
		"no concurrent reconciles":    {flags: func(s *settings) { s.maxConcurrentReconciles = 0 }, wantErr: []string{"--max-concurrent-reconciles=0"}},
		"client limit":                {flags: func(s *settings) { s.kubeAPIQPS, s.kubeAPIBurst = 50, 100 }},
		"client qps without burst":    {flags: func(s *settings) { s.kubeAPIQPS = 50 }, wantErr: []string{"--kube-api-qps=50", "--kube-api-burst=0"}},
		"client qps negative":         {flags: func(s *settings) { s.kubeAPIQPS, s.kubeAPIBurst = -1, 10 }, wantErr: []string{"--kube-api-qps=-1"}},
		"client qps NaN":              {flags: func(s *settings) { s.kubeAPIQPS = math.NaN() }, wantErr: []string{"--kube-api-qps=NaN"}},
		"client qps infinite":         {flags: func(s *settings) { s.kubeAPIQPS, s.kubeAPIBurst = math.Inf(1), 10 }, wantErr: []string{"--kube-api-qps=+Inf"}},
		"client qps above float32":    {flags: func(s *settings) { s.kubeAPIQPS, s.kubeAPIBurst = 1e39, 10 }, wantErr: []string{"--kube-api-qps=1e+39"}},
		"pod UIDs fixed":              {env: map[string]string{podUIDsEnv: "fixed"}},
		"pod UIDs platform":           {env: map[string]string{podUIDsEnv: "platform"}},
		"pod UIDs invalid":            {env: map[string]string{podUIDsEnv: "Platform"}, wantErr: []string{podUIDsEnv + `="Platform"`, "auto, fixed or platform"}},
		"every error at once": {
			flags:   func(s *settings) { s.probeAddr = "x" },
			env:     map[string]string{relatedImageEnv: "a b"},
			wantErr: []string{"--health-probe-bind-address", relatedImageEnv},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := settings{metricsAddr: ":8443", probeAddr: ":8081", pprofAddr: "0", secureMetrics: true, maxConcurrentReconciles: 1}
			if tc.flags != nil {
				tc.flags(&s)
			}
			env := map[string]string{}
			for k, v := range valid {
				env[k] = v
			}
			for k, v := range tc.env {
				env[k] = v
			}
			err := s.check(func(k string) string { return env[k] })
			if len(tc.wantErr) == 0 {
				if err != nil {
					t.Fatalf("check() = %v, want nil", err)
				}
				if s.defaultImage != env[relatedImageEnv] {
					t.Errorf("defaultImage = %q, want %q", s.defaultImage, env[relatedImageEnv])
				}
				// Unset: auto.
				if want := cmp.Or(platform.UIDPolicy(env[podUIDsEnv]), platform.UIDsAuto); s.uidPolicy != want {
					t.Errorf("uidPolicy = %q, want %q", s.uidPolicy, want)
				}
				// Unset: the public image the shipped CSV names.
				wantExporter := cmp.Or(env[relatedImageExporterEnv], resources.DefaultExporterImage)
				if s.defaultExporterImage != wantExporter {
					t.Errorf("defaultExporterImage = %q, want %q", s.defaultExporterImage, wantExporter)
				}
				return
			}
			if err == nil {
				t.Fatalf("check() = nil, want an error containing %q", tc.wantErr)
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("check() = %v, want it to contain %q", err, want)
				}
			}
		})
	}
}

// An invalid proxy variable stops the operator with an error naming the variable but never its
// value, nor any part of it: a proxy URL may carry user:password@, and the error is logged.
func TestSettingsCheckHidesProxyValue(t *testing.T) {
	const secret = "s3cr3t-pa55"
	for name, v := range map[string]string{
		"space in host":      "http://admin:" + secret + "@proxy example.com:3128",
		"port not a number":  "http://admin:" + secret + "@proxy.example.com:" + secret,
		"bad escape":         "http://admin:" + secret + "%zz@proxy.example.com",
		"no host":            "http://admin:" + secret + "@",
		"control character":  "http://admin:" + secret + "\x7f@proxy.example.com",
		"scheme-less, colon": "admin:" + secret + "@proxy.example.com:x",
	} {
		for _, env := range proxyEnvVars {
			t.Run(name+"/"+env, func(t *testing.T) {
				s := settings{metricsAddr: ":8443", probeAddr: ":8081", pprofAddr: "0", maxConcurrentReconciles: 1}
				vars := map[string]string{relatedImageEnv: "docker.io/library/memcached:1.6.38", env: v}
				err := s.check(func(k string) string { return vars[k] })
				if err == nil {
					t.Fatalf("check() with %s=%q = nil, want an error", env, v)
				}
				if !strings.Contains(err.Error(), env) || !strings.Contains(err.Error(), "not a proxy URL") {
					t.Errorf("check() = %v, want it to name %s and say it is not a proxy URL", err, env)
				}
				if strings.Contains(err.Error(), secret) {
					t.Errorf("check() = %v: the error quotes the proxy's password", err)
				}
			})
		}
	}
}

// TestApplyGCPercent: without GOGC in the environment, or with an empty one, the collector's
// target becomes defaultGCPercent; with GOGC set (applied by the Go runtime at start, here by the
// test) it is left alone and reported as in effect.
func TestApplyGCPercent(t *testing.T) {
	orig := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(orig) })
	env := func(v string, set bool) func(string) (string, bool) {
		return func(k string) (string, bool) { return v, set && k == "GOGC" }
	}
	tests := map[string]struct {
		env     func(string) (string, bool)
		runtime int // the target the runtime applied at start
		want    string
		wantGC  int
	}{
		"unset: the operator's default":        {env: env("", false), runtime: 100, want: strconv.Itoa(defaultGCPercent), wantGC: defaultGCPercent},
		"empty: unset for the runtime":         {env: env("", true), runtime: 100, want: strconv.Itoa(defaultGCPercent), wantGC: defaultGCPercent},
		"GOGC=200: left as the runtime set it": {env: env("200", true), runtime: 200, want: "200", wantGC: 200},
		"GOGC=off":                             {env: env("off", true), runtime: -1, want: "off", wantGC: -1},
		"GOGC=abc: the runtime's default, 100": {env: env("abc", true), runtime: 100, want: "100", wantGC: 100},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			debug.SetGCPercent(tc.runtime)
			if got := applyGCPercent(tc.env); got != tc.want {
				t.Errorf("reported %q, want %q", got, tc.want)
			}
			if got := debug.SetGCPercent(100); got != tc.wantGC {
				t.Errorf("target %d, want %d", got, tc.wantGC)
			}
		})
	}
}

// The operator's proxy variables reach no container the operator builds: memcached, the exporter
// and the certificate reloader make no outbound connection, and a proxy URL may hold credentials.
func TestBuilderOptionsCarryNoProxy(t *testing.T) {
	for _, name := range []string{"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"} {
		t.Setenv(name, "http://admin:password@proxy.example.com:3128")
	}
	s := settings{defaultImage: "docker.io/library/memcached:1.6.38", defaultExporterImage: resources.DefaultExporterImage,
		certReloaderImage: "registry.example.com/memcached-operator:v0.3.0"}
	mc := &cachev1alpha1.Memcached{
		ObjectMeta: metav1.ObjectMeta{Name: "cache", Namespace: "ns"},
		Spec: cachev1alpha1.MemcachedSpec{
			Size:       1,
			Memcached:  cachev1alpha1.MemcachedConfig{MaxMemoryMB: 64, MaxConnections: 1024, Threads: 4},
			TLS:        &cachev1alpha1.TLSSpec{SecretName: "tls"},
			Monitoring: cachev1alpha1.MonitoringSpec{Enabled: ptr.To(true)},
		},
	}
	containers := resources.DesiredDeployment(mc, builderOptions(s, false)).Spec.Template.Spec.Containers
	if len(containers) < 3 {
		t.Fatalf("want memcached, the exporter and the certificate reloader, got %d containers", len(containers))
	}
	for _, c := range containers {
		for _, e := range c.Env {
			if strings.Contains(strings.ToUpper(e.Name), "PROXY") {
				t.Errorf("container %s has %s=%q: the operator's proxy variables reach its pods", c.Name, e.Name, e.Value)
			}
		}
	}
}
