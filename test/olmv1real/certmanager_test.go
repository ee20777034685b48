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
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"strconv"
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
// what a renewal does: every running server presents the renewed certificate within the bound the
// docs state (the kubelet's update of the mounted Secret plus the reloader's interval), through the
// reloader sidecar's refresh_certs, without a restart, and every key written before it is still
// found by a client verifying the servers against the issuer's CA.
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
	serving := func() memcache.ServersReport {
		var r memcache.ServersReport
		mcc.RunInput(t, string(creds), &r, "servers", "-servers", servers, "-tls", "-credentials-stdin")
		return r
	}
	first := serving()
	oldSerial := certSerial(t, secret.Data["tls.crt"])
	for _, s := range first.Servers {
		g.Expect(s.CertSerial).To(Equal(oldSerial), "%s presents another certificate than the Secret's", s.Server)
	}
	suite.phases.Record(t, "Memcached with the cert-manager Secret Available; 100 keys set over TLS, verified against the issuer's CA", start)

	// Renewal, as `cmctl renew` triggers it: the Issuing condition on the Certificate.
	start = time.Now()
	before := utils.PodUIDs(pods)
	now := time.Now().UTC().Format(time.RFC3339)
	suite.kubectl.Must(t, "", "patch", "certificate", "-n", ns, name+"-tls", "--subresource=status", "--type=merge", "-p",
		`{"status":{"conditions":[{"type":"Issuing","status":"True","reason":"ManuallyTriggered","message":"renewal triggered by olmv1real","lastTransitionTime":"`+now+`"}]}}`)
	var newSerial string
	g.Eventually(func(g Gomega) {
		s := &corev1.Secret{}
		g.Expect(suite.k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name + "-tls"}, s)).To(Succeed())
		newSerial = certSerial(t, s.Data["tls.crt"])
		g.Expect(newSerial).NotTo(Equal(oldSerial))
	}, 2*time.Minute, poll).Should(Succeed(), "cert-manager did not renew the certificate")
	renewed := time.Since(start)

	// The bound: the kubelet's next sync of each pod (--sync-frequency, 1 minute by default, plus
	// its jitter) and the reloader's interval (5 s); 3 minutes leaves room for a busy node.
	inPlace := time.Now()
	g.Eventually(func(g Gomega) {
		for _, s := range serving().Servers {
			g.Expect(s.CertSerial).To(Equal(newSerial), "%s still presents the old certificate", s.Server)
		}
	}, 3*time.Minute, 2*time.Second).Should(Succeed())
	served := time.Since(inPlace)
	after := serving()
	for i, s := range after.Servers {
		// memcached's uptime goes on across the renewal: the same process serves the new certificate.
		up, err := strconv.Atoi(s.Uptime)
		g.Expect(err).NotTo(HaveOccurred())
		was, err := strconv.Atoi(first.Servers[i].Uptime)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(up).To(BeNumerically(">=", was+int(served.Seconds())-1), "%s restarted", s.Server)
	}
	list, err := utils.InstancePods(ctx, suite.k8s, key)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(utils.PodUIDs(list)).To(Equal(before), "the renewal replaced pods")
	for _, p := range list {
		for _, c := range p.Status.ContainerStatuses {
			g.Expect(c.RestartCount).To(BeZero(), "container %s of %s restarted", c.Name, p.Name)
		}
	}
	var loc memcache.PlacementReport
	mcc.RunInput(t, string(creds), &loc, "locate", "-servers", servers, "-prefix", keyPrefix, "-n", "100", "-tls", "-credentials-stdin")
	found := 0
	for _, on := range loc.Keys {
		if len(on) > 0 {
			found++
		}
	}
	t.Logf("renewal: new certificate in the Secret after %s; every server presents it %s later, same pods and memcached processes (uptime); %d of 100 keys found",
		renewed.Round(time.Second), served.Round(time.Second), found)
	g.Expect(loc.Errors).To(BeEmpty(), "the renewed servers refused the client (TLS verification against the same CA)")
	g.Expect(found).To(Equal(100), "keys lost in the renewal")
	suite.phases.Record(t, fmt.Sprintf("renewal in place: every server presents the new certificate %s after the Secret changed; no pod, container or process restarted, %d/100 keys found",
		served.Round(time.Second), found), start)
}

// certSerial returns the serial number (hex, as mcclient reports it) of the first PEM certificate
// in pemData.
func certSerial(t *testing.T, pemData []byte) string {
	t.Helper()
	block, _ := pem.Decode(pemData)
	if block == nil {
		t.Fatal("no PEM certificate in the Secret's tls.crt")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatalf("failed to parse the Secret's tls.crt: %v", err)
	}
	return cert.SerialNumber.Text(16)
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
