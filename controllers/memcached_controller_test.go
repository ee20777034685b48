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
	"sort"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/apply"

	"github.com/example/memcached-operator/controllers/resources"
)

const (
	timeout  = 20 * time.Second
	interval = 100 * time.Millisecond
)

// newMemcached returns a Memcached of the given size (0: leave size to the server default).
func newMemcached(ns, name string, size int32) *cachev1alpha1.Memcached {
	return &cachev1alpha1.Memcached{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       cachev1alpha1.MemcachedSpec{Size: size},
	}
}

func key(ns, name string) types.NamespacedName {
	return types.NamespacedName{Namespace: ns, Name: name}
}

// getMemcached reads a Memcached from the API server.
func getMemcached(g Gomega, ns, name string) *cachev1alpha1.Memcached {
	mc := &cachev1alpha1.Memcached{}
	g.Expect(k8sClient.Get(testCtx, key(ns, name), mc)).To(Succeed())
	return mc
}

// simulateRollout does what kube-controller-manager and the kubelet would do for mc's Deployment:
// it creates n ready pods with the Deployment's template labels and writes a finished rollout into
// the Deployment's status. It returns the pod names.
func simulateRollout(t *testing.T, g Gomega, ns, name string, n int) []string {
	t.Helper()
	names := readyPods(g, ns, name, n)
	setDeploymentStatus(g, ns, name, int32(n))
	return names
}

// readyPods creates n Running and Ready pods of the instance's Deployment template, as the kubelet
// would report them, and writes nothing to the Deployment (its controller has not caught up). It
// returns the pod names.
func readyPods(g Gomega, ns, name string, n int) []string {
	dep := &appsv1.Deployment{}
	g.Eventually(func() error { return k8sClient.Get(testCtx, key(ns, name), dep) }, timeout, interval).Should(Succeed())
	var names []string
	for i := 0; i < n; i++ {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				GenerateName: name + "-",
				Namespace:    ns,
				Labels:       dep.Spec.Template.Labels,
			},
			Spec: *dep.Spec.Template.Spec.DeepCopy(),
		}
		g.Expect(k8sClient.Create(testCtx, pod)).To(Succeed())
		pod.Status = corev1.PodStatus{
			Phase: corev1.PodRunning,
			PodIP: "10.244.0." + string(rune('1'+i)),
			Conditions: []corev1.PodCondition{{
				Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now(),
			}},
		}
		g.Expect(k8sClient.Status().Update(testCtx, pod)).To(Succeed())
		names = append(names, pod.Name)
	}
	return names
}

// setDeploymentStatus writes a finished rollout of n replicas into the Deployment's status.
func setDeploymentStatus(g Gomega, ns, name string, n int32) {
	g.Eventually(func() error {
		dep := &appsv1.Deployment{}
		if err := k8sClient.Get(testCtx, key(ns, name), dep); err != nil {
			return err
		}
		dep.Status = appsv1.DeploymentStatus{
			ObservedGeneration: dep.Generation, Replicas: n, UpdatedReplicas: n, ReadyReplicas: n, AvailableReplicas: n,
		}
		return k8sClient.Status().Update(testCtx, dep)
	}, timeout, interval).Should(Succeed())
}

// conditionOf returns the condition of type t of the Memcached, or an empty one.
func conditionOf(mc *cachev1alpha1.Memcached, t string) metav1.Condition {
	if c := meta.FindStatusCondition(mc.Status.Conditions, t); c != nil {
		return *c
	}
	return metav1.Condition{}
}

