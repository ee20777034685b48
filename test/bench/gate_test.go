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
	"crypto/tls"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/resources"
)

func TestGateViolations(t *testing.T) {
	phases := []string{"converge", "steady", "latency", "restart"}
	// good is a subject within every limit at N=50, size 3, the gate's mix: plain and Stable
	// instances in 3 namespaces each, TLS and monitoring ones in 2 (15, 15, 10 and 10 of 50); 3
	// owned objects and 2.2 status patches per instance, one event each.
	good := func() *subjectResult {
		var vs []variantResult
		for _, v := range []struct {
			v variant
			n int
		}{{variantPlain, 15}, {variantStable, 15}, {variantTLS, 10}, {variantMonitoring, 10}} {
			vs = append(vs, variantResult{Variant: v.v, Instances: v.n, Owned: 3, Writes: v.n*3 + v.n*22/10, Events: v.n})
		}
		return &subjectResult{
			Subject:        &subject{Name: "operator", Kind: kindOperator},
			Variants:       vs,
			LatencySamples: 35,
		}
	}
	variantOf := func(r *result, v variant) *variantResult {
		for i := range r.Subjects[0].Variants {
			if r.Subjects[0].Variants[i].Variant == v {
				return &r.Subjects[0].Variants[i]
			}
		}
		t.Fatalf("no variant %s", v)
		return nil
	}
	tests := map[string]struct {
		mutate func(*result)
		want   []string // substrings, one per expected violation, in order
	}{
		"within every limit": {mutate: func(*result) {}},
		"one write per instance too many, on one variant": {
			mutate: func(r *result) { variantOf(r, variantTLS).Writes = 10 * 8 },
			want:   []string{"operator, tls instances: 8.00 writes per instance (events excluded) while converging, limit 7"},
		},
		"at the upper limit": {
			mutate: func(r *result) { variantOf(r, variantStable).Writes = 15 * 7 },
		},
		"no status write": {
			mutate: func(r *result) { variantOf(r, variantPlain).Writes = 15 * 3 },
			want:   []string{"operator, plain instances: 3.00 writes per instance (events excluded) while converging, at least 4 expected"},
		},
		"no write counted at all": {
			mutate: func(r *result) {
				for i := range r.Subjects[0].Variants {
					r.Subjects[0].Variants[i].Writes, r.Subjects[0].Variants[i].Events = 0, 0
				}
			},
			want: []string{"plain instances: 0.00 writes", "plain instances: 0 events for 15 instances", "stable instances: 0.00 writes", "monitoring instances: 0 events"},
		},
		"at the lower limit": {
			mutate: func(r *result) { variantOf(r, variantMonitoring).Writes = 10 * 4 },
		},
		"two events per instance": {
			mutate: func(r *result) { variantOf(r, variantMonitoring).Events = 20 },
			want:   []string{"operator, monitoring instances: 20 events for 10 instances (2.00 per instance) while converging, limit 11 (one per instance + 1)"},
		},
		"two events per instance at N=500": {
			mutate: func(r *result) {
				*variantOf(r, variantPlain) = variantResult{Variant: variantPlain, Instances: 500, Owned: 3, Writes: 500 * 5, Events: 1000}
			},
			want: []string{"1000 events for 500 instances (2.00 per instance) while converging, limit 510 (one per instance + 10)"},
		},
		"one event too many within the tolerance": {
			mutate: func(r *result) { variantOf(r, variantStable).Events = 16 },
		},
		"two events too many": {
			mutate: func(r *result) { variantOf(r, variantStable).Events = 17 },
			want:   []string{"stable instances: 17 events for 15 instances"},
		},
		"an event missing within the tolerance, two missing": {
			mutate: func(r *result) { variantOf(r, variantStable).Events = 14; variantOf(r, variantTLS).Events = 8 },
			want:   []string{"tls instances: 8 events for 10 instances (0.80 per instance) while converging, at least 9 expected"},
		},
		"no variant attributed": {
			mutate: func(r *result) { r.Subjects[0].Variants = nil },
			want:   []string{"no converge writes attributed to an instance variant"},
		},
		"a conflict in any phase": {
			mutate: func(r *result) { r.Subjects[0].Restart.Conflicts = 1 },
			want:   []string{"1 writes answered 409 Conflict"},
		},
		"steady and restart writes, every violation reported at once": {
			mutate: func(r *result) {
				r.Subjects[0].Steady = writes{Total: 2, ByVerbResource: map[string]int{"patch memcacheds/status": 2}}
				r.Subjects[0].Restart.Total = 1
			},
			want: []string{"2 writes in the steady state", "patch memcacheds/status", "1 writes on a restart"},
		},
		"a phase that did not run is not gated": {
			mutate: func(r *result) {
				r.Phases = []string{"converge"}
				r.Subjects[0].Steady.Total = 5
				r.Subjects[0].LatencySamples = 0
			},
		},
		"status never followed a pod change": {
			mutate: func(r *result) { r.Subjects[0].LatencySamples = 0 },
			want:   []string{"never seen following a pod change"},
		},
		"the sample is measured, not gated": {
			mutate: func(r *result) {
				s := good()
				s.Subject = &subject{Name: "sample", Kind: kindSample}
				s.Steady.Total = 200
				s.Variants = nil
				r.Subjects = append(r.Subjects, s)
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			res := &result{N: 50, Size: 3, Phases: phases, Subjects: []*subjectResult{good()}}
			tc.mutate(res)
			got := gateViolations(res)
			joined := strings.Join(got, "\n")
			for _, w := range tc.want {
				if !strings.Contains(joined, w) {
					t.Errorf("violations %q do not mention %q", got, w)
				}
			}
			if len(tc.want) == 0 && len(got) > 0 {
				t.Errorf("violations = %q, want none", got)
			}
		})
	}
}

