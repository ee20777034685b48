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

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/resources"
)

// floorResult is a floor's figures: a raw client doing what one subject's work requires.
type floorResult struct {
	// Seconds from the first create until every instance's pods are ready and its status written.
	Seconds float64 `json:"seconds"`
	Load    string  `json:"load"`
	// CPU is the CPU time of each process from the first create until then (and 3 s more, as for a
	// subject's converge).
	CPU cpuSeconds `json:"cpuSeconds"`
	// Objects names what the floor created per instance, e.g. "Memcached, Deployment".
	Objects string `json:"objects"`
	// Profile is the API server's CPU profile over the floor's window (-apiserver-profile).
	Profile *apiserverProfile `json:"apiserverProfile,omitempty"`
}

// subjectObjects returns what a subject creates for its instance mc (as subject.newInstance built
// it, with spec.size size) and owns, as that operator builds it: for this project's kind
// (*Memcached) its Deployment, Service and PodDisruptionBudget (resources.DesiredObjects, the
// builders the operator runs), for the operator-sdk sample's (unstructured) its one Deployment
// (sampleDeployment); each with mc as its controller.
func subjectObjects(mc client.Object, size int, scheme *runtime.Scheme) ([]client.Object, error) {
	var objs []client.Object
	switch m := mc.(type) {
	case *cachev1alpha1.Memcached: // this project's kind (subject.newInstance)
		objs = resources.DesiredObjects(m, builderOptions)
	default:
		objs = []client.Object{sampleDeployment(mc, size)}
	}
	for _, o := range objs {
		if err := controllerutil.SetControllerReference(mc, o, scheme); err != nil {
			return nil, fmt.Errorf("failed to set the owner of %T %s: %w", o, mc.GetName(), err)
		}
	}
	return objs, nil
}

// sampleDeployment is the Deployment the operator-sdk v1.42.3 Memcached sample builds for an
// instance (its deploymentForMemcached and labelsForMemcached, in the project hack/tools/build-sample.sh
// generates): named after the instance, the same three labels for every instance, a restricted
// security context, memcached -m=64 -o modern -v. Written out here because the sample is a
// generated program of its own, not a library the benchmark can import.
func sampleDeployment(mc client.Object, size int) *appsv1.Deployment {
	ls := map[string]string{
		"app.kubernetes.io/name":       sampleAppName,
		"app.kubernetes.io/version":    memcachedImage[strings.LastIndex(memcachedImage, ":")+1:],
		"app.kubernetes.io/managed-by": "MemcachedController",
	}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: mc.GetName(), Namespace: mc.GetNamespace()},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(int32(size)),
			Selector: &metav1.LabelSelector{MatchLabels: ls},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: ls},
				Spec: corev1.PodSpec{
					SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
					Containers: []corev1.Container{{
						Image: memcachedImage, Name: "memcached", ImagePullPolicy: corev1.PullIfNotPresent,
						SecurityContext: &corev1.SecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To(int64(1001)),
							AllowPrivilegeEscalation: ptr.To(false), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
						Ports:   []corev1.ContainerPort{{ContainerPort: sampleContainerPort, Name: "memcached"}},
						Command: []string{"memcached", "-m=64", "-o", "modern", "-v"},
					}},
				},
			},
		},
	}
}

// readyStatus returns the one status write a floor makes for an instance whose pods are ready: a
// merge patch that makes the instance Available as s's kind reports it (subject.available),
// written once. For this project's kind it also carries the counts and pod names a user reads in
// its status; the sample's status has conditions only.
func readyStatus(s *subject, generation int64, pods []string, now time.Time) ([]byte, error) {
	cond := map[string]any{"type": cachev1alpha1.ConditionAvailable, "status": "True", "reason": "Available",
		"message": fmt.Sprintf("%d of %d servers ready", len(pods), len(pods)), "lastTransitionTime": now.UTC().Format(time.RFC3339)}
	st := map[string]any{"conditions": []any{cond}}
	if s.Kind != kindSample {
		cond["observedGeneration"] = generation
		st["replicas"], st["readyReplicas"], st["nodes"], st["observedGeneration"] = len(pods), len(pods), pods, generation
	}
	return json.Marshal(map[string]any{"status": st})
}

