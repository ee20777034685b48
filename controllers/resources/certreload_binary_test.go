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
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/internal/fixture"
	"github.com/example/memcached-operator/internal/certreload"
	"github.com/example/memcached-operator/test/utils"
)

// currItems returns the curr_items of `stats` from memcached's plain-text listener addr,
// authenticating with auth ("user password") when it is not empty.
func currItems(t *testing.T, addr, auth string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if auth != "" {
		fmt.Fprintf(c, "set auth 0 0 %d\r\n%s\r\n", len(auth), auth)
	}
	fmt.Fprint(c, "stats\r\n")
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 3 && f[1] == "curr_items" {
			return f[2]
		}
		if sc.Text() == "END" {
			break
		}
	}
	t.Fatalf("no curr_items in the stats of %s", addr)
	return ""
}

// podDirs makes the pod's TLS and auth directories (tlsPath, authPath) in a temporary directory
// named after prefix, removed at t.Cleanup: memcached drops root for -u nobody, so every directory
// up to the files must let it in.
func podDirs(t *testing.T, prefix string) (tlsPath, authPath string) {
	t.Helper()
	root, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	tlsPath, authPath = filepath.Join(root, "tls"), filepath.Join(root, "auth")
	for _, d := range []string{tlsPath, authPath} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return tlsPath, authPath
}

