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
	"fmt"
	"slices"

	"github.com/example/memcached-operator/controllers/resources"
)

// ownedObjects is how many objects the operator owns for an instance of the benchmark's spec (the
// floor creates the same list): the unit of the write and event limits below.
func ownedObjects(b *bench) int {
	return len(resources.DesiredObjects(b.memcached(b.instance("gate", 0)), resources.Options{DefaultImage: memcachedImage}))
}

// gateViolations returns every way res breaks the scale properties that do not depend on the
// machine's speed (-gate; CI runs a short benchmark with it), for each subject of this project
// (the sample is measured, not gated):
//   - converge writes per instance, events excluded, at most owned + size + 1: each owned object
//     created once, and at most one status patch per value readyReplicas takes on the way up (0 to
//     size). Measured at N=50, size 3: 5.96 and 6.16 (2.96 and 3.16 status patches: how many ready
//     counts fall in one coalescing window depends on timing), so "owned + 3" would fail one run in
//     two; the bound here is the one the status contract implies;
//   - events per instance at most owned + 1;
//   - no 409 Conflict in any phase;
//   - no write in the steady state, none on a restart;
//   - the status followed a pod change (the latency phase ran on at least one instance; it fails
//     by itself when a deleted pod stays in status.nodes).
//
// Figures in seconds are never gated: they measure the machine as much as the operator.
func gateViolations(res *result, owned int) []string {
	var out []string
	ran := func(p string) bool { return slices.Contains(res.Phases, p) }
	n := float64(max(res.N, 1))
	for _, s := range res.Subjects {
		if s.Subject == nil || s.Subject.Kind != kindOperator {
			continue
		}
		name := s.Subject.Name
		if ran("converge") {
			if w, limit := float64(s.Converge.Total-s.Converge.Events)/n, owned+res.Size+1; w > float64(limit) {
				out = append(out, fmt.Sprintf("%s: %.2f writes per instance (events excluded) while converging, limit %d (owned objects + spec.size + 1)", name, w, limit))
			}
			if e := float64(s.Converge.Events) / n; e > float64(owned+1) {
				out = append(out, fmt.Sprintf("%s: %.2f events per instance while converging, limit %d (owned objects + 1)", name, e, owned+1))
			}
		}
		if c := s.Converge.Conflicts + s.Steady.Conflicts + s.Restart.Conflicts + s.PodReplaced.Conflicts; c > 0 {
			out = append(out, fmt.Sprintf("%s: %d writes answered 409 Conflict, limit 0", name, c))
		}
		if ran("steady") && s.Steady.Total > 0 {
			out = append(out, fmt.Sprintf("%s: %d writes in the steady state, limit 0 (%v)", name, s.Steady.Total, s.Steady.ByVerbResource))
		}
		if ran("restart") && s.Restart.Total > 0 {
			out = append(out, fmt.Sprintf("%s: %d writes on a restart, limit 0 (%v)", name, s.Restart.Total, s.Restart.ByVerbResource))
		}
		if ran("latency") && s.LatencySamples == 0 {
			out = append(out, fmt.Sprintf("%s: the status was never seen following a pod change (no latency sample)", name))
		}
	}
	return out
}
