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

package status

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/internal/podview"

	"github.com/example/memcached-operator/controllers/internal/fixture"
)

func BenchmarkComputeStatus64Pods(b *testing.B) {
	mc := fixture.Defaulted("cache", func(mc *cachev1alpha1.Memcached) { mc.Spec.Size = 64 })
	var pods []podview.Pod
	for i := range 64 {
		pods = append(pods, fixture.Pod(fmt.Sprintf("cache-%02d", i), fmt.Sprintf("10.244.1.%d", i), true))
	}
	obs := Observed{Deployment: fixture.Deployment(64, 64, 64, 64, true), Pods: pods}
	now := metav1.Now()
	mc.Status = ComputeStatus(mc, obs, now)
	b.ReportAllocs()
	for b.Loop() {
		_ = ComputeStatus(mc, obs, now)
	}
}
