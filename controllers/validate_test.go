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

package controllers

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// validateSpec's checks of what the CRD cannot check; its twins of the CRD's rules are proven
// against admission in TestGoValidationMatchesAdmission.
func TestValidateSpec(t *testing.T) {
	tests := map[string]struct {
		limit, cpuRequest, cpuLimit string
		wantErr                     string
	}{
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
			mc := defaulted("a")
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
			mc.Spec.Resources = r
			err := validateSpec(mc)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("validateSpec() = %v, want error containing %q", err, tc.wantErr)
			}
		})
	}
}
