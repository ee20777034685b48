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
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/cache"
	"github.com/example/memcached-operator/controllers/resources"
	"github.com/example/memcached-operator/internal/podview"
)

// readPhase is the only phase that reads the cluster, and it runs before any write, so everything
// a reconcile decides is decided on one picture: the Secrets' data hashes (or why they are
// unusable), both workloads and the handover between them, the Service and NetworkPolicy when
// nothing is applied, the pods, and the StatefulSet controller's event about a pod it cannot
// create. Reads come from the manager's cache, except the Secrets' data and those events (the
// uncached API reader: neither is cached). A failed read is recorded in s.obs.Err; a read that a
// write depends on (the Secrets, the workloads, the NetworkPolicy) also leaves that write out.
func (r *MemcachedReconciler) readPhase(ctx context.Context, s *scope) error {
	mc := s.mc
	if s.obs.Invalid == nil {
		// Read before anything is written: a Secret that is missing or unusable leaves every owned
		// object as it is (nothing half-rolled), like an invalid spec.
		hashes, err := secretsHash(ctx, r.APIReader, mc)
		var se *resources.SecretError
		switch {
		case errors.As(err, &se):
			s.obs.Invalid = se
		case err != nil:
			s.obs.Err = err
		}
		s.read.Secrets = hashes
	}
	s.obs.Applied = s.obs.Invalid == nil && s.obs.Err == nil

	dep, sts, err := r.readWorkloads(ctx, mc)
	s.read.Deployment, s.read.StatefulSet = dep, sts
	s.obs.Deployment, s.obs.StatefulSet = controlled(dep, mc), controlled(sts, mc)
	s.read.Handover = resources.NewHandover(mc, s.obs.Deployment, s.obs.StatefulSet)
	s.obs.Err = errors.Join(s.obs.Err, err)
	s.apply = s.obs.Applied && err == nil
	if s.apply && rolloutPending(s.obs.StatefulSet) {
		rollout, err := readServerRollout(ctx, r.APIReader, s.obs.StatefulSet)
		s.rollout = rollout
		s.obs.Err = errors.Join(s.obs.Err, err)
	}

	if !s.obs.Applied {
		// Nothing is applied, so nothing tells these but a read.
		key := client.ObjectKey{Namespace: mc.Namespace, Name: resources.ServiceName(mc)}
		svc := &corev1.Service{}
		if err := r.Get(ctx, key, svc); err == nil {
			s.obs.ServiceOwned = metav1.IsControlledBy(svc, mc)
		} else if !apierrors.IsNotFound(err) {
			s.obs.Err = errors.Join(s.obs.Err, fmt.Errorf("failed to get Service %s: %w", key, err))
		}
	}
	if s.obs.Invalid != nil && err == nil {
		key := client.ObjectKey{Namespace: mc.Namespace, Name: resources.DeploymentName(mc)}
		np := &networkingv1.NetworkPolicy{}
		if err := r.Get(ctx, key, np); err == nil {
			s.hasNetworkPolicy = metav1.IsControlledBy(np, mc)
			s.failClosed = true
		} else if apierrors.IsNotFound(err) {
			s.failClosed = true
		} else {
			s.obs.Err = errors.Join(s.obs.Err, fmt.Errorf("failed to get NetworkPolicy %s: %w", key, err))
		}
	}

	if r.pods == nil {
		s.obs.Err = errors.Join(s.obs.Err, errors.New("failed to list Pods: the pod cache is not set up (SetupWithManager)"))
		return nil
	}
	pods := &podview.PodList{}
	if err := r.pods.List(ctx, pods, client.InNamespace(mc.Namespace), client.MatchingLabelsSelector{Selector: resources.PodSelector(mc)}); err != nil {
		s.obs.Err = errors.Join(s.obs.Err, fmt.Errorf("failed to list Pods of Memcached %s: %w", s.key, err))
	}
	s.obs.Pods = pods.Items
	if sts := s.obs.StatefulSet; sts != nil {
		if s.obs.MissingPod = lowestMissingPod(sts, s.obs.Pods); s.obs.MissingPod != "" {
			since := r.missing.since(s.key, sts, s.obs.MissingPod, time.Now())
			reported := ""
			if d := meta.FindStatusCondition(mc.Status.Conditions, cachev1alpha1.ConditionDegraded); d != nil && d.Reason == cachev1alpha1.ReasonReplicaFailure {
				reported = d.Message
			}
			msg, err := podCreateFailure(ctx, r.APIReader, sts, s.obs.MissingPod, since, reported)
			s.obs.PodCreateFailure = msg
			s.obs.Err = errors.Join(s.obs.Err, err)
		}
	}
	if s.obs.MissingPod == "" {
		r.missing.forget(s.key)
	}
	return nil
}

