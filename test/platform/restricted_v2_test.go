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

// Package platform checks, against a real kube-apiserver (envtest), that the restricted-v2
// stand-in the real-node suite installs (test/real/testdata/restricted-v2-standin.yaml) does what
// OpenShift's restricted-v2 SecurityContextConstraints do to a pod, so that what
// TestPlatformAssignedUIDs proves with it holds on OpenShift. The behaviour is OpenShift's, as its
// documentation of SCC strategies states it: MustRunAsRange assigns the first UID of the namespace's
// openshift.io/sa.scc.uid-range to a container without one and refuses one outside the range;
// MustRunAs does the same for fsGroup with openshift.io/sa.scc.supplemental-groups.
package platform

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/resources"
	"github.com/example/memcached-operator/internal/platform"
)

const (
	firstUID, firstGroup = 1000680000, 1000690000
	uidRange             = "1000680000/10000"
	groupRange           = "1000690000/10000"
)

func TestRestrictedV2StandIn(t *testing.T) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		t.Fatal("KUBEBUILDER_ASSETS is not set: run `make test`, which builds kube-apiserver and etcd into ./bin and sets it")
	}
	env := &envtest.Environment{}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("failed to start envtest: %v", err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dc := discovery.NewDiscoveryClientForConfigOrDie(cfg)
	if assigns, err := platform.ResolveUIDPolicy(dc, platform.UIDsAuto); err != nil || assigns {
		t.Fatalf("before the stand-in: POD_UIDS=auto resolves to platform=%v (%v), want false", assigns, err)
	}
	applyManifest(t, c, filepath.Join("..", "real", "testdata", "restricted-v2-standin.yaml"))
	g := NewWithT(t)
	g.Eventually(func() (bool, error) { return platform.ResolveUIDPolicy(dc, platform.UIDsAuto) }, 30*time.Second, 100*time.Millisecond).
		Should(BeTrue(), "with the stand-in, POD_UIDS=auto must resolve to the platform")

	scc := namespace(t, c, map[string]string{"openshift.io/sa.scc.uid-range": uidRange, "openshift.io/sa.scc.supplemental-groups": groupRange})
	plain := namespace(t, c, nil)
	// A policy acts a moment after it is created: wait until a pinned UID is refused.
	g.Eventually(func() error { return c.Create(ctx, pod(scc, withPodIDs(11211, 0, 0)), client.DryRunAll) }, 30*time.Second, 100*time.Millisecond).
		Should(MatchError(ContainSubstring("is not in the namespace range")), "the validating policy is not in effect")
	// Each policy is loaded on its own: wait for the mutating one as well, until a pod without IDs
	// is admitted with the first UID (a run where only the validating one was in effect refused it).
	g.Eventually(func() error {
		p := pod(scc)
		if err := c.Create(ctx, p, client.DryRunAll); err != nil {
			return err
		}
		if sc := p.Spec.Containers[0].SecurityContext; sc == nil || ptr.Deref(sc.RunAsUser, 0) != firstUID {
			return fmt.Errorf("container %s admitted without the first UID: %+v", p.Spec.Containers[0].Name, sc)
		}
		return nil
	}, 30*time.Second, 100*time.Millisecond).Should(Succeed(), "the mutating policy is not in effect")

	mc := &cachev1alpha1.Memcached{ObjectMeta: metav1.ObjectMeta{Name: "mc", Namespace: scc}, Spec: cachev1alpha1.MemcachedSpec{
		Size: 1, Memcached: cachev1alpha1.MemcachedConfig{MaxMemoryMB: 64},
		TLS:        &cachev1alpha1.TLSSpec{SecretName: "cert"},
		Monitoring: cachev1alpha1.MonitoringSpec{Enabled: ptr.To(true)},
	}}
	operatorPod := func(platform bool) *corev1.Pod {
		tmpl := resources.DesiredDeployment(mc, resources.Options{
			DefaultImage: "memcached", DefaultExporterImage: "exporter", CertReloaderImage: "operator", PlatformAssignsUIDs: platform,
		}).Spec.Template
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: "mc-", Namespace: scc}, Spec: tmpl.Spec}
	}

	tests := map[string]struct {
		pod      *corev1.Pod
		refused  string // a part of the refusal; "" when admitted
		wantUIDs []int64
		wantFS   *int64
	}{
		"no IDs: each container gets the first UID, the pod the first group as fsGroup": {
			pod: pod(scc), wantUIDs: []int64{firstUID, firstUID}, wantFS: ptr.To[int64](firstGroup),
		},
		"an init container without a UID gets one too": {
			pod: withInit(pod(scc)), wantUIDs: []int64{firstUID, firstUID, firstUID}, wantFS: ptr.To[int64](firstGroup),
		},
		"a UID in the range is kept": {
			pod: pod(scc, withContainerUID(0, firstUID+5)), wantUIDs: []int64{firstUID + 5, firstUID}, wantFS: ptr.To[int64](firstGroup),
		},
		"a pod-level UID in the range is kept, containers get none": {
			pod: pod(scc, withPodIDs(firstUID+7, 0, firstGroup+1)), wantUIDs: []int64{0, 0}, wantFS: ptr.To[int64](firstGroup + 1),
		},
		"the pod's UID 11211 is refused": {
			pod: pod(scc, withPodIDs(11211, 0, 0)), refused: "spec.securityContext.runAsUser 11211 is not in the namespace range 1000680000-1000689999",
		},
		"the pod's group 11211 is refused": {
			pod: pod(scc, withPodIDs(firstUID, 11211, 0)), refused: "spec.securityContext.runAsGroup 11211 is not in the namespace range",
		},
		"fsGroup 11211 is refused": {
			pod: pod(scc, withPodIDs(0, 0, 11211)), refused: "spec.securityContext.fsGroup 11211 is not in the namespace range 1000690000/10000",
		},
		"a container's UID outside the range is refused, named": {
			pod: pod(scc, withContainerUID(1, 65532)), refused: "spec.containers b: runAsUser unset or not in the namespace range",
		},
		"the operator's template with fixed UIDs is refused": {
			pod: operatorPod(false), refused: "runAsUser 11211 is not in the namespace range",
		},
		"the operator's template with platform UIDs: memcached, exporter and reloader get the first UID": {
			pod: operatorPod(true), wantUIDs: []int64{firstUID, firstUID, firstUID}, wantFS: ptr.To[int64](firstGroup),
		},
		"a namespace without a range: untouched": {
			pod: pod(plain, withPodIDs(11211, 11211, 11211)), wantUIDs: []int64{0, 0}, wantFS: ptr.To[int64](11211),
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p := tc.pod
			err := c.Create(ctx, p, client.DryRunAll)
			if tc.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tc.refused) {
					t.Fatalf("want a refusal containing %q, got %v", tc.refused, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("want admitted, got %v", err)
			}
			var got []int64
			for _, cs := range append(p.Spec.InitContainers, p.Spec.Containers...) {
				uid := int64(0)
				if cs.SecurityContext != nil {
					uid = ptr.Deref(cs.SecurityContext.RunAsUser, 0)
				}
				got = append(got, uid)
			}
			if !slices.Equal(got, tc.wantUIDs) {
				t.Errorf("containers' runAsUser (0: unset) = %v, want %v", got, tc.wantUIDs)
			}
			if got, want := ptr.Deref(p.Spec.SecurityContext.FSGroup, 0), ptr.Deref(tc.wantFS, 0); got != want {
				t.Errorf("fsGroup = %d, want %d", got, want)
			}
		})
	}
}

