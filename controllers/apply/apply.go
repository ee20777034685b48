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

// Package apply is the one generic way the operator makes an object it owns match what it wants:
// create it with the Memcached as controller, merge-patch only the fields it owns when they
// drifted, leave it alone otherwise, and never touch an object someone else owns. It depends only
// on the API.
package apply

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	"k8s.io/utils/lru"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

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

// Result says what Object did to the cluster; it is also the reason of the event about it.
type Result string

const (
	// Unchanged: the object matched; no write.
	Unchanged Result = "Unchanged"
	// Created: the object was absent and has been created.
	Created Result = "Created"
	// Updated: the object drifted and its owned fields have been patched.
	Updated Result = "Updated"
	// Restored: the object is controlled by the Memcached but had lost labels the operator sets,
	// among them those the manager's cache selects by, so the cache no longer saw it; they have
	// been put back and the owned fields patched (see Object).
	Restored Result = "Restored"
)

// Owned describes how to reconcile one kind the operator owns: Desired is built by a pure builder,
// NeedsUpdate compares only the fields the operator owns (never server defaults), and Update copies
// those fields from Desired into the live object.
type Owned[T client.Object] struct {
	// Kind names the kind in errors ("Deployment").
	Kind string
	// Desired is the object as the operator wants it, without owner reference.
	Desired T
	// Live is an empty object of the kind, filled by Object; or, with LiveRead, the object as the
	// caller read it (complete: the Deployment decoded from the cache's form), which Object then
	// compares with instead of reading it again, and may change.
	Live T
	// LiveRead: Live holds the object as read (see Live).
	LiveRead bool
	// NeedsUpdate reports whether live differs from desired in a field the operator owns.
	NeedsUpdate func(live, desired T) bool
	// Update copies the fields the operator owns from desired into live.
	Update func(live, desired T)
}