func TestReconcileCreatesOwnedObjects(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-create", "cache"
	g.Expect(k8sClient.Create(testCtx, newMemcached(ns, name, 3))).To(Succeed())
	mc := getMemcached(g, ns, name)

	dep := &appsv1.Deployment{}
	g.Eventually(func() error { return k8sClient.Get(testCtx, key(ns, name), dep) }, timeout, interval).Should(Succeed())
	g.Expect(dep.Spec.Replicas).To(HaveValue(Equal(int32(3))))
	g.Expect(dep.Spec.Selector.MatchLabels).To(Equal(map[string]string{resources.LabelName: resources.AppName, resources.LabelInstance: name}))
	g.Expect(dep.Labels).To(HaveKeyWithValue(resources.LabelManagedBy, resources.ManagedBy))
	g.Expect(dep.Spec.Template.Spec.Containers[0].Image).To(Equal(testImage))
	g.Expect(dep.Spec.Template.Spec.Containers[0].Args).To(Equal(resources.MemcachedArgs(mc, resources.Options{})))
	g.Expect(metav1.IsControlledBy(dep, mc)).To(BeTrue(), "Deployment must be controlled by the Memcached")

	svc := &corev1.Service{}
	g.Eventually(func() error { return k8sClient.Get(testCtx, key(ns, name), svc) }, timeout, interval).Should(Succeed())
	g.Expect(svc.Spec.ClusterIP).To(Equal(corev1.ClusterIPNone))
	g.Expect(svc.Spec.Ports[0].Port).To(Equal(int32(11211)))
	g.Expect(metav1.IsControlledBy(svc, mc)).To(BeTrue())

	pdb := &policyv1.PodDisruptionBudget{}
	g.Eventually(func() error { return k8sClient.Get(testCtx, key(ns, name), pdb) }, timeout, interval).Should(Succeed())
	g.Expect(pdb.Spec.MaxUnavailable.IntValue()).To(Equal(1))
	g.Expect(metav1.IsControlledBy(pdb, mc)).To(BeTrue())

	// Before any pod is ready the instance is not Available, and says it is progressing.
	g.Eventually(func(g Gomega) {
		mc := getMemcached(g, ns, name)
		g.Expect(mc.Status.ObservedGeneration).To(Equal(mc.Generation))
		g.Expect(conditionOf(mc, cachev1alpha1.ConditionAvailable).Status).To(Equal(metav1.ConditionFalse))
		g.Expect(conditionOf(mc, cachev1alpha1.ConditionProgressing).Status).To(Equal(metav1.ConditionTrue))
		g.Expect(conditionOf(mc, cachev1alpha1.ConditionDegraded).Status).To(Equal(metav1.ConditionFalse))
		g.Expect(mc.Status.Selector).To(Equal("app.kubernetes.io/instance=cache,app.kubernetes.io/name=memcached"))
	}, timeout, interval).Should(Succeed())

	// Events are recorded through events.k8s.io.
	g.Eventually(func(g Gomega) {
		evs := &eventsv1.EventList{}
		g.Expect(k8sClient.List(testCtx, evs, client.InNamespace(ns))).To(Succeed())
		var reasons, created []string
		for _, e := range evs.Items {
			if e.Regarding.Name == name && e.Regarding.Kind == "Memcached" {
				reasons = append(reasons, e.Reason)
				if e.Reason == string(apply.Created) {
					created = append(created, e.Note)
				}
			}
		}
		g.Expect(reasons).To(ContainElement(string(apply.Created)))
		// One event for the three creates of one reconcile, not one per object.
		g.Expect(created).To(ConsistOf("Deployment " + name + ", Service " + name + ", PodDisruptionBudget " + name + " created"))
	}, timeout, interval).Should(Succeed())
}

