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

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

func TestProfileCategory(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stack []string
		want  string
	}{
		{"a watch is served by ListResource", []string{"encoding/json.Marshal", "k8s.io/apiserver/pkg/endpoints/handlers.(*WatchServer).HandleHTTP", "k8s.io/apiserver/pkg/endpoints/handlers.serveWatchHandler", "k8s.io/apiserver/pkg/endpoints/handlers.ListResource.func1"}, "watch: sending events to watchers"},
		{"a list", []string{"k8s.io/apiserver/pkg/storage/cacher.(*Cacher).GetList", "k8s.io/apiserver/pkg/endpoints/handlers.ListResource.func1", "k8s.io/apiserver/pkg/endpoints/filters.WithAuthorization.func1"}, "list"},
		{"a status patch behind the filters", []string{"k8s.io/apiserver/pkg/endpoints/handlers.(*patcher).patchResource", "k8s.io/apiserver/pkg/endpoints/handlers.PatchResource.func1", "k8s.io/apiserver/pkg/endpoints/filters.WithAudit.func1"}, "patch"},
		{"a create", []string{"k8s.io/apiserver/pkg/endpoints/handlers.createHandler.func1"}, "create"},
		{"the filters alone", []string{"k8s.io/apiserver/pkg/server/filters.(*requestWatermark).recordMutating", "k8s.io/apiserver/pkg/endpoints/filters.WithAuthentication.func1"}, "request filters (authn, authz, priority and fairness, audit)"},
		{"the watch cache taking an event from etcd", []string{"k8s.io/apiserver/pkg/storage/cacher.(*watchCache).processEvent", "k8s.io/apiserver/pkg/storage/cacher.(*watchCache).Update"}, "watch cache: events from etcd"},
		{"the collector", []string{"runtime.scanobject", "runtime.gcDrain", "runtime.gcBgMarkWorker.func2"}, "Go runtime: garbage collection"},
		{"nothing known", []string{"runtime.futex", "runtime.mcall"}, otherCategory},
	} {
		if got := profileCategory(tc.stack); got != tc.want {
			t.Errorf("%s: profileCategory = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestSubjectObjects(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := cachev1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKey{Namespace: "floor-x-0", Name: "mc-7"}
	for _, tc := range []struct {
		kind  string
		kinds []string
	}{
		{kindOperator, []string{"*v1.Deployment", "*v1.Service", "*v1.PodDisruptionBudget"}},
		{kindSample, []string{"*v1.Deployment"}},
	} {
		s := &subject{Name: "x", Kind: tc.kind}
		mc := s.newInstance(key, 3, variantPlain)
		mc.SetUID(types.UID("uid-7"))
		objs, err := subjectObjects(mc, 3, scheme)
		if err != nil {
			t.Fatalf("%s: %v", tc.kind, err)
		}
		if len(objs) != len(tc.kinds) {
			t.Fatalf("%s: %d objects, want %v", tc.kind, len(objs), tc.kinds)
		}
		for i, o := range objs {
			if got := typeName(o); got != tc.kinds[i] {
				t.Errorf("%s: object %d is %s, want %s", tc.kind, i, got, tc.kinds[i])
			}
			ref := metav1.GetControllerOf(o)
			if ref == nil || ref.UID != "uid-7" || ref.Kind != "Memcached" || ref.Name != key.Name {
				t.Errorf("%s: %s has controller %+v, want the Memcached %s", tc.kind, typeName(o), ref, key.Name)
			}
			if o.GetNamespace() != key.Namespace {
				t.Errorf("%s: %s in namespace %q", tc.kind, typeName(o), o.GetNamespace())
			}
			if d, ok := o.(*appsv1.Deployment); ok && (d.Spec.Replicas == nil || *d.Spec.Replicas != 3) {
				t.Errorf("%s: Deployment replicas %v, want 3", tc.kind, d.Spec.Replicas)
			}
		}
		if tc.kind == kindSample {
			d := objs[0].(*appsv1.Deployment)
			// The sample's pods must be found by the benchmark as the sample's own are (podInstance:
			// its app name, no instance label).
			if d.Name != key.Name || d.Spec.Template.Labels["app.kubernetes.io/name"] != sampleAppName || d.Spec.Template.Labels["app.kubernetes.io/instance"] != "" {
				t.Errorf("sample Deployment %s labels %v", d.Name, d.Spec.Template.Labels)
			}
		}
	}
}

func typeName(o client.Object) string { return fmt.Sprintf("%T", o) }

func TestReadyStatusMakesTheInstanceAvailable(t *testing.T) {
	for _, kind := range []string{kindOperator, kindSample} {
		s := &subject{Name: "x", Kind: kind}
		patch, err := readyStatus(s, 4, []string{"mc-0-a", "mc-0-b", "mc-0-c"}, time.Unix(1800000000, 0))
		if err != nil {
			t.Fatal(err)
		}
		mc := &cachev1alpha1.Memcached{ObjectMeta: metav1.ObjectMeta{Generation: 4}}
		if err := json.Unmarshal(patch, mc); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if s.available(mc) == nil {
			t.Errorf("%s: the floor's status %s does not make the instance Available as the subject reports it", kind, patch)
		}
		if kind == kindOperator && (mc.Status.ReadyReplicas != 3 || len(mc.Status.Nodes) != 3) {
			t.Errorf("operator: status %+v, want 3 ready and the pod names", mc.Status)
		}
		mc.Generation = 5 // a newer spec: this project's Available must be observed at it
		if got := s.available(mc) != nil; got != (kind == kindSample) {
			t.Errorf("%s: available at a newer generation = %v", kind, got)
		}
	}
}

// The audit log's lines of one identity: writes when they complete, a watch when it starts, gets
// and lists when they complete, nothing of other users.
func TestAuditCountSplitsReadsFromWrites(t *testing.T) {
	const me = "system:serviceaccount:bench-system:x"
	line := func(user, verb, stage, resource, sub string, code int) string {
		return fmt.Sprintf(`{"verb":%q,"stage":%q,"user":{"username":%q},"objectRef":{"resource":%q,"subresource":%q},"responseStatus":{"code":%d}}`,
			verb, stage, user, resource, sub, code)
	}
	lines := []string{
		line(me, "watch", "ResponseStarted", "pods", "", 200),
		line(me, "create", "ResponseComplete", "deployments", "", 201),
		line(me, "patch", "ResponseComplete", "memcacheds", "status", 200),
		line(me, "patch", "ResponseComplete", "memcacheds", "status", 409),
		line(me, "create", "ResponseComplete", "events", "", 201),
		line(me, "list", "ResponseComplete", "secrets", "", 200),
		line(me, "watch", "ResponseComplete", "pods", "", 200), // the same watch ending
		line(me, "get", "ResponseStarted", "leases", "", 200),
		line("admin", "create", "ResponseComplete", "deployments", "", 201),
		`{"torn`,
	}
	path := filepath.Join(t.TempDir(), "audit.log")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	a := auditLog{path: path}
	w, err := a.count(me, 0, a.offset())
	if err != nil {
		t.Fatal(err)
	}
	wantWrites := map[string]int{"create deployments": 1, "patch memcacheds/status": 2, "create events": 1}
	if !reflect.DeepEqual(w.ByVerbResource, wantWrites) || w.Total != 4 || w.Events != 1 || w.Conflicts != 1 {
		t.Errorf("writes = %+v, want %v, 4 in all, 1 event, 1 conflict", w, wantWrites)
	}
	if want := map[string]int{"watch pods": 1, "list secrets": 1}; !reflect.DeepEqual(w.Reads, want) {
		t.Errorf("reads = %v, want %v", w.Reads, want)
	}
}

// Repeated runs get a table of medians per subject, each with its range, and the runs' columns
// say which run they are.
func TestMarkdownMedians(t *testing.T) {
	run := func(name string, k int, sec, floorSec, cp, floorCP float64) *subjectResult {
		return &subjectResult{Subject: &subject{Name: name}, Run: k, ConvergeSeconds: sec, Ratio: sec / floorSec,
			ConvergeCPU: cpuSeconds{"kube-apiserver": cp, operatorCPU: 1},
			Floor:       &floorResult{Seconds: floorSec, CPU: cpuSeconds{"kube-apiserver": floorCP}},
			Converge:    writes{Total: 600, Events: 100}, Memory: map[string]memory{}}
	}
	res := &result{N: 100, Subjects: []*subjectResult{
		run("a", 1, 10, 5, 20, 10), run("b", 1, 12, 6, 30, 25),
		run("a", 2, 14, 5, 26, 10), run("b", 2, 9, 6, 28, 25),
		run("a", 3, 11, 5, 21, 10), run("b", 3, 10, 6, 40, 25),
	}}
	md := markdown(res)
	for _, want := range []string{
		"Medians over 3 runs per subject",
		"| all Available with pods ready (s) | **11.0** (10.0–14.0) | **10.0** (9.0–12.0) |",
		"| ratio to its floor | **2.20×** (2.00×–2.80×) | **1.67×** (1.50×–2.00×) |",
		"| CPU seconds: control plane over its floor | **11.0** (10.0–16.0) | **5.0** (3.0–15.0) |",
		"| events per instance | **1.00** (1.00–1.00) | **1.00** (1.00–1.00) |",
		"| RSS at N (MiB) | – | – |",
		"| a (run 1) | b (run 1) | a (run 2) |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if md := markdown(&result{N: 100, Subjects: res.Subjects[:2]}); strings.Contains(md, "Medians") || strings.Contains(md, "(run 1)") {
		t.Errorf("one run has no medians and no run numbers:\n%s", md)
	}
}
