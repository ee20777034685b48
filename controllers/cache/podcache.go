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
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/example/memcached-operator/controllers/resources"
	"github.com/example/memcached-operator/internal/podview"
	"github.com/example/memcached-operator/internal/watchnamespace"
)

// NewPodCache returns the cache of the instances' pods, which the manager runs (see PodCache): the
// pods of the given namespaces (all when empty) labelled as managed by the operator
// (resources.ManagedSelector), decoded from protobuf into podview.Pod and trimmed by TrimPod. It
// shares the manager's REST config, HTTP client and REST mapper. Reads return the cached object
// itself, not a copy (UnsafeDisableDeepCopy): its only reader, observe, does not modify them.
//
// Why a second cache: a cache decodes every kind with the one scheme it is given, and in the
// manager's scheme a core/v1 Pod is a corev1.Pod (see package podview for the sizes). The manager's
// cache holds no Pods.
func NewPodCache(mgr manager.Manager, namespaces []string) (cache.Cache, error) {
	c, err := cache.New(mgr.GetConfig(), cache.Options{
		HTTPClient:        mgr.GetHTTPClient(),
		Scheme:            podview.NewScheme(),
		Mapper:            mgr.GetRESTMapper(),
		DefaultNamespaces: watchnamespace.CacheConfig(namespaces),
		ByObject: map[client.Object]cache.ByObject{
			&podview.Pod{}: {Label: resources.ManagedSelector(), Transform: TrimPod, UnsafeDisableDeepCopy: ptr.To(true)},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("failed to create the pod cache: %w", err)
	}
	return c, nil
}

// PodCache runs a cache as one of the manager's caches: started before the controllers, whether
// or not this replica leads (as the manager's own cache is), and stopped with the manager. The
// manager puts a runnable in that group when it has a GetCache method, as a cluster.Cluster has.
type PodCache struct{ cache.Cache }

// GetCache returns the cache.
func (p PodCache) GetCache() cache.Cache { return p.Cache }

// PodToMemcached maps a memcached pod to the Memcached named by its instance label, so status
// follows pod changes (creation, readiness, deletion) without polling.
func PodToMemcached(_ context.Context, obj client.Object) []reconcile.Request {
	l := obj.GetLabels()
	if l[resources.LabelName] != resources.AppName || l[resources.LabelManagedBy] != resources.ManagedBy || l[resources.LabelInstance] == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: l[resources.LabelInstance]}}}
}
