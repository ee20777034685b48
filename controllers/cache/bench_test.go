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

package cache

import (
	"reflect"
	"runtime"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/internal/podview"

	"github.com/example/memcached-operator/controllers/internal/fixture"
	"github.com/example/memcached-operator/controllers/resources"
)

// The builders, the drift check and the status computation run on every reconcile; these benchmarks
// (make bench) keep their cost visible: a steady-state reconcile of one instance runs
// resources.DesiredDeployment + RestoreDeployment + resources.DeploymentNeedsUpdate +
// status.ComputeStatus once.

// BenchmarkRestoreDeployment decodes the labels and spec of a Deployment as the cache holds it
// (trimDeployment), from the copy the cache hands a reader.
func BenchmarkRestoreDeployment(b *testing.B) {
	mc := fixture.Defaulted("c", func(mc *cachev1alpha1.Memcached) { mc.UID, mc.Spec.Size = "mc-uid", 3 })
	cached, err := trimDeployment(servedDeployment(mc, resources.Options{DefaultImage: "docker.io/library/memcached:1.6.39-alpine"}))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		d := cached.(*appsv1.Deployment).DeepCopy()
		if err := RestoreDeployment(d); err != nil || d.Spec.Selector == nil {
			b.Fatalf("restoreDeployment: %v", err)
		}
	}
}

// BenchmarkCachedObject reports, per owned kind and for Pods, the live heap one cached object
// costs (B/object) as served with only managed fields stripped (controller-runtime's default
// transform) and as the operator caches it (ManagerOptions and the pod cache): each object is
// encoded as protobuf and decoded as an informer does (Pods into a podview.Pod, NewPodCache), then
// transformed and kept. The loop measures the decode and transform of one watch event.
func BenchmarkCachedObject(b *testing.B) {
	mc := fixture.Defaulted("c", func(mc *cachev1alpha1.Memcached) { mc.UID, mc.Spec.Size = "mc-uid", 3 })
	opts := resources.Options{DefaultImage: "docker.io/library/memcached:1.6.39-alpine"}
	pod := fullPod("c-7d9f8b6c5d-x2x9z", "10.244.0.1", true)
	stripped := func(o any) (any, error) { o.(client.Object).SetManagedFields(nil); return o, nil }
	// protobuf decodes obj's encoding into a new object made by into (by default, of obj's type).
	protobuf := func(obj client.Object, into func() any) func() any {
		data, err := obj.(interface{ Marshal() ([]byte, error) }).Marshal()
		if err != nil {
			b.Fatalf("marshal: %v", err)
		}
		if into == nil {
			into = func() any { return reflect.New(reflect.TypeOf(obj).Elem()).Interface() }
		}
		return func() any {
			o := into()
			if err := o.(interface{ Unmarshal([]byte) error }).Unmarshal(data); err != nil {
				b.Fatalf("unmarshal: %v", err)
			}
			return o
		}
	}
	type variant struct {
		name      string
		decode    func() any
		transform func(any) (any, error)
	}
	// owned is an owned kind's two variants, both decoding obj's protobuf.
	owned := func(obj client.Object, trim func(any) (any, error)) []variant {
		decode := protobuf(obj, nil)
		return []variant{{"stripped", decode, stripped}, {"trimmed", decode, trim}}
	}
	for _, tc := range []struct {
		kind     string
		variants []variant
	}{
		{"Pod", []variant{{"stripped", protobuf(&pod, nil), stripped}, {"trimmed", protobuf(&pod, func() any { return &podview.Pod{} }), TrimPod}}},
		{"Deployment", owned(servedDeployment(mc, opts), trimDeployment)},
		{"Service", owned(servedService(mc), trimService)},
		{"PodDisruptionBudget", owned(servedPodDisruptionBudget(mc), trimPodDisruptionBudget)},
		{"NetworkPolicy", owned(servedNetworkPolicy(mc), trimNetworkPolicy)},
	} {
		for _, v := range tc.variants {
			b.Run(tc.kind+"/"+v.name, func(b *testing.B) {
				decode := func() any {
					out, err := v.transform(v.decode())
					if err != nil {
						b.Fatalf("transform: %v", err)
					}
					return out
				}
				const n = 1000
				kept := make([]any, n)
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				for i := range kept {
					kept[i] = decode()
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				runtime.KeepAlive(kept)
				b.ReportAllocs()
				for b.Loop() {
					_ = decode()
				}
				b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "B/object")
			})
		}
	}
}
