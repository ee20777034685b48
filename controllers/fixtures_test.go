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
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/internal/podview"
	networkingv1 "k8s.io/api/networking/v1"
	"math/big"
	"time"
)

// defaulted returns a Memcached with the CRD defaults applied, as the API server stores it.
func defaulted(name string, mutate ...func(*cachev1alpha1.Memcached)) *cachev1alpha1.Memcached {
	mc := &cachev1alpha1.Memcached{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Generation: 1},
		Spec: cachev1alpha1.MemcachedSpec{
			Size:                1,
			Memcached:           cachev1alpha1.MemcachedConfig{MaxMemoryMB: 64, MaxConnections: 1024, Threads: 4},
			AntiAffinityPreset:  cachev1alpha1.AntiAffinitySoft,
			PodDisruptionBudget: cachev1alpha1.PodDisruptionBudgetSpec{Enabled: ptr.To(true)},
			Service:             cachev1alpha1.ServiceSpec{Enabled: ptr.To(true)},
		},
	}
	for _, m := range mutate {
		m(mc)
	}
	return mc
}

// tuned is a Memcached with every memcached setting changed from its default.
func tuned(mc *cachev1alpha1.Memcached) {
	mc.Spec.Memcached = cachev1alpha1.MemcachedConfig{
		MaxMemoryMB: 512, MaxConnections: 4096, Threads: 8, MaxItemSize: ptr.To(resource.MustParse("4Mi")),
		Verbosity: 2, ExtraArgs: []string{"-o", "modern", "-R", "40"},
	}
}

// serverDefaulted returns d as the API server stores it: defaults filled into fields we leave unset.
func serverDefaulted(d *appsv1.Deployment) *appsv1.Deployment {
	d = d.DeepCopy()
	d.Spec.RevisionHistoryLimit = ptr.To[int32](10)
	d.Spec.ProgressDeadlineSeconds = ptr.To[int32](600)
	p := &d.Spec.Template.Spec
	p.RestartPolicy = corev1.RestartPolicyAlways
	p.DNSPolicy = corev1.DNSClusterFirst
	p.SchedulerName = corev1.DefaultSchedulerName
	if p.TerminationGracePeriodSeconds == nil {
		p.TerminationGracePeriodSeconds = ptr.To[int64](30)
	}
	c := &p.Containers[0]
	c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	c.ImagePullPolicy = corev1.PullIfNotPresent
	d.Labels["extra"] = "kept"
	d.Spec.Template.Annotations = map[string]string{"kubectl.kubernetes.io/restartedAt": "2026-01-01T00:00:00Z"}
	return d
}

// expect reports a test error when got is not semantically equal to want.
func expect(t *testing.T, what string, got, want any) {
	t.Helper()
	if !equality.Semantic.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}

func pod(name, ip string, ready bool, mutate ...func(*podview.Pod)) podview.Pod {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	p := podview.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: podview.PodStatus{Phase: corev1.PodRunning, PodIP: ip,
			Conditions: []podview.PodCondition{{Type: corev1.PodReady, Status: status}}},
	}
	for _, m := range mutate {
		m(&p)
	}
	return p
}

// deployment returns a Deployment of replicas whose status says updated/available pods exist.
func deployment(replicas, statusReplicas, updated, available int32, observedCurrent bool) *appsv1.Deployment {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Generation: 2},
		Spec:       appsv1.DeploymentSpec{Replicas: ptr.To(replicas)},
		Status: appsv1.DeploymentStatus{Replicas: statusReplicas, UpdatedReplicas: updated,
			AvailableReplicas: available, ReadyReplicas: available, ObservedGeneration: 1},
	}
	if observedCurrent {
		d.Status.ObservedGeneration = 2
	}
	return d
}

// testKeyPair returns a self-signed PEM certificate and its PEM private key for cn (ECDSA P-256,
// valid for an hour), usable as a server certificate and as its own CA.
func testKeyPair(t testing.TB, cn string) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: cn},
		DNSNames:     []string{cn},
		NotBefore:    time.Now().Add(-time.Minute),
		NotAfter:     time.Now().Add(time.Hour),
		IsCA:         true, BasicConstraintsValid: true,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

// withTLS sets spec.tls with Secret name.
func withTLS(name string) func(*cachev1alpha1.Memcached) {
	return func(mc *cachev1alpha1.Memcached) { mc.Spec.TLS = &cachev1alpha1.TLSSpec{SecretName: name} }
}

// withClientCA sets spec.tls.clientCA (withTLS first).
func withClientCA(secret, key string, v cachev1alpha1.ClientCertificateVerification) func(*cachev1alpha1.Memcached) {
	return func(mc *cachev1alpha1.Memcached) {
		mc.Spec.TLS.ClientCA = &cachev1alpha1.TLSClientCA{SecretName: secret, Key: key, Verification: v}
	}
}

// withAuth sets spec.auth with Secret name and key.
func withAuth(name, key string) func(*cachev1alpha1.Memcached) {
	return func(mc *cachev1alpha1.Memcached) { mc.Spec.Auth = &cachev1alpha1.AuthSpec{SecretName: name, Key: key} }
}

var (
	// clientPeer admits the pods labelled role=client of the instance's namespace.
	clientPeer = networkingv1.NetworkPolicyPeer{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"role": "client"}}}
	// monitoringPeer admits every pod of the namespace named monitoring.
	monitoringPeer = networkingv1.NetworkPolicyPeer{NamespaceSelector: &metav1.LabelSelector{
		MatchLabels: map[string]string{"kubernetes.io/metadata.name": "monitoring"}}}
	// cidrPeer admits addresses of a CIDR.
	cidrPeer = networkingv1.NetworkPolicyPeer{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.0/8", Except: []string{"10.1.0.0/16"}}}
)

func must(v any, err error) any {
	if err != nil {
		panic(err)
	}
	return v
}
