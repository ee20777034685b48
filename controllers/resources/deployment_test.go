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
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"

	"github.com/example/memcached-operator/controllers/internal/fixture"
)

// testImage is the operator's default memcached image (Options.DefaultImage) in the builder tests.
const testImage = "registry.example.com/memcached:1.6.38"

func TestMemcachedArgs(t *testing.T) {
	tests := map[string]struct {
		mc   *cachev1alpha1.Memcached
		want []string
	}{
		"defaults": {
			mc:   fixture.Defaulted("a"),
			want: []string{"-p", "11211", "-U", "0", "-m", "64", "-c", "1024", "-t", "4"},
		},
		"fully tuned": {
			mc:   fixture.Defaulted("a", fixture.Tuned),
			want: []string{"-p", "11211", "-U", "0", "-m", "512", "-c", "4096", "-t", "8", "-I", "4194304", "-vv", "-o", "modern", "-R", "40"},
		},
		"verbosity 1": {
			mc:   fixture.Defaulted("a", func(mc *cachev1alpha1.Memcached) { mc.Spec.Memcached.Verbosity = 1 }),
			want: []string{"-p", "11211", "-U", "0", "-m", "64", "-c", "1024", "-t", "4", "-v"},
		},
		"item size in KiB": {
			mc:   fixture.Defaulted("a", func(mc *cachev1alpha1.Memcached) { mc.Spec.Memcached.MaxItemSize = ptr.To(resource.MustParse("512Ki")) }),
			want: []string{"-p", "11211", "-U", "0", "-m", "64", "-c", "1024", "-t", "4", "-I", "524288"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := MemcachedArgs(tc.mc, Options{}); !equality.Semantic.DeepEqual(got, tc.want) {
				t.Errorf("memcachedArgs() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDesiredDeployment(t *testing.T) {
	opts := Options{DefaultImage: "registry.example.com/memcached:1.6"}
	digest := "registry.example.com/memcached@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	tests := map[string]struct {
		mc    *cachev1alpha1.Memcached
		check func(t *testing.T, d *appsv1.Deployment)
	}{
		"defaults": {
			mc: fixture.Defaulted("cache"),
			check: func(t *testing.T, d *appsv1.Deployment) {
				c := d.Spec.Template.Spec.Containers[0]
				fixture.Expect(t, "name", d.Name, "cache")
				fixture.Expect(t, "replicas", *d.Spec.Replicas, int32(1))
				fixture.Expect(t, "image", c.Image, opts.DefaultImage)
				fixture.Expect(t, "command", c.Command, []string{"memcached"})
				fixture.Expect(t, "selector", d.Spec.Selector.MatchLabels, map[string]string{LabelName: "memcached", LabelInstance: "cache"})
				fixture.Expect(t, "pod labels", d.Spec.Template.Labels, map[string]string{
					LabelName: "memcached", LabelInstance: "cache", LabelManagedBy: "memcached-operator", LabelComponent: "cache", LabelPartOf: "memcached",
				})
				fixture.Expect(t, "env", c.Env, []corev1.EnvVar(nil))
				fixture.Expect(t, "memory request", c.Resources.Requests.Memory().Value(), int64(112*1024*1024)) // 64 + 16 + 32 MiB
				fixture.Expect(t, "memory limit", c.Resources.Limits.Memory().Value(), int64(112*1024*1024))
				fixture.Expect(t, "cpu request", c.Resources.Requests.Cpu().MilliValue(), int64(50))
				fixture.Expect(t, "readiness port", c.ReadinessProbe.TCPSocket.Port, intstr.FromString("memcached"))
				fixture.Expect(t, "liveness port", c.LivenessProbe.TCPSocket.Port, intstr.FromString("memcached"))
				fixture.Expect(t, "soft anti-affinity", len(d.Spec.Template.Spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution), 1)
				fixture.Expect(t, "max surge", d.Spec.Strategy.RollingUpdate.MaxSurge.IntValue(), 1)
			},
		},
		"restricted pod security": {
			mc: fixture.Defaulted("cache"),
			check: func(t *testing.T, d *appsv1.Deployment) {
				p := d.Spec.Template.Spec
				sc := p.Containers[0].SecurityContext
				fixture.Expect(t, "runAsNonRoot", *p.SecurityContext.RunAsNonRoot, true)
				fixture.Expect(t, "runAsUser", *p.SecurityContext.RunAsUser, int64(11211))
				fixture.Expect(t, "seccomp", p.SecurityContext.SeccompProfile.Type, corev1.SeccompProfileTypeRuntimeDefault)
				fixture.Expect(t, "allowPrivilegeEscalation", *sc.AllowPrivilegeEscalation, false)
				fixture.Expect(t, "readOnlyRootFilesystem", *sc.ReadOnlyRootFilesystem, true)
				fixture.Expect(t, "drop", sc.Capabilities.Drop, []corev1.Capability{"ALL"})
				fixture.Expect(t, "automount token", *p.AutomountServiceAccountToken, false)
			},
		},
		"digest-pinned image override": {
			mc: fixture.Defaulted("cache", func(mc *cachev1alpha1.Memcached) { mc.Spec.Image = digest }),
			check: func(t *testing.T, d *appsv1.Deployment) {
				fixture.Expect(t, "image", d.Spec.Template.Spec.Containers[0].Image, digest)
				for k, v := range d.Spec.Template.Labels {
					if v == digest || k == "version" {
						t.Errorf("pod label %s=%s derived from the image", k, v)
					}
				}
			},
		},
		"hard anti-affinity replaces pods one at a time": {
			mc: fixture.Defaulted("cache", func(mc *cachev1alpha1.Memcached) { mc.Spec.AntiAffinityPreset = cachev1alpha1.AntiAffinityHard }),
			check: func(t *testing.T, d *appsv1.Deployment) {
				aa := d.Spec.Template.Spec.Affinity.PodAntiAffinity
				fixture.Expect(t, "required terms", len(aa.RequiredDuringSchedulingIgnoredDuringExecution), 1)
				fixture.Expect(t, "topology key", aa.RequiredDuringSchedulingIgnoredDuringExecution[0].TopologyKey, corev1.LabelHostname)
				fixture.Expect(t, "max surge", d.Spec.Strategy.RollingUpdate.MaxSurge.IntValue(), 0)
				fixture.Expect(t, "max unavailable", d.Spec.Strategy.RollingUpdate.MaxUnavailable.IntValue(), 1)
			},
		},
		"no anti-affinity": {
			mc: fixture.Defaulted("cache", func(mc *cachev1alpha1.Memcached) { mc.Spec.AntiAffinityPreset = cachev1alpha1.AntiAffinityNone }),
			check: func(t *testing.T, d *appsv1.Deployment) {
				if d.Spec.Template.Spec.Affinity != nil {
					t.Errorf("affinity = %v, want nil", d.Spec.Template.Spec.Affinity)
				}
			},
		},
		"explicit affinity wins over the preset": {
			mc: fixture.Defaulted("cache", func(mc *cachev1alpha1.Memcached) {
				mc.Spec.AntiAffinityPreset = cachev1alpha1.AntiAffinityHard
				mc.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{}}
			}),
			check: func(t *testing.T, d *appsv1.Deployment) {
				fixture.Expect(t, "affinity", d.Spec.Template.Spec.Affinity, &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{}})
				fixture.Expect(t, "max surge", d.Spec.Strategy.RollingUpdate.MaxSurge.IntValue(), 1)
			},
		},
		"topology spread gets the pod selector": {
			mc: fixture.Defaulted("cache", func(mc *cachev1alpha1.Memcached) {
				mc.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule}}
			}),
			check: func(t *testing.T, d *appsv1.Deployment) {
				fixture.Expect(t, "selector", d.Spec.Template.Spec.TopologySpreadConstraints[0].LabelSelector.MatchLabels, selectorLabels(fixture.Defaulted("cache")))
			},
		},
		"user resources are used as given": {
			mc: fixture.Defaulted("cache", func(mc *cachev1alpha1.Memcached) {
				mc.Spec.Resources = &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}}
			}),
			check: func(t *testing.T, d *appsv1.Deployment) {
				r := d.Spec.Template.Spec.Containers[0].Resources
				fixture.Expect(t, "limits", r.Limits.Memory().String(), "1Gi")
				fixture.Expect(t, "requests", len(r.Requests), 0)
			},
		},
		"resource claims are never written": {
			mc: fixture.Defaulted("cache", func(mc *cachev1alpha1.Memcached) {
				mc.Spec.Resources = &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")},
					Claims: []corev1.ResourceClaim{{Name: "gpu"}}}
			}),
			check: func(t *testing.T, d *appsv1.Deployment) {
				r := d.Spec.Template.Spec.Containers[0].Resources
				fixture.Expect(t, "limits", r.Limits.Memory().String(), "1Gi")
				fixture.Expect(t, "claims", r.Claims, []corev1.ResourceClaim(nil))
			},
		},
		"minReadySeconds is a Deployment field, not a pod template one": {
			mc: fixture.Defaulted("cache", func(mc *cachev1alpha1.Memcached) { mc.Spec.MinReadySeconds = 20 }),
			check: func(t *testing.T, d *appsv1.Deployment) {
				fixture.Expect(t, "minReadySeconds", d.Spec.MinReadySeconds, int32(20))
				fixture.Expect(t, "template unchanged", d.Spec.Template, DesiredDeployment(fixture.Defaulted("cache"), opts).Spec.Template)
			},
		},
		"scheduling fields": {
			mc: fixture.Defaulted("cache", func(mc *cachev1alpha1.Memcached) {
				mc.Spec.NodeSelector = map[string]string{"pool": "cache"}
				mc.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}}
				mc.Spec.PriorityClassName = "high"
			}),
			check: func(t *testing.T, d *appsv1.Deployment) {
				p := d.Spec.Template.Spec
				fixture.Expect(t, "nodeSelector", p.NodeSelector, map[string]string{"pool": "cache"})
				fixture.Expect(t, "tolerations", len(p.Tolerations), 1)
				fixture.Expect(t, "priorityClassName", p.PriorityClassName, "high")
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) { tc.check(t, DesiredDeployment(tc.mc, opts)) })
	}
}

