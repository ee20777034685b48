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
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/apply"
	"github.com/example/memcached-operator/internal/podview"

	"github.com/example/memcached-operator/controllers/internal/fixture"
	"github.com/example/memcached-operator/controllers/resources"
	"github.com/example/memcached-operator/controllers/status"
)

// fullPod returns a pod of instance "c" as the API server serves it: spec, container statuses and
// every condition, the Ready one not first.
func fullPod(name, ip string, ready bool, mutate ...func(*corev1.Pod)) corev1.Pod {
	mc := &cachev1alpha1.Memcached{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns", UID: "mc-uid"}, Spec: cachev1alpha1.MemcachedSpec{Size: 3}}
	ready0 := corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionFalse}
	if ready {
		ready0.Status = corev1.ConditionTrue
	}
	p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip}}
	p.Namespace, p.UID, p.ResourceVersion = "ns", types.UID("uid-"+name), "42"
	p.Labels = resources.MergeLabels(resources.ObjectLabels(mc), map[string]string{"pod-template-hash": "abc"})
	p.Annotations = map[string]string{"note": "dropped"}
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "c-abc", UID: "rs-uid", Controller: ptr.To(true)}}
	p.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kube-controller-manager"}}
	p.Spec = resources.DesiredDeployment(mc, resources.Options{DefaultImage: "memcached:1.6"}).Spec.Template.Spec
	p.Spec.NodeName = "node-1"
	p.Status.HostIP = "127.0.0.1"
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "memcached", Ready: ready, Image: "memcached:1.6"}}
	ready0.Reason, ready0.Message = "ContainersNotReady", "containers with unready status: [memcached]"
	p.Status.Conditions = []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
		{Type: corev1.PodInitialized, Status: corev1.ConditionTrue},
		{Type: corev1.ContainersReady, Status: ready0.Status},
		ready0,
	}
	for _, m := range mutate {
		m(&p)
	}
	return p
}

// decodePod returns p as the pod cache decodes it: p encoded by the Kubernetes protobuf serializer
// (the encoding the cache asks the API server for) and decoded by the podview scheme's codecs.
func decodePod(t testing.TB, p *corev1.Pod) *podview.Pod {
	t.Helper()
	p = p.DeepCopy()
	p.APIVersion, p.Kind = "v1", "Pod"
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(clientgoscheme.Scheme, clientgoscheme.Scheme).Encode(p, &buf); err != nil {
		t.Fatalf("encode Pod: %v", err)
	}
	obj, _, err := serializer.NewCodecFactory(podview.NewScheme()).UniversalDeserializer().Decode(buf.Bytes(), nil, nil)
	if err != nil {
		t.Fatalf("decode Pod: %v", err)
	}
	out, ok := obj.(*podview.Pod)
	if !ok {
		t.Fatalf("decoded a %T, want a *podview.Pod", obj)
	}
	return out
}

