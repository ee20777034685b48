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

package cache

import (
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/internal/watchnamespace"

	"github.com/example/memcached-operator/controllers/resources"
)

// ManagerOptions returns the manager cache settings of the operator: only the given namespaces (all
// when empty), managed fields stripped, and for the owned kinds only objects labelled as managed by
// the operator (resources.ManagedSelector), so unrelated Deployments are never cached. Pods are not
// in this cache but in the pod cache (NewPodCache), with the same namespaces and selector.
//
// What each kind keeps in the cache (the rest never reaches the heap; its readers are Reconcile,
// status.ComputeStatus, the drift checks of package resources and PodToMemcached):
//   - Memcached: all but managed fields and the annotations other than cachev1alpha1.PauseAnnotation
//     (TrimMemcached): the spec is the input, the status the base of the status patch.
//   - Pod (three or more per instance, the bulk of the cached objects; in the pod cache, as a
//     podview.Pod): only TrimPod's fields, those status.ComputeStatus and PodToMemcached read: name,
//     three labels, phase, Ready, pod IP, and the statuses of failing containers only (status.Failing;
//     a pod whose containers run holds none, unless one runs again after an error exit and is not
//     ready yet).
//   - Deployment, StatefulSet, Service, PodDisruptionBudget, NetworkPolicy: of the metadata what the ownership
//     check and drift detection read (trimOwned: identity, owner references, our own labels), and
//     of the spec what their NeedsUpdate compares and their Update writes (trimDeployment,
//     trimStatefulSet, trimService, trimPodDisruptionBudget, trimNetworkPolicy); of the status only what
//     status.ComputeStatus reads (the Deployment's). A Deployment's labels and spec are held encoded as
//     protobuf (cachedSpecAnnotation) and decoded by every reader (RestoreDeployment: the
//     reconciler's read phase). Annotations, labels others add and status
//     fields no one reads are dropped: the merge patch of a drift correction is computed from the
//     cached object and only writes what changed, so the server keeps what the cache does not hold.
//   - ServiceMonitor, PrometheusRule (each only once its CRD is served): all but managed fields. The kinds cannot have
//     a ByObject entry (the cache resolves every entry's kind when it is built, before the CRD may
//     exist), so their informers are not label-filtered either.
//   - Secret: metadata only (the controller watches it with builder.OnlyMetadata), trimmed to
//     name, namespace, UID and resourceVersion (trimSecretMetadata). Every Secret of the watched
//     namespaces is listed, because any of them may be named by a Memcached later, but no Secret's
//     data or annotations reach the cache: the data of the Secrets an instance names is read
//     uncached when its reconcile needs it (the reconciler's secretsHash).
func ManagerOptions(namespaces []string) cache.Options {
	managed := func(transform toolscache.TransformFunc) cache.ByObject {
		return cache.ByObject{Label: resources.ManagedSelector(), Transform: transform}
	}
	return cache.Options{
		DefaultNamespaces: watchnamespace.CacheConfig(namespaces),
		DefaultTransform:  cache.TransformStripManagedFields(),
		ByObject: map[client.Object]cache.ByObject{
			&appsv1.Deployment{}:            managed(trimDeployment),
			&appsv1.StatefulSet{}:           managed(trimStatefulSet),
			&corev1.Service{}:               managed(trimService),
			&policyv1.PodDisruptionBudget{}: managed(trimPodDisruptionBudget),
			&networkingv1.NetworkPolicy{}:   managed(trimNetworkPolicy),
			&cachev1alpha1.Memcached{}:      {Transform: TrimMemcached},
			SecretMetadata():                {Transform: trimSecretMetadata},
		},
	}
}

// ownLabels are the label keys the operator sets (resources.ObjectLabels) and reads back: drift
// detection compares them, PodToMemcached and the pod selector match them.
// They are the labels the API reserves for the operator (TestObjectLabelsAreTheReservedOnes).
var ownLabels = cachev1alpha1.ReservedLabels

