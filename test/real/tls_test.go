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

package real

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/resources"
	"github.com/example/memcached-operator/test/real/memcache"
	"github.com/example/memcached-operator/test/utils"
)

// TestTLSAndAuthentication proves spec.tls and spec.auth on real memcached pods (Debian's memcached
// built with OpenSSL), from a client pod in a namespace enforcing the restricted profile:
//
//  1. a Memcached of 2 servers with a kubernetes.io/tls Secret (a server certificate signed by a
//     test CA, valid for the headless Service's names) and an auth file Secret becomes Available:
//     memcached, as uid 11211, read the mounted files;
//  2. over TLS verified with the CA and with the right password, every status.serverList entry
//     answers, and 100 keys go through the Service name; plain TCP is refused by every server;
//     over TLS, no authentication and a wrong password are refused;
//  3. rotating the password in the Secret rolls the pods once (one new pod template hash), after
//     which the new password works and the old one is refused.
func TestTLSAndAuthentication(t *testing.T) {
	g := NewWithT(t)
	ctx := utils.TestContext(t)
	ns := newRestrictedNamespace(t, "tls")
	const name = "mc-tls"
	key := client.ObjectKey{Namespace: ns, Name: name}
	start := time.Now()

	ca, caKey := newCA(t)
	cert, certKey := newCert(t, ca, caKey, "*."+name+"."+ns+".svc", name, name+"."+ns+".svc")
	password := randomPassword(t)
	g.Expect(suite.k8s.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-cert", Namespace: ns}, Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{"tls.crt": cert, "tls.key": certKey, "ca.crt": pemCert(ca)},
	})).To(Succeed())
	users := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name + "-users", Namespace: ns},
		Data: map[string][]byte{"authfile": []byte("app:" + password + "\n")}}
	g.Expect(suite.k8s.Create(ctx, users)).To(Succeed())
	mc := &cachev1alpha1.Memcached{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: cachev1alpha1.MemcachedSpec{
			Size:      2,
			Memcached: cachev1alpha1.MemcachedConfig{MaxMemoryMB: 64},
			TLS:       &cachev1alpha1.TLSSpec{SecretName: name + "-cert"},
			Auth:      &cachev1alpha1.AuthSpec{SecretName: name + "-users"},
		},
	}
	g.Expect(suite.k8s.Create(ctx, mc)).To(Succeed())
	startClientPod(t, ns)
	mc, pods := waitConverged(t, key, 2, 64, 2*podStartTimeout)
	suite.phases.Record(t, "TLS + auth Memcached (2 pods) Available", start)
	for i := range pods {
		c := memcachedContainerOf(&pods[i])
		g.Expect(c.Args).To(ContainElements("-Z", "-Y"))
		g.Expect(strings.Join(c.Args, " ")).NotTo(ContainSubstring(password))
		g.Expect(c.Env).NotTo(ContainElement(HaveField("Value", ContainSubstring(password))))
	}
	servers := mc.Status.ServerList
	caPEM := string(pemCert(ca))

	// Over TLS with the CA and the right password: every server answers (retried while a new
	// server's name is not yet in cluster DNS, see dnsLag).
	tlsArgs := []string{"servers", "-servers", strings.Join(servers, ","), "-tls", "-user", "app", "-credentials-stdin"}
	var ok memcache.ServersReport
	deadline := time.Now().Add(dnsLag)
	for {
		err := clientRun(ctx, ns, creds(caPEM, password), &ok, tlsArgs...)
		if err == nil && len(ok.Servers) == len(servers) {
			break
		}
		if time.Now().After(deadline) || unresolved(&ok) == "" {
			t.Fatalf("TLS with the CA and the right password: %v (report %+v)", err, ok)
		}
		time.Sleep(poll)
	}
	for _, s := range ok.Servers {
		g.Expect(s.Version).NotTo(BeEmpty(), "server %s", s.Server)
	}
	t.Logf("TLS (verified with the test CA) + password: %d of %d servers answered, memcached %s", len(ok.Servers), len(servers), ok.Servers[0].Version)

	var svc memcache.ServiceReport
	mustClientRun(t, ns, creds(caPEM, password), &svc, "service", "-addr", name+":11211", "-prefix", "tls", "-n", "100", "-tls", "-user", "app", "-credentials-stdin")
	g.Expect(svc.Stored).To(Equal(100))
	g.Expect(svc.Read).To(Equal(100))
	t.Logf("100 keys set and read back over TLS through %s:11211 (%s)", name, svc.RemoteAddr)

	// Refused: plain TCP, no authentication, a wrong password, a CA that did not sign the servers.
	other, _ := newCA(t)
	refusals := map[string]struct {
		stdin string
		args  []string
		want  string
	}{
		"plain TCP":      {args: []string{"servers", "-servers", strings.Join(servers, ",")}, want: "failed to"},
		"TLS, no user":   {stdin: creds(caPEM, ""), args: []string{"servers", "-servers", strings.Join(servers, ","), "-tls", "-credentials-stdin"}, want: "CLIENT_ERROR unauthenticated"},
		"wrong password": {stdin: creds(caPEM, "not-"+password), args: []string{"servers", "-servers", strings.Join(servers, ","), "-tls", "-user", "app", "-credentials-stdin"}, want: "CLIENT_ERROR authentication failure"},
		"another CA":     {stdin: creds(string(pemCert(other)), password), args: []string{"servers", "-servers", strings.Join(servers, ","), "-tls", "-user", "app", "-credentials-stdin"}, want: "certificate signed by unknown authority"},
	}
	for what, r := range refusals {
		var rep memcache.ServersReport
		err := clientRun(ctx, ns, r.stdin, &rep, r.args...)
		g.Expect(err).To(HaveOccurred(), "%s must be refused", what)
		g.Expect(rep.Servers).To(HaveLen(len(servers)))
		for _, s := range rep.Servers {
			g.Expect(s.Error).To(ContainSubstring(r.want), "%s: server %s", what, s.Server)
			g.Expect(s.Version).To(BeEmpty())
		}
		g.Expect(strings.Join(rep.Errors, " ")).NotTo(ContainSubstring(password))
		t.Logf("%s: refused by every server (%s)", what, rep.Servers[0].Error)
	}

	// Rotation: a new password in the Secret rolls the pods once; then the new one works and the
	// old one is refused.
	dep := &appsv1.Deployment{}
	g.Expect(suite.k8s.Get(ctx, key, dep)).To(Succeed())
	gen, hash := dep.Generation, dep.Spec.Template.Annotations[resources.SecretHashAnnotation]
	g.Expect(hash).To(HaveLen(64))
	rotated := randomPassword(t)
	start = time.Now()
	g.Expect(suite.k8s.Get(ctx, client.ObjectKeyFromObject(users), users)).To(Succeed())
	users.Data["authfile"] = []byte("app:" + rotated + "\n")
	g.Expect(suite.k8s.Update(ctx, users)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(suite.k8s.Get(ctx, key, dep)).To(Succeed())
		g.Expect(dep.Spec.Template.Annotations[resources.SecretHashAnnotation]).NotTo(Equal(hash))
	}, 10*time.Second, 50*time.Millisecond).Should(Succeed())
	t.Logf("password rotation reached the pod template after %s", utils.Ms(time.Since(start)))
	mc, _ = waitConverged(t, key, 2, 64, 2*podStartTimeout)
	g.Expect(suite.k8s.Get(ctx, key, dep)).To(Succeed())
	g.Expect(dep.Generation).To(Equal(gen+1), "one pod template change for one rotation")
	suite.phases.Record(t, "password rotated -> pods rolled, Available", start)

	servers = mc.Status.ServerList
	deadline = time.Now().Add(dnsLag)
	for {
		err := clientRun(ctx, ns, creds(caPEM, rotated), &ok, "servers", "-servers", strings.Join(servers, ","), "-tls", "-user", "app", "-credentials-stdin")
		if err == nil {
			break
		}
		if time.Now().After(deadline) || unresolved(&ok) == "" {
			t.Fatalf("the rotated password: %v", err)
		}
		time.Sleep(poll)
	}
	var old memcache.ServersReport
	g.Expect(clientRun(ctx, ns, creds(caPEM, password), &old, "servers", "-servers", strings.Join(servers, ","), "-tls", "-user", "app", "-credentials-stdin")).NotTo(Succeed())
	for _, s := range old.Servers {
		g.Expect(s.Error).To(ContainSubstring("CLIENT_ERROR authentication failure"))
	}
	t.Logf("after the rotation: the new password works on %d servers, the old one is refused", len(servers))
}

