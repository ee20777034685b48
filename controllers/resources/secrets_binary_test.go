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
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"

	"github.com/example/memcached-operator/controllers/internal/fixture"
	"github.com/example/memcached-operator/test/real/memcache"
	"github.com/example/memcached-operator/test/utils"
)

// TestProtectionsHoldOnRealMemcached starts the pinned memcached (utils.MemcachedBinary) with the arguments the builder
// gives every combination of TLS (off, on), authentication (off, on), client certificates (none,
// Request, Require) and monitoring (off, on) that Validate accepts, with and without the
// certificate reloader (which, like monitoring, adds the loopback listener to a TLS server), and
// without and with every flag spec.memcached.extraArgs may carry, the mounted files in a temporary directory as the pods would have them, and proves each protection
// with a real client (protectionViolations): with auth a connection without the right credentials
// can neither get nor set; with TLS plain text on the client port fails; with Require a client
// without a certificate is refused, with Request it is served, and with either a certificate the
// CA did not sign is refused; the plain-text loopback listener, when there is one, is on 127.0.0.1
// alone; memcached listens on nothing else.
//
// Monitoring with authentication is one of the combinations: memcached's arguments are the same
// as with authentication alone (the exporter reads the stats relay, which logs in like any
// client); the relay itself has a real-binary test of its own (internal/statsrelay).
func TestProtectionsHoldOnRealMemcached(t *testing.T) {
	bin := utils.MemcachedBinary(t)
	files := writePodFiles(t)
	type combination struct {
		tls, auth, monitoring, reloader, extraArgs bool
		clientCA                                   cachev1alpha1.ClientCertificateVerification // "" none
	}
	// Every flag extraArgs may carry, -B as spec.auth allows it (-L left out: it needs the
	// host's huge pages).
	allowed := []string{"-M", "-R", "40", "-B", "ascii", "-f", "1.5", "-n", "64", "-C", "-D", ":", "-b", "2048", "-F", "-X", "-o", "modern,lru_crawler,idle_timeout=600"}
	var all []combination
	for _, tlsOn := range []bool{false, true} {
		for _, auth := range []bool{false, true} {
			for _, ca := range []cachev1alpha1.ClientCertificateVerification{"", cachev1alpha1.ClientCertificateRequest, cachev1alpha1.ClientCertificateRequire} {
				for _, monitoring := range []bool{false, true} {
					for _, reloader := range []bool{false, true} {
						for _, extra := range []bool{false, true} {
							// Client certificates and the reloader exist only with TLS.
							if !tlsOn && (ca != "" || reloader) {
								continue
							}
							all = append(all, combination{tls: tlsOn, auth: auth, clientCA: ca, monitoring: monitoring, reloader: reloader, extraArgs: extra})
						}
					}
				}
			}
		}
	}
	onOff := map[bool]string{false: "off", true: "on"}
	for _, c := range all {
		ca := "none"
		if c.clientCA != "" {
			ca = string(c.clientCA)
		}
		name := fmt.Sprintf("tls %s, auth %s, client certificates %s, monitoring %s, reloader %s, extra args %s", onOff[c.tls], onOff[c.auth], ca, onOff[c.monitoring], onOff[c.reloader], onOff[c.extraArgs])
		t.Run(name, func(t *testing.T) {
			mc := fixture.Defaulted("a", func(mc *cachev1alpha1.Memcached) { mc.Spec.Monitoring.Enabled = &c.monitoring })
			if c.tls {
				fixture.WithTLS("c")(mc)
				if c.clientCA != "" {
					fixture.WithClientCA("", "ca.crt", c.clientCA)(mc)
				}
			}
			if c.auth {
				fixture.WithAuth("u", "")(mc)
			}
			if c.extraArgs {
				mc.Spec.Memcached.ExtraArgs = allowed
			}
			opts := Options{}
			if c.reloader {
				opts.CertReloaderImage = "operator"
			}
			if errs := mc.Validate(); len(errs) > 0 {
				t.Fatalf("Validate() = %v, want the combination accepted", errs)
			}
			args, loopback := files.args(t, mc, opts)
			if wantLoopback := c.tls && (c.monitoring || c.reloader); (loopback != "") != wantLoopback {
				t.Fatalf("loopback listener %q in %q, want one: %v", loopback, args, wantLoopback)
			}
			p, err := startMemcached(t, bin, args)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range protectionViolations(p, mc, files, loopback) {
				t.Errorf("%s (memcached %q; stderr: %s)", v, args, p.Stderr())
			}
		})
	}
}

