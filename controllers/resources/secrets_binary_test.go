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
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"

	"github.com/example/memcached-operator/controllers/internal/fixture"
	"github.com/example/memcached-operator/test/utils"
)

// TestSecretArgsAcceptedByRealMemcached starts Debian's memcached (when installed, as
// TestArgsAcceptedByRealMemcached) with the TLS and authentication flags the builder produces,
// the mounted directories replaced by a temporary one holding the files the pods would mount, and
// talks to it: TLS verified with the CA and the right password works; plain TCP, no
// authentication, a wrong password, and (clientCA Require) a client without a certificate are
// refused.
func TestSecretArgsAcceptedByRealMemcached(t *testing.T) {
	bin := utils.MemcachedBinary(t)
	cert, key := fixture.KeyPair(t, "cache.example")
	clientCert, clientKey := fixture.KeyPair(t, "client")
	dir, err := os.MkdirTemp("", "memcached-secrets-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	// memcached drops root for -u nobody: the files must be readable by it.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"tls", "auth"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range map[string][]byte{
		"tls/tls.crt": cert, "tls/tls.key": key, "tls/ca.crt": clientCert,
		"auth/authfile": []byte("app:s3cret\nops:other\n"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(cert)
	pair, err := tls.X509KeyPair(clientCert, clientKey)
	if err != nil {
		t.Fatal(err)
	}
	caOnly := &tls.Config{RootCAs: roots, ServerName: "cache.example", MinVersion: tls.VersionTLS12}
	withCert := caOnly.Clone()
	withCert.Certificates = []tls.Certificate{pair}

	type attempt struct {
		tls      *tls.Config // nil: plain TCP
		auth     string      // "" none, else "user password"
		accepted bool
	}
	tests := map[string]struct {
		mc       *cachev1alpha1.Memcached
		attempts map[string]attempt
	}{
		"tls and auth": {
			mc: fixture.Defaulted("a", fixture.WithTLS("c"), fixture.WithAuth("u", "")),
			attempts: map[string]attempt{
				"TLS, right password":  {tls: caOnly, auth: "app s3cret", accepted: true},
				"TLS, second user":     {tls: caOnly, auth: "ops other", accepted: true},
				"TLS, wrong password":  {tls: caOnly, auth: "app wrong"},
				"TLS, no auth":         {tls: caOnly},
				"plain TCP, right pwd": {auth: "app s3cret"},
			},
		},
		"client certificates required": {
			mc: fixture.Defaulted("a", fixture.WithTLS("c"), fixture.WithClientCA("", "ca.crt", cachev1alpha1.ClientCertificateRequire)),
			attempts: map[string]attempt{
				"with a client certificate": {tls: withCert, accepted: true},
				"without one":               {tls: caOnly},
				"plain TCP":                 {},
			},
		},
		"client certificates requested": {
			mc: fixture.Defaulted("a", fixture.WithTLS("c"), fixture.WithClientCA("", "ca.crt", cachev1alpha1.ClientCertificateRequest)),
			attempts: map[string]attempt{
				"with a client certificate": {tls: withCert, accepted: true},
				"without one":               {tls: caOnly, accepted: true},
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var args []string
			for _, a := range MemcachedArgs(tc.mc, Options{}) {
				a = strings.ReplaceAll(a, tlsDir, filepath.Join(dir, "tls"))
				args = append(args, strings.ReplaceAll(a, authDir, filepath.Join(dir, "auth")))
			}
			p, err := startMemcached(t, bin, args)
			if err != nil {
				t.Fatal(err)
			}
			for what, a := range tc.attempts {
				answer, err := versionOver(p.addr, a.tls, a.auth)
				t.Logf("%s: %q %v", what, answer, err)
				if got := err == nil && strings.HasPrefix(answer, "VERSION "); got != a.accepted {
					t.Errorf("%s: accepted = %v, want %v (answer %q, error %v; memcached stderr: %s)", what, got, a.accepted, answer, err, p.Stderr())
				}
			}
		})
	}
}

// versionOver connects to addr (over TLS when cfg is set), authenticates when auth ("user
// password") is set, and returns memcached's answer to "version".
func versionOver(addr string, cfg *tls.Config, auth string) (string, error) {
	var c net.Conn
	var err error
	if cfg != nil {
		c, err = tls.DialWithDialer(&net.Dialer{Timeout: 2 * time.Second}, "tcp", addr, cfg)
	} else {
		c, err = net.DialTimeout("tcp", addr, 2*time.Second)
	}
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	r := bufio.NewReader(c)
	if auth != "" {
		if _, err := fmt.Fprintf(c, "set auth 0 0 %d\r\n%s\r\n", len(auth), auth); err != nil {
			return "", err
		}
		line, err := r.ReadString('\n')
		if err != nil {
			return "", err
		}
		if strings.TrimSpace(line) != "STORED" {
			return strings.TrimSpace(line), nil
		}
	}
	if _, err := fmt.Fprint(c, "version\r\n"); err != nil {
		return "", err
	}
	line, err := r.ReadString('\n')
	return strings.TrimSpace(line), err
}