// status.nodes, readyReplicas and the conditions follow the pods through the status subresource,
// and a status written through the main resource is ignored. Sources:
// https://github.com/operator-framework/operator-sdk-samples/issues/55 (status.nodes never written
// after the CRD gained a status subresource),
// https://github.com/operator-framework/operator-sdk/issues/4679 (status conditions for the sample).
func TestStatusFollowsPods(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-status", "s1"
	g.Expect(k8sClient.Create(testCtx, newMemcached(ns, name, 3))).To(Succeed())
	pods := simulateRollout(t, g, ns, name, 3)

	g.Eventually(func(g Gomega) {
		mc := getMemcached(g, ns, name)
		g.Expect(mc.Status.Nodes).To(ConsistOf(pods))
		g.Expect(sort.StringsAreSorted(mc.Status.Nodes)).To(BeTrue(), "status.nodes sorted")
		g.Expect(mc.Status.ReadyReplicas).To(Equal(int32(3)))
		g.Expect(mc.Status.Replicas).To(Equal(int32(3)))
		g.Expect(mc.Status.ServerList).To(HaveLen(3))
		g.Expect(mc.Status.ServerList[0]).To(MatchRegexp(`^10-244-0-\d\.s1\.t-status\.svc:11211$`))
		avail := conditionOf(mc, cachev1alpha1.ConditionAvailable)
		g.Expect(avail.Status).To(Equal(metav1.ConditionTrue))
		g.Expect(avail.ObservedGeneration).To(Equal(mc.Generation))
		g.Expect(conditionOf(mc, cachev1alpha1.ConditionProgressing).Status).To(Equal(metav1.ConditionFalse))
	}, timeout, interval).Should(Succeed())

	// A deleted pod leaves status.nodes at once (pods are watched, nothing polls).
	g.Expect(k8sClient.Delete(testCtx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: pods[0], Namespace: ns}},
		client.GracePeriodSeconds(0))).To(Succeed())
	start := time.Now()
	g.Eventually(func(g Gomega) {
		mc := getMemcached(g, ns, name)
		g.Expect(mc.Status.Nodes).To(ConsistOf(pods[1:]))
		g.Expect(conditionOf(mc, cachev1alpha1.ConditionAvailable).Status).To(Equal(metav1.ConditionFalse))
	}, 2*time.Second, 20*time.Millisecond).Should(Succeed())
	t.Logf("deleted pod left status.nodes after %v", time.Since(start))

	// Writing status through the main resource is ignored (status subresource).
	mc := getMemcached(g, ns, name)
	patch := client.RawPatch(types.MergePatchType, []byte(`{"status":{"nodes":["fake"]}}`))
	g.Expect(k8sClient.Patch(testCtx, mc, patch)).To(Succeed())
	g.Expect(getMemcached(g, ns, name).Status.Nodes).NotTo(ContainElement("fake"))

	// A status written by someone else through the status subresource is set right, coalesceDelay
	// later, like the echo of the operator's own status patches (memcachedUpdated), which sets
	// right a status patched from a cache that had not yet seen the previous patch.
	forged := client.RawPatch(types.MergePatchType, []byte(`{"status":{"nodes":["fake"],"readyReplicas":7}}`))
	g.Expect(k8sClient.Status().Patch(testCtx, getMemcached(g, ns, name), forged)).To(Succeed())
	g.Eventually(func(g Gomega) {
		mc := getMemcached(g, ns, name)
		g.Expect(mc.Status.Nodes).To(ConsistOf(pods[1:]))
		g.Expect(mc.Status.ReadyReplicas).To(Equal(int32(len(pods) - 1)))
	}, 2*time.Second, 20*time.Millisecond).Should(Succeed())
}