// Object makes the object named like o.Desired match it and returns the live object. It creates the
// object with mc as controller owner when absent, merge-patches the owned fields when NeedsUpdate
// reports drift, and makes no API call otherwise. It returns a *ConflictError when an object of that
// name exists that mc does not control (the object is left untouched), or an error wrapping the
// API failure.
//
// Reads come from c (the manager's cache, which sees only objects labelled as managed), unless
// o.LiveRead says the caller read the object already; reader is an
// uncached client used when a create reports AlreadyExists: the object exists but the cache does
// not hold it. Either the cache has not caught up with an earlier create of ours (the object is
// as desired: nothing is written), or someone removed labels the cache selects by (kubectl label
// ... app.kubernetes.io/managed-by-): then the object is still ours by its controller owner
// reference, and its labels and owned fields are patched back (Restored), so the cache sees it
// again and later spec changes reach it. Without this, every reconcile created, got AlreadyExists
// and reported nothing, and no spec change was ever applied again. An object mc does not control
// is a *ConflictError, as when the cache holds it.
func Object[T client.Object](ctx context.Context, c client.Client, reader client.Reader, scheme *runtime.Scheme,
	mc *cachev1alpha1.Memcached, o Owned[T]) (T, Result, error) {
	key := client.ObjectKeyFromObject(o.Desired)
	var err error
	if !o.LiveRead {
		err = c.Get(ctx, key, o.Live)
	}
	uncached := false
	switch {
	case apierrors.IsNotFound(err):
		if err := controllerutil.SetControllerReference(mc, o.Desired, scheme); err != nil {
			return o.Live, Unchanged, fmt.Errorf("failed to set owner of %s %s: %w", o.Kind, key, err)
		}
		err := c.Create(ctx, o.Desired)
		if err == nil {
			return o.Desired, Created, nil
		}
		if apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
			return o.Live, Unchanged, ErrNamespaceTerminating
		}
		if !apierrors.IsAlreadyExists(err) {
			return o.Live, Unchanged, fmt.Errorf("failed to create %s %s: %w", o.Kind, key, err)
		}
		if err := reader.Get(ctx, key, o.Live); err != nil {
			return o.Live, Unchanged, fmt.Errorf("failed to get %s %s: %w", o.Kind, key, err)
		}
		uncached = true
	case err != nil:
		return o.Live, Unchanged, fmt.Errorf("failed to get %s %s: %w", o.Kind, key, err)
	}
	if err := NotControlled(o.Live, mc, o.Kind); err != nil {
		return o.Live, Unchanged, err
	}
	if kept, ok := serverKept(o.Live, o.Desired); ok && !o.NeedsUpdate(o.Live, kept.(T)) {
		return o.Live, Unchanged, nil
	}
	if !o.NeedsUpdate(o.Live, o.Desired) {
		return o.Live, Unchanged, nil
	}
	updated := Updated
	if uncached && !labels.SelectorFromSet(o.Desired.GetLabels()).Matches(labels.Set(o.Live.GetLabels())) {
		updated = Restored
	}
	base := o.Live.DeepCopyObject().(client.Object)
	o.Update(o.Live, o.Desired)
	merge := client.MergeFrom(base)
	data, err := merge.Data(o.Live)
	if err == nil {
		data, err = removeKeysNotMaps(data, base)
	}
	if err != nil {
		return o.Live, Unchanged, fmt.Errorf("failed to patch %s %s: %w", o.Kind, key, err)
	}
	// The response is decoded into an empty object: the JSON decoder leaves a field the response
	// lacks as it was in the object it decodes into, so decoding into o.Live would show a field the
	// server dropped as written.
	written := emptyLike(o.Live)
	if err := c.Patch(ctx, written, client.RawPatch(merge.Type(), data)); err != nil {
		return o.Live, Unchanged, fmt.Errorf("failed to patch %s %s: %w", o.Kind, key, err)
	}
	if o.NeedsUpdate(written, o.Desired) {
		logf.FromContext(ctx).Info("The API server did not keep every field written (a field of a disabled feature gate, or one admission changed); not patching again until the object or its desired state changes",
			o.Kind, klog.KObj(written))
		// o.Update copied from o.Desired into o.Live and left o.Desired as it was.
		rememberKept(written, intentOf(o.Desired))
	}
	return written, updated, nil
}

// emptyLike returns a new object of obj's type carrying only its name and namespace.
func emptyLike[T client.Object](obj T) T {
	out := reflect.New(reflect.TypeOf(obj).Elem()).Interface().(T)
	out.SetName(obj.GetName())
	out.SetNamespace(obj.GetNamespace())
	return out
}

// What the API server made of the operator's last write, for the objects where that differs from
// what was written. A field the server drops (its feature gate is off: lifecycle.preStop.sleep on
// a 1.30-1.33 server started with PodLifecycleSleepAction=false, a user's matchLabelKeys in pod
// affinity on 1.30) or changes (a mutating admission webhook) would otherwise look like drift on
// every reconcile: a patch, and an Updated event, each time, forever. After a patch whose response
// still NeedsUpdate, Object remembers the response with a digest of the desired object it was
// written for; while the desired object has that digest and the live object does not differ from
// the response in a field the operator owns, the object counts as up to date. A real drift
// (someone edits an owned field) or a new desired state compares as before and is patched.
//
// Entries are keyed by object UID in a bounded LRU (k8s.io/utils/lru): an entry lost to eviction
// or to a restart of the operator costs one patch, which the server again leaves as it was.
var kept = lru.New(keptEntries)

// keptEntries bounds the remembered responses: one per object the server does not keep as
// written (each without its managedFields).
const keptEntries = 1024

// keptWrite is what kept holds for one object.
type keptWrite struct {
	// intent is the digest of the desired object written (intentOf).
	intent string
	// response is the object as the API server returned it after the write.
	response client.Object
}

