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
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"

	"github.com/example/memcached-operator/controllers/internal/fixture"
	"github.com/example/memcached-operator/controllers/resources"
)

// secretsNS is the namespace of the Secret tests.
const secretsNS = "t-secrets"

// putSecret creates or replaces Secret name in secretsNS with data and type typ.
func putSecret(g Gomega, name string, typ corev1.SecretType, data map[string][]byte) {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: secretsNS}, Type: typ, Data: data}
	err := k8sClient.Create(testCtx, s)
	if apierrors.IsAlreadyExists(err) {
		live := &corev1.Secret{}
		g.Expect(k8sClient.Get(testCtx, key(secretsNS, name), live)).To(Succeed())
		live.Data = data
		err = k8sClient.Update(testCtx, live)
	}
	g.Expect(err).NotTo(HaveOccurred())
}

// deploymentOf reads the Deployment of instance name in secretsNS.
func deploymentOf(g Gomega, name string) *appsv1.Deployment {
	d := &appsv1.Deployment{}
	g.Expect(k8sClient.Get(testCtx, key(secretsNS, name), d)).To(Succeed())
	return d
}

// A rotation of a Secret the pods use changes the pod template's hash exactly once (one
// Deployment generation), within the watch latency; a change to a key the pods do not use, or an
// unchanged Secret, makes no write. The credentials appear nowhere but in the Secret.
func TestSecretRotationRollsOnce(t *testing.T) {
	g := NewWithT(t)
	const name = "rotate"
	cert, key := fixture.KeyPair(t, "rotate")
	putSecret(g, "rotate-tls", corev1.SecretTypeTLS, map[string][]byte{"tls.crt": cert, "tls.key": key})
	const password = "pw-7Hq2xZ"
	putSecret(g, "rotate-users", corev1.SecretTypeOpaque, map[string][]byte{"authfile": []byte("app:" + password + "\n")})

	mc := newMemcached(secretsNS, name, 2)
	mc.Spec.TLS = &cachev1alpha1.TLSSpec{SecretName: "rotate-tls"}
	mc.Spec.Auth = &cachev1alpha1.AuthSpec{SecretName: "rotate-users"}
	g.Expect(k8sClient.Create(testCtx, mc)).To(Succeed())

	var h1 string
	var gen1 int64
	g.Eventually(func(g Gomega) {
		d := deploymentOf(g, name)
		h1, gen1 = d.Spec.Template.Annotations[resources.SecretHashAnnotation], d.Generation
		g.Expect(h1).To(HaveLen(64))
		spec := d.Spec.Template.Spec
		g.Expect(spec.Containers[0].Args).To(ContainElements("-Z", "-Y"))
		g.Expect(spec.Volumes).To(HaveLen(2))
		g.Expect(spec.SecurityContext.FSGroup).To(HaveValue(Equal(int64(11211))))
	}, timeout, interval).Should(Succeed())
	simulateRollout(t, g, secretsNS, name, 2)
	g.Eventually(func(g Gomega) {
		g.Expect(conditionOf(getMemcached(g, secretsNS, name), cachev1alpha1.ConditionAvailable).Status).To(Equal(metav1.ConditionTrue))
	}, timeout, interval).Should(Succeed())

	// The credentials are in no argument, environment variable, annotation or status.
	for _, obj := range []client.Object{deploymentOf(g, name), getMemcached(g, secretsNS, name)} {
		raw, err := json.Marshal(obj)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(string(raw)).NotTo(ContainSubstring(password), "%T carries the password", obj)
		g.Expect(string(raw)).NotTo(ContainSubstring("PRIVATE KEY"), "%T carries the private key", obj)
	}

	quiet := func(why string) {
		t.Helper()
		before := settledWritesIn(g, secretsNS, time.Second)
		rv := deploymentOf(g, name).ResourceVersion
		g.Consistently(func(g Gomega) {
			g.Expect(deploymentOf(g, name).ResourceVersion).To(Equal(rv), why)
		}, 2*time.Second, 200*time.Millisecond).Should(Succeed())
		after := settledWritesIn(g, secretsNS, time.Second)
		g.Expect(after["patch"]).To(Equal(before["patch"]), "%s: no Deployment patch", why)
	}
	quiet("steady state")

	// A key the pods do not use, and a label: the Secret changes, the hash does not.
	putSecret(g, "rotate-tls", corev1.SecretTypeTLS, map[string][]byte{"tls.crt": cert, "tls.key": key, "ca.crt": cert})
	quiet("an unused key added")

	// Rotation: one new hash, one new Deployment generation, and no more.
	cert2, key2 := fixture.KeyPair(t, "rotate")
	start := time.Now()
	putSecret(g, "rotate-tls", corev1.SecretTypeTLS, map[string][]byte{"tls.crt": cert2, "tls.key": key2, "ca.crt": cert})
	var h2 string
	g.Eventually(func(g Gomega) {
		h2 = deploymentOf(g, name).Spec.Template.Annotations[resources.SecretHashAnnotation]
		g.Expect(h2).NotTo(Equal(h1))
	}, timeout, 10*time.Millisecond).Should(Succeed())
	t.Logf("certificate rotation reached the pod template after %v (bound asked for: under 1s)", time.Since(start).Round(time.Millisecond))
	quiet("after the rotation")
	d := deploymentOf(g, name)
	g.Expect(d.Generation).To(Equal(gen1+1), "exactly one pod template change per rotation")
	g.Expect(d.Spec.Template.Annotations[resources.SecretHashAnnotation]).To(Equal(h2))

	// The password rotated: once more.
	start = time.Now()
	putSecret(g, "rotate-users", corev1.SecretTypeOpaque, map[string][]byte{"authfile": []byte("app:new-" + password + "\n")})
	g.Eventually(func(g Gomega) {
		g.Expect(deploymentOf(g, name).Spec.Template.Annotations[resources.SecretHashAnnotation]).NotTo(Equal(h2))
	}, timeout, 10*time.Millisecond).Should(Succeed())
	t.Logf("password rotation reached the pod template after %v", time.Since(start).Round(time.Millisecond))
	quiet("after the password rotation")
	g.Expect(deploymentOf(g, name).Generation).To(Equal(gen1 + 2))

	// Drift of the owned parts is corrected.
	g.Eventually(func() error {
		d := deploymentOf(g, name)
		d.Spec.Template.Annotations[resources.SecretHashAnnotation] = "edited"
		d.Spec.Template.Spec.Volumes = d.Spec.Template.Spec.Volumes[:1]
		d.Spec.Template.Spec.Containers[0].VolumeMounts = d.Spec.Template.Spec.Containers[0].VolumeMounts[:1]
		return k8sClient.Update(testCtx, d)
	}, timeout, interval).Should(Succeed())
	g.Eventually(func(g Gomega) {
		d := deploymentOf(g, name)
		g.Expect(d.Spec.Template.Annotations[resources.SecretHashAnnotation]).To(HaveLen(64))
		g.Expect(d.Spec.Template.Spec.Volumes).To(HaveLen(2))
	}, timeout, interval).Should(Succeed())

	// Turning both off removes the volumes, the flags and the hash.
	patch := client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"tls":null,"auth":null}}`))
	g.Expect(k8sClient.Patch(testCtx, getMemcached(g, secretsNS, name), patch)).To(Succeed())
	g.Eventually(func(g Gomega) {
		d := deploymentOf(g, name)
		g.Expect(d.Spec.Template.Annotations).NotTo(HaveKey(resources.SecretHashAnnotation))
		g.Expect(d.Spec.Template.Spec.Volumes).To(BeEmpty())
		g.Expect(d.Spec.Template.Spec.Containers[0].Args).NotTo(ContainElement("-Z"))
	}, timeout, interval).Should(Succeed())
}

// A Secret that is missing, or lacks a key, makes the instance Degraded with a reason and a
// message naming the Secret, a Warning event, and leaves the Deployment as it was; the Secret
// appearing or being fixed later is picked up by the watch.
func TestMissingSecretIsDegraded(t *testing.T) {
	g := NewWithT(t)
	const name = "missing"
	degraded := func(reason, msg string) {
		t.Helper()
		g.Eventually(func(g Gomega) {
			mc := getMemcached(g, secretsNS, name)
			g.Expect(mc.Status.ObservedGeneration).To(Equal(mc.Generation))
			c := conditionOf(mc, cachev1alpha1.ConditionDegraded)
			g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
			g.Expect(c.Reason).To(Equal(reason))
			g.Expect(c.Message).To(ContainSubstring(msg))
		}, timeout, interval).Should(Succeed())
		g.Eventually(func(g Gomega) {
			evs := &eventsv1.EventList{}
			g.Expect(k8sClient.List(testCtx, evs, client.InNamespace(secretsNS))).To(Succeed())
			g.Expect(slices.ContainsFunc(evs.Items, func(e eventsv1.Event) bool {
				return e.Regarding.Name == name && e.Type == corev1.EventTypeWarning && e.Reason == reason && strings.Contains(e.Note, msg)
			})).To(BeTrue(), "a Warning %s event naming %q", reason, msg)
		}, timeout, interval).Should(Succeed())
	}

	mc := newMemcached(secretsNS, name, 1)
	mc.Spec.TLS = &cachev1alpha1.TLSSpec{SecretName: "late-tls"}
	g.Expect(k8sClient.Create(testCtx, mc)).To(Succeed())
	degraded(cachev1alpha1.ReasonSecretNotFound, "Secret late-tls not found (referenced by spec.tls.secretName)")
	g.Expect(conditionOf(getMemcached(g, secretsNS, name), cachev1alpha1.ConditionAvailable).Reason).To(Equal(cachev1alpha1.ReasonSecretNotFound))
	g.Consistently(func() bool {
		return apierrors.IsNotFound(k8sClient.Get(testCtx, key(secretsNS, name), &appsv1.Deployment{}))
	}, time.Second, 200*time.Millisecond).Should(BeTrue(), "nothing is created without the Secret")

	// The Secret appears: the watch brings the instance back (no resync: the suite's manager has none).
	cert, pkey := fixture.KeyPair(t, "late")
	start := time.Now()
	// Opaque: any type with the keys serves (the API server refuses a kubernetes.io/tls Secret
	// without tls.key, so the key removal below needs another type).
	putSecret(g, "late-tls", corev1.SecretTypeOpaque, map[string][]byte{"tls.crt": cert, "tls.key": pkey})
	var before *appsv1.Deployment
	g.Eventually(func(g Gomega) { before = deploymentOf(g, name) }, timeout, 10*time.Millisecond).Should(Succeed())
	t.Logf("a Secret created after its Memcached was picked up after %v", time.Since(start).Round(time.Millisecond))
	g.Eventually(func(g Gomega) {
		g.Expect(conditionOf(getMemcached(g, secretsNS, name), cachev1alpha1.ConditionDegraded).Status).To(Equal(metav1.ConditionFalse))
	}, timeout, interval).Should(Succeed())
	before = deploymentOf(g, name)

	// A key removed: InvalidSecret, the Deployment untouched.
	putSecret(g, "late-tls", corev1.SecretTypeOpaque, map[string][]byte{"tls.crt": cert})
	degraded(cachev1alpha1.ReasonInvalidSecret, "Secret late-tls: key tls.key is missing or empty")
	g.Consistently(func(g Gomega) {
		g.Expect(deploymentOf(g, name).ResourceVersion).To(Equal(before.ResourceVersion), "the Deployment is left as it was")
	}, 2*time.Second, 200*time.Millisecond).Should(Succeed())

	// The Secret deleted: SecretNotFound.
	g.Expect(k8sClient.Delete(testCtx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "late-tls", Namespace: secretsNS}})).To(Succeed())
	degraded(cachev1alpha1.ReasonSecretNotFound, "Secret late-tls not found")
	g.Expect(deploymentOf(g, name).ResourceVersion).To(Equal(before.ResourceVersion))

	// Fixed: converges. The Secret created again has a new UID, which keys the hash
	// (hashSecretData): the pods roll once, to the same data.
	putSecret(g, "late-tls", corev1.SecretTypeTLS, map[string][]byte{"tls.crt": cert, "tls.key": pkey})
	g.Eventually(func(g Gomega) {
		g.Expect(conditionOf(getMemcached(g, secretsNS, name), cachev1alpha1.ConditionDegraded).Status).To(Equal(metav1.ConditionFalse))
	}, timeout, interval).Should(Succeed())
	after := deploymentOf(g, name)
	g.Expect(after.Generation).To(Equal(before.Generation+1), "one rollout for the Secret created again")
	g.Expect(after.Spec.Template.Annotations[resources.SecretHashAnnotation]).NotTo(Equal(before.Spec.Template.Annotations[resources.SecretHashAnnotation]))
}
