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

package apply_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/apply"
	"github.com/example/memcached-operator/controllers/internal/fixture"
	"github.com/example/memcached-operator/controllers/resources"
)

// testScheme returns a scheme of the built-in kinds and the Memcached.
func testScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := cachev1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return scheme
}

// dropSleep removes what an API server with PodLifecycleSleepAction off removes from a pod
// template (kubernetes pkg/api/pod dropPodLifecycleSleepAction: the sleep, then the emptied
// handler and lifecycle), and reports whether there was one.
func dropSleep(d *appsv1.Deployment) bool {
	dropped := false
	for i := range d.Spec.Template.Spec.Containers {
		if l := d.Spec.Template.Spec.Containers[i].Lifecycle; l != nil && l.PreStop != nil && l.PreStop.Sleep != nil {
			d.Spec.Template.Spec.Containers[i].Lifecycle = nil
			dropped = true
		}
	}
	return dropped
}

// A field the API server drops is written once, not on every reconcile; an edit of an owned field
// and a new desired state are still patched. The server is a fake client that drops the preStop
// sleep on every create and patch, as a 1.30-1.33 server with PodLifecycleSleepAction=false does.
func TestObjectFieldDroppedByServer(t *testing.T) {
	ctx := context.Background()
	scheme := testScheme(t)
	for name, drops := range map[string]bool{"server drops the sleep": true, "server keeps it": false} {
		t.Run(name, func(t *testing.T) {
			patches := 0
			c := fake.NewClientBuilder().WithScheme(scheme).WithInterceptorFuncs(interceptor.Funcs{
				Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
					if d, ok := obj.(*appsv1.Deployment); ok && drops {
						dropSleep(d)
					}
					return c.Create(ctx, obj, opts...)
				},
				// The server stores the patched object without the sleep; its response is decoded into
				// obj as client-go's REST client decodes JSON: into obj as it is (sigs.k8s.io/json,
				// encoding/json's decoder), so a field the response lacks keeps the value obj had.
				Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
					patches++
					stored := &appsv1.Deployment{}
					stored.Name, stored.Namespace = obj.GetName(), obj.GetNamespace()
					if err := c.Patch(ctx, stored, patch, opts...); err != nil {
						return err
					}
					if drops && dropSleep(stored) {
						if err := c.Update(ctx, stored); err != nil {
							return err
						}
					}
					b, err := json.Marshal(stored)
					if err != nil {
						return err
					}
					return json.Unmarshal(b, obj)
				},
			}).Build()
			mc := fixture.Defaulted("cache-"+map[bool]string{true: "drops", false: "keeps"}[drops], func(mc *cachev1alpha1.Memcached) {
				mc.UID = types.UID("uid-" + mc.Name)
				mc.Spec.GracefulShutdown.PreStopDelaySeconds = ptr.To[int32](5)
			})
			reconcile := func() (*appsv1.Deployment, apply.Result) {
				t.Helper()
				d := resources.DesiredState(mc, resources.Options{DefaultImage: "memcached:1"}, resources.Read{})[0]
				obj, res, err := d.Apply(ctx, c, c, scheme, mc)
				if err != nil {
					t.Fatal(err)
				}
				return obj.(*appsv1.Deployment), res
			}
			steps := []struct {
				name        string
				before      func()
				want        apply.Result
				wantPatches int
			}{
				{name: "create", want: apply.Created},
				// What the server dropped at create looks like drift to the comparison: one patch.
				{name: "first reconcile", want: map[bool]apply.Result{true: apply.Updated, false: apply.Unchanged}[drops], wantPatches: map[bool]int{true: 1, false: 0}[drops]},
				{name: "steady state", want: apply.Unchanged, wantPatches: map[bool]int{true: 1, false: 0}[drops]},
				{name: "steady state again", want: apply.Unchanged, wantPatches: map[bool]int{true: 1, false: 0}[drops]},
				{name: "someone edits the image", before: func() {
					var live appsv1.Deployment
					if err := c.Get(ctx, client.ObjectKey{Namespace: mc.Namespace, Name: mc.Name}, &live); err != nil {
						t.Fatal(err)
					}
					live.Spec.Template.Spec.Containers[0].Image = "other:2"
					if err := c.Update(ctx, &live); err != nil {
						t.Fatal(err)
					}
				}, want: apply.Updated, wantPatches: map[bool]int{true: 2, false: 1}[drops]},
				{name: "steady state after the edit", want: apply.Unchanged, wantPatches: map[bool]int{true: 2, false: 1}[drops]},
				{name: "the spec changes", before: func() { mc.Spec.Size = 3 }, want: apply.Updated, wantPatches: map[bool]int{true: 3, false: 2}[drops]},
				{name: "steady state after the change", want: apply.Unchanged, wantPatches: map[bool]int{true: 3, false: 2}[drops]},
			}
			for _, s := range steps {
				if s.before != nil {
					s.before()
				}
				live, res := reconcile()
				if res != s.want || patches != s.wantPatches {
					t.Errorf("%s: result %s after %d patches, want %s after %d", s.name, res, patches, s.want, s.wantPatches)
				}
				if got := live.Spec.Template.Spec.Containers[0].Image; got != "memcached:1" {
					t.Errorf("%s: image %q, want memcached:1", s.name, got)
				}
				if got := ptr.Deref(live.Spec.Replicas, 0); got != mc.Spec.Size {
					t.Errorf("%s: replicas %d, want %d", s.name, got, mc.Spec.Size)
				}
				if got := live.Spec.Template.Spec.Containers[0].Lifecycle != nil; got == drops {
					t.Errorf("%s: returned object has a lifecycle: %v, the server dropping it: %v", s.name, got, drops)
				}
			}
		})
	}
}

