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

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/internal/fixture"
)

// What a refused spec asks for against what a running template gives: every protection the
// template lacks is named, and a template at least as protected lacks nothing.
func TestProtectionMissing(t *testing.T) {
	withNP := func(mc *cachev1alpha1.Memcached) { mc.Spec.NetworkPolicy.Enabled = true }
	require := fixture.WithClientCA("c", "", cachev1alpha1.ClientCertificateRequire)
	request := fixture.WithClientCA("c", "", cachev1alpha1.ClientCertificateRequest)
	tests := map[string]struct {
		running, spec []func(*cachev1alpha1.Memcached)
		runningNP     bool
		want          []string
	}{
		"plain, plain":                {},
		"auth asked, none running":    {spec: mods(fixture.WithAuth("u", "")), want: []string{"authentication (spec.auth)"}},
		"auth asked, auth running":    {running: mods(fixture.WithAuth("old", "")), spec: mods(fixture.WithAuth("u", ""))},
		"auth dropped by the spec":    {running: mods(fixture.WithAuth("u", ""))},
		"TLS asked, none running":     {spec: mods(fixture.WithTLS("c")), want: []string{"TLS (spec.tls)"}},
		"TLS and auth, none running":  {spec: mods(fixture.WithTLS("c"), fixture.WithAuth("u", "")), want: []string{"authentication (spec.auth)", "TLS (spec.tls)"}},
		"require asked, TLS running":  {running: mods(fixture.WithTLS("c")), spec: mods(fixture.WithTLS("c"), require), want: []string{"client certificate verification (spec.tls.clientCA)"}},
		"require asked, request runs": {running: mods(fixture.WithTLS("c"), request), spec: mods(fixture.WithTLS("c"), require), want: []string{"client certificate verification (spec.tls.clientCA)"}},
		"request asked, require runs": {running: mods(fixture.WithTLS("c"), require), spec: mods(fixture.WithTLS("c"), request)},
		"policy asked, none":          {spec: mods(withNP), want: []string{"the NetworkPolicy (spec.networkPolicy)"}},
		"policy asked, policy exists": {spec: mods(withNP), runningNP: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			running := DesiredDeployment(fixture.Defaulted("a", tc.running...), Options{DefaultImage: testImage})
			got := WantedProtection(fixture.Defaulted("a", tc.spec...)).Missing(LiveProtection(&running.Spec.Template, tc.runningNP))
			if !slices.Equal(got, tc.want) {
				t.Fatalf("Missing = %q, want %q", got, tc.want)
			}
		})
	}
}

// memcached reads its arguments in order: a later ssl_verify_mode overrides an earlier one, and
// LiveProtection must read them the same way.
func TestArgsProtectionLastWins(t *testing.T) {
	got := argsProtection([]string{"-Z", "-o", "ssl_key=k,ssl_verify_mode=2", "-o", "ssl_verify_mode=0", "-o"})
	if want := (Protection{TLS: true}); got != want {
		t.Fatalf("argsProtection = %+v, want %+v", got, want)
	}
}

func mods(m ...func(*cachev1alpha1.Memcached)) []func(*cachev1alpha1.Memcached) { return m }