// TestExtraArgsCannotWeakenProtections runs, for each spec whose spec.memcached.extraArgs weaken
// or redirect a protection the rest of the spec asks for, the pinned memcached with the arguments
// the builder gives it, and checks both halves of the rule: memcached with them really breaks a
// protection (protectionViolations finds one: the row is hostile), and Validate refuses the spec,
// so the operator never runs it. memcached applies the last value of an extended option, and the
// extra arguments come after the operator's.
func TestExtraArgsCannotWeakenProtections(t *testing.T) {
	bin := utils.MemcachedBinary(t)
	files := writePodFiles(t)
	stranger := tlsDir + "/" + strangerCert
	tests := map[string]struct {
		mc        *cachev1alpha1.Memcached
		extraArgs []string
	}{
		"Require, verification turned off": {
			mc:        fixture.Defaulted("a", fixture.WithTLS("c"), fixture.WithClientCA("", "ca.crt", cachev1alpha1.ClientCertificateRequire)),
			extraArgs: []string{"-o", "ssl_verify_mode=0"},
		},
		"Require, lowered to Request": {
			mc:        fixture.Defaulted("a", fixture.WithTLS("c"), fixture.WithClientCA("", "ca.crt", cachev1alpha1.ClientCertificateRequire)),
			extraArgs: []string{"-o", "ssl_verify_mode=1"},
		},
		"Require with auth, verification turned off behind a tuning option": {
			mc:        fixture.Defaulted("a", fixture.WithTLS("c"), fixture.WithClientCA("", "ca.crt", cachev1alpha1.ClientCertificateRequire), fixture.WithAuth("u", "")),
			extraArgs: []string{"-M", "-o", "modern,ssl_verify_mode=0"},
		},
		"Request, verification turned off": {
			mc:        fixture.Defaulted("a", fixture.WithTLS("c"), fixture.WithClientCA("", "ca.crt", cachev1alpha1.ClientCertificateRequest)),
			extraArgs: []string{"-o", "ssl_verify_mode=0"},
		},
		"Require, another client CA": {
			mc:        fixture.Defaulted("a", fixture.WithTLS("c"), fixture.WithClientCA("", "ca.crt", cachev1alpha1.ClientCertificateRequire)),
			extraArgs: []string{"-o", "ssl_ca_cert=" + stranger + ".crt"},
		},
		"TLS, another server certificate": {
			mc:        fixture.Defaulted("a", fixture.WithTLS("c")),
			extraArgs: []string{"-o", "ssl_chain_cert=" + stranger + ".crt,ssl_key=" + stranger + ".key"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			mc := tc.mc
			mc.Spec.Memcached.ExtraArgs = tc.extraArgs
			args, loopback := files.args(t, mc, Options{})
			p, err := startMemcached(t, bin, args)
			if err != nil {
				t.Fatal(err)
			}
			violations := protectionViolations(p, mc, files, loopback)
			if len(violations) == 0 {
				t.Errorf("memcached %q keeps every protection of the spec: the row proves nothing", args)
			}
			if errs := mc.Validate(); len(errs) == 0 {
				t.Errorf("Validate accepts extraArgs %q, and memcached then breaks what the spec asks for: %q", tc.extraArgs, violations)
			} else {
				t.Logf("refused: %v; memcached with them: %q", errs, violations)
			}
		})
	}
}

// Files of writePodFiles beside the ones the pods mount: a certificate and key (strangerCert +
// ".crt" and ".key", in the TLS directory) that the client CA did not sign.
const strangerCert = "stranger"

// podFiles are the files the tests' pods would mount, in a temporary directory, and what a client
// of the tests' specs holds.
type podFiles struct {
	// tlsPath and authPath stand in for tlsDir and authDir: tls.crt and tls.key (a certificate for
	// serverName), ca.crt (the client certificate, self-signed, its own CA), the stranger's pair;
	// authfile (user:password).
	tlsPath, authPath string
	// roots trusts the server's certificate; client is the certificate the client CA signed,
	// stranger one it did not.
	roots            *x509.CertPool
	client, stranger tls.Certificate
	user, password   string
}

// serverName is the name the server's certificate of writePodFiles is for.
const serverName = "cache.example"