// TestClientCertificates proves spec.tls.clientCA on a real memcached pod: with the client CA in a
// Secret of its own and verification Require, a client presenting a certificate signed by that CA
// is served, one without a certificate or with one signed by another CA is refused. Monitoring is
// on as well (the exporter image of MEMCACHED_EXPORTER_IMAGE): the exporter, which has no
// certificate, reads memcached through its plain-text loopback listener (memcached_up 1 and
// memcached_current_items equal to the keys a client wrote over TLS), and that listener cannot be
// reached from another pod.
func TestClientCertificates(t *testing.T) {
	g := NewWithT(t)
	ctx := utils.TestContext(t)
	ns := newRestrictedNamespace(t, "mtls")
	const name = "mc-mtls"
	key := client.ObjectKey{Namespace: ns, Name: name}
	start := time.Now()

	serverCA, serverCAKey := newCA(t)
	cert, certKey := newCert(t, serverCA, serverCAKey, "*."+name+"."+ns+".svc", name)
	clientCA, clientCAKey := newCA(t)
	clientCert, clientKey := newClientCert(t, clientCA, clientCAKey, "app")
	otherCA, otherCAKey := newCA(t)
	otherCert, otherKey := newClientCert(t, otherCA, otherCAKey, "intruder")
	for _, s := range []*corev1.Secret{
		{ObjectMeta: metav1.ObjectMeta{Name: name + "-cert", Namespace: ns}, Type: corev1.SecretTypeTLS,
			Data: map[string][]byte{"tls.crt": cert, "tls.key": certKey}},
		{ObjectMeta: metav1.ObjectMeta{Name: name + "-clients", Namespace: ns},
			Data: map[string][]byte{"clients.pem": pemCert(clientCA)}},
	} {
		g.Expect(suite.k8s.Create(ctx, s)).To(Succeed())
	}
	g.Expect(suite.k8s.Create(ctx, &cachev1alpha1.Memcached{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: cachev1alpha1.MemcachedSpec{
			Size:      1,
			Memcached: cachev1alpha1.MemcachedConfig{MaxMemoryMB: 64},
			TLS: &cachev1alpha1.TLSSpec{SecretName: name + "-cert", ClientCA: &cachev1alpha1.TLSClientCA{
				SecretName: name + "-clients", Key: "clients.pem", Verification: cachev1alpha1.ClientCertificateRequire,
			}},
			Monitoring: cachev1alpha1.MonitoringSpec{Enabled: ptr.To(true), Image: os.Getenv("MEMCACHED_EXPORTER_IMAGE")},
		},
	})).To(Succeed())
	startClientPod(t, ns)
	mc, _ := waitConverged(t, key, 1, 64, 2*podStartTimeout)
	suite.phases.Record(t, "client-certificate Memcached Available", start)
	servers := strings.Join(mc.Status.ServerList, ",")

	withCert := func(cert, key []byte) string {
		b, _ := json.Marshal(map[string]string{"ca": string(pemCert(serverCA)), "cert": string(cert), "key": string(key)})
		return string(b)
	}
	var ok memcache.ServersReport
	deadline := time.Now().Add(dnsLag)
	for {
		err := clientRun(ctx, ns, withCert(clientCert, clientKey), &ok, "servers", "-servers", servers, "-tls", "-credentials-stdin")
		if err == nil {
			break
		}
		if time.Now().After(deadline) || unresolved(&ok) == "" {
			t.Fatalf("a client certificate signed by the client CA: %v", err)
		}
		time.Sleep(poll)
	}
	t.Logf("a client certificate signed by the client CA is served (memcached %s)", ok.Servers[0].Version)
	for what, stdin := range map[string]string{
		"no client certificate":       creds(string(pemCert(serverCA)), ""),
		"a certificate of another CA": withCert(otherCert, otherKey),
	} {
		var rep memcache.ServersReport
		g.Expect(clientRun(ctx, ns, stdin, &rep, "servers", "-servers", servers, "-tls", "-credentials-stdin")).NotTo(Succeed(), what)
		g.Expect(rep.Servers).To(HaveLen(1))
		g.Expect(rep.Servers[0].Version).To(BeEmpty(), what)
		t.Logf("%s: refused (%s)", what, rep.Servers[0].Error)
	}

	const keys = 10
	var set memcache.PlacementReport
	g.Expect(clientRun(ctx, ns, withCert(clientCert, clientKey), &set, "hashset", "-servers", servers, "-prefix", "mon", "-n", strconv.Itoa(keys), "-tls", "-credentials-stdin")).To(Succeed())
	host := strings.TrimSuffix(mc.Status.ServerList[0], fmt.Sprintf(":%d", cachev1alpha1.DefaultPort))
	url := fmt.Sprintf("http://%s:%d/metrics", host, cachev1alpha1.ExporterPort)
	var r memcache.HTTPSReport
	g.Expect(clientRun(ctx, ns, "", &r, "https-get", "-url", url)).To(Succeed())
	g.Expect(r.Status).To(Equal(http.StatusOK), "%s: %.300s", url, r.Body)
	m, err := utils.ParseMetrics(r.Body)
	g.Expect(err).NotTo(HaveOccurred())
	up, _ := m.Sum("memcached_up", nil)
	items, _ := m.Sum("memcached_current_items", nil)
	g.Expect(up).To(Equal(1.0), "%s: memcached_up with TLS and required client certificates", url)
	g.Expect(items).To(Equal(float64(keys)), "%s: memcached_current_items = the keys written over TLS", url)
	var plain memcache.ServersReport
	g.Expect(clientRun(ctx, ns, "", &plain, "servers", "-servers", fmt.Sprintf("%s:%d", host, 11212))).NotTo(Succeed(),
		"the exporter's plain-text listener must not be reachable from another pod")
	t.Logf("monitoring with TLS and client certificates: %s reports memcached_up 1, %v items; %s:11212 from another pod: %s", url, items, host, plain.Servers[0].Error)
}