// TestByVariant: the writes of each namespace go to the variant it holds, events apart, and every
// variant counts its instances and owned objects.
func TestByVariant(t *testing.T) {
	mix := []variant{variantPlain, variantStable, variantTLS, variantMonitoring}
	w := writes{ByNamespace: map[string]namespaceWrites{
		"s-op-0":    {Total: 12, Events: 2}, // plain
		"s-op-4":    {Total: 6, Events: 1},  // plain
		"s-op-1":    {Total: 7, Events: 1},  // stable
		"s-op-6":    {Total: 5, Events: 1},  // tls
		"s-op-3":    {Total: 9, Events: 3},  // monitoring
		"":          {Total: 4},             // cluster-scoped: no variant
		"s-op-x":    {Total: 4},             // not one of the prefix's
		"s-other-0": {Total: 4},
	}}
	got := byVariant(w, mix, "s-op", 50, 10, 3)
	want := []variantResult{
		{Variant: variantPlain, Instances: 15, Owned: 3, Writes: 15, Events: 3},
		{Variant: variantStable, Instances: 15, Owned: 3, Writes: 6, Events: 1},
		{Variant: variantTLS, Instances: 10, Owned: 3, Writes: 4, Events: 1},
		{Variant: variantMonitoring, Instances: 10, Owned: 3, Writes: 6, Events: 3},
	}
	if !slices.Equal(got, want) {
		t.Errorf("byVariant = %+v\nwant %+v", got, want)
	}
}