func TestTwoInstancesHaveDisjointSelectors(t *testing.T) {
	a, b := DesiredDeployment(fixture.Defaulted("a"), Options{}), DesiredDeployment(fixture.Defaulted("ab"), Options{})
	if podSelectorMatches(a, b) || podSelectorMatches(b, a) {
		t.Fatalf("selectors overlap: %v / %v", a.Spec.Selector, b.Spec.Selector)
	}
}

func podSelectorMatches(sel, pods *appsv1.Deployment) bool {
	s, _ := metav1.LabelSelectorAsSelector(sel.Spec.Selector)
	return s.Matches(labels.Set(pods.Spec.Template.Labels))
}

func TestDeploymentNeedsUpdate(t *testing.T) {
	desired := DesiredDeployment(fixture.Defaulted("cache", fixture.Tuned), Options{DefaultImage: "img:1"})
	tests := map[string]struct {
		mutate func(d *appsv1.Deployment)
		want   bool
	}{
		"server defaults and foreign labels are not drift": {mutate: func(*appsv1.Deployment) {}, want: false},
		"replicas":          {mutate: func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](5) }, want: true},
		"image":             {mutate: func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "img:2" }, want: true},
		"arg added":         {mutate: func(d *appsv1.Deployment) { c := &d.Spec.Template.Spec.Containers[0]; c.Args = append(c.Args, "-M") }, want: true},
		"our label removed": {mutate: func(d *appsv1.Deployment) { delete(d.Labels, LabelManagedBy) }, want: true},
		"sidecar added": {mutate: func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, corev1.Container{Name: "x"})
		}, want: true},
		"node selector added by hand": {mutate: func(d *appsv1.Deployment) { d.Spec.Template.Spec.NodeSelector = map[string]string{"a": "b"} }, want: true},
		"probe changed":               {mutate: func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].LivenessProbe.PeriodSeconds = 1 }, want: true},
		"resources changed": {mutate: func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].Resources.Limits = nil
		}, want: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			live := fixture.ServerDefaulted(desired)
			tc.mutate(live)
			if got := DeploymentNeedsUpdate(live, desired); got != tc.want {
				t.Errorf("deploymentNeedsUpdate() = %v, want %v", got, tc.want)
			}
			if tc.want {
				UpdateDeployment(live, desired)
				if DeploymentNeedsUpdate(live, desired) {
					t.Errorf("still needs an update after updateDeployment")
				}
				fixture.Expect(t, "restartedAt annotation kept", live.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"], "2026-01-01T00:00:00Z")
			}
		})
	}
}

