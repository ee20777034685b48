//go:build real

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

package olmv1real

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/test/real/memcache"
	"github.com/example/memcached-operator/test/utils"
)

// certManagerObjects is what a user writes for spec.tls with cert-manager: a self-signed Issuer
// that signs a CA Certificate, a CA Issuer, and the servers' Certificate for the per-pod names of
// status.serverList (<pod-ip>.<name>.<namespace>.svc), in ns.
func certManagerObjects(ns, name string) string {
	return fmt.Sprintf(`apiVersion: cert-manager.io/v1
kind: Issuer
metadata: {name: selfsigned, namespace: %[1]s}
spec: {selfSigned: {}}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: memcached-ca, namespace: %[1]s}
spec:
  isCA: true
  commonName: memcached-ca
  secretName: memcached-ca
  privateKey: {algorithm: ECDSA, size: 256}
  issuerRef: {name: selfsigned, kind: Issuer}
---
apiVersion: cert-manager.io/v1
kind: Issuer
metadata: {name: memcached-ca, namespace: %[1]s}
spec: {ca: {secretName: memcached-ca}}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: %[2]s-tls, namespace: %[1]s}
spec:
  secretName: %[2]s-tls
  dnsNames: ["%[2]s.%[1]s.svc", "*.%[2]s.%[1]s.svc"]
  privateKey: {algorithm: ECDSA, size: 256}
  issuerRef: {name: memcached-ca, kind: Issuer}
`, ns, name)
}

// TestCertManagerIssuedTLS: spec.tls with a Secret issued by a real cert-manager Certificate, and
// what a renewal does. The operator rolls the pods when the Secret's data changes (the certificate
// is read at start), so a renewal replaces every server: measured here, the keys a client finds
// after it (what a client sees during the roll is left to the renewal work of the client-keys issue).
func TestCertManagerIssuedTLS(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	installHead(t)

	start := time.Now()
	ns := utils.NewNamespace(t, suite.k8s, "olmv1-tls", map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}, 2*time.Minute)
	name := "cache"
	suite.kubectl.Must(t, certManagerObjects(ns, name), "apply", "-f", "-")
	suite.kubectl.Must(t, "", "wait", "-n", ns, "--for=condition=Ready", "certificate/memcached-ca", "certificate/"+name+"-tls", "--timeout=2m")
	suite.phases.Record(t, "cert-manager issued the CA and the servers' certificate", start)

	start = time.Now()
	key := client.ObjectKey{Namespace: ns, Name: name}
	g.Expect(suite.k8s.Create(ctx, utils.NewMemcached(ns, name, 3, func(m *cachev1alpha1.Memcached) {
		m.Spec.TLS = &cachev1alpha1.TLSSpec{SecretName: name + "-tls"}
	}))).To(Succeed())
	mc, pods := utils.WaitAvailable(t, suite.k8s, key, 3, 3*time.Minute)
	secret := &corev1.Secret{}
	g.Expect(suite.k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name + "-tls"}, secret)).To(Succeed())
	creds, err := json.Marshal(map[string]string{"ca": string(secret.Data["ca.crt"])})
	g.Expect(err).NotTo(HaveOccurred())
	mcc := utils.MCClient{Kubectl: suite.env["KUBECTL"], Kubeconfig: suite.env["KUBECONFIG"], Namespace: ns,
		Pod: clientPod, Image: suite.env["MCCLIENT_IMAGE"], Binary: clientBinary}
	mcc.Start(t, suite.k8s)
	servers := strings.Join(mc.Status.ServerList, ",")
	var set memcache.PlacementReport
	mcc.RunInput(t, string(creds), &set, "hashset", "-servers", servers, "-prefix", keyPrefix, "-n", "100", "-tls", "-credentials-stdin")
	g.Expect(set.Keys).To(HaveLen(100))
	suite.phases.Record(t, "Memcached with the cert-manager Secret Available; 100 keys set over TLS, verified against the issuer's CA", start)

	// Renewal, as `cmctl renew` triggers it: the Issuing condition on the Certificate.
	start = time.Now()
	before := podUIDs(pods)
	oldCert := string(secret.Data["tls.crt"])
	now := time.Now().UTC().Format(time.RFC3339)
	suite.kubectl.Must(t, "", "patch", "certificate", "-n", ns, name+"-tls", "--subresource=status", "--type=merge", "-p",
		`{"status":{"conditions":[{"type":"Issuing","status":"True","reason":"ManuallyTriggered","message":"renewal triggered by olmv1real","lastTransitionTime":"`+now+`"}]}}`)
	g.Eventually(func(g Gomega) {
		s := &corev1.Secret{}
		g.Expect(suite.k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name + "-tls"}, s)).To(Succeed())
		g.Expect(string(s.Data["tls.crt"])).NotTo(Equal(oldCert))
	}, 2*time.Minute, poll).Should(Succeed(), "cert-manager did not renew the certificate")
	renewed := time.Since(start)
	g.Eventually(func(g Gomega) {
		list, err := utils.InstancePods(ctx, suite.k8s, key)
		g.Expect(err).NotTo(HaveOccurred())
		for _, p := range list {
			g.Expect(before).NotTo(HaveKey(p.Name), "pod %s from before the renewal still runs", p.Name)
		}
	}, 3*time.Minute, poll).Should(Succeed())
	mc, pods = utils.WaitAvailable(t, suite.k8s, key, 3, 3*time.Minute)
	var loc memcache.PlacementReport
	newServers := strings.Join(mc.Status.ServerList, ",")
	mcc.RunInput(t, string(creds), &loc, "locate", "-servers", newServers, "-prefix", keyPrefix, "-n", "100", "-tls", "-credentials-stdin")
	found := 0
	for _, on := range loc.Keys {
		if len(on) > 0 {
			found++
		}
	}
	t.Logf("renewal: new certificate after %s; all 3 pods replaced (%d new, Available); afterwards %d of 100 keys are found (every server restarted cold)",
		renewed.Round(time.Second), len(pods), found)
	g.Expect(loc.Errors).To(BeEmpty(), "the renewed servers refused the client (TLS verification against the same CA)")
	suite.phases.Record(t, fmt.Sprintf("renewal: every pod replaced, %d/100 keys left; the renewed servers verify against the same CA", found), start)
}

// installHead installs the head release in AllNamespaces from the full catalog (the samples of
// docs/olm.md) and waits until it runs.
func installHead(t *testing.T) {
	t.Helper()
	deleteExtension(t)
	publish(t, suite.env["CATALOG_IMAGE_HEAD"])
	apply(t, sample(t, "clustercatalog.yaml")...)
	suite.kubectl.Must(t, "", "wait", "--for=condition=Serving", "clustercatalog/"+extName, "--timeout=3m")
	apply(t, sample(t, "installer.yaml")...)
	apply(t, sample(t, "clusterextension.yaml")...)
	t.Cleanup(func() {
		deleteExtension(t)
		suite.kubectl.Must(t, "", "delete", "clustercatalog", extName, "--ignore-not-found", "--wait=true")
	})
	waitInstalled(t, suite.env["VERSION_HEAD"])
	operatorPod(t, suite.env["OPERATOR_IMAGE_HEAD"])
}
