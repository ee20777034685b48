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

package metricscert

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/go-logr/logr"
	certutil "k8s.io/client-go/util/cert"
)

// serviceDNSName is the metrics Service's name the mounted test certificate is issued for.
const serviceDNSName = "memcached-operator-controller-manager-metrics-service.system.svc"

// writeKeyPair writes a certificate for serviceDNSName, signed by a CA of its own, and its key to
// dir's tls.crt and tls.key, as a Secret volume of kubernetes.io/tls holds them. It returns a
// pool holding the CA.
func writeKeyPair(t *testing.T, dir string) *x509.CertPool {
	t.Helper()
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey(serviceDNSName, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"tls.crt": certPEM, "tls.key": keyPEM} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(certPEM) {
		t.Fatal("no certificate in the generated PEM")
	}
	return pool
}

// servedDNSNames returns the DNS names of the leaf certificate s serves.
func servedDNSNames(t *testing.T, s *Source) []string {
	t.Helper()
	c, err := s.GetCertificate(&tls.ClientHelloInfo{})
	if err != nil {
		t.Fatalf("GetCertificate() = %v", err)
	}
	leaf, err := x509.ParseCertificate(c.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	return leaf.DNSNames
}

// A Source serves the self-signed certificate (for localhost) while no key pair is mounted, and the
// mounted one as soon as its files exist, with no restart: a client that trusts the mounted
// certificate's CA and names the Service verifies it in a real handshake.
func TestSourceServesMountedCertificateOnceItAppears(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	dir := t.TempDir()
	s, err := New(ctx, logr.Discard(), filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key"))
	if err != nil {
		t.Fatal(err)
	}
	if got := servedDNSNames(t, s); !slices.Equal(got, []string{"localhost"}) {
		t.Fatalf("without a mounted key pair: serves a certificate for %v, want the self-signed one for [localhost]", got)
	}
	if mounted, err := s.Mounted(); mounted || err != nil {
		t.Fatalf("Mounted() = %v, %v before the files exist, want false, nil", mounted, err)
	}

	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	srv.TLS = &tls.Config{GetCertificate: s.GetCertificate, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	get := func(roots *x509.CertPool) error {
		c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: serviceDNSName, MinVersion: tls.VersionTLS12}}}
		resp, err := c.Get(srv.URL)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}

	// The files appear after the Source was made (the Secret is written after the pod started).
	roots := writeKeyPair(t, dir)
	if err := get(roots); err != nil {
		t.Fatalf("a client trusting the mounted certificate's CA: %v", err)
	}
	if got := servedDNSNames(t, s); !slices.Equal(got, []string{serviceDNSName}) {
		t.Errorf("with a mounted key pair: serves a certificate for %v, want [%s]", got, serviceDNSName)
	}
	if mounted, err := s.Mounted(); !mounted || err != nil {
		t.Errorf("Mounted() = %v, %v, want true, nil", mounted, err)
	}
	// The self-signed certificate is not trusted by the same client: the check above can fail.
	other, err := New(ctx, logr.Discard(), filepath.Join(t.TempDir(), "tls.crt"), filepath.Join(dir, "none.key"))
	if err != nil {
		t.Fatal(err)
	}
	srv.TLS.GetCertificate = other.GetCertificate
	srv.CloseClientConnections()
	if err := get(roots); err == nil {
		t.Error("a client trusting the mounted certificate's CA accepted the self-signed certificate")
	}
}

// Files that do not hold a key pair fail the handshake instead of falling back to the self-signed
// certificate.
func TestSourceRefusesBrokenKeyPair(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	dir := t.TempDir()
	for _, name := range []string{"tls.crt", "tls.key"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("not PEM"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(ctx, logr.Discard(), filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key"))
	if err != nil {
		t.Fatal(err)
	}
	if c, err := s.GetCertificate(&tls.ClientHelloInfo{}); err == nil {
		t.Errorf("GetCertificate() = %v, nil for files without a key pair, want an error", c)
	}
}