// TestParseMix: names in order, each at most once, at least one.
func TestParseMix(t *testing.T) {
	tests := map[string]struct {
		in      string
		want    []variant
		wantErr string
	}{
		"the default":     {in: "plain", want: []variant{variantPlain}},
		"the gate's":      {in: "plain, stable,tls,monitoring", want: []variant{variantPlain, variantStable, variantTLS, variantMonitoring}},
		"empty fields":    {in: "stable,,tls,", want: []variant{variantStable, variantTLS}},
		"an unknown name": {in: "plain,auth", wantErr: `unknown instance variant "auth"`},
		"twice":           {in: "tls,tls", wantErr: `"tls" twice`},
		"none":            {in: " , ", wantErr: "names no instance variant"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := parseMix(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("parseMix(%q) error %v, want %q", tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("parseMix(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
}

// TestVariantInstances: each variant's instance is what the operator must build for it, and one
// the operator accepts: a valid spec, and for TLS a Secret whose certificate and key form a pair.
func TestVariantInstances(t *testing.T) {
	s := &subject{Name: "x", Kind: kindOperator}
	key := client.ObjectKey{Namespace: "s-x-2", Name: "mc-2"}
	cert, pkey, err := selfSignedCert("memcached.bench.svc", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tls.X509KeyPair(cert, pkey); err != nil {
		t.Fatalf("the TLS variant's certificate and key are not a pair: %v", err)
	}
	for _, v := range variants {
		mc := s.newInstance(key, 3, v).(*cachev1alpha1.Memcached)
		// What the API server's defaulting gives every instance (the CRD's defaults of these fields).
		defaulted := mc.DeepCopy()
		defaulted.Spec.Memcached = cachev1alpha1.MemcachedConfig{MaxMemoryMB: 64, MaxConnections: 1024, Threads: 4}
		if errs := defaulted.Validate(); len(errs) > 0 {
			t.Errorf("%s: invalid spec: %v", v, errs)
		}
		objs := resources.DesiredObjects(mc, builderOptions)
		if len(objs) != ownedObjects(v, 3) {
			t.Errorf("%s: %d objects, ownedObjects %d", v, len(objs), ownedObjects(v, 3))
		}
		var workload string
		var containers []string
		for _, o := range objs {
			switch w := o.(type) {
			case *appsv1.Deployment:
				workload = "Deployment"
				for _, c := range w.Spec.Template.Spec.Containers {
					containers = append(containers, c.Name)
				}
			case *appsv1.StatefulSet:
				workload = "StatefulSet"
				for _, c := range w.Spec.Template.Spec.Containers {
					containers = append(containers, c.Name)
				}
			}
		}
		want := map[variant]struct {
			workload string
			sidecar  string
		}{
			variantPlain:      {"Deployment", ""},
			variantStable:     {"StatefulSet", ""},
			variantTLS:        {"Deployment", resources.CertReloaderContainerName},
			variantMonitoring: {"Deployment", resources.ExporterContainerName},
		}[v]
		if workload != want.workload {
			t.Errorf("%s: workload %s, want %s", v, workload, want.workload)
		}
		if want.sidecar != "" && !slices.Contains(containers, want.sidecar) {
			t.Errorf("%s: containers %v, want %s among them", v, containers, want.sidecar)
		}
		if want.sidecar == "" && len(containers) != 1 {
			t.Errorf("%s: containers %v, want memcached alone", v, containers)
		}
	}
	// The sample gets spec.size alone whatever the variant.
	u := (&subject{Kind: kindSample}).newInstance(key, 3, variantTLS).(*unstructured.Unstructured)
	if spec, _, _ := unstructured.NestedMap(u.Object, "spec"); len(spec) != 2 {
		t.Errorf("sample instance of the TLS variant %v", u.Object)
	}
}

// TestLatencyInstancesSkipStable: the latency phase replaces pods of non-Stable instances only,
// at most 50.
func TestLatencyInstancesSkipStable(t *testing.T) {
	b := &bench{cfg: config{n: 50, namespaces: 10, mix: []variant{variantPlain, variantStable, variantTLS, variantMonitoring}}}
	got := b.latencyInstances()
	if len(got) != 35 {
		t.Errorf("%d instances, want 35 (15 of 50 are Stable)", len(got))
	}
	for _, i := range got {
		if b.instanceVariant(i) == variantStable {
			t.Errorf("instance %d is a Stable one", i)
		}
	}
	b.cfg.n = 500
	if got := b.latencyInstances(); len(got) != 50 {
		t.Errorf("%d instances at N=500, want 50", len(got))
	}
}