// Changes made by hand to what the operator owns are reverted and a deleted Deployment is
// recreated. Sources: https://github.com/operator-framework/java-operator-plugins/issues/44
// (replicas scaled by hand never restored), https://github.com/ManageIQ/manageiq-pods/issues/542
// (changes to the Service and Deployment not resolved).
func TestDriftIsReverted(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-drift", "d1"
	g.Expect(k8sClient.Create(testCtx, newMemcached(ns, name, 3))).To(Succeed())
	dep := &appsv1.Deployment{}
	g.Eventually(func() error { return k8sClient.Get(testCtx, key(ns, name), dep) }, timeout, interval).Should(Succeed())
	want := dep.Spec.Template.Spec.Containers[0]

	tests := map[string]func(d *appsv1.Deployment){
		"replicas scaled by hand": func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](1) },
		"image edited":            func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "registry.example.com/other:1" },
		"args edited": func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].Args = append(d.Spec.Template.Spec.Containers[0].Args, "-M")
		},
		"resources removed": func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].Resources = corev1.ResourceRequirements{}
		},
		"security context loosened": func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].SecurityContext.ReadOnlyRootFilesystem = ptr.To(false)
		},
	}
	for desc, mutate := range tests {
		t.Run(desc, func(t *testing.T) {
			g := NewWithT(t)
			g.Eventually(func() error {
				d := &appsv1.Deployment{}
				if err := k8sClient.Get(testCtx, key(ns, name), d); err != nil {
					return err
				}
				mutate(d)
				return k8sClient.Update(testCtx, d)
			}, timeout, interval).Should(Succeed())
			g.Eventually(func(g Gomega) {
				d := &appsv1.Deployment{}
				g.Expect(k8sClient.Get(testCtx, key(ns, name), d)).To(Succeed())
				g.Expect(d.Spec.Replicas).To(HaveValue(Equal(int32(3))))
				c := d.Spec.Template.Spec.Containers[0]
				g.Expect(c.Image).To(Equal(want.Image))
				g.Expect(c.Args).To(Equal(want.Args))
				g.Expect(c.Resources).To(Equal(want.Resources))
				g.Expect(c.SecurityContext).To(Equal(want.SecurityContext))
			}, timeout, interval).Should(Succeed())
		})
	}

	// The cache drops the Deployments' annotations (trimDeployment): a correction must still keep
	// the ones others set (kubectl's change-cause, a GitOps tool's, the controller's revision),
	// since its merge patch is computed from the cached object, not from the live one.
	t.Run("annotations of others kept by a correction", func(t *testing.T) {
		g := NewWithT(t)
		g.Eventually(func() error {
			d := &appsv1.Deployment{}
			if err := k8sClient.Get(testCtx, key(ns, name), d); err != nil {
				return err
			}
			if d.Annotations == nil {
				d.Annotations = map[string]string{}
			}
			d.Annotations["kubernetes.io/change-cause"] = "kubectl scale --replicas=1"
			d.Spec.Replicas = ptr.To[int32](1)
			return k8sClient.Update(testCtx, d)
		}, timeout, interval).Should(Succeed())
		g.Eventually(func(g Gomega) {
			d := &appsv1.Deployment{}
			g.Expect(k8sClient.Get(testCtx, key(ns, name), d)).To(Succeed())
			g.Expect(d.Spec.Replicas).To(HaveValue(Equal(int32(3))))
			g.Expect(d.Annotations).To(HaveKeyWithValue("kubernetes.io/change-cause", "kubectl scale --replicas=1"))
		}, timeout, interval).Should(Succeed())
	})

	t.Run("harmless label kept, no update", func(t *testing.T) {
		g := NewWithT(t)
		d := &appsv1.Deployment{}
		g.Expect(k8sClient.Get(testCtx, key(ns, name), d)).To(Succeed())
		d.Labels["extra"] = "1"
		g.Expect(k8sClient.Update(testCtx, d)).To(Succeed())
		rv := d.ResourceVersion
		g.Consistently(func(g Gomega) {
			d := &appsv1.Deployment{}
			g.Expect(k8sClient.Get(testCtx, key(ns, name), d)).To(Succeed())
			g.Expect(d.ResourceVersion).To(Equal(rv))
			g.Expect(d.Labels).To(HaveKeyWithValue("extra", "1"))
		}, 2*time.Second, 200*time.Millisecond).Should(Succeed())
	})

	t.Run("deleted Deployment recreated", func(t *testing.T) {
		g := NewWithT(t)
		old := &appsv1.Deployment{}
		g.Expect(k8sClient.Get(testCtx, key(ns, name), old)).To(Succeed())
		g.Expect(k8sClient.Delete(testCtx, old)).To(Succeed())
		g.Eventually(func(g Gomega) {
			d := &appsv1.Deployment{}
			g.Expect(k8sClient.Get(testCtx, key(ns, name), d)).To(Succeed())
			g.Expect(d.UID).NotTo(Equal(old.UID))
			g.Expect(d.Spec.Replicas).To(HaveValue(Equal(int32(3))))
		}, timeout, interval).Should(Succeed())
	})
}

