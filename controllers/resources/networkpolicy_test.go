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
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"

	"github.com/example/memcached-operator/controllers/internal/fixture"
)

// netpol returns a mutation enabling spec.networkPolicy with the given peers.
func netpol(from, metricsFrom []networkingv1.NetworkPolicyPeer) func(*cachev1alpha1.Memcached) {
	return func(mc *cachev1alpha1.Memcached) {
		mc.Spec.NetworkPolicy = cachev1alpha1.NetworkPolicySpec{Enabled: true, From: from, MetricsFrom: metricsFrom}
	}
}

// withMetricsPort returns the memcached pod spec of mc with a sidecar declaring a "metrics" port,
// as the exporter sidecar's pod template has.
func withMetricsPort(mc *cachev1alpha1.Memcached) *corev1.PodSpec {
	ps := DesiredDeployment(mc, Options{DefaultImage: "img:1"}).Spec.Template.Spec.DeepCopy()
	ps.Containers = append(ps.Containers, corev1.Container{Name: "exporter", Ports: []corev1.ContainerPort{{Name: "metrics", ContainerPort: 9150}}})
	return ps
}

// ingressRule is the rule admitting TCP to a named port from peers.
func ingressRule(port string, from ...networkingv1.NetworkPolicyPeer) networkingv1.NetworkPolicyIngressRule {
	return networkingv1.NetworkPolicyIngressRule{
		Ports: []networkingv1.NetworkPolicyPort{{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromString(port))}},
		From:  from,
	}
}

// The NetworkPolicy selects the instance's pods, denies every other ingress, admits the memcached
// port from spec.networkPolicy.from and the metrics port from metricsFrom only when the desired pod
// template has a port named "metrics".
func TestDesiredNetworkPolicy(t *testing.T) {
	tests := map[string]struct {
		mutate       func(*cachev1alpha1.Memcached)
		metricsPort  bool
		wantIngress  []networkingv1.NetworkPolicyIngressRule
		wantDisabled bool
	}{
		"default: disabled": {mutate: func(*cachev1alpha1.Memcached) {}, wantDisabled: true},
		"clients only": {
			mutate:      netpol([]networkingv1.NetworkPolicyPeer{fixture.ClientPeer}, nil),
			wantIngress: []networkingv1.NetworkPolicyIngressRule{ingressRule("memcached", fixture.ClientPeer)},
		},
		"several peers, ipBlock included": {
			mutate:      netpol([]networkingv1.NetworkPolicyPeer{fixture.ClientPeer, fixture.MonitoringPeer, fixture.CIDRPeer}, nil),
			wantIngress: []networkingv1.NetworkPolicyIngressRule{ingressRule("memcached", fixture.ClientPeer, fixture.MonitoringPeer, fixture.CIDRPeer)},
		},
		"metricsFrom without a metrics port: no metrics rule": {
			mutate:      netpol([]networkingv1.NetworkPolicyPeer{fixture.ClientPeer}, []networkingv1.NetworkPolicyPeer{fixture.MonitoringPeer}),
			wantIngress: []networkingv1.NetworkPolicyIngressRule{ingressRule("memcached", fixture.ClientPeer)},
		},
		"metricsFrom with a metrics port": {
			mutate:      netpol([]networkingv1.NetworkPolicyPeer{fixture.ClientPeer}, []networkingv1.NetworkPolicyPeer{fixture.MonitoringPeer}),
			metricsPort: true,
			wantIngress: []networkingv1.NetworkPolicyIngressRule{ingressRule("memcached", fixture.ClientPeer), ingressRule("metrics", fixture.MonitoringPeer)},
		},
		"metrics port, empty metricsFrom: the port admits no one": {
			mutate:      netpol([]networkingv1.NetworkPolicyPeer{fixture.ClientPeer}, nil),
			metricsPort: true,
			wantIngress: []networkingv1.NetworkPolicyIngressRule{ingressRule("memcached", fixture.ClientPeer)},
		},
		// Admission refuses this (a peer is required when enabled); stored under an older CRD it
		// must still not become a rule without peers, which would admit everyone.
		"no peers: no rule, every ingress denied": {mutate: netpol(nil, nil), wantIngress: nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			mc := fixture.Defaulted("cache", tc.mutate)
			if got := networkPolicyEnabled(mc); got == tc.wantDisabled {
				t.Fatalf("networkPolicyEnabled() = %v", got)
			}
			ps := &DesiredDeployment(mc, Options{DefaultImage: "img:1"}).Spec.Template.Spec
			if tc.metricsPort {
				ps = withMetricsPort(mc)
			}
			np := DesiredNetworkPolicy(mc, ps)
			fixture.Expect(t, "name", np.Name, "cache")
			fixture.Expect(t, "namespace", np.Namespace, "ns")
			fixture.Expect(t, "labels", np.Labels, ObjectLabels(mc))
			fixture.Expect(t, "podSelector", np.Spec.PodSelector, metav1.LabelSelector{MatchLabels: selectorLabels(mc)})
			fixture.Expect(t, "policyTypes", np.Spec.PolicyTypes, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress})
			fixture.Expect(t, "egress", np.Spec.Egress, []networkingv1.NetworkPolicyEgressRule(nil))
			fixture.Expect(t, "ingress", np.Spec.Ingress, tc.wantIngress)
			for _, r := range np.Spec.Ingress {
				if len(r.From) == 0 {
					t.Errorf("an ingress rule without peers admits every source: %+v", r)
				}
			}
		})
	}
}