// constants maps the strings every cached object of the operator repeats (its label keys and
// values, the values of enums it reads) to the same string held once in the binary, so a decoded
// copy of them costs no heap (see intern). It is only read after init.
var constants = func() map[string]string {
	m := map[string]string{}
	for _, s := range slices.Concat(ownLabels, []string{resources.AppName, resources.ManagedBy, resources.ComponentCache,
		string(corev1.PodRunning), string(corev1.PodPending), string(corev1.PodSucceeded), string(corev1.PodFailed),
		string(corev1.PodUnknown), string(corev1.PodReady), string(corev1.ConditionTrue), string(corev1.ConditionFalse)}) {
		m[s] = s
	}
	return m
}()

// intern returns the constant equal to s when there is one (see constants), else s. The value is
// the same either way; only where its bytes live changes. Why not the standard library's unique
// package: a unique.Handle keeps its copy alive only while a Handle is held, and cached objects hold
// plain strings, so the copies would not be shared.
func intern(s string) string {
	if c, ok := constants[s]; ok {
		return c
	}
	return s
}

// keepLabels returns a new map of the entries of l (labels or annotations) whose key is in keys,
// their keys and values interned (nil when none is left).
func keepLabels(l map[string]string, keys []string) map[string]string {
	var out map[string]string
	for _, k := range keys {
		if v, ok := l[k]; ok {
			if out == nil {
				out = make(map[string]string, len(keys))
			}
			out[intern(k)] = intern(v)
		}
	}
	return out
}

// internLabels returns a copy of l with its keys and values interned (nil for nil): for label maps
// whose every entry is read, such as label selectors.
func internLabels(l map[string]string) map[string]string {
	if l == nil {
		return nil
	}
	out := make(map[string]string, len(l))
	for k, v := range l {
		out[intern(k)] = intern(v)
	}
	return out
}

// trimOwned drops from the metadata of an owned object what no drift check, ownership check or
// patch reads: managed fields, and the labels and annotations that are neither the operator's own
// nor added by the spec (keepOwnAndAdded; the merge patch of a drift correction writes only
// changed keys, so what others added stays on the server). Name, namespace, UID (the delete precondition),
// resourceVersion, generation, owner references (the conflict check) and the deletion timestamp
// are kept.
func trimOwned(m *metav1.ObjectMeta) {
	m.ManagedFields = nil
	m.Labels, m.Annotations = keepOwnAndAdded(m.Labels, m.Annotations, nil)
}

// keepOwnAndAdded returns of labels and annotations the operator's own labels (ownLabels), the
// annotations of ownAnnotations, and what the spec added (the keys the object's
// resources.AddedMetadataAnnotation records, and that record): resources' addedMatches compares
// them and its merge patch removes a key dropped from the spec only if the cached object has it.
func keepOwnAndAdded(labels, annotations map[string]string, ownAnnotations []string) (map[string]string, map[string]string) {
	addedLabels, addedAnnotations := resources.AddedKeys(annotations)
	return keepLabels(labels, slices.Concat(ownLabels, addedLabels)), keepLabels(annotations, slices.Concat(ownAnnotations, addedAnnotations))
}

// cachedSpecAnnotation is the annotation under which the manager's cache holds a Deployment's
// labels and spec, encoded as protobuf (trimDeployment), instead of decoded: they are read only
// when the instance is reconciled (the drift check and its patch). It exists only in the cache:
// RestoreDeployment decodes it back and removes it before the object is compared or patched, so it
// never reaches the API server. Why: the decoded spec of an instance's Deployment (its pod template
// above all) and labels take about 4.8 KiB of heap, their encoding about 1.2 KB
// (BenchmarkCachedObject/Deployment: 6.3 KB per cached Deployment before, 3.0 KB since). The
// Services and PodDisruptionBudgets are kept decoded: encoding theirs saved 160 and 54 bytes each.
const cachedSpecAnnotation = "memcached-operator.cache.internal/spec-protobuf"

// encoded reports whether d is a Deployment the cache has already transformed: it holds
// cachedSpecAnnotation and no spec.selector, which the API server never serves without (apps/v1
// requires it). trimDeployment uses it to be idempotent, as client-go requires of a transform (its
// watch-list hands an informer objects that its temporary store has transformed already), without
// ever taking an annotation of that name set on the server for the cache's own.
func encoded(d *appsv1.Deployment) bool {
	_, ok := d.Annotations[cachedSpecAnnotation]
	return ok && d.Spec.Selector == nil
}