// An object the Memcached controls that lost the labels the manager's cache selects by (someone
// ran kubectl label ... app.kubernetes.io/managed-by-) is found through the uncached reader when
// the create reports AlreadyExists, and gets its labels and owned fields back in one patch
// (Restored); an own object the cache has only not caught up with is left alone, and a foreign
// one is a ConflictError. The cache is a fake client that, like the manager's, does not see objects
// without the managed-by label.
func TestObjectLostLabels(t *testing.T) {
	ctx := context.Background()
	scheme := testScheme(t)
	patches := 0
	server := fake.NewClientBuilder().WithScheme(scheme).Build()
	cached := interceptor.NewClient(server.(client.WithWatch), interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if err := c.Get(ctx, key, obj, opts...); err != nil {
				return err
			}
			if obj.GetLabels()[resources.LabelManagedBy] != resources.ManagedBy {
				return apierrors.NewNotFound(schema.GroupResource{Resource: "deployments"}, key.Name)
			}
			return nil
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			patches++
			return c.Patch(ctx, obj, patch, opts...)
		},
	})
	mc := fixture.Defaulted("lost", func(mc *cachev1alpha1.Memcached) { mc.UID = "uid-lost" })
	apply1 := func() (*appsv1.Deployment, apply.Result, error) {
		t.Helper()
		d := resources.DesiredState(mc, resources.Options{DefaultImage: "memcached:1"}, resources.Read{})[0]
		obj, res, err := d.Apply(ctx, cached, server, scheme, mc)
		return obj.(*appsv1.Deployment), res, err
	}
	if _, res, err := apply1(); err != nil || res != apply.Created {
		t.Fatalf("create: %s, %v", res, err)
	}
	live := func() *appsv1.Deployment {
		d := &appsv1.Deployment{}
		if err := server.Get(ctx, client.ObjectKey{Namespace: mc.Namespace, Name: mc.Name}, d); err != nil {
			t.Fatal(err)
		}
		return d
	}

	// The cache has not caught up with the create (labels intact): nothing is written.
	if _, res, err := apply1(); err != nil || res != apply.Unchanged || patches != 0 {
		t.Fatalf("steady state: %s after %d patches, %v; want Unchanged after 0", res, patches, err)
	}

	// The label is stripped and the spec changes: both are applied in one patch.
	d := live()
	delete(d.Labels, resources.LabelManagedBy)
	if err := server.Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	mc.Spec.Size = 5
	got, res, err := apply1()
	if err != nil || res != apply.Restored || patches != 1 {
		t.Fatalf("lost label: %s after %d patches, %v; want Restored after 1", res, patches, err)
	}
	d = live()
	if d.Labels[resources.LabelManagedBy] != resources.ManagedBy || ptr.Deref(d.Spec.Replicas, 0) != 5 || ptr.Deref(got.Spec.Replicas, 0) != 5 {
		t.Errorf("after the restore: labels %v, replicas %d (returned %d), want managed-by back and 5", d.Labels, ptr.Deref(d.Spec.Replicas, 0), ptr.Deref(got.Spec.Replicas, 0))
	}
	if _, res, err := apply1(); err != nil || res != apply.Unchanged || patches != 1 {
		t.Errorf("after the restore: %s after %d patches, %v; want Unchanged, no new patch", res, patches, err)
	}

	// The same name, not controlled by mc and without our labels: a conflict, left untouched.
	d = live()
	d.OwnerReferences = nil
	delete(d.Labels, resources.LabelManagedBy)
	if err := server.Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	var ce *apply.ConflictError
	if _, _, err := apply1(); !errors.As(err, &ce) || patches != 1 {
		t.Errorf("foreign object: %v after %d patches, want a ConflictError and no patch", err, patches)
	}
}