// floor measures subject s's floor: in namespaces floor-<name>-*, W workers create N of s's
// Memcacheds and, for each, the objects s owns (ownedObjects), owned by it; when an instance's pods
// are ready, one status patch makes it Available as s reports it. Timed until every instance is
// done, as a subject's converge is; then its namespaces are deleted. s's CRD must be installed.
func (b *bench) floor(ctx context.Context, s *subject) (*floorResult, error) {
	prefix := "floor-" + s.Name
	objects := "Memcached, Deployment, Service, PodDisruptionBudget"
	if s.Kind == kindSample {
		objects = "Memcached, Deployment"
	}
	step("floor of %s: %d instances (%s, then a status write when ready) by %d workers", s.Name, b.cfg.n, objects, b.cfg.workers)
	if err := b.createNamespaces(ctx, prefix, b.cfg.namespaces); err != nil {
		return nil, err
	}
	if err := b.createVariantSecrets(ctx, prefix); err != nil {
		return nil, err
	}
	load0 := loadavg()
	cpu0, err := cpuNow(b.cfg.clusterDir, nil)
	if err != nil {
		return nil, err
	}
	prof := b.startProfile(ctx, s.Name+"-floor")
	start := time.Now()
	var mu sync.Mutex
	generations := map[int]int64{}
	err = b.parallel(ctx, b.cfg.n, func(ctx context.Context, i int) error {
		mc := s.newInstance(b.instance(prefix, i), b.cfg.size, b.instanceVariant(i))
		if err := b.c.Create(ctx, mc); err != nil {
			return fmt.Errorf("failed to create Memcached %s: %w", client.ObjectKeyFromObject(mc), err)
		}
		mu.Lock()
		generations[i] = mc.GetGeneration()
		mu.Unlock()
		objs, err := subjectObjects(mc, b.cfg.size, b.c.Scheme())
		if err != nil {
			return err
		}
		for _, o := range objs {
			if err := b.c.Create(ctx, o); err != nil {
				return fmt.Errorf("failed to create %T %s: %w", o, client.ObjectKeyFromObject(o), err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	created := time.Since(start)
	// The status writes, W at a time, as instances' pods turn ready.
	ready := make(chan int, b.cfg.n)
	errs := make(chan error, b.cfg.workers)
	var wg sync.WaitGroup
	for range b.cfg.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ready {
				key := b.instance(prefix, i)
				patch, err := readyStatus(s, generations[i], b.podNames(ctx, key), time.Now())
				if err == nil {
					mc := s.newInstance(key, b.cfg.size, variantPlain) // only its key is used
					err = b.c.Status().Patch(ctx, mc, client.RawPatch(types.MergePatchType, patch))
				}
				if err != nil {
					select {
					case errs <- fmt.Errorf("failed to write the status of %s: %w", key, err):
					default:
					}
				}
			}
		}()
	}
	_, sec, _, err := b.convergence(ctx, prefix, start, s, func(i int) { ready <- i })
	close(ready)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	select {
	case err := <-errs:
		return nil, err
	default:
	}
	time.Sleep(3 * time.Second)
	cpu1, err := cpuNow(b.cfg.clusterDir, nil)
	if err != nil {
		return nil, err
	}
	f := &floorResult{Seconds: sec, Load: load0 + " → " + loadavg(), CPU: cpu1.since(cpu0), Objects: objects}
	if f.Profile, err = prof.wait(); err != nil {
		return nil, err
	}
	step("floor of %s: created in %v, all done after %.1f s (load %s); CPU seconds: %s", s.Name, created.Round(time.Millisecond), sec, f.Load, f.CPU)
	step("floor of %s: deleting its namespaces", s.Name)
	return f, b.deleteNamespaces(ctx, prefix, b.cfg.namespaces)
}

// podNames returns the names of the instance key's pods in the benchmark's cache, sorted.
func (b *bench) podNames(ctx context.Context, key client.ObjectKey) []string {
	pods := &corev1.PodList{}
	if err := b.cache.List(ctx, pods, client.InNamespace(key.Namespace), client.MatchingFields{podInstanceField: key.Name}); err != nil {
		return nil
	}
	names := make([]string, 0, len(pods.Items))
	for i := range pods.Items {
		names = append(names, pods.Items[i].Name)
	}
	return names
}