// A Deployment that is not ours is never overwritten; the conflict is reported as Degraded with
// a Warning event, and the instance recovers once the foreign object is gone.
// Source: kubernetes-sigs/mcp-lifecycle-operator#85 (the operator-sdk sample's lookup by name).
func TestForeignDeploymentIsNotHijacked(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-foreign", "web"
	foreign := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "registry.example.com/nginx:1"}}},
			},
		},
	}
	g.Expect(k8sClient.Create(testCtx, foreign)).To(Succeed())
	g.Expect(k8sClient.Create(testCtx, newMemcached(ns, name, 3))).To(Succeed())

	g.Eventually(func(g Gomega) {
		mc := getMemcached(g, ns, name)
		d := conditionOf(mc, cachev1alpha1.ConditionDegraded)
		g.Expect(d.Status).To(Equal(metav1.ConditionTrue))
		g.Expect(d.Reason).To(Equal(cachev1alpha1.ReasonResourceConflict))
		g.Expect(d.Message).To(ContainSubstring("Deployment web"))
		g.Expect(conditionOf(mc, cachev1alpha1.ConditionAvailable).Status).To(Equal(metav1.ConditionFalse))
	}, timeout, interval).Should(Succeed())

	got := &appsv1.Deployment{}
	g.Expect(k8sClient.Get(testCtx, key(ns, name), got)).To(Succeed())
	g.Expect(got.Spec.Replicas).To(HaveValue(Equal(int32(1))))
	g.Expect(got.Spec.Template.Spec.Containers[0].Image).To(Equal("registry.example.com/nginx:1"))
	g.Expect(got.OwnerReferences).To(BeEmpty())
	g.Expect(got.ResourceVersion).To(Equal(foreign.ResourceVersion), "the foreign Deployment must not be written")

	g.Eventually(func(g Gomega) {
		evs := &eventsv1.EventList{}
		g.Expect(k8sClient.List(testCtx, evs, client.InNamespace(ns))).To(Succeed())
		found := false
		for _, e := range evs.Items {
			found = found || (e.Type == corev1.EventTypeWarning && e.Reason == cachev1alpha1.ReasonResourceConflict && strings.Contains(e.Note, "Deployment web"))
		}
		g.Expect(found).To(BeTrue(), "a Warning ResourceConflict event naming the Deployment")
	}, timeout, interval).Should(Succeed())

	// Once the foreign Deployment is gone the operator creates its own (retry within
	// conflictRetry).
	g.Expect(k8sClient.Delete(testCtx, foreign)).To(Succeed())
	g.Eventually(func(g Gomega) {
		d := &appsv1.Deployment{}
		g.Expect(k8sClient.Get(testCtx, key(ns, name), d)).To(Succeed())
		g.Expect(metav1.IsControlledBy(d, getMemcached(g, ns, name))).To(BeTrue())
		g.Expect(d.Spec.Replicas).To(HaveValue(Equal(int32(3))))
	}, 30*time.Second, interval).Should(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(conditionOf(getMemcached(g, ns, name), cachev1alpha1.ConditionDegraded).Status).To(Equal(metav1.ConditionFalse))
	}, timeout, interval).Should(Succeed())
}

// In steady state the operator writes nothing: resourceVersions of the Memcached and of what it
// owns stay the same and reconciles stop. Source: m88i/nexus-operator#137, kserve#2490.
func TestSteadyStateMakesNoWrites(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-quiet", "q1"
	mc := newMemcached(ns, name, 2)
	mc.Spec.Memcached.MaxItemSize = ptr.To(resource.MustParse("2Mi"))
	mc.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
		MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.ScheduleAnyway,
	}}
	mc.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "cache", Effect: corev1.TaintEffectNoSchedule}}
	g.Expect(k8sClient.Create(testCtx, mc)).To(Succeed())
	simulateRollout(t, g, ns, name, 2)
	g.Eventually(func(g Gomega) {
		g.Expect(conditionOf(getMemcached(g, ns, name), cachev1alpha1.ConditionAvailable).Status).To(Equal(metav1.ConditionTrue))
	}, timeout, interval).Should(Succeed())

	rvs := func(g Gomega) map[string]string {
		out := map[string]string{}
		for kind, obj := range map[string]client.Object{
			"Memcached": &cachev1alpha1.Memcached{}, "Deployment": &appsv1.Deployment{},
			"Service": &corev1.Service{}, "PodDisruptionBudget": &policyv1.PodDisruptionBudget{},
		} {
			g.Expect(k8sClient.Get(testCtx, key(ns, name), obj)).To(Succeed())
			out[kind] = obj.GetResourceVersion()
		}
		return out
	}
	// The reconciles the last status write triggers (its echo, after coalesceDelay) have run.
	waitIdle(g, -1, 2*coalesceDelay)
	before := rvs(g)
	reconcilesBefore := reconcileCount(g)
	g.Consistently(func(g Gomega) { g.Expect(rvs(g)).To(Equal(before)) }, 5*time.Second, 250*time.Millisecond).Should(Succeed())
	g.Expect(reconcileCount(g)-reconcilesBefore).To(BeNumerically("<=", 1), "reconciles in a quiet 5s window")
}

// Objects in namespaces outside WATCH_NAMESPACE are not reconciled (operator-framework/community-operators#199).
func TestUnwatchedNamespaceIsIgnored(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-unwatched", "u1"
	g.Expect(k8sClient.Create(testCtx, newMemcached(ns, name, 1))).To(Succeed())
	g.Consistently(func(g Gomega) {
		err := k8sClient.Get(testCtx, key(ns, name), &appsv1.Deployment{})
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "no Deployment in an unwatched namespace")
		g.Expect(getMemcached(g, ns, name).Status.Conditions).To(BeEmpty())
	}, 3*time.Second, 250*time.Millisecond).Should(Succeed())
}

