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

package resources

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/utils/ptr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"

	"github.com/example/memcached-operator/controllers/internal/fixture"
)

// One list drives apply and delete: every kind the operator owns has its entry, present or absent
// as the spec says, named like the Memcached, in the order of creation.
func TestDesiredState(t *testing.T) {
	stable := func(mc *cachev1alpha1.Memcached) {
		mc.Spec.Size = 3
		mc.Spec.ServerIdentity = cachev1alpha1.ServerIdentityStable
	}
	tests := map[string]struct {
		mutate   func(*cachev1alpha1.Memcached)
		handover Handover
		want     []string // kind, "absent" when the spec turns it off, "optional" for a kind the cluster may not serve; replicas of a workload
	}{
		"defaults": {mutate: func(*cachev1alpha1.Memcached) {}, want: []string{
			"Deployment 1", "StatefulSet absent", "Service", "PodDisruptionBudget", "NetworkPolicy absent", "ServiceMonitor absent optional", "PrometheusRule absent optional"}},
		"everything on": {mutate: func(mc *cachev1alpha1.Memcached) {
			mc.Spec.NetworkPolicy = cachev1alpha1.NetworkPolicySpec{Enabled: true, From: []networkingv1.NetworkPolicyPeer{{}}}
			mc.Spec.Monitoring.Enabled = ptr.To(true)
		}, want: []string{"Deployment 1", "StatefulSet absent", "Service", "PodDisruptionBudget", "NetworkPolicy", "ServiceMonitor optional", "PrometheusRule optional"}},
		"optional ones off": {mutate: func(mc *cachev1alpha1.Memcached) {
			mc.Spec.Service.Enabled = ptr.To(false)
			mc.Spec.PodDisruptionBudget.Enabled = ptr.To(false)
		}, want: []string{"Deployment 1", "StatefulSet absent", "Service absent", "PodDisruptionBudget absent", "NetworkPolicy absent", "ServiceMonitor absent optional", "PrometheusRule absent optional"}},
		"stable identities": {mutate: stable, want: []string{
			"StatefulSet 3", "Deployment absent", "Service", "PodDisruptionBudget", "NetworkPolicy absent", "ServiceMonitor absent optional", "PrometheusRule absent optional"}},
		"moving to stable identities": {mutate: stable, handover: Handover{OldExists: true, OldReplicas: 3, NewReplicas: 2, NewAvailable: 1},
			want: []string{"StatefulSet 2", "Deployment 2", "Service", "PodDisruptionBudget", "NetworkPolicy absent", "ServiceMonitor absent optional", "PrometheusRule absent optional"}},
		"moved to stable identities": {mutate: stable, handover: Handover{OldExists: true, OldReplicas: 1, NewReplicas: 3, NewAvailable: 3},
			want: []string{"StatefulSet 3", "Deployment absent", "Service", "PodDisruptionBudget", "NetworkPolicy absent", "ServiceMonitor absent optional", "PrometheusRule absent optional"}},
		"moving back to a Deployment": {mutate: func(mc *cachev1alpha1.Memcached) { mc.Spec.Size = 3 }, handover: Handover{OldExists: true, OldReplicas: 3, NewAvailable: 0},
			want: []string{"Deployment 1", "StatefulSet 3", "Service", "PodDisruptionBudget", "NetworkPolicy absent", "ServiceMonitor absent optional", "PrometheusRule absent optional"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			mc := fixture.Defaulted("c", tc.mutate)
			var got []string
			for _, d := range DesiredState(mc, Options{DefaultImage: testImage}, Read{Secrets: SecretHashes{All: "h"}, Handover: tc.handover}) {
				s := d.Kind
				switch o := d.Object.(type) {
				case *appsv1.Deployment:
					if !d.Absent {
						s += fmt.Sprintf(" %d", *o.Spec.Replicas)
					}
				case *appsv1.StatefulSet:
					if !d.Absent {
						s += fmt.Sprintf(" %d", *o.Spec.Replicas)
					}
				}
				if d.Absent {
					s += " absent"
					if d.Apply != nil {
						t.Errorf("%s: absent with an apply", d.Kind)
					}
				} else if d.Apply == nil {
					t.Errorf("%s: present without an apply", d.Kind)
				}
				if d.OptionalAPI {
					s += " optional"
				}
				got = append(got, s)
				if d.Object.GetName() != "c" || d.Object.GetNamespace() != "ns" {
					t.Errorf("%s named %s/%s, want ns/c", d.Kind, d.Object.GetNamespace(), d.Object.GetName())
				}
				if k := fmt.Sprintf("%T", d.Object); k != "*v1."+d.Kind {
					t.Errorf("%s entry holds a %s", d.Kind, k)
				}
			}
			fixture.Expect(t, "entries", got, tc.want)
		})
	}
}

// The Deployment's pod template carries the hash of the Secret data whose change must roll the
// pods: all of it, or only what is not TLS when the certificate reloader applies TLS renewals in
// place; none when there is no such data.
func TestDesiredStateSecretHash(t *testing.T) {
	hashes := SecretHashes{All: "all", NotTLS: "auth"}
	reloader := Options{CertReloaderImage: "operator@sha256:0"}
	tests := map[string]struct {
		mc     *cachev1alpha1.Memcached
		opts   Options
		hashes SecretHashes
		want   map[string]string
	}{
		"no Secret":                      {mc: fixture.Defaulted("c"), want: nil},
		"auth, reloader image":           {mc: fixture.Defaulted("c", fixture.WithAuth("u", "")), opts: reloader, hashes: SecretHashes{All: "auth", NotTLS: "auth"}, want: map[string]string{SecretHashAnnotation: "auth"}},
		"tls, no reloader image":         {mc: fixture.Defaulted("c", fixture.WithTLS("t")), hashes: hashes, want: map[string]string{SecretHashAnnotation: "all"}},
		"tls and auth, reloader":         {mc: fixture.Defaulted("c", fixture.WithTLS("t"), fixture.WithAuth("u", "")), opts: reloader, hashes: hashes, want: map[string]string{SecretHashAnnotation: "auth"}},
		"tls only, reloader: no rollout": {mc: fixture.Defaulted("c", fixture.WithTLS("t")), opts: reloader, hashes: SecretHashes{All: "all"}, want: nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dep := DesiredState(tc.mc, tc.opts, Read{Secrets: tc.hashes})[0].Object.(*appsv1.Deployment)
			fixture.Expect(t, "pod template annotations", dep.Spec.Template.Annotations, tc.want)
		})
	}
}
