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

	"github.com/example/memcached-operator/controllers/internal/fixture"
)

// validateSpec joins the API's rules (each tested in api/v1alpha1) into the one message the
// InvalidSpec condition carries: every broken field of both kinds named at once, nil when none.
func TestValidateSpec(t *testing.T) {
	if err := validateSpec(fixture.Defaulted("a")); err != nil {
		t.Fatalf("validateSpec(defaulted) = %v, want nil", err)
	}
	mc := fixture.Defaulted("a")
	mc.Spec.Image = "Not An Image!"
	mc.Spec.Resources = &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("32Mi")}}
	err := validateSpec(mc)
	if err == nil {
		t.Fatal("validateSpec() = nil, want the image and the memory limit named")
	}
	for _, want := range []string{"spec.image", "spec.resources.limits.memory"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("validateSpec() = %q, does not name %s", err, want)
		}
	}
}
