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

package v1alpha1

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// defaulted returns a Memcached with the CRD defaults applied, as the API server stores it.
func defaulted() *Memcached {
	return &Memcached{
		ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns"},
		Spec: MemcachedSpec{
			Size:                1,
			Memcached:           MemcachedConfig{MaxMemoryMB: 64, MaxConnections: 1024, Threads: 4},
			AntiAffinityPreset:  AntiAffinitySoft,
			PodDisruptionBudget: PodDisruptionBudgetSpec{Enabled: ptr.To(true)},
			Service:             ServiceSpec{Enabled: ptr.To(true)},
		},
	}
}

// The one image rule of spec.image, spec.monitoring.image and the operator's defaults. Every
// rule of Validate is proven against admission by the envtest TestGoValidationMatchesAdmission.
func TestValidateImageReference(t *testing.T) {
	tests := map[string]struct {
		img   string
		types []field.ErrorType
	}{
		"tag":              {img: "docker.io/library/memcached:1.6.38"},
		"digest":           {img: "registry.example.com:5000/memcached@sha256:" + strings.Repeat("a", 64)},
		"short name":       {img: "memcached"},
		"upper-case path":  {img: "docker.io/Library/memcached", types: []field.ErrorType{field.ErrorTypeInvalid}},
		"space":            {img: "a b", types: []field.ErrorType{field.ErrorTypeInvalid}},
		"512 characters":   {img: strings.Repeat("a", 512)},
		"513 characters":   {img: strings.Repeat("a", 513), types: []field.ErrorType{field.ErrorTypeTooLong}},
		"too long, broken": {img: strings.Repeat("A", 513), types: []field.ErrorType{field.ErrorTypeTooLong, field.ErrorTypeInvalid}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			errs := ValidateImageReference(field.NewPath("spec", "image"), tc.img)
			if len(errs) != len(tc.types) {
				t.Fatalf("ValidateImageReference() = %v, want %d errors of types %v", errs, len(tc.types), tc.types)
			}
			for i, e := range errs {
				if e.Type != tc.types[i] || e.Field != "spec.image" {
					t.Errorf("error %d = %v, want type %s on spec.image", i, e, tc.types[i])
				}
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := map[string]struct {
		mutate func(*Memcached)
		fields []string // the fields of the errors, in order; empty means valid
	}{
		"defaults":          {mutate: func(*Memcached) {}},
		"name not DNS-1035": {mutate: func(mc *Memcached) { mc.Name = "1a" }, fields: []string{"metadata.name"}},
		"size 0":            {mutate: func(mc *Memcached) { mc.Spec.Size = 0 }, fields: []string{"spec.size"}},
		"image invalid":     {mutate: func(mc *Memcached) { mc.Spec.Image = "a b" }, fields: []string{"spec.image"}},
		"exporter image":    {mutate: func(mc *Memcached) { mc.Spec.Monitoring.Image = "a b" }, fields: []string{"spec.monitoring.image"}},
		"monitoring, no svc": {mutate: func(mc *Memcached) {
			mc.Spec.Monitoring.Enabled = ptr.To(true)
			mc.Spec.Service.Enabled = ptr.To(false)
		}, fields: []string{"spec.monitoring.enabled"}},
		"monitoring with auth": {mutate: func(mc *Memcached) {
			mc.Spec.Monitoring.Enabled = ptr.To(true)
			mc.Spec.Auth = &AuthSpec{SecretName: "s"}
		}},
		"monitoring with tls": {mutate: func(mc *Memcached) {
			mc.Spec.Monitoring.Enabled = ptr.To(true)
			mc.Spec.TLS = &TLSSpec{SecretName: "s", ClientCA: &TLSClientCA{SecretName: "ca"}}
		}},
		"auth, monitoring off": {mutate: func(mc *Memcached) {
			mc.Spec.Monitoring.Enabled = ptr.To(false)
			mc.Spec.Auth = &AuthSpec{SecretName: "s"}
		}},
		"grace below delay": {mutate: func(mc *Memcached) { mc.Spec.GracefulShutdown.PreStopDelaySeconds = ptr.To[int32](30) }, fields: []string{"spec.gracefulShutdown.terminationGracePeriodSeconds"}},
		"auth with -B binary": {mutate: func(mc *Memcached) {
			mc.Spec.Auth = &AuthSpec{SecretName: "s"}
			mc.Spec.Memcached.ExtraArgs = []string{"-M", "-B", "binary"}
		}, fields: []string{"spec.memcached.extraArgs[2]"}},
		"auth with -B ascii": {mutate: func(mc *Memcached) {
			mc.Spec.Auth = &AuthSpec{SecretName: "s"}
			mc.Spec.Memcached.ExtraArgs = []string{"-B", "ascii"}
		}},
		"refused flag reported once": {mutate: func(mc *Memcached) { mc.Spec.Memcached.ExtraArgs = []string{"-m", "100"} },
			fields: []string{"spec.memcached.extraArgs"}},
		"pdb both set": {mutate: func(mc *Memcached) {
			one := intstr.FromInt32(1)
			mc.Spec.PodDisruptionBudget.MinAvailable, mc.Spec.PodDisruptionBudget.MaxUnavailable = &one, &one
		}, fields: []string{"spec.podDisruptionBudget"}},
		"policy without peer": {mutate: func(mc *Memcached) { mc.Spec.NetworkPolicy.Enabled = true }, fields: []string{"spec.networkPolicy.from"}},
		"warm restart, ephemeral": {mutate: func(mc *Memcached) { mc.Spec.WarmRestart.Enabled = true },
			fields: []string{"spec.warmRestart.enabled"}},
		"warm restart, stable": {mutate: func(mc *Memcached) {
			mc.Spec.WarmRestart.Enabled = true
			mc.Spec.ServerIdentity = ServerIdentityStable
		}},
		"two at once": {mutate: func(mc *Memcached) { mc.Spec.Size = 65; mc.Spec.Memcached.Threads = 0 }, fields: []string{"spec.size", "spec.memcached.threads"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			mc := defaulted()
			tc.mutate(mc)
			errs := mc.Validate()
			if len(errs) != len(tc.fields) {
				t.Fatalf("Validate() = %v, want errors on %v", errs, tc.fields)
			}
			for i, e := range errs {
				if e.Field != tc.fields[i] {
					t.Errorf("error %d = %v, want it on %s", i, e, tc.fields[i])
				}
			}
		})
	}
}

func TestValidateResources(t *testing.T) {
	tests := map[string]struct {
		limit, cpuRequest, cpuLimit string
		claim                       string
		// exporter: the resources are spec.monitoring.resources (no maxMemoryMB rule) instead of
		// spec.resources.
		exporter bool
		wantErr  string
	}{
		"claims":                    {claim: "gpu", wantErr: "spec.resources.claims is not supported"},
		"no limit":                  {},
		"limit above memory":        {limit: "100Mi"},
		"limit equal":               {limit: "64Mi", wantErr: "spec.memcached.maxMemoryMB (64Mi) must be lower than spec.resources.limits.memory (64Mi)"},
		"limit below":               {limit: "32Mi", wantErr: "spec.resources.limits.memory"},
		"cpu request within limit":  {cpuRequest: "500m", cpuLimit: "1"},
		"cpu request above limit":   {cpuRequest: "2", cpuLimit: "1", wantErr: "spec.resources.requests.cpu (2) must not exceed spec.resources.limits.cpu (1)"},
		"request without any limit": {cpuRequest: "2"},
		"exporter request above its limit": {exporter: true, cpuRequest: "2", cpuLimit: "1",
			wantErr: "spec.monitoring.resources.requests.cpu (2) must not exceed spec.monitoring.resources.limits.cpu (1)"},
		"exporter claims":         {exporter: true, claim: "gpu", wantErr: "spec.monitoring.resources.claims is not supported"},
		"exporter memory limited": {exporter: true, limit: "32Mi"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			mc := defaulted()
			r := &corev1.ResourceRequirements{Limits: corev1.ResourceList{}, Requests: corev1.ResourceList{}}
			if tc.limit != "" {
				r.Limits[corev1.ResourceMemory] = resource.MustParse(tc.limit)
			}
			if tc.cpuLimit != "" {
				r.Limits[corev1.ResourceCPU] = resource.MustParse(tc.cpuLimit)
			}
			if tc.cpuRequest != "" {
				r.Requests[corev1.ResourceCPU] = resource.MustParse(tc.cpuRequest)
			}
			if tc.claim != "" {
				r.Claims = []corev1.ResourceClaim{{Name: tc.claim}}
			}
			if tc.exporter {
				mc.Spec.Monitoring.Resources = r
			} else {
				mc.Spec.Resources = r
			}
			err := mc.ValidateResources()
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("ValidateResources() = %v, want error containing %q", err, tc.wantErr)
			}
		})
	}
}

// The Go twin of the CEL rule compares the fields with their defaults filled, as the API server
// does before it evaluates the rule, so an object built in Go is judged like a stored one.
func TestGracefulShutdownErrorsWithDefaults(t *testing.T) {
	tests := map[string]struct {
		delay, grace *int32
		wantErr      bool
	}{
		"both unset":                         {},
		"delay 29, grace unset (30)":         {delay: ptr.To[int32](29)},
		"delay 30, grace unset (30)":         {delay: ptr.To[int32](30), wantErr: true},
		"delay unset (0), grace 1":           {grace: ptr.To[int32](1)},
		"delay 10, grace 10":                 {delay: ptr.To[int32](10), grace: ptr.To[int32](10), wantErr: true},
		"delay 301 out of range, grace 3600": {delay: ptr.To[int32](301), grace: ptr.To[int32](3600), wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			errs := gracefulShutdownErrors(field.NewPath("spec", "gracefulShutdown"),
				GracefulShutdownSpec{PreStopDelaySeconds: tc.delay, TerminationGracePeriodSeconds: tc.grace})
			if got := len(errs) > 0; got != tc.wantErr {
				t.Fatalf("errors %v, want an error: %v", errs, tc.wantErr)
			}
		})
	}
}

