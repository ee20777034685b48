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

// Package memcache is the memcached client of the real-node test tier: the plain ASCII protocol
// (https://github.com/memcached/memcached/blob/master/doc/protocol.txt) over one TCP connection,
// and the key placement the tier's client applies over a Memcached's status.serverList. Our own
// because the tests read what a client library does not expose: `version` and `stats settings`
// (memcached's maxbytes proves a rollout's new -m), per server; github.com/bradfitz/gomemcache,
// the usual Go client, offers get/set and its own server selection but neither command.
package memcache

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrNotFound is returned by Get for a key the server does not hold.
var ErrNotFound = errors.New("not found")

// Conn is one connection to one memcached server. It is not safe for concurrent use.
type Conn struct {
	nc      net.Conn
	r       *bufio.Reader
	timeout time.Duration
}

// Dial connects to addr (host:port; a name is resolved by the system resolver) within timeout,
// which also bounds every later request.
func Dial(addr string, timeout time.Duration) (*Conn, error) {
	return DialWith(addr, timeout, Options{})
}

// Options are how DialWith talks to a server: over TLS and with memcached's ASCII authentication.
type Options struct {
	// TLS, when not nil, makes the connection speak TLS with this configuration; an empty
	// ServerName is set to the host of the address dialled, so the server's certificate is
	// verified against the name the client used.
	TLS *tls.Config
	// User and Password authenticate the connection (memcached -Y) when User is not empty.
	User, Password string
}

// DialWith connects to addr as Dial does, then makes the TLS handshake and authenticates as o
// says. A TLS handshake that fails, or credentials the server refuses, are errors.
func DialWith(addr string, timeout time.Duration, o Options) (*Conn, error) {
	nc, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, fmt.Errorf("failed to connect to %s: %w", addr, err)
	}
	if o.TLS != nil {
		cfg := o.TLS.Clone()
		if cfg.ServerName == "" {
			host, _, _ := net.SplitHostPort(addr)
			cfg.ServerName = host
		}
		tc := tls.Client(nc, cfg)
		_ = tc.SetDeadline(time.Now().Add(timeout))
		if err := tc.Handshake(); err != nil {
			_ = nc.Close()
			return nil, fmt.Errorf("failed the TLS handshake with %s: %w", addr, err)
		}
		nc = tc
	}
	c := &Conn{nc: nc, r: bufio.NewReader(nc), timeout: timeout}
	if o.User != "" {
		if err := c.Auth(o.User, o.Password); err != nil {
			_ = c.Close()
			return nil, err
		}
	}
	return c, nil
}

// Auth authenticates the connection with memcached's ASCII authentication (memcached -Y): a set of
// any key whose data is "<user> <password>", answered STORED when the server accepts them. The
// error never quotes the password.
func (c *Conn) Auth(user, password string) error {
	lines, err := c.roundTrip(fmt.Sprintf("set auth 0 0 %d", len(user)+1+len(password)), []byte(user+" "+password), func(string) bool { return true })
	if err != nil {
		return fmt.Errorf("failed to authenticate as %s: %w", user, err)
	}
	if lines[0] != "STORED" {
		return fmt.Errorf("%s answered %q to the authentication of %s", c.RemoteAddr(), lines[0], user)
	}
	return nil
}

// Close closes the connection.
func (c *Conn) Close() error { return c.nc.Close() }

// PeerCertificate returns the certificate the server presented in the TLS handshake, nil for a
// connection without TLS.
func (c *Conn) PeerCertificate() *x509.Certificate {
	tc, ok := c.nc.(*tls.Conn)
	if !ok || len(tc.ConnectionState().PeerCertificates) == 0 {
		return nil
	}
	return tc.ConnectionState().PeerCertificates[0]
}

// RemoteAddr is the server's address (ip:port) of the connection.
func (c *Conn) RemoteAddr() string { return c.nc.RemoteAddr().String() }

// roundTrip sends cmd (without the trailing \r\n) and data (when not nil, followed by \r\n) and
// reads response lines until last(line) is true. It returns the lines without their \r\n.
func (c *Conn) roundTrip(cmd string, data []byte, last func(string) bool) ([]string, error) {
	if err := c.nc.SetDeadline(time.Now().Add(c.timeout)); err != nil {
		return nil, err
	}
	req := cmd + "\r\n"
	if data != nil {
		req += string(data) + "\r\n"
	}
	if _, err := io.WriteString(c.nc, req); err != nil {
		return nil, fmt.Errorf("failed to send %q to %s: %w", cmd, c.RemoteAddr(), err)
	}
	var lines []string
	for {
		line, err := c.r.ReadString('\n')
		if err != nil {
			return lines, fmt.Errorf("failed to read the answer to %q from %s: %w", cmd, c.RemoteAddr(), err)
		}
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if isError(line) {
			return lines, fmt.Errorf("%s answered %q to %q", c.RemoteAddr(), line, cmd)
		}
		lines = append(lines, line)
		if last(line) {
			return lines, nil
		}
	}
}

