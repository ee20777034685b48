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

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// ConflictError reports an object that exists under a name the operator needs for a Memcached but
// that this Memcached does not control. The operator never overwrites such an object.
type ConflictError struct {
	// Kind and Name identify the object, e.g. "Deployment" and "web".
	Kind, Name string
}

// Error implements error.
func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s %s already exists and is not owned by this Memcached", e.Kind, e.Name)
}

// applyResult says what apply did to the cluster; it is also the reason of the event about it.
type applyResult string

const (
	applyUnchanged applyResult = "Unchanged"
	applyCreated   applyResult = "Created"
	applyUpdated   applyResult = "Updated"
)

// owned describes how to reconcile one kind the operator owns: desired is built by a pure builder,
// needsUpdate compares only the fields the operator owns (never server defaults), and update copies
// those fields from desired into the live object. fromCache, when set, completes an object read
// from the cache before it is compared (restoreDeployment: the cache holds a Deployment's labels
// and spec encoded, see cachedSpecAnnotation).
type owned[T client.Object] struct {
	kind        string
	desired     T
	live        T // an empty object of the kind, filled by apply
	needsUpdate func(live, desired T) bool
	update      func(live, desired T)
	fromCache   func(live T) error
}

// apply makes the object named like o.desired match it and returns the live object. It creates the
// object with mc as controller owner when absent, merge-patches the owned fields when needsUpdate
// reports drift, and makes no API call otherwise. It returns a *ConflictError when an object of that
// name exists that mc does not control (the object is left untouched), or an error wrapping the
// API failure.
//
// Reads come from c (the manager's cache, which sees only objects labelled as managed); reader is an
// uncached client used once, when a create reports AlreadyExists, to tell a foreign object from an
// own one the cache has not seen yet.
func apply[T client.Object](ctx context.Context, c client.Client, reader client.Reader, scheme *runtime.Scheme,
	mc *cachev1alpha1.Memcached, o owned[T]) (T, applyResult, error) {
	key := client.ObjectKeyFromObject(o.desired)
	err := c.Get(ctx, key, o.live)
	switch {
	case apierrors.IsNotFound(err):
		if err := controllerutil.SetControllerReference(mc, o.desired, scheme); err != nil {
			return o.live, applyUnchanged, fmt.Errorf("failed to set owner of %s %s: %w", o.kind, key, err)
		}
		err := c.Create(ctx, o.desired)
		if err == nil {
			return o.desired, applyCreated, nil
		}
		if apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
			return o.live, applyUnchanged, errNamespaceTerminating
		}
		if !apierrors.IsAlreadyExists(err) {
			return o.live, applyUnchanged, fmt.Errorf("failed to create %s %s: %w", o.kind, key, err)
		}
		if err := reader.Get(ctx, key, o.live); err != nil {
			return o.live, applyUnchanged, fmt.Errorf("failed to get %s %s: %w", o.kind, key, err)
		}
		if err := notControlled(o.live, mc, o.kind); err != nil {
			return o.live, applyUnchanged, err
		}
		// Ours, created by an earlier reconcile the cache has not caught up with: the watch event
		// that follows brings us back.
		return o.live, applyUnchanged, nil
	case err != nil:
		return o.live, applyUnchanged, fmt.Errorf("failed to get %s %s: %w", o.kind, key, err)
	}
	if o.fromCache != nil {
		if err := o.fromCache(o.live); err != nil {
			return o.live, applyUnchanged, err
		}
	}

	if err := notControlled(o.live, mc, o.kind); err != nil {
		return o.live, applyUnchanged, err
	}
	if !o.needsUpdate(o.live, o.desired) {
		return o.live, applyUnchanged, nil
	}
	base := o.live.DeepCopyObject().(client.Object)
	o.update(o.live, o.desired)
	if err := c.Patch(ctx, o.live, client.MergeFrom(base)); err != nil {
		return o.live, applyUnchanged, fmt.Errorf("failed to patch %s %s: %w", o.kind, key, err)
	}
	return o.live, applyUpdated, nil
}

// deleteIfOwned deletes the object named like obj when mc controls it (a feature was turned off).
// Objects that are absent or not controlled by mc are left alone.
func deleteIfOwned(ctx context.Context, c client.Client, mc *cachev1alpha1.Memcached, kind string, obj client.Object) (bool, error) {
	key := client.ObjectKeyFromObject(obj)
	if err := c.Get(ctx, key, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("failed to get %s %s: %w", kind, key, err)
	}
	if !metav1.IsControlledBy(obj, mc) {
		return false, nil
	}
	if err := c.Delete(ctx, obj, client.Preconditions{UID: ptr.To(obj.GetUID())}); err != nil && !apierrors.IsNotFound(err) {
		return false, fmt.Errorf("failed to delete %s %s: %w", kind, key, err)
	}
	return true, nil
}

// errWaitingForGC reports an object still controlled by a deleted Memcached of the same name (the
// user deleted and recreated the instance): the garbage collector removes it shortly, so the
// instance waits instead of reporting a conflict.
var errWaitingForGC = errors.New("waiting for the garbage collector to remove the object of a deleted Memcached of the same name")

// leftoverOf reports whether obj is being deleted, or is controlled by another Memcached of
// mc's name, which can only be a deleted one (names are unique in a namespace).
func leftoverOf(obj client.Object, mc *cachev1alpha1.Memcached) bool {
	if obj.GetDeletionTimestamp() != nil {
		return true
	}
	ref := metav1.GetControllerOf(obj)
	return ref != nil && ref.Kind == "Memcached" && ref.APIVersion == cachev1alpha1.GroupVersion.String() &&
		ref.Name == mc.Name && ref.UID != mc.UID
}

// errNamespaceTerminating reports that an object could not be created because its namespace is
// being deleted: the instance is going away with it, so this is not a failure to report.
var errNamespaceTerminating = errors.New("namespace is terminating")

// notControlled returns nil when mc controls live; errWaitingForGC when live is left over from a
// deleted Memcached of the same name; a *ConflictError otherwise.
func notControlled(live client.Object, mc *cachev1alpha1.Memcached, kind string) error {
	switch {
	case metav1.IsControlledBy(live, mc):
		return nil
	case leftoverOf(live, mc):
		return errWaitingForGC
	default:
		return &ConflictError{Kind: kind, Name: live.GetName()}
	}
}
