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

package utils

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// NewMemcached returns Memcached ns/name of size servers with the API's defaults for everything
// else, after each mutate has changed it.
func NewMemcached(ns, name string, size int32, mutate ...func(*cachev1alpha1.Memcached)) *cachev1alpha1.Memcached {
	mc := &cachev1alpha1.Memcached{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       cachev1alpha1.MemcachedSpec{Size: size},
	}
	for _, m := range mutate {
		m(mc)
	}
	return mc
}

// GetMemcached reads the Memcached key through c.
func GetMemcached(ctx context.Context, c client.Client, key client.ObjectKey) (*cachev1alpha1.Memcached, error) {
	mc := &cachev1alpha1.Memcached{}
	return mc, c.Get(ctx, key, mc)
}

// InstancePods lists through c the pods of the Memcached key by the operator's selector labels
// (app.kubernetes.io/name=memcached, app.kubernetes.io/instance=<name>), terminating ones included.
func InstancePods(ctx context.Context, c client.Client, key client.ObjectKey) ([]corev1.Pod, error) {
	pods := &corev1.PodList{}
	err := c.List(ctx, pods, client.InNamespace(key.Namespace), client.MatchingLabels{
		"app.kubernetes.io/name":     "memcached",
		"app.kubernetes.io/instance": key.Name,
	})
	return pods.Items, err
}

// CheckCondition returns an error unless mc has condition condType with status want whose
// observedGeneration is mc's metadata.generation; the error says what differs.
func CheckCondition(mc *cachev1alpha1.Memcached, condType string, want metav1.ConditionStatus) error {
	c := meta.FindStatusCondition(mc.Status.Conditions, condType)
	switch {
	case c == nil:
		return fmt.Errorf("condition %s missing (conditions %+v)", condType, mc.Status.Conditions)
	case c.Status != want:
		return fmt.Errorf("condition %s is %s, want %s (reason %s: %s)", condType, c.Status, want, c.Reason, c.Message)
	case c.ObservedGeneration != mc.Generation:
		return fmt.Errorf("condition %s has observedGeneration %d, metadata.generation is %d", condType, c.ObservedGeneration, mc.Generation)
	}
	return nil
}

// TestContext returns a context cancelled when t ends.
func TestContext(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx
}

// PodUIDs maps each pod's name to its UID: equal maps before and after a change mean the same pods
// (none replaced).
func PodUIDs(pods []corev1.Pod) map[string]types.UID {
	m := map[string]types.UID{}
	for _, p := range pods {
		m[p.Name] = p.UID
	}
	return m
}
