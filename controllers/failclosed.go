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

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/example/memcached-operator/controllers/resources"
)

// failClosedPhase handles a refused spec (s.obs.Invalid: a rule only the operator checks, or a
// Secret that is missing or unusable). A refused spec leaves every owned object as it is, so that
// bad input loses nothing, except where that would leave the servers less protected than the spec
// asks: when the running pod template lacks authentication, TLS or client-certificate
// verification the spec asks for, or the spec asks for a NetworkPolicy that does not exist
// (resources.Protection), the servers are stopped (their workload scaled to zero) and
// s.obs.Stopped says what they lacked. Adding spec.auth together with a mistake would otherwise
// leave them serving without authentication for as long as the mistake stays. They start again,
// with the protection, in the first reconcile of an accepted spec (the apply restores spec.size).
//
// Rules that cannot be CEL rules (cross-field rules, and new rules on properties that released
// CRDs already had: OLM v1's CRD upgrade-safety preflight refuses a changed
// x-kubernetes-validations as an unhandled change) are the operator's, so this is where they
// fail closed. A stop is one write per workload, made once: a stopped workload has replicas 0.
// It runs only when the read phase read the workloads and the NetworkPolicy (s.failClosed); the
// workloads in s.obs are then the stopped ones as the API server returned them.
func (r *MemcachedReconciler) failClosedPhase(ctx context.Context, s *scope) error {
	if !s.failClosed {
		return nil
	}
	obs := &s.obs
	want := resources.WantedProtection(s.mc)
	if dep := obs.Deployment; dep != nil {
		if missing := want.Missing(resources.LiveProtection(&dep.Spec.Template, s.hasNetworkPolicy)); len(missing) > 0 {
			obs.Stopped = missing
			obs.Err = errors.Join(obs.Err, r.stop(ctx, dep, &dep.Spec.Replicas, missing))
		}
	}
	if sts := obs.StatefulSet; sts != nil {
		if missing := want.Missing(resources.LiveProtection(&sts.Spec.Template, s.hasNetworkPolicy)); len(missing) > 0 {
			obs.Stopped = missing
			obs.Err = errors.Join(obs.Err, r.stop(ctx, sts, &sts.Spec.Replicas, missing))
		}
	}
	return nil
}

// stop scales a workload (replicas is its spec.replicas) to zero, unless it is there already.
func (r *MemcachedReconciler) stop(ctx context.Context, obj client.Object, replicas **int32, missing []string) error {
	if ptr.Deref(*replicas, 1) == 0 {
		return nil
	}
	kind := "Deployment"
	if _, ok := obj.(*appsv1.StatefulSet); ok {
		kind = "StatefulSet"
	}
	// A merge patch of spec.replicas alone: the cached copy's other fields are not sent.
	patch := client.RawPatch(client.Merge.Type(), []byte(`{"spec":{"replicas":0}}`))
	if err := r.Patch(ctx, obj, patch); err != nil {
		return fmt.Errorf("failed to stop %s %s: %w", kind, client.ObjectKeyFromObject(obj), err)
	}
	logf.FromContext(ctx).Info("Stopped the servers: the refused spec asks for protection they lack", kind, klog.KObj(obj), "lacking", missing)
	return nil
}
