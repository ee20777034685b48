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

package utils

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// NewMemcached returns Memcached ns/name of size servers with the API's defaults for everything
// else, after each mutate has changed it.
func NewMemcached(ns, name string, size int32, mutate ...func(*cachev1alpha1.Memcached)) *cachev1alpha1.Memcached {
	mc := &cachev1alpha1.Memcached{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       cachev1alpha1.MemcachedSpec{Size: size},
	}
	for _, m := range mutate {
		m(mc)
	}
	return mc
}