// writePodFiles writes the files into a temporary directory removed at t.Cleanup, readable by the
// nobody user memcached runs as when the tests run as root.
func writePodFiles(t *testing.T) *podFiles {
	t.Helper()
	tlsPath, authPath := podDirs(t, "memcached-pod-files-")
	f := &podFiles{tlsPath: tlsPath, authPath: authPath, user: "app", password: "s3cret"}
	cert, key := fixture.KeyPair(t, serverName)
	clientCert, clientKey := fixture.KeyPair(t, "client")
	otherCert, otherKey := fixture.KeyPair(t, "stranger")
	for name, data := range map[string][]byte{
		tlsCertFile: cert, tlsKeyFile: key, caFile: clientCert,
		strangerCert + ".crt": otherCert, strangerCert + ".key": otherKey,
	} {
		writeFile(t, filepath.Join(f.tlsPath, name), data)
	}
	writeFile(t, filepath.Join(f.authPath, authFile), []byte(f.user+":"+f.password+"\n"))
	f.roots = x509.NewCertPool()
	f.roots.AppendCertsFromPEM(cert)
	var err error
	if f.client, err = tls.X509KeyPair(clientCert, clientKey); err != nil {
		t.Fatal(err)
	}
	if f.stranger, err = tls.X509KeyPair(otherCert, otherKey); err != nil {
		t.Fatal(err)
	}
	return f
}

// writeFile writes data to path (mode 0644), creating its directory (mode 0755).
func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// args returns podArgs for f's directories.
func (f *podFiles) args(t *testing.T, mc *cachev1alpha1.Memcached, opts Options) (args []string, loopback string) {
	t.Helper()
	return podArgs(t, mc, opts, f.tlsPath, f.authPath)
}

// podArgs returns MemcachedArgs(mc, opts) with the mounted directories replaced by tlsPath and
// authPath, and the plain-text loopback listener (notls:<address>:<port>) moved to a free port,
// its address kept as the builder wrote it; loopback is that listener's address, "" when there
// is none.
func podArgs(t *testing.T, mc *cachev1alpha1.Memcached, opts Options, tlsPath, authPath string) (args []string, loopback string) {
	t.Helper()
	for _, a := range MemcachedArgs(mc, opts) {
		a = strings.ReplaceAll(a, tlsDir, tlsPath)
		a = strings.ReplaceAll(a, authDir, authPath)
		if hostPort, ok := strings.CutPrefix(a, "notls:"); ok {
			host, _, err := net.SplitHostPort(hostPort)
			if err != nil {
				t.Fatalf("loopback listener %q: %v", a, err)
			}
			loopback = net.JoinHostPort(host, strconv.Itoa(freePort(t)))
			a = "notls:" + loopback
		}
		args = append(args, a)
	}
	return args, loopback
}

// protectionViolations returns every way the memcached p, started from mc's arguments and the
// files of f, fails what mc's spec asks for (see TestProtectionsHoldOnRealMemcached), checked with
// the real-node tier's client; loopback is the plain-text loopback listener's address ("" none).
func protectionViolations(p *memcachedProcess, mc *cachev1alpha1.Memcached, f *podFiles, loopback string) []string {
	var spec, noCert, strangerCert *tls.Config // nil: plain text
	if mc.Spec.TLS != nil {
		noCert = &tls.Config{RootCAs: f.roots, ServerName: serverName, MinVersion: tls.VersionTLS12}
		spec, strangerCert = noCert.Clone(), noCert.Clone()
		// Sent whatever CAs the server names: with Certificates, Go's client sends only a
		// certificate one of them issued, and none otherwise.
		strangerCert.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &f.stranger, nil }
		if mc.Spec.TLS.ClientCA != nil {
			spec.Certificates = []tls.Certificate{f.client}
		}
	}
	var user, password string
	if mc.Spec.Auth != nil {
		user, password = f.user, f.password
	}
	type attempt struct {
		what   string
		addr   string
		o      memcache.Options
		served bool
	}
	attempts := []attempt{{"the spec's client", p.addr, memcache.Options{TLS: spec, User: user, Password: password}, true}}
	if mc.Spec.Auth != nil {
		attempts = append(attempts,
			attempt{"a client without credentials", p.addr, memcache.Options{TLS: spec}, false},
			attempt{"a client with a wrong password", p.addr, memcache.Options{TLS: spec, User: user, Password: "wrong"}, false})
	}
	if t := mc.Spec.TLS; t != nil {
		attempts = append(attempts, attempt{"a plain-text client", p.addr, memcache.Options{User: user, Password: password}, false})
		required := t.ClientCA != nil && t.ClientCA.Verification != cachev1alpha1.ClientCertificateRequest
		attempts = append(attempts, attempt{"a TLS client without a certificate", p.addr, memcache.Options{TLS: noCert, User: user, Password: password}, !required})
		if t.ClientCA != nil {
			attempts = append(attempts, attempt{"a TLS client with a certificate the CA did not sign", p.addr, memcache.Options{TLS: strangerCert, User: user, Password: password}, false})
		}
	}
	if loopback != "" {
		attempts = append(attempts, attempt{"a plain-text client of the loopback listener", loopback, memcache.Options{User: user, Password: password}, true})
		if mc.Spec.Auth != nil {
			attempts = append(attempts, attempt{"a client of the loopback listener without credentials", loopback, memcache.Options{}, false})
		}
	}
	var violations []string
	for i, a := range attempts {
		// Each attempt sets its own key and gets the one the spec's client set.
		set, get := setAndGet(a.addr, a.o, "k"+strconv.Itoa(i), "k0")
		switch {
		case a.served && (set != nil || get != nil):
			violations = append(violations, fmt.Sprintf("%s is not served: set %v, get %v", a.what, set, get))
		case !a.served && (set == nil || get == nil):
			violations = append(violations, fmt.Sprintf("%s is served: set %v, get %v", a.what, set, get))
		}
	}
	// The client port (startMemcached binds it to 127.0.0.1), and the loopback listener on the
	// pod's loopback address alone, whatever address the builder wrote.
	want := []string{"tcp " + p.addr}
	if loopback != "" {
		_, port, _ := net.SplitHostPort(loopback)
		want = append(want, "tcp "+net.JoinHostPort("127.0.0.1", port))
	}
	slices.Sort(want)
	if got, err := listeners(p.pid); err != nil {
		violations = append(violations, err.Error())
	} else if !slices.Equal(got, want) {
		violations = append(violations, fmt.Sprintf("memcached listens on %q, want %q", got, want))
	}
	return violations
}

