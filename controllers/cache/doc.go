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

// Package cache is what the operator keeps of the cluster in memory: the manager's cache
// settings (ManagerOptions: namespaces, label selectors, the transforms that trim every kind to
// what its readers need), the Deployment's encoded spec (RestoreDeployment), and the pod cache of
// podview.Pods (NewPodCache, PodCache) with PodToMemcached, which maps a cached pod to its
// instance.
package cache
