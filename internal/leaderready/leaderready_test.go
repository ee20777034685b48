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

package leaderready

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

var leaseKey = types.NamespacedName{Namespace: "operators", Name: "memcached-operator.cache.example.com"}

func TestDecide(t *testing.T) {
	start := time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC)
	const d = 15 * time.Second
	lease := func(holder string, renewed time.Time) *coordinationv1.Lease {
		return &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{
			HolderIdentity: ptr.To(holder), LeaseDurationSeconds: ptr.To[int32](15), RenewTime: ptr.To(metav1.NewMicroTime(renewed)),
		}}
	}
	forbidden := apierrors.NewForbidden(schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}, leaseKey.Name, nil)
	notFound := apierrors.NewNotFound(schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}, leaseKey.Name)
	tests := map[string]struct {
		lease   *coordinationv1.Lease
		err     error
		now     time.Time
		wantErr string
	}{
		"standby behind a live leader":         {lease: lease("other", start.Add(58*time.Second)), now: start.Add(time.Minute)},
		"standby, the leader renewed 20 s ago": {lease: lease("other", start.Add(40*time.Second)), now: start.Add(time.Minute)},
		"refused: expired long ago, not taken": {lease: lease("gone", start.Add(-time.Hour)), now: start.Add(time.Minute), wantErr: "last renewed 1h1m0s ago"},
		"just started beside an expired Lease": {lease: lease("gone", start.Add(-time.Hour)), now: start.Add(5 * time.Second)},
		"cannot read the Lease":                {err: forbidden, now: start.Add(time.Second), wantErr: "cannot read the leader election Lease"},
		"no Lease yet, just started":           {err: notFound, now: start.Add(5 * time.Second)},
		"no Lease long after the start":        {err: notFound, now: start.Add(time.Minute), wantErr: "does not exist 1m0s after the start"},
		"a Lease without holder, not taken":    {lease: &coordinationv1.Lease{}, now: start.Add(time.Minute), wantErr: "has no holder"},
		"a longer lease duration of the leader": {lease: func() *coordinationv1.Lease {
			l := lease("other", start)
			l.Spec.LeaseDurationSeconds = ptr.To[int32](60)
			return l
		}(), now: start.Add(100 * time.Second)},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := decide(leaseKey, tc.lease, tc.err, start, tc.now, d)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("decide = %v, want ready", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("decide = %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}

// The check a manager serves on /readyz: ready while leading whatever the Lease read says, not
// ready when a replica that does not lead cannot read the Lease (its RBAC refuses it), ready again
// as a standby behind a live leader.
func TestCheck(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC)
	refuse := true
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(&coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: leaseKey.Namespace, Name: leaseKey.Name},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("other"), LeaseDurationSeconds: ptr.To[int32](15),
			RenewTime: ptr.To(metav1.NewMicroTime(start.Add(55 * time.Second)))},
	}).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if refuse {
				return apierrors.NewForbidden(schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}, key.Name, nil)
			}
			return c.Get(ctx, key, obj, opts...)
		},
	}).Build()
	elected := make(chan struct{})
	check := &Check{Elected: elected, Reader: c, Lease: leaseKey, Start: start, Now: func() time.Time { return start.Add(time.Minute) }}
	req := httptest.NewRequest("GET", "/readyz", nil)
	if err := check.Check(req); err == nil || !strings.Contains(err.Error(), "forbidden") {
		t.Errorf("refused the Lease: %v, want not ready, saying forbidden", err)
	}
	refuse = false
	if err := check.Check(req); err != nil {
		t.Errorf("standby behind a live leader: %v, want ready", err)
	}
	refuse = true
	close(elected)
	if err := check.Check(req); err != nil {
		t.Errorf("leading: %v, want ready", err)
	}
}
