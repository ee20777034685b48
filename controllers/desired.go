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
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// DesiredObjects returns the objects the operator creates for mc with opts, in the order it
// creates them: the Deployment, then the headless Service, the PodDisruptionBudget and the
// NetworkPolicy when the spec enables them. They carry no owner reference (the reconciler adds it
// when it creates them).
// The scale benchmark's raw-client floor (test/bench) creates exactly these, so the floor does the
// same work the operator must do.
func DesiredObjects(mc *cachev1alpha1.Memcached, opts Options) []client.Object {
	dep := desiredDeployment(mc, opts)
	objs := []client.Object{dep}
	if serviceEnabled(mc) {
		objs = append(objs, desiredService(mc))
	}
	if pdbEnabled(mc) {
		objs = append(objs, desiredPodDisruptionBudget(mc))
	}
	if networkPolicyEnabled(mc) {
		objs = append(objs, desiredNetworkPolicy(mc, &dep.Spec.Template.Spec))
	}
	return objs
}
