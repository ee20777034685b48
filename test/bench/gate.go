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
)

// eventTolerance is how many events a variant's instances may make beyond one each, and fall
// short of it, while converging: one per 50 instances, at least one. The operator makes one event
// per instance (its Created event, which names every object it created: 1.00 per instance in every
// run of docs/performance.md); a transient API error on one create splits that instance's creates
// over two reconciles, and so over two Created events, and the gate runs on a shared two-core
// machine. Two events per instance exceed it for any number of instances (at 10 instances: 20
// against a limit of 11; at 500: 1000 against 510), and so does an operator that stops writing
// events (0 under a floor of 9 at 10 instances).
func eventTolerance(instances int) int { return max(1, instances/50) }

// gateViolations returns every way res breaks the scale properties that do not depend on the
// machine's speed (-gate; CI runs a short benchmark with it), for each subject of this project
// (the sample is measured, not gated), per instance variant (-mix: plain, Stable, TLS, monitoring
// instances each in namespaces of their own, so the audit log attributes every write):
//   - converge writes per instance, events excluded, at most owned + size + 1: each owned object
//     created once, and at most one status patch per value readyReplicas takes on the way up (0 to
//     size). Measured at N=50, size 3: 5.96 and 6.16 (2.96 and 3.16 status patches: how many ready
//     counts fall in one coalescing window depends on timing), so "owned + 3" would fail one run in
//     two; the bound here is the one the status contract implies;
//   - and at least owned + 1: each owned object created, and the status patch that made the
//     instance Available (the benchmark waited for Available at its generation, which only a status
//     write gives). Fewer means an operator that stopped writing status or creating an object, or
//     writes the benchmark failed to count: an upper bound alone passes both;
//   - events at most one per instance plus eventTolerance, and at least one per instance less it;
//   - no 409 Conflict in any phase;
//   - no write in the steady state, none on a restart;
//   - the status followed a pod change (the latency phase ran on at least one instance; it fails
//     by itself when a deleted pod stays in status.nodes).
//
// Figures in seconds are never gated: they measure the machine as much as the operator.
func gateViolations(res *result) []string {
	var out []string
	ran := func(p string) bool { return slices.Contains(res.Phases, p) }
	for _, s := range res.Subjects {
		if s.Subject == nil || s.Subject.Kind != kindOperator {
			continue
		}
		name := s.Subject.Name
		if ran("converge") {
			if len(s.Variants) == 0 {
				out = append(out, fmt.Sprintf("%s: no converge writes attributed to an instance variant", name))
			}
			for _, v := range s.Variants {
				out = append(out, variantViolations(name, v, res.Size)...)
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

// variantViolations returns how the converge writes of one variant's instances break the limits
// of gateViolations (size is spec.size).
func variantViolations(subject string, v variantResult, size int) []string {
	if v.Instances == 0 {
		return nil
	}
	var out []string
	name := fmt.Sprintf("%s, %s instances", subject, v.Variant)
	n := float64(v.Instances)
	w := float64(v.Writes) / n
	if hi := v.Owned + size + 1; w > float64(hi) {
		out = append(out, fmt.Sprintf("%s: %.2f writes per instance (events excluded) while converging, limit %d (owned objects + spec.size + 1)", name, w, hi))
	}
	if lo := v.Owned + 1; w < float64(lo) {
		out = append(out, fmt.Sprintf("%s: %.2f writes per instance (events excluded) while converging, at least %d expected (owned objects + the status write that made it Available)", name, w, lo))
	}
	tol := eventTolerance(v.Instances)
	if v.Events > v.Instances+tol {
		out = append(out, fmt.Sprintf("%s: %d events for %d instances (%.2f per instance) while converging, limit %d (one per instance + %d)", name, v.Events, v.Instances, float64(v.Events)/n, v.Instances+tol, tol))
	}
	if v.Events < v.Instances-tol {
		out = append(out, fmt.Sprintf("%s: %d events for %d instances (%.2f per instance) while converging, at least %d expected (one per instance - %d)", name, v.Events, v.Instances, float64(v.Events)/n, v.Instances-tol, tol))
	}
	return out
}