// The pod cache keeps of a Pod only what the operator reads: the status computed from trimmed
// pods equals the status computed from the pods as decoded, PodToMemcached maps them alike, and
// the annotations, managed fields, owner references, the other conditions and the statuses of
// containers that do not fail are gone.
func TestTrimPodKeepsWhatStatusNeeds(t *testing.T) {
	mc := &cachev1alpha1.Memcached{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns", Generation: 1}, Spec: cachev1alpha1.MemcachedSpec{Size: 3}}
	dep := fixture.Deployment(3, 3, 3, 3, true)
	now := metav1.NewTime(time.Unix(1_700_000_000, 0))
	tests := map[string][]corev1.Pod{
		"all ready":     {fullPod("c-1", "10.244.0.1", true), fullPod("c-2", "10.244.0.2", true), fullPod("c-3", "10.244.0.3", true)},
		"one not ready": {fullPod("c-1", "10.244.0.1", true), fullPod("c-2", "10.244.0.2", false), fullPod("c-3", "", false)},
		"terminating and failed": {
			fullPod("c-1", "10.244.0.1", true),
			fullPod("c-2", "10.244.0.2", true, func(p *corev1.Pod) { p.DeletionTimestamp = &now }),
			fullPod("c-3", "10.244.0.3", false, func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed }),
			fullPod("c-4", "", false, func(p *corev1.Pod) { p.Status.Phase = corev1.PodPending; p.Status.Conditions = nil }),
		},
		"one crash-looping": {
			fullPod("c-1", "10.244.0.1", true),
			fullPod("c-2", "10.244.0.2", false, func(p *corev1.Pod) {
				p.Status.ContainerStatuses[0].RestartCount = 4
				p.Status.ContainerStatuses[0].State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 1m20s"}}
				p.Status.ContainerStatuses[0].LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 71, Reason: "Error", Message: "failed to set rlimit for open files", StartedAt: now, FinishedAt: now}}
			}),
		},
		// An init container injected at admission that crash-loops, and a pod no node can take.
		"init container failing and unschedulable": {
			fullPod("c-1", "10.244.0.1", true),
			fullPod("c-2", "", false, func(p *corev1.Pod) {
				p.Status.Phase = corev1.PodPending
				p.Status.InitContainerStatuses = []corev1.ContainerStatus{
					{Name: "done", Ready: true, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed"}}},
					{Name: "istio-init", RestartCount: 2, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 20s"}},
						LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", Message: "iptables: permission denied"}}},
				}
			}),
			fullPod("c-3", "", false, func(p *corev1.Pod) {
				p.Status.Phase = corev1.PodPending
				p.Status.ContainerStatuses = nil
				p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
					Message: "0/3 nodes are available: 3 Insufficient memory.", LastTransitionTime: now}}
			}),
		},
		// A step of a crash loop (or an old crash and a missed readiness probe): kept, since it holds
		// a ContainerFailing already reported.
		"running again after a crash": {
			fullPod("c-1", "10.244.0.1", true),
			fullPod("c-2", "10.244.0.2", false, func(p *corev1.Pod) {
				p.Status.ContainerStatuses[0].RestartCount = 5
				p.Status.ContainerStatuses[0].State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}
				p.Status.ContainerStatuses[0].LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 71, Reason: "Error", StartedAt: now, FinishedAt: now}}
			}),
		},
	}
	for name, served := range tests {
		t.Run(name, func(t *testing.T) {
			var decoded, trimmed []podview.Pod
			for i := range served {
				d := decodePod(t, &served[i])
				decoded = append(decoded, *d)
				out, err := TrimPod(d.DeepCopy())
				if err != nil {
					t.Fatalf("trimPod: %v", err)
				}
				p := out.(*podview.Pod)
				healthy := func(c podview.ContainerStatus) bool { return !status.Failing(&c) }
				keptHealthy := slices.ContainsFunc(p.Status.ContainerStatuses, healthy) || slices.ContainsFunc(p.Status.InitContainerStatuses, healthy)
				otherCondition := slices.ContainsFunc(p.Status.Conditions, func(c podview.PodCondition) bool {
					return !(c.Type == corev1.PodReady && c.Reason == "" && c.Message == "") && !status.Unschedulable(&c)
				})
				if p.Annotations != nil || p.ManagedFields != nil || otherCondition || keptHealthy {
					t.Errorf("trimPod kept more than status needs: %+v", p)
				}
				if got, want := PodToMemcached(t.Context(), p), PodToMemcached(t.Context(), &served[i]); !equality.Semantic.DeepEqual(got, want) {
					t.Errorf("podToMemcached(trimmed) = %v, want %v", got, want)
				}
				if p.Name != served[i].Name || p.Namespace != served[i].Namespace || p.ResourceVersion != served[i].ResourceVersion {
					t.Errorf("trimPod dropped name, namespace or resourceVersion: %+v", p.ObjectMeta)
				}
				if !resources.PodSelector(mc).Matches(labels.Set(p.Labels)) || !resources.ManagedSelector().Matches(labels.Set(p.Labels)) {
					t.Errorf("trimmed labels %v no longer match the instance's pod selector or the cache's selector", p.Labels)
				}
				if p.UID != "" || p.OwnerReferences != nil || len(p.Labels) != 3 {
					t.Errorf("trimPod kept UID, owner references or labels no one reads: %+v", p.ObjectMeta)
				}
				// client-go may hand the transform an object it already transformed (the initial
				// list at a restart did): transforming again changes nothing.
				again, err := TrimPod(p.DeepCopy())
				if err != nil {
					t.Fatalf("trimPod again: %v", err)
				}
				if !equality.Semantic.DeepEqual(again, p) {
					t.Errorf("trimming a trimmed pod changed it:\n%+v\nwant:\n%+v", again, p)
				}
				trimmed = append(trimmed, *p)
			}
			if (name == "one crash-looping" || name == "running again after a crash") && len(trimmed[1].Status.ContainerStatuses) != 1 {
				t.Errorf("trimPod dropped the failing container's status: %+v", trimmed[1].Status)
			}
			want := status.ComputeStatus(mc, status.Observed{Deployment: dep, Pods: decoded, ServiceOwned: true}, now)
			got := status.ComputeStatus(mc, status.Observed{Deployment: dep, Pods: trimmed, ServiceOwned: true}, now)
			if !equality.Semantic.DeepEqual(got, want) {
				t.Errorf("status from trimmed pods:\n%+v\nwant (from the pods as decoded):\n%+v", got, want)
			}
		})
	}
}

