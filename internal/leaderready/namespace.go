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

package leaderready

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// MayCreateLeases tells whether the operator may create Leases in a namespace.
type MayCreateLeases func(ctx context.Context, namespace string) (bool, error)

// LeaseNamespace returns the namespace of the leader-election Lease: own (the operator's pod's
// namespace) when the operator may create Leases there, which every install but one grants; else
// the one namespace it watches, when it watches exactly one other namespace and may create Leases
// there. That one is OLM v1's SingleNamespace install (operator-controller v1.2.0): it grants the
// CSV's namespaced permissions, the Lease rules with them, in the watched namespace only, where
// OLM v0 grants them in both. Otherwise own, and the readiness check reports the refusal.
//
// The choice is a property of the install, the same for every replica and every version of the
// operator installed the same way, so two replicas never elect in two namespaces.
func LeaseNamespace(ctx context.Context, own string, watched []string, may MayCreateLeases) (string, error) {
	ok, err := may(ctx, own)
	if err != nil {
		return "", fmt.Errorf("failed to check the operator may create Leases in %s: %w", own, err)
	}
	if ok || len(watched) != 1 || watched[0] == own {
		return own, nil
	}
	if ok, err = may(ctx, watched[0]); err != nil {
		return "", fmt.Errorf("failed to check the operator may create Leases in %s: %w", watched[0], err)
	}
	if ok {
		return watched[0], nil
	}
	return own, nil
}

// SelfSubjectAccessReview returns a MayCreateLeases that asks the API server
// (SelfSubjectAccessReview, which every authenticated user may create).
func SelfSubjectAccessReview(cs kubernetes.Interface) MayCreateLeases {
	return func(ctx context.Context, namespace string) (bool, error) {
		r, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
			Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: namespace, Verb: "create", Group: "coordination.k8s.io", Resource: "leases"}},
		}, metav1.CreateOptions{})
		if err != nil {
			return false, err
		}
		return r.Status.Allowed, nil
	}
}