// applyManifest creates every object of the multi-document YAML file path.
func applyManifest(t *testing.T, c client.Client, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
			return
		} else if err != nil {
			t.Fatalf("failed to decode %s: %v", path, err)
		}
		if len(u.Object) == 0 {
			continue
		}
		if err := c.Create(context.Background(), u); err != nil {
			t.Fatalf("failed to create %s %s from %s: %v", u.GetKind(), u.GetName(), path, err)
		}
	}
}

// namespace creates a namespace with annotations and its default ServiceAccount (envtest runs no
// controller that would).
func namespace(t *testing.T, c client.Client, annotations map[string]string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "scc-", Annotations: annotations}}
	if err := c.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(context.Background(), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns.Name}}); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// pod returns a pod of two containers, a and b, in ns, with no IDs set, edited by edits.
func pod(ns string, edits ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "p-", Namespace: ns},
		Spec: corev1.PodSpec{
			AutomountServiceAccountToken: ptr.To(false),
			SecurityContext:              &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true)},
			Containers:                   []corev1.Container{{Name: "a", Image: "a"}, {Name: "b", Image: "b"}},
		},
	}
	for _, e := range edits {
		e(p)
	}
	return p
}

// withPodIDs sets the pod-level runAsUser, runAsGroup and fsGroup that are not 0.
func withPodIDs(uid, gid, fsGroup int64) func(*corev1.Pod) {
	set := func(v int64) *int64 {
		if v == 0 {
			return nil
		}
		return ptr.To(v)
	}
	return func(p *corev1.Pod) {
		p.Spec.SecurityContext.RunAsUser, p.Spec.SecurityContext.RunAsGroup, p.Spec.SecurityContext.FSGroup = set(uid), set(gid), set(fsGroup)
	}
}

// withContainerUID sets container i's runAsUser.
func withContainerUID(i int, uid int64) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Containers[i].SecurityContext = &corev1.SecurityContext{RunAsUser: ptr.To(uid)}
	}
}

// withInit adds an init container without IDs.
func withInit(p *corev1.Pod) *corev1.Pod {
	p.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "init"}}
	return p
}
