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

package runner

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestResolveEnv(t *testing.T) {
	tmpl := &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"olm.targetNamespaces": "a,b"}},
		Spec:       corev1.PodSpec{ServiceAccountName: "op-sa"},
	}
	field := func(name, path string) corev1.EnvVar {
		return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: path}}}
	}
	tests := map[string]struct {
		env     []corev1.EnvVar
		want    []string
		wantErr string
	}{
		"literal and OLM's injected condition name": {
			env:  []corev1.EnvVar{{Name: "RELATED_IMAGE_MEMCACHED", Value: "m:1"}, {Name: "OPERATOR_CONDITION_NAME", Value: "memcached-operator.v0.2.0"}},
			want: []string{"RELATED_IMAGE_MEMCACHED=m:1", "OPERATOR_CONDITION_NAME=memcached-operator.v0.2.0"},
		},
		"target namespaces from the annotation": {
			env:  []corev1.EnvVar{field("WATCH_NAMESPACE", "metadata.annotations['olm.targetNamespaces']")},
			want: []string{"WATCH_NAMESPACE=a,b"},
		},
		"missing annotation means all namespaces": {
			env:  []corev1.EnvVar{field("X", "metadata.annotations['absent']")},
			want: []string{"X="},
		},
		"pod fields": {
			env:  []corev1.EnvVar{field("NS", "metadata.namespace"), field("POD", "metadata.name"), field("SA", "spec.serviceAccountName")},
			want: []string{"NS=ops", "POD=op-local", "SA=op-sa"},
		},
		"secrets are refused": {
			env:     []corev1.EnvVar{{Name: "S", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{Key: "k"}}}},
			wantErr: "only values and fieldRefs",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := resolveEnv(tc.env, "ops", "op-local", tmpl)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("resolveEnv() = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestImageVersion(t *testing.T) {
	for image, want := range map[string]string{
		"registry.example.com/memcached-operator:v0.2.0":          "v0.2.0",
		"registry.example.com:5000/memcached-operator":            "",
		"registry.example.com/memcached-operator@sha256:0":        "sha256:0",
		"registry.example.com/memcached-operator:v0.3.0@sha256:1": "sha256:1",
	} {
		if got := ImageVersion(image); got != want {
			t.Errorf("ImageVersion(%q) = %q, want %q", image, got, want)
		}
	}
}