// TestCertificateRenewalReachesRealMemcached runs the pinned memcached (utils.MemcachedBinary) with the
// arguments the builder gives a pod with spec.tls and the reloader, and the reloader
// (internal/certreload) beside it, and renews the files as the kubelet does: the server presents
// the new certificate (and trusts only the new client CA) within a few reload intervals, without a
// restart, and a key written before the renewal is still there. A certificate whose key does not
// match is not sent: the server keeps presenting the one it has.
func TestCertificateRenewalReachesRealMemcached(t *testing.T) {
	bin := utils.MemcachedBinary(t)
	const interval = 100 * time.Millisecond
	tests := map[string]*cachev1alpha1.Memcached{
		"tls":                          fixture.Defaulted("a", fixture.WithTLS("c")),
		"tls and auth":                 fixture.Defaulted("a", fixture.WithTLS("c"), fixture.WithAuth("u", "")),
		"client certificates required": fixture.Defaulted("a", fixture.WithTLS("c"), fixture.WithClientCA("", "ca.crt", cachev1alpha1.ClientCertificateRequire)),
	}
	for name, mc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tlsPath, authPath := podDirs(t, "memcached-renewal-")
			auth := ""
			if mc.Spec.Auth != nil {
				auth = "app s3cret"
				utils.PublishVolume(t, authPath, map[string][]byte{"authfile": []byte("app:s3cret\n")})
			}
			type generation struct{ cert, key, clientCert, clientKey []byte }
			gen := func(n int) generation {
				var g generation
				g.cert, g.key = fixture.KeyPair(t, fmt.Sprintf("gen%d.cache.example", n))
				g.clientCert, g.clientKey = fixture.KeyPair(t, fmt.Sprintf("client%d", n))
				return g
			}
			files := func(g generation) map[string][]byte {
				f := map[string][]byte{"tls.crt": g.cert, "tls.key": g.key}
				if mc.Spec.TLS.ClientCA != nil {
					f["ca.crt"] = g.clientCert // a self-signed client certificate is its own CA
				}
				return f
			}
			gen1, gen2 := gen(1), gen(2)
			utils.PublishVolume(t, tlsPath, files(gen1))

			// The builder's arguments with the mounted directories and the loopback listener's port
			// replaced (startMemcached binds the listener on every address to 127.0.0.1).
			args, loopback := podArgs(t, mc, Options{CertReloaderImage: "operator"}, tlsPath, authPath)
			proc, err := startMemcached(t, bin, args)
			if err != nil {
				t.Fatal(err)
			}

			var mu sync.Mutex
			var logs []string
			log := funcr.New(func(prefix, line string) { mu.Lock(); logs = append(logs, line); mu.Unlock() }, funcr.Options{})
			logged := func(s string) bool {
				mu.Lock()
				defer mu.Unlock()
				return strings.Contains(strings.Join(logs, "\n"), s)
			}
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(cancel)
			cfg := certreload.Config{Dir: tlsPath, Address: loopback, Interval: interval}
			if auth != "" {
				cfg.AuthFile = filepath.Join(authPath, "authfile")
			}
			go func() { _ = certreload.Run(ctx, cfg, log) }()

			addr := proc.addr
			client := func(g generation) *tls.Config {
				pair, err := tls.X509KeyPair(g.clientCert, g.clientKey)
				if err != nil {
					t.Fatal(err)
				}
				// Not verified: the test reads which certificate the server presents.
				return &tls.Config{InsecureSkipVerify: true, Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12} //nolint:gosec
			}
			// served returns the CN the server presents to a client of g and the answer to cmd.
			served := func(g generation, cmd string) (string, string, error) {
				c, err := tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", addr, client(g))
				if err != nil {
					return "", "", err
				}
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(2 * time.Second))
				cn := c.ConnectionState().PeerCertificates[0].Subject.CommonName
				r := bufio.NewReader(c)
				if auth != "" {
					fmt.Fprintf(c, "set auth 0 0 %d\r\n%s\r\n", len(auth), auth)
					if l, err := r.ReadString('\n'); err != nil || strings.TrimSpace(l) != "STORED" {
						return cn, "", fmt.Errorf("authentication: %q %v", l, err)
					}
				}
				fmt.Fprint(c, cmd)
				l, err := r.ReadString('\n')
				return cn, strings.TrimSpace(l), err
			}
			waitFor := func(what string, cond func() bool) time.Duration {
				t.Helper()
				start := time.Now()
				for !cond() {
					if time.Since(start) > 5*time.Second {
						mu.Lock()
						t.Fatalf("%s: not within 5 s; reloader logs:\n%s\nmemcached stderr: %s", what, strings.Join(logs, "\n"), proc.Stderr())
					}
					time.Sleep(20 * time.Millisecond)
				}
				return time.Since(start)
			}
			waitFor("memcached serves the first certificate and stores a key", func() bool {
				cn, ans, err := served(gen1, "set kept 0 0 5\r\nvalue\r\n")
				return err == nil && cn == "gen1.cache.example" && ans == "STORED"
			})
			waitFor("the reloader's first refresh", func() bool { return logged("memcached reloaded its certificate") })
			items := currItems(t, loopback, auth)

			utils.PublishVolume(t, tlsPath, files(gen2))
			took := waitFor("the renewed certificate served", func() bool {
				cn, _, err := served(gen2, "version\r\n")
				return err == nil && cn == "gen2.cache.example"
			})
			t.Logf("renewed certificate served after %v (reload interval %v)", took.Round(time.Millisecond), interval)
			if _, ans, err := served(gen2, "get kept\r\n"); err != nil || ans != "VALUE kept 0 5" {
				t.Errorf("key written before the renewal: %q %v, want it kept", ans, err)
			}
			if got := currItems(t, loopback, auth); got != items {
				t.Errorf("memcached's curr_items went from %s to %s across the renewal", items, got)
			}
			if mc.Spec.TLS.ClientCA != nil {
				if _, ans, err := served(gen1, "version\r\n"); err == nil && strings.HasPrefix(ans, "VERSION") {
					t.Errorf("a client certificate of the old CA is still accepted: %q", ans)
				}
			}

			// A certificate whose key does not match: not sent, the server keeps gen2's.
			gen3 := gen(3)
			bad := files(gen2)
			bad["tls.crt"] = gen3.cert
			utils.PublishVolume(t, tlsPath, bad)
			waitFor("the mismatched pair reported", func() bool { return logged("Not reloading") })
			time.Sleep(3 * interval)
			if cn, ans, err := served(gen2, "get kept\r\n"); err != nil || cn != "gen2.cache.example" || ans != "VALUE kept 0 5" {
				t.Errorf("after a mismatched pair: served %q, answer %q, %v; want gen2.cache.example and the key", cn, ans, err)
			}
		})
	}
}
