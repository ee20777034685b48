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
		"auth with -B": {mutate: func(mc *Memcached) {
			mc.Spec.Auth = &AuthSpec{SecretName: "s"}
			mc.Spec.Memcached.ExtraArgs = []string{"-B"}
		}, fields: []string{"spec.memcached.extraArgs"}},
		"pdb both set": {mutate: func(mc *Memcached) {
			one := intstr.FromInt32(1)
			mc.Spec.PodDisruptionBudget.MinAvailable, mc.Spec.PodDisruptionBudget.MaxUnavailable = &one, &one
		}, fields: []string{"spec.podDisruptionBudget"}},
		"policy without peer": {mutate: func(mc *Memcached) { mc.Spec.NetworkPolicy.Enabled = true }, fields: []string{"spec.networkPolicy.from"}},
		"two at once":         {mutate: func(mc *Memcached) { mc.Spec.Size = 65; mc.Spec.Memcached.Threads = 0 }, fields: []string{"spec.size", "spec.memcached.threads"}},
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
		wantErr                     string
	}{
		"claims":                    {claim: "gpu", wantErr: "spec.resources.claims is not supported"},
		"no limit":                  {},
		"limit above memory":        {limit: "100Mi"},
		"limit equal":               {limit: "64Mi", wantErr: "spec.memcached.maxMemoryMB (64Mi) must be lower than spec.resources.limits.memory (64Mi)"},
		"limit below":               {limit: "32Mi", wantErr: "spec.resources.limits.memory"},
		"cpu request within limit":  {cpuRequest: "500m", cpuLimit: "1"},
		"cpu request above limit":   {cpuRequest: "2", cpuLimit: "1", wantErr: "spec.resources.requests.cpu (2) must not exceed spec.resources.limits.cpu (1)"},
		"request without any limit": {cpuRequest: "2"},
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
			mc.Spec.Resources = r
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