// isError reports whether line is one of the protocol's error replies.
func isError(line string) bool {
	return line == "ERROR" || strings.HasPrefix(line, "CLIENT_ERROR") || strings.HasPrefix(line, "SERVER_ERROR")
}

// validKey reports whether key is a valid text-protocol key: 1-250 bytes, no whitespace or control
// characters.
func validKey(key string) bool {
	if key == "" || len(key) > 250 {
		return false
	}
	for i := 0; i < len(key); i++ {
		if key[i] <= ' ' || key[i] == 0x7f {
			return false
		}
	}
	return true
}

// Set stores value under key with no expiry ("set <key> 0 0 <bytes>" → STORED).
func (c *Conn) Set(key string, value []byte) error {
	if !validKey(key) {
		return fmt.Errorf("invalid key %q", key)
	}
	lines, err := c.roundTrip(fmt.Sprintf("set %s 0 0 %d", key, len(value)), value, func(string) bool { return true })
	if err != nil {
		return err
	}
	if lines[0] != "STORED" {
		return fmt.Errorf("%s answered %q to set %s", c.RemoteAddr(), lines[0], key)
	}
	return nil
}

// Get returns the value of key, or ErrNotFound ("get <key>" → [VALUE <key> <flags> <bytes>, data] END).
func (c *Conn) Get(key string) ([]byte, error) {
	if !validKey(key) {
		return nil, fmt.Errorf("invalid key %q", key)
	}
	if err := c.nc.SetDeadline(time.Now().Add(c.timeout)); err != nil {
		return nil, err
	}
	if _, err := io.WriteString(c.nc, "get "+key+"\r\n"); err != nil {
		return nil, fmt.Errorf("failed to send get %s to %s: %w", key, c.RemoteAddr(), err)
	}
	line, err := c.r.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("failed to read the answer to get %s from %s: %w", key, c.RemoteAddr(), err)
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "END" {
		return nil, ErrNotFound
	}
	f := strings.Fields(line)
	if len(f) != 4 || f[0] != "VALUE" || f[1] != key {
		return nil, fmt.Errorf("%s answered %q to get %s", c.RemoteAddr(), line, key)
	}
	n, err := strconv.Atoi(f[3])
	if err != nil || n < 0 {
		return nil, fmt.Errorf("%s answered %q to get %s: bad length", c.RemoteAddr(), line, key)
	}
	buf := make([]byte, n+2)
	if _, err := io.ReadFull(c.r, buf); err != nil {
		return nil, fmt.Errorf("failed to read the value of %s from %s: %w", key, c.RemoteAddr(), err)
	}
	end, err := c.r.ReadString('\n')
	if err != nil || strings.TrimRight(end, "\r\n") != "END" {
		return nil, fmt.Errorf("%s: no END after the value of %s (%q, %v)", c.RemoteAddr(), key, end, err)
	}
	return buf[:n], nil
}

// Version returns the server's version ("version" → "VERSION <v>").
func (c *Conn) Version() (string, error) {
	lines, err := c.roundTrip("version", nil, func(string) bool { return true })
	if err != nil {
		return "", err
	}
	v, ok := strings.CutPrefix(lines[0], "VERSION ")
	if !ok {
		return "", fmt.Errorf("%s answered %q to version", c.RemoteAddr(), lines[0])
	}
	return v, nil
}

// Stats returns the statistics of "stats" (group "") or "stats <group>" (e.g. "settings") as a map
// from name to value ("STAT <name> <value>" lines up to END).
func (c *Conn) Stats(group string) (map[string]string, error) {
	cmd := strings.TrimSpace("stats " + group)
	lines, err := c.roundTrip(cmd, nil, func(l string) bool { return l == "END" })
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, l := range lines[:len(lines)-1] {
		f := strings.SplitN(l, " ", 3)
		if len(f) != 3 || f[0] != "STAT" {
			return nil, fmt.Errorf("%s answered %q to %s", c.RemoteAddr(), l, cmd)
		}
		out[f[1]] = f[2]
	}
	return out, nil
}

// Pick returns the server of servers that owns key: the CRC-32 (IEEE) checksum of the key modulo
// the number of servers, over the servers sorted as strings. status.serverList is already sorted
// (by pod name), but a client must not depend on the order it received the list in, so Pick sorts
// a copy. It returns "" for an empty list.
//
// This is the plain modulo hash of the classic memcached clients (e.g. gomemcache's ServerList);
// it remaps most keys when the list changes, which is why the suite checks that servers keep their
// keys across scaling rather than that the hash still finds them.
func Pick(key string, servers []string) string {
	if len(servers) == 0 {
		return ""
	}
	sorted := slices.Clone(servers)
	slices.Sort(sorted)
	return sorted[crc32.ChecksumIEEE([]byte(key))%uint32(len(sorted))]
}

// Key returns the i-th key of a key set: "<prefix>-<i>".
func Key(prefix string, i int) string { return prefix + "-" + strconv.Itoa(i) }

// Value returns the value the client stores under key: "value-of-<key>", so a reader can tell a
// right value from a stale or foreign one.
func Value(key string) []byte { return []byte("value-of-" + key) }
