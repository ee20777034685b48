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

package apply

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A labels or annotations map that the update empties is removed key by key: the server keeps the
// keys others added, which the cached object does not hold. Other nulls, and a patch that only
// changes values, are left as computed.
func TestRemoveKeysNotMaps(t *testing.T) {
	svc := func(labels, annotations map[string]string, port int32) *corev1.Service {
		return &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "c", Labels: labels, Annotations: annotations},
			Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: port}}},
		}
	}
	tests := map[string]struct {
		base, updated *corev1.Service
		want          string
	}{
		"annotations emptied": {
			base:    svc(map[string]string{"a": "1"}, map[string]string{"x": "1", "y": "2"}, 1),
			updated: svc(map[string]string{"a": "1"}, nil, 1),
			want:    `{"metadata":{"annotations":{"x":null,"y":null}}}`,
		},
		"one annotation removed, a value changed": {
			base:    svc(map[string]string{"a": "1"}, map[string]string{"x": "1", "y": "2"}, 1),
			updated: svc(map[string]string{"a": "2"}, map[string]string{"x": "1"}, 1),
			want:    `{"metadata":{"annotations":{"y":null},"labels":{"a":"2"}}}`,
		},
		"spec only": {
			base:    svc(nil, nil, 1),
			updated: svc(nil, nil, 2),
			want:    `{"spec":{"ports":[{"port":2,"targetPort":0}]}}`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			data, err := client.MergeFrom(tc.base).Data(tc.updated)
			if err != nil {
				t.Fatal(err)
			}
			got, err := removeKeysNotMaps(data, tc.base)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("patch %s, want %s", got, tc.want)
			}
		})
	}
}
