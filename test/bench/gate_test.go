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
	"strings"
	"testing"
)

func TestGateViolations(t *testing.T) {
	const owned = 3
	phases := []string{"converge", "steady", "latency", "restart"}
	// good is a subject within every limit at N=50, size 3: 7 writes and 4 events per instance.
	good := func() *subjectResult {
		return &subjectResult{
			Subject:        &subject{Name: "operator", Kind: kindOperator},
			Converge:       writes{Total: 50 * (7 + 4), Events: 50 * 4},
			LatencySamples: 50,
		}
	}
	tests := map[string]struct {
		mutate func(*result)
		want   []string // substrings, one per expected violation, in order
	}{
		"within every limit": {mutate: func(*result) {}},
		"one write per instance too many": {
			mutate: func(r *result) { r.Subjects[0].Converge.Total += 50 },
			want:   []string{"8.00 writes per instance (events excluded) while converging, limit 7"},
		},
		"one event per instance too many": {
			mutate: func(r *result) { r.Subjects[0].Converge.Total += 50; r.Subjects[0].Converge.Events += 50 },
			want:   []string{"5.00 events per instance while converging, limit 4"},
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
				r.Subjects = append(r.Subjects, s)
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			res := &result{N: 50, Size: 3, Phases: phases, Subjects: []*subjectResult{good()}}
			tc.mutate(res)
			got := gateViolations(res, owned)
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
