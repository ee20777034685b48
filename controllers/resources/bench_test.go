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
	"testing"

	"github.com/example/memcached-operator/controllers/internal/fixture"
)

func BenchmarkDesiredDeployment(b *testing.B) {
	mc := fixture.Defaulted("cache", fixture.Tuned)
	opts := Options{DefaultImage: "registry.example.com/memcached:1.6"}
	b.ReportAllocs()
	for b.Loop() {
		_ = DesiredDeployment(mc, opts)
	}
}

func BenchmarkDeploymentNeedsUpdate(b *testing.B) {
	desired := DesiredDeployment(fixture.Defaulted("cache", fixture.Tuned), Options{DefaultImage: "img:1"})
	live := fixture.ServerDefaulted(desired)
	b.ReportAllocs()
	for b.Loop() {
		if DeploymentNeedsUpdate(live, desired) {
			b.Fatal("steady state must not need an update")
		}
	}
}
