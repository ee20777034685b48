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
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/internal/fixture"
	"github.com/example/memcached-operator/internal/statsrelay"
	"github.com/example/memcached-operator/test/utils"
)

// relaySession is one client connection to the stats relay.
type relaySession struct {
	c net.Conn
	r *bufio.Reader
}

// ask sends cmd and returns the answer's lines through the first that ends it ("END", "VERSION
// ...", an error); closed reports that the relay closed the connection before an answer.
func (s relaySession) ask(cmd string) (lines []string, closed bool, err error) {
	if _, err := io.WriteString(s.c, cmd); err != nil {
		return nil, false, err
	}
	for {
		l, err := s.r.ReadString('\n')
		if errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) {
			return lines, true, nil
		}
		if err != nil {
			return lines, false, err
		}
		l = strings.TrimSuffix(l, "\r\n")
		lines = append(lines, l)
		if l == "END" || strings.HasPrefix(l, "VERSION ") || strings.Contains(l, "ERROR") {
			return lines, false, nil
		}
	}
}

// TestStatsRelayWithRealMemcached runs the pinned memcached (utils.MemcachedBinary) with the arguments the
// builder gives a pod with spec.monitoring and spec.auth (with and without spec.tls), and the
// stats relay (internal/statsrelay) beside it with the builder's relay arguments (addresses and
// paths moved to the test's). memcached refuses a client without credentials; through the relay,
// with none, the exporter's commands (`stats`, `stats slabs`, `stats items`, `stats settings`)
// and `version` each get memcached's whole answer on one connection, as the relay authenticated
// with the auth file's first entry; a `get` or a `set` through the relay closes the connection
// and never reaches memcached: the key written with credentials is not returned and no key is
// added.
func TestStatsRelayWithRealMemcached(t *testing.T) {
	bin := utils.MemcachedBinary(t)
	opts := Options{CertReloaderImage: "operator"}
	tests := map[string]*cachev1alpha1.Memcached{
		"auth":         fixture.Defaulted("a", withMonitoring, fixture.WithAuth("u", "")),
		"auth and tls": fixture.Defaulted("a", withMonitoring, fixture.WithAuth("u", ""), fixture.WithTLS("c")),
	}
	for name, mc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tlsPath, authPath := podDirs(t, "memcached-relay-")
			// The relay authenticates with the first entry.
			utils.PublishVolume(t, authPath, map[string][]byte{authFile: []byte("app:s3cret\nops:other\n")})
			if mc.Spec.TLS != nil {
				cert, key := fixture.KeyPair(t, "a.cache.example")
				utils.PublishVolume(t, tlsPath, map[string][]byte{tlsCertFile: cert, tlsKeyFile: key})
			}

			// The builder's arguments with the mounted directories and the loopback ports moved
			// (startMemcached binds the listener on every address to 127.0.0.1, a free port).
			loopback := "127.0.0.1:" + strconv.Itoa(freePort(t))
			relayAt := "127.0.0.1:" + strconv.Itoa(freePort(t))
			move := func(a string) string {
				a = strings.ReplaceAll(a, tlsDir, tlsPath)
				a = strings.ReplaceAll(a, authDir, authPath)
				a = strings.ReplaceAll(a, relayAddress, relayAt)
				return strings.ReplaceAll(a, loopbackAddress, loopback)
			}
			var args []string
			for _, a := range MemcachedArgs(mc, opts) {
				args = append(args, move(a))
			}
			proc, err := startMemcached(t, bin, args)
			if err != nil {
				t.Fatal(err)
			}
			// The plain-text address the pod's containers read: without TLS memcached's port on
			// localhost, which is startMemcached's.
			plain := proc.addr
			if mc.Spec.TLS != nil {
				plain = loopback
			}
			pod := DesiredDeployment(mc, opts).Spec.Template.Spec
			i := slices.IndexFunc(pod.Containers, func(c corev1.Container) bool { return c.Name == StatsRelayContainerName })
			if i < 0 {
				t.Fatal("no relay in the pod template")
			}
			var relayArgs []string
			for _, a := range pod.Containers[i].Args {
				relayArgs = append(relayArgs, strings.ReplaceAll(move(a), "localhost:"+strconv.Itoa(cachev1alpha1.DefaultPort), plain))
			}
			cfg, err := statsrelay.ParseFlags(relayArgs)
			if err != nil {
				t.Fatalf("the builder's relay args %q: %v", relayArgs, err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- statsrelay.Run(ctx, cfg, logr.Discard()) }()
			t.Cleanup(func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("relay: %v", err)
				}
			})

			if got, err := versionOver(plain, nil, ""); err != nil || got != "CLIENT_ERROR unauthenticated" {
				t.Fatalf("memcached without credentials answered %q, %v; want CLIENT_ERROR unauthenticated", got, err)
			}
			if got, err := versionOver(plain, nil, "ops other"); err != nil || !strings.HasPrefix(got, "VERSION ") {
				t.Fatalf("memcached with the second entry answered %q, %v", got, err)
			}
			stored := func() {
				c, err := net.DialTimeout("tcp", plain, time.Second)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(2 * time.Second))
				fmt.Fprint(c, "set auth 0 0 9\r\nops other\r\nset kept 0 0 5\r\nvalue\r\n")
				r := bufio.NewReader(c)
				for range 2 {
					if l, err := r.ReadString('\n'); err != nil || l != "STORED\r\n" {
						t.Fatalf("set with credentials: %q %v", l, err)
					}
				}
			}
			stored()

			session := func() relaySession {
				t.Helper()
				deadline := time.Now().Add(5 * time.Second)
				for {
					c, err := net.DialTimeout("tcp", relayAt, time.Second)
					if err == nil {
						t.Cleanup(func() { _ = c.Close() })
						_ = c.SetDeadline(time.Now().Add(5 * time.Second))
						return relaySession{c: c, r: bufio.NewReader(c)}
					}
					if time.Now().After(deadline) {
						t.Fatalf("the relay does not listen on %s: %v", relayAt, err)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
			// The exporter's scrape, on one connection.
			s := session()
			for _, cmd := range []string{"stats", "stats slabs", "stats items", "stats settings", "version"} {
				lines, closed, err := s.ask(cmd + "\r\n")
				if err != nil || closed || len(lines) < 2 && cmd != "version" || strings.Contains(strings.Join(lines, "\n"), "ERROR") {
					t.Fatalf("%s through the relay: %q closed %v, %v; memcached stderr: %s", cmd, lines, closed, err, proc.Stderr())
				}
				switch cmd {
				case "stats":
					if !slices.Contains(lines, "STAT curr_items 1") {
						t.Errorf("stats through the relay: no curr_items 1 in %q", lines)
					}
				case "stats settings":
					// memcached names its -Y file here ("no" without one).
					if want := "STAT auth_enabled_ascii " + filepath.Join(authPath, authFile); !slices.Contains(lines, want) {
						t.Errorf("stats settings through the relay: no %q in %q", want, lines)
					}
				case "version":
					t.Logf("through the relay: %s, %s", lines[0], name)
				}
			}
			// Anything else closes the connection unanswered.
			for _, cmd := range []string{"get kept\r\n", "set added 0 0 1\r\nx\r\n", "stats cachedump 1 0\r\n", "stats reset\r\n"} {
				s := session()
				if lines, closed, err := s.ask(cmd); err != nil || !closed || len(lines) > 0 {
					t.Errorf("%q through the relay: %q closed %v, %v; want the connection closed unanswered", cmd, lines, closed, err)
				}
			}
			if got := currItems(t, plain, "app s3cret"); got != "1" {
				t.Errorf("curr_items %s after the refused commands, want 1", got)
			}
		})
	}
}