// A workload the reconciler read already (resources.Read, apply.Owned.LiveRead) is compared as it
// was read, with no second read: steady, it is Unchanged; drifted, it is patched; not controlled by
// the Memcached, it is a conflict and left untouched.
func TestObjectComparesWithWhatWasRead(t *testing.T) {
	ctx := context.Background()
	scheme := testScheme(t)
	gets, patches := 0, 0
	server := fake.NewClientBuilder().WithScheme(scheme).Build()
	c := interceptor.NewClient(server.(client.WithWatch), interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			gets++
			return c.Get(ctx, key, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			patches++
			return c.Patch(ctx, obj, patch, opts...)
		},
	})
	mc := fixture.Defaulted("read", func(mc *cachev1alpha1.Memcached) { mc.UID = "uid-read" })
	apply1 := func(read resources.Read) (apply.Result, error) {
		t.Helper()
		d := resources.DesiredState(mc, resources.Options{DefaultImage: "memcached:1"}, read)[0]
		_, res, err := d.Apply(ctx, c, server, scheme, mc)
		return res, err
	}
	if res, err := apply1(resources.Read{}); err != nil || res != apply.Created {
		t.Fatalf("create: %s, %v", res, err)
	}
	read := func(mutate func(*appsv1.Deployment)) resources.Read {
		d := &appsv1.Deployment{}
		if err := server.Get(ctx, client.ObjectKey{Namespace: mc.Namespace, Name: mc.Name}, d); err != nil {
			t.Fatal(err)
		}
		mutate(d)
		return resources.Read{Deployment: d}
	}
	tests := []struct {
		name        string
		mutate      func(*appsv1.Deployment)
		want        apply.Result
		wantPatches int
		wantErr     bool
	}{
		{name: "as desired", mutate: func(*appsv1.Deployment) {}, want: apply.Unchanged},
		{name: "drifted", mutate: func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To(int32(7)) }, want: apply.Updated, wantPatches: 1},
		{name: "not controlled", mutate: func(d *appsv1.Deployment) { d.OwnerReferences = nil }, want: apply.Unchanged, wantErr: true},
	}
	for _, tc := range tests {
		gets, patches = 0, 0
		r := read(tc.mutate)
		res, err := apply1(r)
		if res != tc.want || (err != nil) != tc.wantErr || gets != 0 || patches != tc.wantPatches {
			t.Errorf("%s: %s, %v after %d gets and %d patches; want %s, error %v, no get, %d patches",
				tc.name, res, err, gets, patches, tc.want, tc.wantErr, tc.wantPatches)
		}
	}
}
