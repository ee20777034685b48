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
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/resources"
)

// variant is a kind of instance this operator's subjects get: the spec features that change what
// the operator builds and watches for an instance. -mix chooses the variants of a run.
type variant string

const (
	// variantPlain is spec.size alone: a Deployment (Ephemeral server identities), a Service, a PDB.
	variantPlain variant = "plain"
	// variantStable sets spec.serverIdentity Stable: a StatefulSet instead of the Deployment.
	variantStable variant = "stable"
	// variantTLS sets spec.tls with the Secret tlsSecretName (a self-signed certificate the
	// benchmark writes into each of its namespaces before the subject starts): the Secret's data is
	// read and hashed, mounted, and served through the certificate reloader sidecar.
	variantTLS variant = "tls"
	// variantMonitoring sets spec.monitoring.enabled: the exporter sidecar and the Service's
	// metrics port (no ServiceMonitor: the benchmark's cluster has no Prometheus Operator CRDs).
	variantMonitoring variant = "monitoring"
)

// variants are the known variants in the order the report lists them.
var variants = []variant{variantPlain, variantStable, variantTLS, variantMonitoring}

// tlsSecretName is the Secret the TLS variant's instances name in spec.tls.
const tlsSecretName = "bench-tls"

// certReloaderImage is what the subjects are told their own image is (RELATED_IMAGE_CERT_RELOADER,
// as the shipped operator is): TLS instances then get the certificate reloader sidecar they get in
// a real install. kwok runs no container, so the image is never pulled.
const certReloaderImage = "registry.example.com/memcached-operator:bench"

// builderOptions are the builders' options the subjects run with (subject.env): the floor builds
// the objects it creates with them and the gate counts owned objects with them.
var builderOptions = resources.Options{
	DefaultImage:         memcachedImage,
	DefaultExporterImage: resources.DefaultExporterImage,
	CertReloaderImage:    certReloaderImage,
}

// parseMix parses -mix: comma-separated variant names, each at most once, at least one.
func parseMix(s string) ([]variant, error) {
	var out []variant
	for _, f := range strings.Split(s, ",") {
		v := variant(strings.TrimSpace(f))
		switch {
		case v == "":
			continue
		case !slices.Contains(variants, v):
			return nil, fmt.Errorf("unknown instance variant %q in -mix (want some of %v)", v, variants)
		case slices.Contains(out, v):
			return nil, fmt.Errorf("instance variant %q twice in -mix", v)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-mix names no instance variant (want some of %v)", variants)
	}
	return out, nil
}

// apply sets v's features on mc.
func (v variant) apply(mc *cachev1alpha1.Memcached) {
	switch v {
	case variantStable:
		mc.Spec.ServerIdentity = cachev1alpha1.ServerIdentityStable
	case variantTLS:
		mc.Spec.TLS = &cachev1alpha1.TLSSpec{SecretName: tlsSecretName}
	case variantMonitoring:
		mc.Spec.Monitoring.Enabled = ptr.To(true)
	}
}

// namespaceVariant returns the variant of the instances in namespace j of a prefix: the variants
// of mix take the namespaces in turn (j mod len(mix)), so the audit log, which names each
// request's namespace, attributes every write to its variant. run checks that there are at least
// as many namespaces as variants.
func namespaceVariant(mix []variant, j int) variant {
	if len(mix) == 0 {
		return variantPlain
	}
	return mix[j%len(mix)]
}

// variantOf returns the variant of the instance key (its namespace prefix-<j>), false when the
// namespace is not one of prefix's.
func variantOf(mix []variant, prefix, namespace string) (variant, bool) {
	rest, ok := strings.CutPrefix(namespace, prefix+"-")
	if !ok {
		return "", false
	}
	j, err := strconv.Atoi(rest)
	if err != nil || j < 0 {
		return "", false
	}
	return namespaceVariant(mix, j), true
}

// instanceVariant returns the variant of instance i (in namespace i mod namespaces).
func (b *bench) instanceVariant(i int) variant {
	return namespaceVariant(b.cfg.mix, i%b.cfg.namespaces)
}

// ownedObjects returns how many objects the operator owns for an instance of variant v with
// spec.size size (the floor creates the same list): the unit of the gate's write limits.
func ownedObjects(v variant, size int) int {
	mc := &cachev1alpha1.Memcached{ObjectMeta: metav1.ObjectMeta{Name: "gate", Namespace: "gate"},
		Spec: cachev1alpha1.MemcachedSpec{Size: int32(size)}}
	v.apply(mc)
	return len(resources.DesiredObjects(mc, builderOptions))
}

// createVariantSecrets writes the TLS variant's Secret into each namespace of prefix whose
// instances are TLS ones, before the subject starts: an instance created before its Secret would
// turn Degraded/SecretNotFound (a status write and a Warning event the gate would count).
func (b *bench) createVariantSecrets(ctx context.Context, prefix string) error {
	for j := 0; j < b.cfg.namespaces; j++ {
		if namespaceVariant(b.cfg.mix, j) != variantTLS {
			continue
		}
		if b.tlsCert == nil {
			var err error
			if b.tlsCert, b.tlsKey, err = selfSignedCert("memcached.bench.svc", 24*time.Hour); err != nil {
				return err
			}
		}
		s := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: tlsSecretName, Namespace: fmt.Sprintf("%s-%d", prefix, j)},
			Type:       corev1.SecretTypeTLS,
			Data:       map[string][]byte{corev1.TLSCertKey: b.tlsCert, corev1.TLSPrivateKeyKey: b.tlsKey},
		}
		if err := b.c.Create(ctx, s); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("failed to create Secret %s: %w", client.ObjectKeyFromObject(s), err)
		}
	}
	return nil
}

