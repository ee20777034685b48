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
	"maps"

	"k8s.io/apimachinery/pkg/labels"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// Recommended labels (https://kubernetes.io/docs/concepts/overview/working-with-objects/common-labels/)
// put on every object the operator creates for a Memcached.
const (
	LabelName      = "app.kubernetes.io/name"
	LabelInstance  = "app.kubernetes.io/instance"
	LabelManagedBy = "app.kubernetes.io/managed-by"
	LabelComponent = "app.kubernetes.io/component"
	LabelPartOf    = "app.kubernetes.io/part-of"

	// AppName is the value of LabelName and LabelPartOf.
	AppName = "memcached"
	// ManagedBy is the value of LabelManagedBy: the operator's cache only sees objects carrying it.
	ManagedBy = "memcached-operator"
	// ComponentCache is the value of LabelComponent on the memcached servers and their Service.
	ComponentCache = "cache"
)

// selectorLabels are the labels that select an instance's pods. They hold only values that never
// change for an instance (no image tag, no version) because a Deployment's selector is immutable.
func selectorLabels(mc *cachev1alpha1.Memcached) map[string]string {
	return map[string]string{LabelName: AppName, LabelInstance: mc.Name}
}

// ObjectLabels are the labels of every object built for mc: the selector labels plus
// managed-by, component and part-of.
func ObjectLabels(mc *cachev1alpha1.Memcached) map[string]string {
	l := selectorLabels(mc)
	l[LabelManagedBy] = ManagedBy
	l[LabelComponent] = ComponentCache
	l[LabelPartOf] = AppName
	return l
}

// PodSelector is selectorLabels as a labels.Selector, for listing an instance's pods.
func PodSelector(mc *cachev1alpha1.Memcached) labels.Selector {
	return labels.SelectorFromSet(selectorLabels(mc))
}

// ManagedSelector selects every object the operator manages (all instances). The manager's cache is
// restricted to it for the owned kinds and Pods, so unrelated Deployments and Pods are not cached.
func ManagedSelector() labels.Selector {
	return labels.SelectorFromSet(labels.Set{LabelManagedBy: ManagedBy, LabelName: AppName})
}

// MergeLabels returns a copy of base with the entries of overlay set on top.
func MergeLabels(base, overlay map[string]string) map[string]string {
	out := maps.Clone(base)
	if out == nil {
		out = make(map[string]string, len(overlay))
	}
	maps.Copy(out, overlay)
	return out
}

// labelsContain reports whether every entry of want is in have.
func labelsContain(have, want map[string]string) bool {
	return labels.SelectorFromSet(want).Matches(labels.Set(have))
}