// The policy's pod selector is the Deployment's: it selects exactly the instance's pods.
func TestNetworkPolicySelectsTheInstancePods(t *testing.T) {
	mc := fixture.Defaulted("cache", netpol([]networkingv1.NetworkPolicyPeer{fixture.ClientPeer}, nil))
	dep := DesiredDeployment(mc, Options{})
	np := DesiredNetworkPolicy(mc, &dep.Spec.Template.Spec)
	fixture.Expect(t, "podSelector", np.Spec.PodSelector, *dep.Spec.Selector)
	if !templateHasPort(&dep.Spec.Template.Spec, portName) {
		t.Fatalf("the memcached container has no port named %q: the policy's rule would admit nothing", portName)
	}
}

func TestNetworkPolicyNeedsUpdate(t *testing.T) {
	mc := fixture.Defaulted("cache", netpol([]networkingv1.NetworkPolicyPeer{fixture.ClientPeer}, []networkingv1.NetworkPolicyPeer{fixture.MonitoringPeer}))
	desired := DesiredNetworkPolicy(mc, withMetricsPort(mc))
	tests := map[string]struct {
		mutate func(np *networkingv1.NetworkPolicy)
		want   bool
	}{
		"as built, with a foreign label and annotation": {mutate: func(np *networkingv1.NetworkPolicy) {
			np.Labels["extra"] = "kept"
			np.Annotations = map[string]string{"note": "kept"}
		}, want: false},
		"empty selector maps as the API server returns them": {mutate: func(np *networkingv1.NetworkPolicy) {
			np.Spec.Ingress[0].From[0].PodSelector.MatchExpressions = []metav1.LabelSelectorRequirement{}
		}, want: false},
		"peer changed": {mutate: func(np *networkingv1.NetworkPolicy) {
			np.Spec.Ingress[0].From[0].PodSelector.MatchLabels["role"] = "anyone"
		}, want: true},
		"peers removed (would admit everyone)": {mutate: func(np *networkingv1.NetworkPolicy) { np.Spec.Ingress[0].From = nil }, want: true},
		"rule added by hand": {mutate: func(np *networkingv1.NetworkPolicy) {
			np.Spec.Ingress = append(np.Spec.Ingress, networkingv1.NetworkPolicyIngressRule{})
		}, want: true},
		"metrics rule removed": {mutate: func(np *networkingv1.NetworkPolicy) { np.Spec.Ingress = np.Spec.Ingress[:1] }, want: true},
		"port changed": {mutate: func(np *networkingv1.NetworkPolicy) {
			np.Spec.Ingress[0].Ports[0].Port = ptr.To(intstr.FromInt32(11211))
		}, want: true},
		"egress policy added": {mutate: func(np *networkingv1.NetworkPolicy) {
			np.Spec.PolicyTypes = append(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
		}, want: true},
		"pod selector widened": {mutate: func(np *networkingv1.NetworkPolicy) { np.Spec.PodSelector = metav1.LabelSelector{} }, want: true},
		"our label removed":    {mutate: func(np *networkingv1.NetworkPolicy) { delete(np.Labels, LabelManagedBy) }, want: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			live := desired.DeepCopy()
			tc.mutate(live)
			if got := NetworkPolicyNeedsUpdate(live, desired); got != tc.want {
				t.Fatalf("networkPolicyNeedsUpdate() = %v, want %v", got, tc.want)
			}
			UpdateNetworkPolicy(live, desired)
			if NetworkPolicyNeedsUpdate(live, desired) {
				t.Fatal("still needs an update after updateNetworkPolicy")
			}
		})
	}
}

// Writing into the built NetworkPolicy (as the client does) never reaches the Memcached's peers.
func TestNetworkPolicyDoesNotShareSpecMemory(t *testing.T) {
	mc := fixture.Defaulted("cache", netpol([]networkingv1.NetworkPolicyPeer{fixture.ClientPeer, fixture.CIDRPeer}, []networkingv1.NetworkPolicyPeer{fixture.MonitoringPeer}))
	mc = mc.DeepCopy() // the package-level peers stay untouched whatever happens
	before := mc.DeepCopy()
	np := DesiredNetworkPolicy(mc, withMetricsPort(mc))
	np.Spec.Ingress[0].From[0].PodSelector.MatchLabels["role"] = "written"
	np.Spec.Ingress[0].From[1].IPBlock.Except[0] = "written"
	np.Spec.Ingress[1].From[0].NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"] = "written"
	np.Spec.PodSelector.MatchLabels[LabelInstance] = "written"
	if !equality.Semantic.DeepEqual(before, mc) {
		t.Fatalf("writing into the built NetworkPolicy changed the Memcached:\nbefore %+v\nafter  %+v", before.Spec.NetworkPolicy, mc.Spec.NetworkPolicy)
	}
}

// DesiredObjects (what the scale benchmark's floor creates) includes the NetworkPolicy when enabled.
func TestDesiredObjectsIncludeNetworkPolicy(t *testing.T) {
	kinds := func(mc *cachev1alpha1.Memcached) (n int, np bool) {
		for _, o := range DesiredObjects(mc, Options{}) {
			if _, ok := o.(*networkingv1.NetworkPolicy); ok {
				np = true
			}
			n++
		}
		return n, np
	}
	if n, np := kinds(fixture.Defaulted("cache")); n != 3 || np {
		t.Errorf("default: %d objects, NetworkPolicy %v; want 3, false", n, np)
	}
	if n, np := kinds(fixture.Defaulted("cache", netpol([]networkingv1.NetworkPolicyPeer{fixture.ClientPeer}, nil))); n != 4 || !np {
		t.Errorf("enabled: %d objects, NetworkPolicy %v; want 4, true", n, np)
	}
}