// controlled returns obj when mc controls it, else nil.
func controlled[T interface {
	*appsv1.Deployment | *appsv1.StatefulSet
	client.Object
}](obj T, mc *cachev1alpha1.Memcached) T {
	if obj == nil || !metav1.IsControlledBy(obj, mc) {
		return nil
	}
	return obj
}

// readWorkloads returns mc's Deployment and StatefulSet from the cache, whoever controls them,
// each nil when it does not exist or could not be read (the error says which). The Deployment is
// decoded from the cache's form (cache.RestoreDeployment), once: apply compares with it.
func (r *MemcachedReconciler) readWorkloads(ctx context.Context, mc *cachev1alpha1.Memcached) (*appsv1.Deployment, *appsv1.StatefulSet, error) {
	var errs error
	dep := &appsv1.Deployment{}
	key := client.ObjectKey{Namespace: mc.Namespace, Name: resources.DeploymentName(mc)}
	if err := r.Get(ctx, key, dep); err != nil {
		if !apierrors.IsNotFound(err) {
			errs = fmt.Errorf("failed to get Deployment %s: %w", key, err)
		}
		dep = nil
	} else if err := cache.RestoreDeployment(dep); err != nil {
		errs, dep = err, nil
	}
	sts := &appsv1.StatefulSet{}
	key.Name = resources.StatefulSetName(mc)
	if err := r.Get(ctx, key, sts); err != nil {
		if !apierrors.IsNotFound(err) {
			errs = errors.Join(errs, fmt.Errorf("failed to get StatefulSet %s: %w", key, err))
		}
		sts = nil
	}
	return dep, sts, errs
}

// secretsHash reads the Secrets mc's pods use and returns the keyed hashes of the data of the keys
// they use (resources.SecretHashes), empty when they use none. It returns a
// *resources.SecretError when a Secret is missing or a key is absent or unusable
// (resources.SecretDataHash), and an error wrapping the API failure otherwise.
//
// Secrets are read with reader, the uncached API reader: the manager caches only the Secrets'
// metadata (cache.ManagerOptions, SetupWithManager), so their data is held in memory only during
// this call, and only for the Secrets an instance names.
func secretsHash(ctx context.Context, reader client.Reader, mc *cachev1alpha1.Memcached) (resources.SecretHashes, error) {
	names := resources.ReferencedSecrets(mc)
	if len(names) == 0 {
		return resources.SecretHashes{}, nil
	}
	secrets := map[string]*corev1.Secret{}
	for _, name := range names {
		s := &corev1.Secret{}
		key := types.NamespacedName{Namespace: mc.Namespace, Name: name}
		if err := reader.Get(ctx, key, s); err != nil {
			if apierrors.IsNotFound(err) {
				return resources.SecretHashes{}, &resources.SecretError{Reason: cachev1alpha1.ReasonSecretNotFound,
					Message: fmt.Sprintf("Secret %s not found (%s)", name, resources.UsedFor(mc, name))}
			}
			return resources.SecretHashes{}, fmt.Errorf("failed to get Secret %s: %w", key, err)
		}
		secrets[name] = s
	}
	return resources.SecretDataHash(mc, secrets)
}

// podCreateFailure returns why sts cannot create pod, missing since since: the message of the
// newest FailedCreate event the StatefulSet controller recorded for that pod ("Create Pod <pod>
// in StatefulSet <sts> failed error: ...") that is current (currentPodCreateFailure), cut to
// podCreateFailureMax bytes, or "" when there is none. reported is the message of the instance's
// stored Degraded condition. It reads the API server directly (reader), listing only the
// FailedCreate events of sts (field selector on involvedObject.uid and reason): the manager
// caches no events, and this runs only while a pod is missing.
// Why the lowest missing ordinal: the controller retries every missing pod, in parallel, and the
// message of one fixed pod stays the same from retry to retry, so the condition is written once.
func podCreateFailure(ctx context.Context, reader client.Reader, sts *appsv1.StatefulSet, pod string, since time.Time, reported string) (string, error) {
	events := &corev1.EventList{}
	sel := fields.SelectorFromSet(fields.Set{"involvedObject.uid": string(sts.UID), "reason": "FailedCreate"})
	if err := reader.List(ctx, events, client.InNamespace(sts.Namespace), client.MatchingFieldsSelector{Selector: sel}); err != nil {
		return "", fmt.Errorf("failed to list the events of StatefulSet %s/%s: %w", sts.Namespace, sts.Name, err)
	}
	return currentPodCreateFailure(events.Items, sts.Name, pod, since, reported), nil
}