// creds is the -credentials-stdin JSON of mcclient.
func creds(ca, password string) string {
	b, _ := json.Marshal(map[string]string{"ca": ca, "password": password})
	return string(b)
}

// randomPassword returns 16 random bytes in hex.
func randomPassword(t *testing.T) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// newCA returns a self-signed test CA (ECDSA P-256, client-go's certutil) and its key.
func newCA(t *testing.T) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := certutil.NewSelfSignedCACert(certutil.Config{CommonName: "memcached-real test CA"}, key)
	if err != nil {
		t.Fatal(err)
	}
	return ca, key
}

// newCert returns a PEM server certificate for names (the first is the common name) signed by
// ca, and its PEM key.
func newCert(t *testing.T, ca *x509.Certificate, caKey *ecdsa.PrivateKey, names ...string) ([]byte, []byte) {
	return signCert(t, ca, caKey, x509.ExtKeyUsageServerAuth, names[0], names)
}

// newClientCert returns a PEM client certificate for cn signed by ca, and its PEM key.
func newClientCert(t *testing.T, ca *x509.Certificate, caKey *ecdsa.PrivateKey, cn string) ([]byte, []byte) {
	return signCert(t, ca, caKey, x509.ExtKeyUsageClientAuth, cn, nil)
}

// signCert returns a PEM certificate for cn and dnsNames with extended key usage usage, valid for
// an hour and signed by ca, and its PEM key (ECDSA P-256). client-go's certutil makes CAs and
// self-signed pairs only, so the signing is ours.
func signCert(t *testing.T, ca *x509.Certificate, caKey *ecdsa.PrivateKey, usage x509.ExtKeyUsage, cn string, dnsNames []string) ([]byte, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn}, DNSNames: dnsNames,
		NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), keyPEM
}

// pemCert encodes c as PEM.
func pemCert(c *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
}