// A field the API server drops (its feature gate off) is missing from the live object, and the
// comparison, which cannot tell the server's drop from a user's edit, counts it as drift:
// apply.Object patches once, then compares against what the server kept
// (apply's TestObjectFieldDroppedByServer).
func TestDroppedFieldIsDrift(t *testing.T) {
	tests := map[string]struct {
		mutate func(*cachev1alpha1.Memcached)
		drop   func(*corev1.PodSpec)
	}{
		"preStop sleep, PodLifecycleSleepAction off": {
			mutate: func(mc *cachev1alpha1.Memcached) { mc.Spec.GracefulShutdown.PreStopDelaySeconds = ptr.To[int32](5) },
			drop:   func(p *corev1.PodSpec) { p.Containers[0].Lifecycle = nil },
		},
		"user's matchLabelKeys in pod anti-affinity, 1.30": {
			mutate: func(mc *cachev1alpha1.Memcached) {
				mc.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
					RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
						LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{LabelInstance: "cache"}},
						TopologyKey:   corev1.LabelHostname, MatchLabelKeys: []string{"pod-template-hash"}}}}}
			},
			drop: func(p *corev1.PodSpec) {
				p.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].MatchLabelKeys = nil
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			desired := DesiredDeployment(fixture.Defaulted("cache", tc.mutate), Options{DefaultImage: "img:1"})
			live := fixture.ServerDefaulted(desired)
			if DeploymentNeedsUpdate(live, desired) {
				t.Fatalf("the server's copy with every field kept needs an update")
			}
			tc.drop(&live.Spec.Template.Spec)
			if !DeploymentNeedsUpdate(live, desired) {
				t.Errorf("DeploymentNeedsUpdate() = false with the field dropped, want true (drift)")
			}
		})
	}
}