// trimDeployment is the cache transform of Deployments. Kept: the metadata of trimOwned; its labels
// and its spec held encoded under cachedSpecAnnotation (read them with RestoreDeployment), but of
// the pod template's labels and annotations only the operator's own and the spec's
// (keepOwnAndAdded, with resources.OwnTemplateAnnotations) (resources.DeploymentNeedsUpdate compares the spec field by field, and resources.UpdateDeployment
// replaces the whole pod spec, so a field it does not compare must still be known to be cleared by
// the patch); spec.replicas also decoded (status.ComputeStatus reads it); the status counts and
// observedGeneration, and of the conditions only a ReplicaFailure=True or Progressing=False one
// (the only ones status.ComputeStatus reads, for Degraded). It changes the object it is given, as
// controller-runtime's own TransformStripManagedFields does: the informer hands it a freshly
// decoded object. A Deployment it has transformed already is returned as it is. It returns an error
// only when the spec cannot be encoded, which the generated protobuf code never reports for a
// decoded object.
func trimDeployment(obj any) (any, error) {
	d, ok := obj.(*appsv1.Deployment)
	if !ok || encoded(d) {
		return obj, nil
	}
	trimOwned(&d.ObjectMeta)
	t := &d.Spec.Template
	t.Labels, t.Annotations = keepOwnAndAdded(t.Labels, t.Annotations, resources.OwnTemplateAnnotations)
	held := appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Labels: d.Labels}, Spec: d.Spec}
	b, err := held.Marshal()
	if err != nil {
		return nil, fmt.Errorf("failed to encode the spec of Deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	d.Labels = nil
	d.Annotations = map[string]string{cachedSpecAnnotation: string(b)}
	d.Spec = appsv1.DeploymentSpec{Replicas: d.Spec.Replicas}
	var conds []appsv1.DeploymentCondition
	for _, c := range d.Status.Conditions {
		if (c.Type == appsv1.DeploymentReplicaFailure && c.Status == corev1.ConditionTrue) ||
			(c.Type == appsv1.DeploymentProgressing && c.Status == corev1.ConditionFalse) {
			conds = append(conds, c)
		}
	}
	d.Status.Conditions = conds
	return d, nil
}

// RestoreDeployment decodes into d the labels and spec trimDeployment held encoded, and removes the
// encoding. d must be the reader's own copy (the manager's cache returns a deep copy on every
// read). A Deployment read from the API server (no encoding) is left as it is. It returns an error
// wrapping the decoder's when the encoding is not a Deployment's.
func RestoreDeployment(d *appsv1.Deployment) error {
	b, ok := d.Annotations[cachedSpecAnnotation]
	if !ok {
		return nil
	}
	var held appsv1.Deployment
	if err := held.Unmarshal([]byte(b)); err != nil {
		return fmt.Errorf("failed to decode the cached spec of Deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	d.Labels, d.Spec = held.Labels, held.Spec
	delete(d.Annotations, cachedSpecAnnotation)
	if len(d.Annotations) == 0 {
		d.Annotations = nil
	}
	return nil
}

// trimStatefulSet is the cache transform of StatefulSets (spec.serverIdentity Stable): the metadata
// of trimOwned, of the pod template's labels and annotations the operator's own (as
// trimDeployment), the spec otherwise whole (resources.StatefulSetNeedsUpdate compares it and
// resources.UpdateStatefulSet replaces the pod spec), and of the status the counts and
// observedGeneration status.ComputeStatus reads and the update revision the servers of warm
// restarts move to (resources.PlanServerUpdate). Kept decoded: StatefulSets are opt-in, and their
// pod template is the Deployment's size (encoding it as trimDeployment does is the saving to take
// if they become the default).
func trimStatefulSet(obj any) (any, error) {
	s, ok := obj.(*appsv1.StatefulSet)
	if !ok {
		return obj, nil
	}
	trimOwned(&s.ObjectMeta)
	t := &s.Spec.Template
	t.Labels, t.Annotations = keepOwnAndAdded(t.Labels, t.Annotations, resources.OwnTemplateAnnotations)
	s.Status = appsv1.StatefulSetStatus{
		ObservedGeneration: s.Status.ObservedGeneration,
		Replicas:           s.Status.Replicas,
		ReadyReplicas:      s.Status.ReadyReplicas,
		UpdatedReplicas:    s.Status.UpdatedReplicas,
		AvailableReplicas:  s.Status.AvailableReplicas,
		UpdateRevision:     s.Status.UpdateRevision,
	}
	return s, nil
}

// trimService is the cache transform of Services: the metadata of trimOwned, and of the spec the
// selector and ports, all that resources.ServiceNeedsUpdate compares and resources.UpdateService
// writes (the patch leaves every other field to the server). The status is dropped.
func trimService(obj any) (any, error) {
	s, ok := obj.(*corev1.Service)
	if !ok {
		return obj, nil
	}
	trimOwned(&s.ObjectMeta)
	s.Spec = corev1.ServiceSpec{Selector: internLabels(s.Spec.Selector), Ports: s.Spec.Ports}
	s.Status = corev1.ServiceStatus{}
	return s, nil
}

// trimPodDisruptionBudget is the cache transform of PodDisruptionBudgets: the metadata of
// trimOwned, and of the spec the selector, minAvailable and maxUnavailable, all that
// resources.PDBNeedsUpdate compares and resources.UpdatePodDisruptionBudget writes. The status is
// dropped.
func trimPodDisruptionBudget(obj any) (any, error) {
	p, ok := obj.(*policyv1.PodDisruptionBudget)
	if !ok {
		return obj, nil
	}
	trimOwned(&p.ObjectMeta)
	p.Spec = policyv1.PodDisruptionBudgetSpec{Selector: p.Spec.Selector, MinAvailable: p.Spec.MinAvailable, MaxUnavailable: p.Spec.MaxUnavailable}
	if p.Spec.Selector != nil {
		p.Spec.Selector.MatchLabels = internLabels(p.Spec.Selector.MatchLabels)
	}
	p.Status = policyv1.PodDisruptionBudgetStatus{}
	return p, nil
}

// TrimMemcached is the cache transform of Memcacheds: managed fields dropped, and of the
// annotations only cachev1alpha1.PauseAnnotation kept (the pause predicate and paused read it; a
// kubectl last-applied-configuration, a copy of the whole object, is read by no one). The operator
// never writes a Memcached but its status, by a merge patch computed from the cached object, which
// leaves the annotations on the server alone.
func TrimMemcached(obj any) (any, error) {
	if mc, ok := obj.(*cachev1alpha1.Memcached); ok {
		mc.ManagedFields = nil
		mc.Annotations = keepLabels(mc.Annotations, []string{cachev1alpha1.PauseAnnotation})
	}
	return obj, nil
}

// trimNetworkPolicy is the cache transform of NetworkPolicies: the metadata of trimOwned and the
// whole spec (resources.NetworkPolicyNeedsUpdate compares it whole and
// resources.UpdateNetworkPolicy replaces it).
func trimNetworkPolicy(obj any) (any, error) {
	if np, ok := obj.(*networkingv1.NetworkPolicy); ok {
		trimOwned(&np.ObjectMeta)
	}
	return obj, nil
}

// SecretMetadata is the cache key of the Secrets' metadata-only informer.
func SecretMetadata() *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}}
}

// trimSecretMetadata is the cache transform of the Secrets' metadata (the operator watches
// Secrets as metadata only): it keeps name, namespace, UID and resourceVersion, all the watch
// needs to map an event to the Memcacheds that name the Secret. Labels and annotations are
// dropped: kubectl apply's last-applied-configuration annotation would hold the Secret's data.
func trimSecretMetadata(obj any) (any, error) {
	m, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		return obj, nil
	}
	return &metav1.PartialObjectMetadata{
		TypeMeta: m.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion,
			DeletionTimestamp: m.DeletionTimestamp,
		},
	}, nil
}
