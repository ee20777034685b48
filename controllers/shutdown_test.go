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
	"errors"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"

	"github.com/example/memcached-operator/controllers/resources"
	"github.com/example/memcached-operator/controllers/status"
)

// A reconcile cut short by the manager stopping is not an error; the same failure while the
// manager runs still is. The real-node suite (test/real) found a killed manager logging
// "Reconciler error ... context canceled" for the status patch it was making.
func TestReconcileInterruptedByShutdownIsNotAnError(t *testing.T) {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(cachev1alpha1.AddToScheme(scheme))
	tests := map[string]struct {
		stopping bool
		wantErr  bool
	}{
		"manager stopping (context cancelled): abandoned, no error": {stopping: true, wantErr: false},
		"manager running: the failure is an error":                  {stopping: false, wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			// The API call fails as client-go fails when its context is cancelled, or with a plain
			// error while the manager runs.
			c := fake.NewClientBuilder().WithScheme(scheme).WithInterceptorFuncs(interceptor.Funcs{
				Get: func(ctx context.Context, _ client.WithWatch, _ client.ObjectKey, _ client.Object, _ ...client.GetOption) error {
					if err := ctx.Err(); err != nil {
						return fmt.Errorf(`Get "https://10.96.0.1:443/...": %w`, err)
					}
					return errors.New("connection reset by peer")
				},
			}).Build()
			r := &MemcachedReconciler{Client: c, APIReader: c, Scheme: scheme, Options: resources.Options{DefaultImage: testImage}}
			ctx, cancel := context.WithCancel(context.Background())
			if tc.stopping {
				cancel()
			} else {
				defer cancel()
			}
			res, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: key("ns", "mc")})
			if (err != nil) != tc.wantErr {
				t.Errorf("Reconcile error = %v, want error: %v", err, tc.wantErr)
			}
			if res != (ctrl.Result{}) {
				t.Errorf("Reconcile result = %+v, want none", res)
			}
		})
	}
}

// A Memcached deleted (with its namespace, say) between the reconcile's read and its status write
// is not a reconcile error: the real-node suite found the manager logging "Reconciler error ...
// memcacheds.cache.example.com "mc-scc" not found" when a test's namespace went. Any other
// failure of the status write still is.
func TestStatusOfADeletedMemcachedIsNotAnError(t *testing.T) {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(cachev1alpha1.AddToScheme(scheme))
	for name, tc := range map[string]struct {
		patchErr error
		wantErr  bool
	}{
		"deleted before the write": {patchErr: apierrors.NewNotFound(cachev1alpha1.GroupVersion.WithResource("memcacheds").GroupResource(), "mc"), wantErr: false},
		"any other failure":        {patchErr: errors.New("connection reset by peer"), wantErr: true},
	} {
		t.Run(name, func(t *testing.T) {
			mc := &cachev1alpha1.Memcached{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "mc"}}
			c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(mc).WithStatusSubresource(mc).WithInterceptorFuncs(interceptor.Funcs{
				SubResourcePatch: func(context.Context, client.Client, string, client.Object, client.Patch, ...client.SubResourcePatchOption) error {
					return tc.patchErr
				},
			}).Build()
			r := &MemcachedReconciler{Client: c, APIReader: c, Scheme: scheme}
			st := cachev1alpha1.MemcachedStatus{ObservedGeneration: 1}
			if _, err := r.patchStatus(context.Background(), mc, st, status.Observed{}); (err != nil) != tc.wantErr {
				t.Errorf("patchStatus error = %v, want an error: %v", err, tc.wantErr)
			}
		})
	}
}