// Two instances in one namespace have distinct selectors and never see each other's pods.
func TestTwoInstancesInOneNamespaceDoNotClash(t *testing.T) {
	g := NewWithT(t)
	const ns = "t-two"
	g.Expect(k8sClient.Create(testCtx, newMemcached(ns, "a", 1))).To(Succeed())
	g.Expect(k8sClient.Create(testCtx, newMemcached(ns, "ab", 2))).To(Succeed())
	podsA := simulateRollout(t, g, ns, "a", 1)
	podsAB := simulateRollout(t, g, ns, "ab", 2)
	g.Eventually(func(g Gomega) {
		g.Expect(getMemcached(g, ns, "a").Status.Nodes).To(ConsistOf(podsA))
		g.Expect(getMemcached(g, ns, "ab").Status.Nodes).To(ConsistOf(podsAB))
	}, timeout, interval).Should(Succeed())
}

// Turning the Service or the PodDisruptionBudget off deletes the operator's one.
func TestOptionalObjectsFollowSpec(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-optional", "o1"
	g.Expect(k8sClient.Create(testCtx, newMemcached(ns, name, 1))).To(Succeed())
	for _, obj := range []client.Object{&corev1.Service{}, &policyv1.PodDisruptionBudget{}} {
		g.Eventually(func() error { return k8sClient.Get(testCtx, key(ns, name), obj) }, timeout, interval).Should(Succeed())
	}
	patch := client.RawPatch(types.MergePatchType, []byte(`{"spec":{"service":{"enabled":false},"podDisruptionBudget":{"enabled":false}}}`))
	g.Expect(k8sClient.Patch(testCtx, getMemcached(g, ns, name), patch)).To(Succeed())
	for _, obj := range []client.Object{&corev1.Service{}, &policyv1.PodDisruptionBudget{}} {
		g.Eventually(func() bool { return apierrors.IsNotFound(k8sClient.Get(testCtx, key(ns, name), obj)) }, timeout, interval).Should(BeTrue())
	}
}

