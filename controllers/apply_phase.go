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
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/apply"
	"github.com/example/memcached-operator/controllers/resources"
	"github.com/example/memcached-operator/controllers/status"
)

// applyPhase creates or corrects every object of the plan (resources.DesiredState over what the
// read phase read: the workloads, Service, PodDisruptionBudget, NetworkPolicy, ServiceMonitor and
// PrometheusRule of the Memcached), deletes the optional ones the spec turns off, and records in
// s.obs what it wrote and what stopped it; the workloads and the Service it leaves in s.obs are
// the ones it wrote or found, newer than the cache's. Each object is handled even when another
// fails, so one conflict does not hide the rest. It runs only for an accepted spec whose Secrets
// and workloads were read (s.apply): otherwise everything is left as it is.
//
// What it created or updated is told in one event per result, not one per object: a new
// instance's three creates are one change to its user, and an event is an API write (3 of the 4.6
// writes per instance of a converging instance when each object had its own; docs/performance.md).
func (r *MemcachedReconciler) applyPhase(ctx context.Context, s *scope) error {
	if !s.apply {
		return nil
	}
	mc, obs := s.mc, &s.obs
	// What is applied replaces what was read.
	obs.Deployment, obs.StatefulSet, obs.ServiceOwned = nil, nil, false
	changed := map[apply.Result][]appliedObject{}
	for _, d := range resources.DesiredState(mc, r.Options, s.read) {
		// Only while the cluster serves the kind (monitoringKindWatch): without the CRD there is
		// nothing to create, read or delete, and that is not an error.
		if d.OptionalAPI && !r.monitoringKinds[d.Kind].Available() {
			continue
		}
		if d.Absent {
			r.deleteDisabled(ctx, mc, d.Kind, d.Object, d.DeleteReason, obs)
			continue
		}
		live, res, err := d.Apply(ctx, r.Client, r.APIReader, r.Scheme, mc)
		if recordApply(ctx, obs, d.Kind, live, res, err) {
			changed[res] = append(changed[res], appliedObject{d.Kind, live})
		}
		switch live := live.(type) {
		case *appsv1.Deployment:
			if err == nil {
				obs.Deployment = live
			}
		case *appsv1.StatefulSet:
			if err == nil {
				obs.StatefulSet = live
			}
		case *corev1.Service:
			obs.ServiceOwned = err == nil
		}
	}
	r.applyEvents(mc, changed)
	return nil
}

// recordApply records in obs what stopped the apply of obj, a kind, (err) and reports whether it
// changed obj (res: created, updated or restored), which it logs.
func recordApply(ctx context.Context, obs *status.Observed, kind string, obj client.Object, res apply.Result, err error) bool {
	var ce *apply.ConflictError
	switch {
	case errors.As(err, &ce):
		obs.Conflicts = append(obs.Conflicts, ce.Kind+" "+ce.Name)
	case errors.Is(err, apply.ErrNamespaceTerminating):
		obs.Terminating = true
	case errors.Is(err, apply.ErrWaitingForGC):
		obs.Waiting = append(obs.Waiting, kind+" "+obj.GetName())
	case err != nil:
		obs.Err = errors.Join(obs.Err, err)
	case res != apply.Unchanged:
		logf.FromContext(ctx).Info("Applied "+kind, kind, klog.KObj(obj), "result", res)
		return true
	}
	return false
}

// appliedObject is an object the apply phase changed, and its kind.
type appliedObject struct {
	kind string
	obj  client.Object
}

// applyEvents emits one Normal event per result of changed (the objects created, updated or
// restored), naming every object; the object is the event's related one when it is the only one.
func (r *MemcachedReconciler) applyEvents(mc *cachev1alpha1.Memcached, changed map[apply.Result][]appliedObject) {
	for _, res := range []apply.Result{apply.Created, apply.Updated, apply.Restored} {
		objs := changed[res]
		if len(objs) == 0 {
			continue
		}
		var rel runtime.Object
		if len(objs) == 1 {
			rel = objs[0].obj
		}
		names := make([]string, 0, len(objs))
		for _, o := range objs {
			names = append(names, o.kind+" "+o.obj.GetName())
		}
		note := "%s %s"
		if res == apply.Restored {
			note += ": the labels the operator sets had been removed; they are back, and the object follows the spec again"
		}
		r.Recorder.Eventf(mc, rel, corev1.EventTypeNormal, string(res), "Apply", note,
			strings.Join(names, ", "), strings.ToLower(string(res)))
	}
}

// deleteDisabled deletes an optional object of mc that its spec turned off; reason ends the
// event ("disabled in spec" when empty).
func (r *MemcachedReconciler) deleteDisabled(ctx context.Context, mc *cachev1alpha1.Memcached, kind string, obj client.Object, reason string, obs *status.Observed) {
	deleted, err := apply.DeleteIfOwned(ctx, r.Client, mc, kind, obj)
	if err != nil {
		obs.Err = errors.Join(obs.Err, err)
		return
	}
	if deleted {
		logf.FromContext(ctx).Info("Deleted disabled "+kind, kind, klog.KObj(obj))
		if reason == "" {
			reason = "disabled in spec"
		}
		r.Recorder.Eventf(mc, obj, corev1.EventTypeNormal, "Deleted", "Delete", "%s %s deleted: %s", kind, obj.GetName(), reason)
	}
}
