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
	"context"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// A new instance's Deployment, Service and PodDisruptionBudget are created at the same time, so its
// first reconcile waits for one create's round trip, not three (make bench-scale: the creates were
// most of the first reconcile's time). Each create is held until all three are in flight or a
// second has passed; a reconcile that creates them one after another sees one at a time.
func TestNewInstanceObjectsAreCreatedConcurrently(t *testing.T) {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(cachev1alpha1.AddToScheme(scheme))
	mc := defaulted("cache", func(mc *cachev1alpha1.Memcached) { mc.Spec.Size = 3 })

	const want = 3 // Deployment, Service, PodDisruptionBudget
	var mu sync.Mutex
	inFlight, most := 0, 0
	all := make(chan struct{})
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(mc).WithStatusSubresource(mc).
		WithInterceptorFuncs(interceptor.Funcs{
			Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				mu.Lock()
				inFlight++
				most = max(most, inFlight)
				if inFlight == want {
					close(all)
				}
				mu.Unlock()
				select {
				case <-all:
				case <-time.After(time.Second):
				}
				defer func() { mu.Lock(); inFlight--; mu.Unlock() }()
				return c.Create(ctx, obj, opts...)
			},
		}).Build()
	rec := events.NewFakeRecorder(10)
	r := &MemcachedReconciler{Client: c, APIReader: c, Scheme: scheme, Recorder: rec, Options: Options{DefaultImage: testImage}}

	if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: key("ns", "cache")}); err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	if most != want {
		t.Errorf("creates in flight at once = %d, want %d", most, want)
	}
	// The results are still recorded in a fixed order: one event naming the three objects.
	select {
	case e := <-rec.Events:
		if wantEvent := "Normal Created Deployment cache, Service cache, PodDisruptionBudget cache created"; e != wantEvent {
			t.Errorf("event = %q, want %q", e, wantEvent)
		}
	default:
		t.Error("no event recorded")
	}
	got := &cachev1alpha1.Memcached{}
	if err := c.Get(context.Background(), key("ns", "cache"), got); err != nil {
		t.Fatalf("get Memcached: %v", err)
	}
	if got.Status.ObservedGeneration != got.Generation || len(got.Status.Conditions) == 0 {
		t.Errorf("status not written after the creates: %+v", got.Status)
	}
}
