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
	"maps"
	"slices"
)

func init() {
	maps.Copy(ruleCases, networkPolicyRuleCases)
	// The peers' selectors and ipBlock are core types (networking.k8s.io/v1 NetworkPolicyPeer) that
	// the API server validates again when it validates the NetworkPolicy.
	for _, list := range []string{"from", "metricsFrom"} {
		for _, f := range []string{"podSelector", "namespaceSelector", "ipBlock"} {
			coreSubtrees = append(coreSubtrees, ".spec.networkPolicy."+list+".items."+f)
		}
	}
}

// peerMap is a NetworkPolicyPeer selecting pods labelled role=client, as JSON.
func peerMap() map[string]any {
	return map[string]any{"podSelector": map[string]any{"matchLabels": map[string]any{"role": "client"}}}
}

// netpolCfg is a spec with only spec.networkPolicy set.
func netpolCfg(enabled bool, from, metricsFrom []any) map[string]any {
	np := map[string]any{"enabled": enabled}
	if from != nil {
		np["from"] = from
	}
	if metricsFrom != nil {
		np["metricsFrom"] = metricsFrom
	}
	return map[string]any{"networkPolicy": np}
}

// networkPolicyRuleCases are the TestGoValidationMatchesAdmission inputs of spec.networkPolicy
// (merged into ruleCases).
var networkPolicyRuleCases = map[string]ruleCase{
	"netpol enabled without peers":  {rule: ".spec.networkPolicy rule#0", spec: netpolCfg(true, nil, nil), field: "spec.networkPolicy.from"},
	"netpol enabled, empty from":    {rule: ".spec.networkPolicy rule#0", spec: netpolCfg(true, []any{}, []any{peerMap()}), field: "spec.networkPolicy.from"},
	"netpol disabled without peers": {spec: netpolCfg(false, nil, nil)},
	"netpol disabled with peers":    {spec: netpolCfg(false, []any{peerMap()}, nil)},
	"netpol enabled, one peer":      {spec: netpolCfg(true, []any{peerMap()}, nil)},
	"netpol every pod of the namespace, monitoring namespace": {spec: netpolCfg(true,
		[]any{map[string]any{"podSelector": map[string]any{}}},
		[]any{map[string]any{"namespaceSelector": map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": "monitoring"}}}})},
	"netpol pod and namespace selector": {spec: netpolCfg(true, []any{map[string]any{"podSelector": map[string]any{}, "namespaceSelector": map[string]any{}}}, nil)},
	"netpol ipBlock":                    {spec: netpolCfg(true, []any{map[string]any{"ipBlock": map[string]any{"cidr": "10.0.0.0/8"}}}, nil)},
	"netpol 32 peers":                   {spec: netpolCfg(true, slices.Repeat([]any{peerMap()}, 32), slices.Repeat([]any{peerMap()}, 32))},
	"netpol 33 peers":                   {rule: ".spec.networkPolicy.from maxItems", spec: netpolCfg(true, slices.Repeat([]any{peerMap()}, 33), nil), field: "spec.networkPolicy.from"},
	"netpol 33 metrics peers":           {rule: ".spec.networkPolicy.metricsFrom maxItems", spec: netpolCfg(true, []any{peerMap()}, slices.Repeat([]any{peerMap()}, 33)), field: "spec.networkPolicy.metricsFrom"},
	"netpol empty peer":                 {rule: ".spec.networkPolicy.from.items rule#0", spec: netpolCfg(true, []any{peerMap(), map[string]any{}}, nil), field: "spec.networkPolicy.from[1]"},
	"netpol empty peer, disabled":       {rule: ".spec.networkPolicy.from.items rule#0", spec: netpolCfg(false, []any{map[string]any{}}, nil), field: "spec.networkPolicy.from[0]"},
	"netpol ipBlock with a selector": {rule: ".spec.networkPolicy.from.items rule#1", spec: netpolCfg(true,
		[]any{map[string]any{"ipBlock": map[string]any{"cidr": "10.0.0.0/8"}, "podSelector": map[string]any{}}}, nil), field: "spec.networkPolicy.from[0]"},
	"netpol empty metrics peer": {rule: ".spec.networkPolicy.metricsFrom.items rule#0", spec: netpolCfg(true, []any{peerMap()}, []any{map[string]any{}}), field: "spec.networkPolicy.metricsFrom[0]"},
	"netpol metrics ipBlock with a selector": {rule: ".spec.networkPolicy.metricsFrom.items rule#1", spec: netpolCfg(true, []any{peerMap()},
		[]any{map[string]any{"ipBlock": map[string]any{"cidr": "10.0.0.0/8"}, "namespaceSelector": map[string]any{}}}), field: "spec.networkPolicy.metricsFrom[0]"},
}