// The scale subresource drives spec.size, so `kubectl scale memcached` and HPAs work.
func TestScaleSubresource(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-scale", "sc"
	g.Expect(k8sClient.Create(testCtx, newMemcached(ns, name, 3))).To(Succeed())
	mc := getMemcached(g, ns, name)
	scale := &autoscalingv1.Scale{}
	g.Expect(k8sClient.SubResource("scale").Get(testCtx, mc, scale)).To(Succeed())
	g.Expect(scale.Spec.Replicas).To(Equal(int32(3)))
	g.Expect(k8sClient.SubResource("scale").Patch(testCtx, mc, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"replicas":5}}`)))).To(Succeed())
	g.Expect(getMemcached(g, ns, name).Spec.Size).To(Equal(int32(5)))
	g.Eventually(func(g Gomega) {
		d := &appsv1.Deployment{}
		g.Expect(k8sClient.Get(testCtx, key(ns, name), d)).To(Succeed())
		g.Expect(d.Spec.Replicas).To(HaveValue(Equal(int32(5))))
	}, timeout, interval).Should(Succeed())
	// The scale subresource validates against the schema too: 0 is refused.
	err := k8sClient.SubResource("scale").Patch(testCtx, getMemcached(g, ns, name), client.RawPatch(types.MergePatchType, []byte(`{"spec":{"replicas":0}}`)))
	g.Expect(err).To(HaveOccurred())
	g.Expect(err.Error()).To(ContainSubstring("spec.size"))
}

// A paused instance is left alone until the annotation goes away.
func TestPauseAnnotation(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-pause", "p1"
	g.Expect(k8sClient.Create(testCtx, newMemcached(ns, name, 1))).To(Succeed())
	g.Eventually(func() error { return k8sClient.Get(testCtx, key(ns, name), &appsv1.Deployment{}) }, timeout, interval).Should(Succeed())

	patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"`+cachev1alpha1.PauseAnnotation+`":"true"}},"spec":{"size":4}}`))
	g.Expect(k8sClient.Patch(testCtx, getMemcached(g, ns, name), patch)).To(Succeed())
	g.Consistently(func(g Gomega) {
		d := &appsv1.Deployment{}
		g.Expect(k8sClient.Get(testCtx, key(ns, name), d)).To(Succeed())
		g.Expect(d.Spec.Replicas).To(HaveValue(Equal(int32(1))))
	}, 2*time.Second, 200*time.Millisecond).Should(Succeed())

	unpause := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"`+cachev1alpha1.PauseAnnotation+`":null}}}`))
	g.Expect(k8sClient.Patch(testCtx, getMemcached(g, ns, name), unpause)).To(Succeed())
	g.Eventually(func(g Gomega) {
		d := &appsv1.Deployment{}
		g.Expect(k8sClient.Get(testCtx, key(ns, name), d)).To(Succeed())
		g.Expect(d.Spec.Replicas).To(HaveValue(Equal(int32(4))))
	}, timeout, interval).Should(Succeed())
}

// reconcileCount is controller_runtime_reconcile_total of the memcached controller, summed over
// results, read from controller-runtime's metrics registry.
func reconcileCount(g Gomega) float64 {
	return metricValue(g, "controller_runtime_reconcile_total")
}

// waitIdle waits until the memcached controller has finished a reconcile since its count was since
// (reconcileCount; below zero: none needed) and then stayed idle for quiet: no reconcile counted,
// nothing in its work queue, no reconcile running. A change waits coalesceDelay as a delayed add,
// which the queue's depth does not show: quiet must be longer. It returns the reconcile count.
func waitIdle(g Gomega, since float64, quiet time.Duration) float64 {
	last, at := reconcileCount(g), time.Now()
	g.Eventually(func() bool {
		now := reconcileCount(g)
		depth, _ := metricSum(g, "workqueue_depth", map[string]string{"name": ControllerName})
		active, _ := metricSum(g, "controller_runtime_active_workers", map[string]string{"controller": ControllerName})
		if now != last || depth > 0 || active > 0 {
			last, at = now, time.Now()
		}
		return last > since && time.Since(at) >= quiet
	}, timeout, interval).Should(BeTrue(), "the memcached controller did not reconcile and then stay idle for %s", quiet)
	return last
}

// metricValue sums a controller-runtime counter over the memcached controller's series.
func metricValue(g Gomega, name string) float64 {
	total, _ := metricSum(g, name, map[string]string{"controller": ControllerName})
	return total
}

// In a namespace being deleted the operator does not fight the namespace controller: creates are
// refused there, and that is neither an error nor a Degraded status (e2e found the log noise).
func TestTerminatingNamespaceIsNotAnError(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-terminating", "gone"
	g.Expect(k8sClient.Create(testCtx, newMemcached(ns, name, 1))).To(Succeed())
	g.Eventually(func() error { return k8sClient.Get(testCtx, key(ns, name), &appsv1.Deployment{}) }, timeout, interval).Should(Succeed())

	// envtest has no namespace controller: the namespace stays Terminating and keeps its objects.
	g.Expect(k8sClient.Delete(testCtx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	errorsBefore := reconcileErrors(g)
	g.Expect(k8sClient.Delete(testCtx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}})).To(Succeed())
	g.Consistently(func(g Gomega) {
		g.Expect(apierrors.IsNotFound(k8sClient.Get(testCtx, key(ns, name), &appsv1.Deployment{}))).To(BeTrue())
		g.Expect(conditionOf(getMemcached(g, ns, name), cachev1alpha1.ConditionDegraded).Status).NotTo(Equal(metav1.ConditionTrue))
		g.Expect(reconcileErrors(g)).To(Equal(errorsBefore), "no reconcile errors")
	}, 2*time.Second, 200*time.Millisecond).Should(Succeed())
}

// reconcileErrors is controller_runtime_reconcile_errors_total of the memcached controller.
func reconcileErrors(g Gomega) float64 {
	return metricValue(g, "controller_runtime_reconcile_errors_total")
}

// Converging a new instance costs one create per owned object and a status patch or two, with no
// spec writes and no 409 conflicts; each later pod change costs at most one status patch.
func TestConvergenceCost(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-cost", "c1"
	g.Expect(k8sClient.Create(testCtx, newMemcached(ns, name, 3))).To(Succeed())
	g.Eventually(func(g Gomega) {
		mc := getMemcached(g, ns, name)
		g.Expect(mc.Status.ObservedGeneration).To(Equal(mc.Generation))
		for _, obj := range []client.Object{&appsv1.Deployment{}, &corev1.Service{}, &policyv1.PodDisruptionBudget{}} {
			g.Expect(k8sClient.Get(testCtx, key(ns, name), obj)).To(Succeed())
		}
	}, timeout, interval).Should(Succeed())
	created := settledWritesIn(g, ns, time.Second) // the reconciles the creates and the status patch trigger
	t.Logf("writes to create the instance: %v", created)
	g.Expect(created["create"]).To(Equal(3), "one create per owned object")
	g.Expect(created["status-patch"]).To(BeNumerically("<=", 2))
	g.Expect(created["patch"] + created["update"] + created["delete"] + created["status-update"]).To(BeZero())
	g.Expect(created["conflict"]).To(BeZero())

	simulateRollout(t, g, ns, name, 3)
	g.Eventually(func(g Gomega) {
		g.Expect(conditionOf(getMemcached(g, ns, name), cachev1alpha1.ConditionAvailable).Status).To(Equal(metav1.ConditionTrue))
	}, timeout, interval).Should(Succeed())
	converged := settledWritesIn(g, ns, time.Second)
	t.Logf("writes until Available (3 pods created and made ready one by one): %v", converged)
	g.Expect(converged["create"]).To(Equal(3))
	g.Expect(converged["patch"]+converged["update"]+converged["delete"]).To(BeZero(), "no spec writes")
	g.Expect(converged["conflict"]).To(BeZero(), "no 409 conflicts")
	// simulateRollout makes 7 observable changes (3 pods created, 3 made ready, the Deployment
	// status): at most one status patch each, whatever the machine's speed. Changes wait
	// coalesceDelay in the work queue, so on an idle machine the burst costs one patch; how many it
	// costs depends on how long the burst takes, so that figure is logged here, measured by make
	// bench-scale ("writes per pod replaced") and the mechanism is tested on its own
	// (TestEnqueueAfterCoalescesChanges).
	rollout := converged["status-patch"] - created["status-patch"]
	t.Logf("status patches for the 7-change rollout: %d", rollout)
	g.Expect(rollout).To(BeNumerically("<=", 7))
}

// Deleting a Memcached and creating it again at once is not a conflict: the new instance waits for
// the garbage collector to remove the old instance's objects, then creates its own.
func TestRecreatedInstanceWaitsForGarbageCollection(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-recreate", "again"
	g.Expect(k8sClient.Create(testCtx, newMemcached(ns, name, 1))).To(Succeed())
	old := &appsv1.Deployment{}
	g.Eventually(func() error { return k8sClient.Get(testCtx, key(ns, name), old) }, timeout, interval).Should(Succeed())

	// envtest runs no garbage collector: the old Deployment outlives its Memcached.
	g.Expect(k8sClient.Delete(testCtx, getMemcached(g, ns, name))).To(Succeed())
	g.Eventually(func() bool {
		return apierrors.IsNotFound(k8sClient.Get(testCtx, key(ns, name), &cachev1alpha1.Memcached{}))
	}, timeout, interval).Should(BeTrue())
	g.Expect(k8sClient.Create(testCtx, newMemcached(ns, name, 2))).To(Succeed())
	g.Eventually(func(g Gomega) {
		mc := getMemcached(g, ns, name)
		p := conditionOf(mc, cachev1alpha1.ConditionProgressing)
		g.Expect(p.Status).To(Equal(metav1.ConditionTrue))
		g.Expect(p.Reason).To(Equal(cachev1alpha1.ReasonWaitingForGC))
		g.Expect(conditionOf(mc, cachev1alpha1.ConditionDegraded).Status).To(Equal(metav1.ConditionFalse), "not a conflict")
	}, timeout, interval).Should(Succeed())

	// The "garbage collector" removes the old Deployment; the new instance creates its own.
	g.Expect(k8sClient.Delete(testCtx, old)).To(Succeed())
	g.Eventually(func(g Gomega) {
		d := &appsv1.Deployment{}
		g.Expect(k8sClient.Get(testCtx, key(ns, name), d)).To(Succeed())
		g.Expect(metav1.IsControlledBy(d, getMemcached(g, ns, name))).To(BeTrue())
		g.Expect(d.Spec.Replicas).To(HaveValue(Equal(int32(2))))
	}, timeout, interval).Should(Succeed())
}