// intentOf returns a digest (SHA-256 of the JSON) of a desired object, "" when it cannot be
// encoded (then nothing is remembered for it).
func intentOf(desired client.Object) string {
	b, err := json.Marshal(desired)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// rememberKept records live, the API server's response to a write of the desired object whose
// digest is intent.
func rememberKept(live client.Object, intent string) {
	if intent == "" {
		return
	}
	response := live.DeepCopyObject().(client.Object)
	response.SetManagedFields(nil)
	kept.Add(live.GetUID(), keptWrite{intent: intent, response: response})
}

// serverKept returns the API server's response to the last write to live when that write was of
// desired (the same digest); an entry for another desired object is dropped.
func serverKept(live, desired client.Object) (client.Object, bool) {
	v, ok := kept.Get(live.GetUID())
	if !ok {
		return nil, false
	}
	w := v.(keptWrite)
	if intent := intentOf(desired); intent == "" || w.intent != intent {
		kept.Remove(live.GetUID())
		return nil, false
	}
	return w.response, true
}

// DeleteIfOwned deletes the object named like obj when mc controls it (a feature was turned off).
// Objects that are absent or not controlled by mc are left alone.
func DeleteIfOwned(ctx context.Context, c client.Client, mc *cachev1alpha1.Memcached, kind string, obj client.Object) (bool, error) {
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

// ErrWaitingForGC reports an object still controlled by a deleted Memcached of the same name (the
// user deleted and recreated the instance): the garbage collector removes it shortly, so the
// instance waits instead of reporting a conflict.
var ErrWaitingForGC = errors.New("waiting for the garbage collector to remove the object of a deleted Memcached of the same name")

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

// ErrNamespaceTerminating reports that an object could not be created because its namespace is
// being deleted: the instance is going away with it, so this is not a failure to report.
var ErrNamespaceTerminating = errors.New("namespace is terminating")

// NotControlled returns nil when mc controls live; ErrWaitingForGC when live is left over from a
// deleted Memcached of the same name; a *ConflictError otherwise.
func NotControlled(live client.Object, mc *cachev1alpha1.Memcached, kind string) error {
	switch {
	case metav1.IsControlledBy(live, mc):
		return nil
	case leftoverOf(live, mc):
		return ErrWaitingForGC
	default:
		return &ConflictError{Kind: kind, Name: live.GetName()}
	}
}

// removeKeysNotMaps rewrites the merge patch data computed from base so that a labels or
// annotations map the update emptied removes the keys base had one by one instead of the whole
// map: a JSON merge patch's null for the map would also remove the keys the cached base does not
// hold (the manager's cache keeps only the operator's own labels and annotations, and those the
// spec added), which others put there (kubectl rollout restart's annotation, a controller's). A
// patch with no such null is returned as it is.
func removeKeysNotMaps(data []byte, base client.Object) ([]byte, error) {
	var patch map[string]any
	if err := json.Unmarshal(data, &patch); err != nil {
		return nil, fmt.Errorf("failed to read the patch: %w", err)
	}
	b, err := json.Marshal(base)
	if err != nil {
		return nil, fmt.Errorf("failed to encode the object: %w", err)
	}
	var was map[string]any
	if err := json.Unmarshal(b, &was); err != nil {
		return nil, fmt.Errorf("failed to decode the object: %w", err)
	}
	if !nullMapsToKeys(patch, was) {
		return data, nil
	}
	return json.Marshal(patch)
}

// nullMapsToKeys replaces, in patch and the objects it nests, a null "labels" or "annotations" by
// a null for each key of that map in was (the same place in the base object), and reports whether
// it replaced any.
func nullMapsToKeys(patch, was map[string]any) bool {
	changed := false
	for k, v := range patch {
		old, ok := was[k].(map[string]any)
		if !ok {
			continue
		}
		switch v := v.(type) {
		case nil:
			if k == "labels" || k == "annotations" {
				keys := make(map[string]any, len(old))
				for key := range old {
					keys[key] = nil
				}
				patch[k], changed = keys, true
			}
		case map[string]any:
			changed = nullMapsToKeys(v, old) || changed
		}
	}
	return changed
}