// A tombstone (the informer's DeletedFinalStateUnknown) passes the transforms unchanged.
func TestCacheTransformsPassTombstones(t *testing.T) {
	tomb := cache.DeletedFinalStateUnknown{Key: "ns/c-1"}
	for name, transform := range map[string]func(any) (any, error){
		"trimPod": TrimPod, "trimDeployment": trimDeployment, "trimService": trimService,
		"trimPodDisruptionBudget": trimPodDisruptionBudget, "trimNetworkPolicy": trimNetworkPolicy, "trimMemcached": TrimMemcached,
	} {
		if out, err := transform(tomb); err != nil || out != tomb {
			t.Errorf("%s(tombstone) = %v, %v; want it unchanged", name, out, err)
		}
	}
}

// served* return the objects of an instance as the API server serves them (server defaults, owner
// reference, managed fields, annotations and labels others added, status): the input of the cache
// transforms.

func servedMeta(mc *cachev1alpha1.Memcached, own map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: resources.DeploymentName(mc), Namespace: mc.Namespace, UID: "0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6",
		ResourceVersion: "123456", Generation: 2, CreationTimestamp: metav1.NewTime(time.Unix(1_700_000_000, 0)),
		Labels:      resources.MergeLabels(own, map[string]string{"team": "web"}),
		Annotations: map[string]string{"kubectl.kubernetes.io/last-applied-configuration": `{"spec":{}}`},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: cachev1alpha1.GroupVersion.String(), Kind: "Memcached", Name: mc.Name,
			UID: mc.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "memcached-operator", Operation: metav1.ManagedFieldsOperationUpdate,
			APIVersion: "v1", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{".":{}}}}`)}}}}
}

func servedDeployment(mc *cachev1alpha1.Memcached, opts resources.Options) *appsv1.Deployment {
	d := fixture.ServerDefaulted(resources.DesiredDeployment(mc, opts))
	d.ObjectMeta = servedMeta(mc, d.Labels)
	d.Annotations["deployment.kubernetes.io/revision"] = "1"
	d.Spec.Template.Labels["pod-template-hash"] = "7d9f8b6c5d"
	now := metav1.NewTime(time.Unix(1_700_000_100, 0))
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 3,
		Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, LastUpdateTime: now, LastTransitionTime: now,
				Reason: "MinimumReplicasAvailable", Message: "Deployment has minimum availability."},
			{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, LastUpdateTime: now, LastTransitionTime: now,
				Reason: "NewReplicaSetAvailable", Message: `ReplicaSet "c-7d9f8b6c5d" has successfully progressed.`},
		}}
	return d
}

func servedService(mc *cachev1alpha1.Memcached) *corev1.Service {
	s := resources.DesiredService(mc)
	s.ObjectMeta = servedMeta(mc, s.Labels)
	s.Spec.ClusterIPs = []string{corev1.ClusterIPNone}
	s.Spec.Type = corev1.ServiceTypeClusterIP
	s.Spec.SessionAffinity = corev1.ServiceAffinityNone
	s.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
	s.Spec.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicySingleStack)
	s.Spec.InternalTrafficPolicy = ptr.To(corev1.ServiceInternalTrafficPolicyCluster)
	return s
}

func servedPodDisruptionBudget(mc *cachev1alpha1.Memcached) *policyv1.PodDisruptionBudget {
	p := resources.DesiredPodDisruptionBudget(mc)
	p.ObjectMeta = servedMeta(mc, p.Labels)
	p.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: 1, CurrentHealthy: 3, DesiredHealthy: 2, ExpectedPods: 3,
		Conditions: []metav1.Condition{{Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionTrue, ObservedGeneration: 1,
			LastTransitionTime: metav1.NewTime(time.Unix(1_700_000_100, 0)), Reason: policyv1.SufficientPodsReason}}}
	return p
}

func servedNetworkPolicy(mc *cachev1alpha1.Memcached) *networkingv1.NetworkPolicy {
	np := resources.DesiredNetworkPolicy(mc, &resources.DesiredDeployment(mc, resources.Options{}).Spec.Template.Spec)
	np.ObjectMeta = servedMeta(mc, np.Labels)
	return np
}

// restored returns d, a Deployment as the cache holds it, as apply reads it (RestoreDeployment),
// after checking that the cache holds its labels and spec encoded and that transforming it again
// changes nothing (client-go requires a transform to be idempotent).
func restored(t *testing.T, d *appsv1.Deployment) *appsv1.Deployment {
	t.Helper()
	if d.Labels != nil || len(d.Annotations) != 1 || d.Annotations[cachedSpecAnnotation] == "" {
		t.Fatalf("cached Deployment: labels %v, annotations %v; want no labels and only the encoded spec", d.Labels, d.Annotations)
	}
	if again := mustTrim(t, trimDeployment, d); !equality.Semantic.DeepEqual(again, d) {
		t.Fatalf("transforming a cached Deployment again changed it:\n%+v\nwant:\n%+v", again, d)
	}
	if err := RestoreDeployment(d); err != nil {
		t.Fatalf("restoreDeployment: %v", err)
	}
	return d
}

// mustTrim runs transform on a copy of obj and returns the result as obj's type.
func mustTrim[T client.Object](t *testing.T, transform func(any) (any, error), obj T) T {
	t.Helper()
	out, err := transform(obj.DeepCopyObject())
	if err != nil {
		t.Fatalf("transform: %v", err)
	}
	return out.(T)
}

// checkTrimmedMeta fails when the trimmed metadata lost what the ownership check, the delete
// precondition or drift detection read, or kept what they do not.
func checkTrimmedMeta(t *testing.T, mc *cachev1alpha1.Memcached, served, trimmed client.Object) {
	t.Helper()
	if !metav1.IsControlledBy(trimmed, mc) || trimmed.GetUID() != served.GetUID() || trimmed.GetResourceVersion() != served.GetResourceVersion() ||
		trimmed.GetName() != served.GetName() || trimmed.GetNamespace() != served.GetNamespace() || trimmed.GetGeneration() != served.GetGeneration() {
		t.Errorf("trimmed metadata lost the owner, UID, resourceVersion, name or generation: %+v", trimmed)
	}
	own := map[string]string{}
	for _, k := range ownLabels {
		if v, ok := served.GetLabels()[k]; ok {
			own[k] = v
		}
	}
	if trimmed.GetAnnotations() != nil || trimmed.GetManagedFields() != nil || !equality.Semantic.DeepEqual(trimmed.GetLabels(), own) {
		t.Errorf("trimmed metadata: labels %v (want only ours), annotations %v, managed fields %v",
			trimmed.GetLabels(), trimmed.GetAnnotations(), trimmed.GetManagedFields())
	}
}

// checkTrimmedPatch fails when the merge patch of a drift correction computed from the trimmed
// object (as apply does) would not carry the correction, or would touch what the cache dropped:
// the labels and annotations others added.
func checkTrimmedPatch[T client.Object](t *testing.T, trimmed, desired T, needsUpdate func(live, desired T) bool, update func(live, desired T)) {
	t.Helper()
	base := trimmed.DeepCopyObject().(client.Object)
	update(trimmed, desired)
	if needsUpdate(trimmed, desired) {
		t.Errorf("still drifted after the update")
	}
	patch, err := client.MergeFrom(base).Data(trimmed)
	if err != nil {
		t.Fatalf("patch: %v", err)
	}
	if p := string(patch); p == "{}" || strings.Contains(p, "team") || strings.Contains(p, "last-applied") ||
		strings.Contains(p, "revision") || strings.Contains(p, "restartedAt") {
		t.Errorf("patch of the correction %s: empty, or touches labels or annotations the operator does not own", p)
	}
}

// Each owned kind keeps in the cache what drift detection and the ownership check read: a trimmed
// object the operator wrote is not drift, a trimmed object someone changed is, and its
// correction patches only what changed.
func TestTrimOwnedKeepsWhatDriftNeeds(t *testing.T) {
	mc := fixture.Defaulted("c", fixture.Tuned, func(mc *cachev1alpha1.Memcached) {
		mc.UID = "mc-uid"
		mc.Spec.Size = 3
		mc.Spec.NodeSelector = map[string]string{"pool": "cache"}
		mc.Spec.NetworkPolicy = cachev1alpha1.NetworkPolicySpec{Enabled: true,
			From: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"role": "client"}}}}}
	})
	opts := resources.Options{DefaultImage: "memcached:1.6"}

	t.Run("Deployment", func(t *testing.T) {
		desired := resources.DesiredDeployment(mc, opts)
		resources.SetSecretHash(&desired.Spec.Template, "hash-1")
		drifts := map[string]func(*appsv1.Deployment){
			"none":               func(*appsv1.Deployment) {},
			"replicas":           func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](5) },
			"our label":          func(d *appsv1.Deployment) { d.Labels[resources.LabelInstance] = "other" },
			"template label":     func(d *appsv1.Deployment) { delete(d.Spec.Template.Labels, resources.LabelManagedBy) },
			"secret hash":        func(d *appsv1.Deployment) { d.Spec.Template.Annotations[resources.SecretHashAnnotation] = "old" },
			"strategy":           func(d *appsv1.Deployment) { d.Spec.Strategy.RollingUpdate = nil },
			"image":              func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "memcached:1.5" },
			"resources":          func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Resources.Limits = nil },
			"node selector":      func(d *appsv1.Deployment) { d.Spec.Template.Spec.NodeSelector = nil },
			"affinity":           func(d *appsv1.Deployment) { d.Spec.Template.Spec.Affinity = nil },
			"probe":              func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].ReadinessProbe.PeriodSeconds = 1 },
			"pod security":       func(d *appsv1.Deployment) { d.Spec.Template.Spec.SecurityContext.RunAsUser = ptr.To[int64](0) },
			"container security": func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].SecurityContext.Capabilities = nil },
			"sidecar": func(d *appsv1.Deployment) {
				d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, corev1.Container{Name: "x"})
			},
			"termination grace":      func(d *appsv1.Deployment) { d.Spec.Template.Spec.TerminationGracePeriodSeconds = ptr.To[int64](1) },
			"automount token":        func(d *appsv1.Deployment) { d.Spec.Template.Spec.AutomountServiceAccountToken = ptr.To(true) },
			"min ready seconds":      func(d *appsv1.Deployment) { d.Spec.MinReadySeconds = 9 },
			"tolerations added":      func(d *appsv1.Deployment) { d.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Key: "k"}} },
			"priority class changed": func(d *appsv1.Deployment) { d.Spec.Template.Spec.PriorityClassName = "low" },
		}
		for name, drift := range drifts {
			t.Run(name, func(t *testing.T) {
				served := servedDeployment(mc, opts)
				resources.SetSecretHash(&served.Spec.Template, "hash-1")
				drift(served)
				trimmed := restored(t, mustTrim(t, trimDeployment, served))
				checkTrimmedMeta(t, mc, served, trimmed)
				want := resources.DeploymentNeedsUpdate(served, desired)
				if got := resources.DeploymentNeedsUpdate(trimmed, desired); got != want || want != (name != "none") {
					t.Fatalf("deploymentNeedsUpdate(trimmed) = %v, on the served object %v", got, want)
				}
				if want {
					checkTrimmedPatch(t, trimmed, desired, resources.DeploymentNeedsUpdate, resources.UpdateDeployment)
				}
			})
		}
	})

	t.Run("Deployment status", func(t *testing.T) {
		now := metav1.NewTime(time.Unix(1_700_000_000, 0))
		for name, conds := range map[string][]appsv1.DeploymentCondition{
			"replica failure":   {{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue, Message: "quota exceeded"}},
			"progress deadline": {{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Message: "deadline exceeded"}},
			"healthy":           nil,
		} {
			t.Run(name, func(t *testing.T) {
				served := servedDeployment(mc, opts)
				served.Status.Conditions = append(served.Status.Conditions, conds...)
				trimmed := mustTrim(t, trimDeployment, served)
				if !equality.Semantic.DeepEqual(trimmed.Status.Conditions, conds) {
					t.Errorf("trimmed conditions %+v, want only %+v", trimmed.Status.Conditions, conds)
				}
				want := status.ComputeStatus(mc, status.Observed{Deployment: served, ServiceOwned: true}, now)
				got := status.ComputeStatus(mc, status.Observed{Deployment: trimmed, ServiceOwned: true}, now)
				if !equality.Semantic.DeepEqual(got, want) {
					t.Errorf("status from the trimmed Deployment:\n%+v\nwant:\n%+v", got, want)
				}
			})
		}
	})

	t.Run("Deployment spec held encoded", func(t *testing.T) {
		served := servedDeployment(mc, opts)
		served.Spec.Template.Annotations = map[string]string{resources.SecretHashAnnotation: "hash-1", "kubectl.kubernetes.io/restartedAt": "now"}
		served.Spec.Template.Labels["team"] = "a"
		trimmed := mustTrim(t, trimDeployment, served)
		// In the cache: no decoded spec but spec.replicas, which status.ComputeStatus reads.
		if want := (appsv1.DeploymentSpec{Replicas: served.Spec.Replicas}); !equality.Semantic.DeepEqual(trimmed.Spec, want) {
			t.Fatalf("cached Deployment: spec %+v; want only replicas", trimmed.Spec)
		}
		cached := trimmed.DeepCopy()
		// Read back: the served spec, but the template's labels and annotations that are not ours.
		want := served.Spec.DeepCopy()
		want.Template.Labels = keepLabels(want.Template.Labels, ownLabels)
		delete(want.Template.Annotations, "kubectl.kubernetes.io/restartedAt")
		got := restored(t, trimmed)
		if !equality.Semantic.DeepEqual(got.Spec, *want) || got.Annotations != nil {
			t.Errorf("restored spec:\n%+v\nwant:\n%+v\n(annotations %v, want none)", got.Spec, *want, got.Annotations)
		}
		// A Deployment read from the API server has no encoded spec and is left alone.
		fresh := servedDeployment(mc, opts)
		if got := fresh.DeepCopy(); RestoreDeployment(got) != nil || !equality.Semantic.DeepEqual(got, fresh) {
			t.Errorf("restoreDeployment changed a Deployment that has no encoded spec")
		}
		// An annotation of that name set on the server is not taken for the cache's own: the
		// object is trimmed and encoded like any other.
		// (Also when it is served without managed fields, which a client can strip.)
		for _, managedFields := range []bool{true, false} {
			forged := served.DeepCopy()
			forged.Annotations[cachedSpecAnnotation] = "forged"
			if !managedFields {
				forged.ManagedFields = nil
			}
			if got := mustTrim(t, trimDeployment, forged); !equality.Semantic.DeepEqual(got, cached) {
				t.Errorf("a served Deployment with the cache's annotation set (managed fields %v):\n%+v\nwant it trimmed as any other:\n%+v", managedFields, got, cached)
			}
		}
		broken := cached.DeepCopy()
		broken.Annotations = map[string]string{cachedSpecAnnotation: "\xff\xff"}
		if err := RestoreDeployment(broken); err == nil || !strings.Contains(err.Error(), "failed to decode the cached spec of Deployment") {
			t.Errorf("restoreDeployment of a corrupt encoding: %v, want a decode error naming the Deployment", err)
		}
	})

	t.Run("Service", func(t *testing.T) {
		desired := resources.DesiredService(mc)
		for name, drift := range map[string]func(*corev1.Service){
			"none":      func(*corev1.Service) {},
			"selector":  func(s *corev1.Service) { s.Spec.Selector = map[string]string{"a": "b"} },
			"port":      func(s *corev1.Service) { s.Spec.Ports[0].Port = 1 },
			"our label": func(s *corev1.Service) { delete(s.Labels, resources.LabelPartOf) },
		} {
			t.Run(name, func(t *testing.T) {
				served := servedService(mc)
				drift(served)
				trimmed := mustTrim(t, trimService, served)
				checkTrimmedMeta(t, mc, served, trimmed)
				if !equality.Semantic.DeepEqual(trimmed.Spec, corev1.ServiceSpec{Selector: served.Spec.Selector, Ports: served.Spec.Ports}) {
					t.Errorf("trimmed spec %+v, want only the selector and ports", trimmed.Spec)
				}
				want := resources.ServiceNeedsUpdate(served, desired)
				if got := resources.ServiceNeedsUpdate(trimmed, desired); got != want || want != (name != "none") {
					t.Fatalf("serviceNeedsUpdate(trimmed) = %v, on the served object %v", got, want)
				}
				if want {
					checkTrimmedPatch(t, trimmed, desired, resources.ServiceNeedsUpdate, resources.UpdateService)
				}
			})
		}
	})

	t.Run("PodDisruptionBudget", func(t *testing.T) {
		desired := resources.DesiredPodDisruptionBudget(mc)
		for name, drift := range map[string]func(*policyv1.PodDisruptionBudget){
			"none":            func(*policyv1.PodDisruptionBudget) {},
			"selector":        func(p *policyv1.PodDisruptionBudget) { p.Spec.Selector = &metav1.LabelSelector{} },
			"max unavailable": func(p *policyv1.PodDisruptionBudget) { p.Spec.MaxUnavailable = ptr.To(intstr.FromInt32(3)) },
			"min available":   func(p *policyv1.PodDisruptionBudget) { p.Spec.MinAvailable = ptr.To(intstr.FromString("50%")) },
			"our label":       func(p *policyv1.PodDisruptionBudget) { p.Labels[resources.LabelName] = "redis" },
		} {
			t.Run(name, func(t *testing.T) {
				served := servedPodDisruptionBudget(mc)
				drift(served)
				trimmed := mustTrim(t, trimPodDisruptionBudget, served)
				checkTrimmedMeta(t, mc, served, trimmed)
				if !equality.Semantic.DeepEqual(trimmed.Status, policyv1.PodDisruptionBudgetStatus{}) {
					t.Errorf("trimmed PodDisruptionBudget kept its status: %+v", trimmed.Status)
				}
				want := resources.PDBNeedsUpdate(served, desired)
				if got := resources.PDBNeedsUpdate(trimmed, desired); got != want || want != (name != "none") {
					t.Fatalf("pdbNeedsUpdate(trimmed) = %v, on the served object %v", got, want)
				}
				if want {
					checkTrimmedPatch(t, trimmed, desired, resources.PDBNeedsUpdate, resources.UpdatePodDisruptionBudget)
				}
			})
		}
	})

	t.Run("NetworkPolicy", func(t *testing.T) {
		desired := servedNetworkPolicy(mc)
		desired.ObjectMeta = metav1.ObjectMeta{Name: desired.Name, Namespace: desired.Namespace, Labels: resources.ObjectLabels(mc)}
		for name, drift := range map[string]func(*networkingv1.NetworkPolicy){
			"none": func(*networkingv1.NetworkPolicy) {},
			"from": func(np *networkingv1.NetworkPolicy) { np.Spec.Ingress[0].From = nil },
			"policy types": func(np *networkingv1.NetworkPolicy) {
				np.Spec.PolicyTypes = append(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
			},
		} {
			t.Run(name, func(t *testing.T) {
				served := servedNetworkPolicy(mc)
				drift(served)
				trimmed := mustTrim(t, trimNetworkPolicy, served)
				checkTrimmedMeta(t, mc, served, trimmed)
				want := resources.NetworkPolicyNeedsUpdate(served, desired)
				if got := resources.NetworkPolicyNeedsUpdate(trimmed, desired); got != want || want != (name != "none") {
					t.Fatalf("networkPolicyNeedsUpdate(trimmed) = %v, on the served object %v", got, want)
				}
				if want {
					checkTrimmedPatch(t, trimmed, desired, resources.NetworkPolicyNeedsUpdate, resources.UpdateNetworkPolicy)
				}
			})
		}
	})
}

// A foreign object (not controlled by the instance) stays foreign once trimmed: the conflict
// check reads the owner references the transforms keep.
func TestTrimOwnedKeepsForeignOwner(t *testing.T) {
	mc := fixture.Defaulted("c", func(mc *cachev1alpha1.Memcached) { mc.UID = "mc-uid" })
	other := fixture.Defaulted("c", func(mc *cachev1alpha1.Memcached) { mc.UID = "deleted-uid" })
	svc := servedService(mc)
	svc.OwnerReferences = nil
	if err := apply.NotControlled(mustTrim(t, trimService, svc), mc, "Service"); err == nil {
		t.Error("a trimmed Service without owner reads as owned")
	}
	dep := servedDeployment(other, resources.Options{})
	if err := apply.NotControlled(mustTrim(t, trimDeployment, dep), mc, "Deployment"); err != apply.ErrWaitingForGC {
		t.Errorf("a trimmed Deployment of a deleted instance of the same name: %v, want errWaitingForGC", err)
	}
}

// Interned strings are equal to the decoded ones: intern changes where the bytes live, never a
// value.
func TestIntern(t *testing.T) {
	for _, s := range []string{resources.LabelInstance, "memcached-operator", "Running", "True", "not-a-constant", ""} {
		decoded := string([]byte(s))
		if got := intern(decoded); got != s {
			t.Errorf("intern(%q) = %q", s, got)
		}
	}
	if got := keepLabels(map[string]string{"a": "b"}, ownLabels); got != nil {
		t.Errorf("keepLabels without own labels = %v, want nil", got)
	}
}

// A Memcached keeps in the cache its spec, status and labels, and of its annotations only the
// pause annotation, which paused and the pause predicate read.
func TestTrimMemcached(t *testing.T) {
	mc := fixture.Defaulted("c", fixture.Tuned)
	mc.Labels = map[string]string{"team": "web"}
	mc.Status = status.ComputeStatus(mc, status.Observed{Deployment: fixture.Deployment(1, 1, 1, 1, true), Pods: []podview.Pod{fixture.Pod("c-1", "10.0.0.1", true)}}, metav1.Now())
	for name, tc := range map[string]struct {
		annotations map[string]string
		want        map[string]string
	}{
		"paused": {
			annotations: map[string]string{cachev1alpha1.PauseAnnotation: "true", "kubectl.kubernetes.io/last-applied-configuration": `{"spec":{}}`},
			want:        map[string]string{cachev1alpha1.PauseAnnotation: "true"},
		},
		"not paused": {annotations: map[string]string{"kubectl.kubernetes.io/last-applied-configuration": `{"spec":{}}`}},
	} {
		t.Run(name, func(t *testing.T) {
			served := mc.DeepCopy()
			served.Annotations = tc.annotations
			served.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}
			got := mustTrim(t, TrimMemcached, served)
			if !equality.Semantic.DeepEqual(got.Annotations, tc.want) || got.ManagedFields != nil {
				t.Errorf("annotations %v, managed fields %v; want annotations %v and no managed fields", got.Annotations, got.ManagedFields, tc.want)
			}
			if got.Paused() != served.Paused() {
				t.Errorf("trimmed.Paused() = %v, on the served object %v", got.Paused(), served.Paused())
			}
			if !equality.Semantic.DeepEqual(got.Spec, served.Spec) || !equality.Semantic.DeepEqual(got.Status, served.Status) ||
				!equality.Semantic.DeepEqual(got.Labels, served.Labels) {
				t.Errorf("trimMemcached changed spec, status or labels: %+v", got)
			}
		})
	}
}

// A failing container's messages are kept at most maxStateMessage bytes, cut on a character
// boundary (a termination message may be 4 KiB, the kubelet's limit).
func TestTrimPodBoundsMessages(t *testing.T) {
	long := strings.Repeat("é", 2048) // 4 KiB of two-byte characters
	p := fullPod("c-1", "", false, func(p *corev1.Pod) {
		p.Status.ContainerStatuses[0].State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "RunContainerError", Message: long}}
		p.Status.ContainerStatuses[0].LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Message: long}}
	})
	out, err := TrimPod(decodePod(t, &p))
	if err != nil {
		t.Fatal(err)
	}
	cs := out.(*podview.Pod).Status.ContainerStatuses
	if len(cs) != 1 {
		t.Fatalf("container statuses = %+v, want the failing one", cs)
	}
	for what, m := range map[string]string{"waiting": cs[0].State.Waiting.Message, "last terminated": cs[0].LastTerminationState.Terminated.Message} {
		if len(m) != maxStateMessage || !utf8.ValidString(m) || !strings.HasPrefix(long, m) {
			t.Errorf("%s message: %d bytes, valid UTF-8 %v, want the first %d bytes of the message", what, len(m), utf8.ValidString(m), maxStateMessage)
		}
	}
}

// The Secrets' metadata kept in the cache is trimmed to what the watch needs: no labels and no
// annotations (kubectl apply's last-applied-configuration annotation would hold the data).
func TestTrimSecretMetadata(t *testing.T) {
	in := &metav1.PartialObjectMetadata{
		TypeMeta: metav1.TypeMeta{Kind: "Secret", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", UID: "u", ResourceVersion: "7", Labels: map[string]string{"a": "b"},
			Annotations:   map[string]string{"kubectl.kubernetes.io/last-applied-configuration": `{"data":{"password":"c2VjcmV0"}}`},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}},
	}
	out, err := trimSecretMetadata(in)
	if err != nil {
		t.Fatal(err)
	}
	want := &metav1.PartialObjectMetadata{TypeMeta: in.TypeMeta, ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", UID: "u", ResourceVersion: "7"}}
	if !equality.Semantic.DeepEqual(out, want) {
		t.Fatalf("trimSecretMetadata = %+v, want %+v", out, want)
	}
	if tomb := "not an object"; !equality.Semantic.DeepEqual(fixture.Must(trimSecretMetadata(tomb)), tomb) {
		t.Fatal("a non-object is not returned as it is")
	}
}

// The StatefulSet the cache holds plans the same server update as the one the API server
// served: the trim keeps what resources.PlanServerUpdate reads (the update strategy, generation
// and observedGeneration, replicas, minReadySeconds, the template and the update revision).
func TestTrimStatefulSetKeepsWhatServerUpdatesNeed(t *testing.T) {
	mc := fixture.Defaulted("c", func(mc *cachev1alpha1.Memcached) {
		mc.Spec.ServerIdentity = cachev1alpha1.ServerIdentityStable
		mc.Spec.WarmRestart.Enabled = true
		mc.Spec.Size = 2
	})
	opts := resources.Options{DefaultImage: "memcached:1.6.45", CertReloaderImage: "registry.example.com/memcached-operator:v1"}
	served := resources.DesiredStatefulSet(mc, opts)
	served.ObjectMeta = servedMeta(mc, served.Labels)
	served.Status = appsv1.StatefulSetStatus{ObservedGeneration: 2, Replicas: 2, ReadyReplicas: 2, AvailableReplicas: 2,
		CurrentRevision: "c-old", UpdateRevision: "c-new", CurrentReplicas: 2}
	old := served.Spec.Template.DeepCopy()
	old.Spec.Containers[0].Image = "memcached:1.6.38"
	now := time.Unix(1_700_000_100, 0)
	var pods []corev1.Pod
	for i := range 2 {
		pods = append(pods, corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("c-%d", i), Labels: map[string]string{appsv1.ControllerRevisionHashLabelKey: "c-old"}},
			Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(now.Add(-time.Minute))}},
				ContainerStatuses: []corev1.ContainerStatus{{Name: resources.ContainerName, Ready: true}}},
		})
	}
	templates := map[string]*corev1.PodTemplateSpec{"c-old": old}
	want := resources.PlanServerUpdate(served.DeepCopy(), pods, templates, now)
	if want.Pod != "c-1" || !want.InPlace {
		t.Fatalf("the served StatefulSet plans %+v, want c-1 in place", want)
	}
	cached, err := trimStatefulSet(served.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	if got := resources.PlanServerUpdate(cached.(*appsv1.StatefulSet), pods, templates, now); !reflect.DeepEqual(got, want) {
		t.Errorf("the cached StatefulSet plans %+v, want %+v as the served one", got, want)
	}
}
