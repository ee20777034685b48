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
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// networkPolicyMetricsPort is the container port name the NetworkPolicy admits metricsFrom to: the
// memcached_exporter sidecar's port, when the pod template has one.
const networkPolicyMetricsPort = "metrics"

// networkPolicyEnabled reports whether mc wants its NetworkPolicy (spec.networkPolicy.enabled,
// default false).
func networkPolicyEnabled(mc *cachev1alpha1.Memcached) bool {
	return mc.Spec.NetworkPolicy.Enabled
}

// templateHasPort reports whether a container of ps declares a port named name.
func templateHasPort(ps *corev1.PodSpec, name string) bool {
	for i := range ps.Containers {
		for _, p := range ps.Containers[i].Ports {
			if p.Name == name {
				return true
			}
		}
	}
	return false
}

// networkPolicyPeers returns a deep copy of peers (the client writes into the object built from it).
func networkPolicyPeers(peers []networkingv1.NetworkPolicyPeer) []networkingv1.NetworkPolicyPeer {
	if peers == nil {
		return nil
	}
	out := make([]networkingv1.NetworkPolicyPeer, len(peers))
	for i := range peers {
		peers[i].DeepCopyInto(&out[i])
	}
	return out
}

// DesiredNetworkPolicy builds the NetworkPolicy named like mc over its pods (policyTypes Ingress,
// so every ingress it does not admit is denied; egress is left alone). It admits TCP to the named
// port "memcached" from spec.networkPolicy.from and, only when podSpec (the desired pod template)
// has a container port named "metrics" and spec.networkPolicy.metricsFrom is not empty, TCP to
// "metrics" from those peers. Ports are named, so the policy follows the container ports. An
// ingress rule with no peers would admit everyone, so none is ever built (the CRD requires a peer
// in from when enabled; an empty metricsFrom means the metrics port admits no one).
func DesiredNetworkPolicy(mc *cachev1alpha1.Memcached, podSpec *corev1.PodSpec) *networkingv1.NetworkPolicy {
	spec := mc.Spec.NetworkPolicy
	np := &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{
			Name:      DeploymentName(mc),
			Namespace: mc.Namespace,
			Labels:    ObjectLabels(mc),
		},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: selectorLabels(mc)},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
		},
	}
	rule := func(port string, from []networkingv1.NetworkPolicyPeer) networkingv1.NetworkPolicyIngressRule {
		return networkingv1.NetworkPolicyIngressRule{
			Ports: []networkingv1.NetworkPolicyPort{{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromString(port))}},
			From:  networkPolicyPeers(from),
		}
	}
	if len(spec.From) > 0 {
		np.Spec.Ingress = append(np.Spec.Ingress, rule(portName, spec.From))
	}
	if len(spec.MetricsFrom) > 0 && templateHasPort(podSpec, networkPolicyMetricsPort) {
		np.Spec.Ingress = append(np.Spec.Ingress, rule(networkPolicyMetricsPort, spec.MetricsFrom))
	}
	return np
}

// NetworkPolicyNeedsUpdate reports whether live differs from desired in what the operator owns: our
// labels and the whole spec (pod selector, policy types, ingress rules, no egress rules). Nil and
// empty lists and maps compare equal, so the API server's round trip is no drift.
func NetworkPolicyNeedsUpdate(live, desired *networkingv1.NetworkPolicy) bool {
	return !labelsContain(live.Labels, desired.Labels) ||
		!equality.Semantic.DeepEqual(live.Spec, desired.Spec)
}

// UpdateNetworkPolicy copies the fields the operator owns from desired into live.
func UpdateNetworkPolicy(live, desired *networkingv1.NetworkPolicy) {
	live.Labels = MergeLabels(live.Labels, desired.Labels)
	live.Spec = desired.Spec
}