func TestClearedSpecFieldIsDrift(t *testing.T) {
	withSelector := DesiredDeployment(fixture.Defaulted("cache", func(mc *cachev1alpha1.Memcached) {
		mc.Spec.NodeSelector = map[string]string{"pool": "cache"}
		mc.Spec.PriorityClassName = "high"
	}), Options{})
	without := DesiredDeployment(fixture.Defaulted("cache"), Options{})
	if !DeploymentNeedsUpdate(fixture.ServerDefaulted(withSelector), without) {
		t.Fatal("removing nodeSelector and priorityClassName from the spec must update the Deployment")
	}
}

func TestDesiredServiceAndPodDisruptionBudget(t *testing.T) {
	mc := fixture.Defaulted("cache")
	svc := DesiredService(mc)
	fixture.Expect(t, "clusterIP", svc.Spec.ClusterIP, corev1.ClusterIPNone)
	fixture.Expect(t, "port", svc.Spec.Ports[0].Port, int32(11211))
	fixture.Expect(t, "selector", svc.Spec.Selector, selectorLabels(mc))

	tests := map[string]struct {
		spec               cachev1alpha1.PodDisruptionBudgetSpec
		wantMin, wantMaxUn *intstr.IntOrString
	}{
		"default maxUnavailable 1": {wantMaxUn: ptr.To(intstr.FromInt32(1))},
		"minAvailable":             {spec: cachev1alpha1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromString("50%"))}, wantMin: ptr.To(intstr.FromString("50%"))},
		"maxUnavailable":           {spec: cachev1alpha1.PodDisruptionBudgetSpec{MaxUnavailable: ptr.To(intstr.FromInt32(2))}, wantMaxUn: ptr.To(intstr.FromInt32(2))},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			mc := fixture.Defaulted("cache", func(mc *cachev1alpha1.Memcached) { mc.Spec.PodDisruptionBudget = tc.spec })
			pdb := DesiredPodDisruptionBudget(mc)
			fixture.Expect(t, "minAvailable", pdb.Spec.MinAvailable, tc.wantMin)
			fixture.Expect(t, "maxUnavailable", pdb.Spec.MaxUnavailable, tc.wantMaxUn)
		})
	}
}