// Every way spec.memcached.extraArgs could weaken or redirect what the spec asks for is refused,
// naming the argument; what only tunes memcached is accepted. Rows that weaken a protection on
// the real memcached are also run there (controllers/resources TestExtraArgsCannotWeakenProtections).
func TestExtraArgsErrors(t *testing.T) {
	tests := map[string]struct {
		args []string
		auth bool
		// want are the errors: "<field>: <substring of the message>"; empty means accepted.
		want []string
	}{
		"none":                              {},
		"every flag with a value":           {args: []string{"-M", "-R", "40", "-B", "auto", "-f", "1.5", "-n", "64", "-L", "-C", "-D", ":", "-b", "2048", "-F", "-X", "-o", "modern"}},
		"tuning options":                    {args: []string{"-o", "modern,slab_reassign,slab_automove=2,hashpower=20,lru_crawler,lru_maintainer,hot_lru_pct=20,warm_lru_pct=40,temporary_ttl=61,idle_timeout=600,hash_algorithm=murmur3,slab_sizes=96-192-384,slab_chunk_max=512,worker_logbuf_size=64"}},
		"slab_automove bare":                {args: []string{"-o", "slab_automove"}},
		"several -o":                        {args: []string{"-o", "modern", "-o", "no_lru_crawler"}},
		"value with dashes and dots":        {args: []string{"-D", "x-y", "-f", "1.25"}},
		"-B ascii with auth":                {args: []string{"-B", "ascii"}, auth: true},
		"-B binary without auth":            {args: []string{"-B", "binary"}},
		"-B binary with auth":               {args: []string{"-B", "binary"}, auth: true, want: []string{"spec.memcached.extraArgs[1]: spec.memcached.extraArgs: -B binary is not allowed with spec.auth"}},
		"-B auto with auth":                 {args: []string{"-B", "auto"}, auth: true, want: []string{"spec.memcached.extraArgs[1]: spec.memcached.extraArgs: -B auto is not allowed with spec.auth"}},
		"-B unknown protocol":               {args: []string{"-B", "proxy"}, want: []string{"spec.memcached.extraArgs[1]: spec.memcached.extraArgs: -B takes ascii, binary or auto"}},
		"verification turned off":           {args: []string{"-o", "ssl_verify_mode=0"}, want: []string{"spec.memcached.extraArgs[1]: spec.memcached.extraArgs: -o ssl_verify_mode is not allowed: TLS is set by spec.tls"}},
		"another client CA":                 {args: []string{"-o", "ssl_ca_cert=/tmp/ca.crt"}, want: []string{"[1]: spec.memcached.extraArgs: -o ssl_ca_cert is not allowed"}},
		"another certificate":               {args: []string{"-o", "ssl_chain_cert=/tmp/c.crt,ssl_key=/tmp/c.key"}, want: []string{"[1]: spec.memcached.extraArgs: -o ssl_chain_cert is not allowed", "[1]: spec.memcached.extraArgs: -o ssl_key is not allowed"}},
		"older TLS":                         {args: []string{"-o", "ssl_min_version=0"}, want: []string{"-o ssl_min_version is not allowed"}},
		"weaker ciphers":                    {args: []string{"-o", "ssl_ciphers=NULL"}, want: []string{"-o ssl_ciphers is not allowed"}},
		"TLS option behind a tuning one":    {args: []string{"-o", "modern,ssl_verify_mode=0"}, want: []string{"[1]: spec.memcached.extraArgs: -o ssl_verify_mode is not allowed"}},
		"proxy mode":                        {args: []string{"-o", "proxy_config=/tmp/routes.lua"}, want: []string{"-o proxy_config is not allowed: memcached's proxy mode is not supported"}},
		"privileges kept":                   {args: []string{"-o", "no_drop_privileges"}, want: []string{"-o no_drop_privileges is not allowed: memcached's privilege settings are the operator's"}},
		"relaxed privileges":                {args: []string{"-o", "relaxed_privileges"}, want: []string{"-o relaxed_privileges is not allowed"}},
		"socket mark":                       {args: []string{"-o", "sock_cookie_id=1"}, want: []string{"-o sock_cookie_id is not allowed: extraArgs may set only the extended options that tune memory"}},
		"extstore file":                     {args: []string{"-o", "ext_path=/data/extstore:1G"}, want: []string{"-o ext_path is not allowed: extstore is not supported"}},
		"unknown option":                    {args: []string{"-o", "future_option"}, want: []string{"-o future_option is not allowed: extraArgs may set only"}},
		"no-op option":                      {args: []string{"-o", "inline_ascii_resp"}, want: []string{"-o inline_ascii_resp is not allowed"}},
		"empty sub-option":                  {args: []string{"-o", "modern,,lru_crawler"}, want: []string{"has an empty sub-option"}},
		"value on a bare option":            {args: []string{"-o", "modern=1"}, want: []string{"-o modern takes no value"}},
		"missing option value":              {args: []string{"-o", "hashpower"}, want: []string{"-o hashpower needs a value (hashpower=<value>)"}},
		"empty option value":                {args: []string{"-o", "slab_sizes="}, want: []string{"the value of -o slab_sizes may hold only"}},
		"option value with a path":          {args: []string{"-o", "hash_algorithm=/x"}, want: []string{"the value of -o hash_algorithm may hold only"}},
		"flag without its value at the end": {args: []string{"-M", "-R"}, want: []string{"spec.memcached.extraArgs[1]: spec.memcached.extraArgs: -R needs a value"}},
		"-o without its value":              {args: []string{"-o"}, want: []string{"[0]: spec.memcached.extraArgs: -o needs a value"}},
		"value starting with a dash":        {args: []string{"-D", "-o", "ssl_verify_mode=0"}, want: []string{"[0]: spec.memcached.extraArgs: -D needs a value", `[2]: spec.memcached.extraArgs: "ssl_verify_mode=0" is not the value of a flag`}},
		"flag swallowed as a value":         {args: []string{"-R", "-M"}, want: []string{"[0]: spec.memcached.extraArgs: -R needs a value"}},
		"stray value after a bare flag":     {args: []string{"-M", "40"}, want: []string{`[1]: spec.memcached.extraArgs: "40" is not the value of a flag`}},
		"bare positional value":             {args: []string{"ssl_verify_mode=0"}, want: []string{`[0]: spec.memcached.extraArgs: "ssl_verify_mode=0" is not the value of a flag`}},
		"two values for one flag":           {args: []string{"-R", "40", "50"}, want: []string{`[2]: spec.memcached.extraArgs: "50" is not the value of a flag`}},
		"flag the CRD refuses":              {args: []string{"-Z", "x"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			errs := extraArgsErrors(field.NewPath("spec", "memcached", "extraArgs"), tc.args, tc.auth)
			if len(errs) != len(tc.want) {
				t.Fatalf("extraArgsErrors(%q) = %v, want %d errors %q", tc.args, errs, len(tc.want), tc.want)
			}
			for i, e := range errs {
				if got := e.Field + ": " + e.Detail; !strings.Contains(got, tc.want[i]) {
					t.Errorf("error %d = %q, want it to contain %q", i, got, tc.want[i])
				}
			}
		})
	}
}

// Every extended option the allowlist admits exists in memcached (1.6.18 to 1.6.45 have the same
// names: validation_extraargs.go) and none concerns TLS, the proxy, privileges or extstore.
func TestExtendedOptionsAreTuningOnly(t *testing.T) {
	for name := range extendedOptions {
		for _, prefix := range []string{"ssl_", "proxy_", "ext_"} {
			if strings.HasPrefix(name, prefix) {
				t.Errorf("extended option %s is allowed", name)
			}
		}
		if strings.Contains(name, "privileges") || strings.Contains(name, "cookie") {
			t.Errorf("extended option %s is allowed", name)
		}
	}
}