// selfSignedCert returns a self-signed PEM certificate for cn valid for validFor and its PEM
// private key (ECDSA P-256): what the operator checks a TLS Secret for (a certificate and its key,
// crypto/tls.X509KeyPair). Written with the standard library here because the controllers' test
// fixture that does the same is internal to controllers/ and needs a *testing.T.
func selfSignedCert(cn string, validFor time.Duration) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to generate a key: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(now.UnixNano()),
		Subject:      pkix.Name{CommonName: cn},
		DNSNames:     []string{cn},
		NotBefore:    now.Add(-time.Minute),
		NotAfter:     now.Add(validFor),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to create a certificate: %w", err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to encode the key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), nil
}

// variantResult is one variant's share of a subject's converge writes.
type variantResult struct {
	Variant variant `json:"variant"`
	// Instances is how many of the N instances are of the variant; Owned how many objects the
	// operator owns for each (ownedObjects).
	Instances int `json:"instances"`
	Owned     int `json:"ownedObjects"`
	// Writes counts the writes in the variant's namespaces, events excluded; Events the events.
	Writes int `json:"writes"`
	Events int `json:"events"`
}

// byVariant splits the writes w made in the namespaces of prefix (namespaces of them, holding the
// n instances i in prefix-<i mod namespaces>) by the variant of mix each namespace holds, in mix's
// order. Writes outside prefix's namespaces (none for this operator) are left out.
func byVariant(w writes, mix []variant, prefix string, n, namespaces, size int) []variantResult {
	idx := map[variant]int{}
	out := make([]variantResult, len(mix))
	for k, v := range mix {
		idx[v] = k
		out[k] = variantResult{Variant: v, Owned: ownedObjects(v, size)}
	}
	for i := 0; i < n; i++ {
		out[idx[namespaceVariant(mix, i%namespaces)]].Instances++
	}
	for ns, c := range w.ByNamespace {
		v, ok := variantOf(mix, prefix, ns)
		if !ok {
			continue
		}
		out[idx[v]].Writes += c.Total - c.Events
		out[idx[v]].Events += c.Events
	}
	return out
}