// setAndGet sets key on one connection to addr and gets getKey on another, each connection made
// as o says, and returns the errors: a key not found is an error, so a get that returns nothing
// counts as refused.
func setAndGet(addr string, o memcache.Options, key, getKey string) (set, get error) {
	const timeout = 2 * time.Second
	if c, err := memcache.DialWith(addr, timeout, o); err != nil {
		set = err
	} else {
		set = c.Set(key, []byte("v"))
		_ = c.Close()
	}
	if c, err := memcache.DialWith(addr, timeout, o); err != nil {
		get = err
	} else {
		_, get = c.Get(getKey)
		_ = c.Close()
	}
	return set, get
}

// listeners returns the TCP addresses process pid listens on and the UDP addresses it has bound,
// as "tcp 127.0.0.1:11211" (IPv6 ones as "tcp [::1]:11211"), sorted: its sockets (the socket:[inode]
// links of /proc/<pid>/fd) found in its network namespace's tables (/proc/<pid>/net/tcp, tcp6,
// udp, udp6; TCP in state 0A, listening).
func listeners(pid int) ([]string, error) {
	fdDir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, err := os.ReadDir(fdDir)
	if err != nil {
		return nil, fmt.Errorf("failed to list the sockets of memcached: %w", err)
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		if l, err := os.Readlink(filepath.Join(fdDir, fd.Name())); err == nil {
			if ino, ok := strings.CutPrefix(l, "socket:["); ok {
				inodes[strings.TrimSuffix(ino, "]")] = true
			}
		}
	}
	var out []string
	for _, table := range []string{"tcp", "tcp6", "udp", "udp6"} {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, table))
		if err != nil {
			return nil, fmt.Errorf("failed to read the sockets of memcached: %w", err)
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 10 || !inodes[f[9]] || strings.HasPrefix(table, "tcp") && f[3] != "0A" {
				continue
			}
			addr, err := procAddress(f[1])
			if err != nil {
				return nil, fmt.Errorf("failed to read %s address %q: %w", table, f[1], err)
			}
			out = append(out, strings.TrimSuffix(table, "6")+" "+addr)
		}
	}
	slices.Sort(out)
	return out, nil
}

// procAddress decodes an address of /proc/net/{tcp,udp}[6], "0100007F:2AF8": the IP in hex as
// 32-bit words each in the host's byte order, then the port in hex.
func procAddress(s string) (string, error) {
	h, p, ok := strings.Cut(s, ":")
	raw, err := hex.DecodeString(h)
	if !ok || err != nil || (len(raw) != 4 && len(raw) != 16) {
		return "", errors.New("not hex-ip:hex-port")
	}
	port, err := strconv.ParseUint(p, 16, 16)
	if err != nil {
		return "", err
	}
	ip := make(net.IP, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(ip[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	return net.JoinHostPort(ip.String(), strconv.FormatUint(port, 10)), nil
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
