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

package statsrelay

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
)

func TestCommand(t *testing.T) {
	tests := map[string]struct {
		line    string
		verdict Verdict
		send    string
	}{
		"stats":                      {line: "stats\r\n", verdict: Forward, send: "stats\r\n"},
		"stats, LF only":             {line: "stats\n", verdict: Forward, send: "stats\r\n"},
		"stats settings":             {line: "stats settings\r\n", verdict: Forward, send: "stats settings\r\n"},
		"stats items":                {line: "stats items\r\n", verdict: Forward, send: "stats items\r\n"},
		"stats slabs":                {line: "stats slabs\r\n", verdict: Forward, send: "stats slabs\r\n"},
		"version":                    {line: "version\r\n", verdict: Forward, send: "version\r\n"},
		"quit":                       {line: "quit\r\n", verdict: Quit},
		"stats reset":                {line: "stats reset\r\n", verdict: Refuse},
		"stats detail on":            {line: "stats detail on\r\n", verdict: Refuse},
		"stats detail dump":          {line: "stats detail dump\r\n", verdict: Refuse},
		"stats cachedump":            {line: "stats cachedump 1 100\r\n", verdict: Refuse},
		"stats conns":                {line: "stats conns\r\n", verdict: Refuse},
		"get":                        {line: "get key\r\n", verdict: Refuse},
		"set":                        {line: "set key 0 0 1\r\n", verdict: Refuse},
		"meta get":                   {line: "mg key v\r\n", verdict: Refuse},
		"flush_all":                  {line: "flush_all\r\n", verdict: Refuse},
		"shutdown":                   {line: "shutdown\r\n", verdict: Refuse},
		"refresh_certs":              {line: "refresh_certs\r\n", verdict: Refuse},
		"two spaces":                 {line: "stats  settings\r\n", verdict: Refuse},
		"trailing space":             {line: "stats \r\n", verdict: Refuse},
		"tab":                        {line: "stats\tsettings\r\n", verdict: Refuse},
		"upper case":                 {line: "STATS\r\n", verdict: Refuse},
		"allowed, then another line": {line: "stats\r\nget key\r\n", verdict: Refuse},
		"empty line":                 {line: "\r\n", verdict: Refuse},
		"binary protocol":            {line: "\x80\x10\x00\x00\n", verdict: Refuse},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			verdict, send := Command([]byte(tc.line))
			if verdict != tc.verdict || send != tc.send {
				t.Errorf("Command(%q) = %v %q, want %v %q", tc.line, verdict, send, tc.verdict, tc.send)
			}
		})
	}
}

func TestParseFlags(t *testing.T) {
	tests := map[string]struct {
		args    []string
		want    Config
		wantErr string
	}{
		"the pod's": {args: []string{"--listen=127.0.0.1:11213", "--memcached-address=127.0.0.1:11212", "--auth-file=/etc/memcached/auth/authfile"},
			want: Config{Listen: "127.0.0.1:11213", Memcached: "127.0.0.1:11212", AuthFile: "/etc/memcached/auth/authfile", Timeout: 5 * time.Second, MaxConns: 8}},
		"defaults": {args: []string{"--auth-file=/a"},
			want: Config{Listen: "127.0.0.1:11213", Memcached: "localhost:11211", AuthFile: "/a", Timeout: 5 * time.Second, MaxConns: 8}},
		"no auth file":   {args: []string{}, wantErr: "--auth-file is required"},
		"argument":       {args: []string{"--auth-file=/a", "x"}, wantErr: "unexpected arguments"},
		"unknown flag":   {args: []string{"--auth-file=/a", "--tls"}, wantErr: "flag provided but not defined"},
		"zero timeout":   {args: []string{"--auth-file=/a", "--timeout=0s"}, wantErr: "must be positive"},
		"no connections": {args: []string{"--auth-file=/a", "--max-connections=0"}, wantErr: "must be positive"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := ParseFlags(tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseFlags = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

// fakeMemcached answers like memcached with -Y on a loopback port: each connection must first
// send "set <key> 0 0 <n>" with the data "app s3cret"; it then answers stats and version and
// records every command line it received after the authentication.
type fakeMemcached struct {
	addr string
	mu   sync.Mutex
	got  []string
}

func (f *fakeMemcached) received() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.got...)
}

func startFake(t *testing.T) *fakeMemcached {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	f := &fakeMemcached{addr: ln.Addr().String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				authed := false
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					line = strings.TrimSuffix(line, "\r\n")
					if line == "quit" {
						return
					}
					if !authed {
						data, _ := r.ReadString('\n')
						if strings.HasPrefix(line, "set ") && data == "app s3cret\r\n" {
							authed = true
							fmt.Fprint(c, "STORED\r\n")
							continue
						}
						fmt.Fprint(c, "CLIENT_ERROR authentication failure\r\n")
						return
					}
					f.mu.Lock()
					f.got = append(f.got, line)
					f.mu.Unlock()
					switch {
					case line == "version":
						fmt.Fprint(c, "VERSION 1.6.38\r\n")
					case strings.HasPrefix(line, "stats"):
						fmt.Fprintf(c, "STAT asked %q\r\nEND\r\n", line)
					default:
						fmt.Fprint(c, "ERROR\r\n")
					}
				}
			}()
		}
	}()
	return f
}

// startRelay runs the relay in front of memcached at addr with an auth file of authData and
// returns its address.
func startRelay(t *testing.T, addr, authData string) string {
	t.Helper()
	listen, _ := startRelayWith(t, addr, authData, 2*time.Second, logr.Discard())
	return listen
}

// startRelayWith is startRelay with the relay's timeout and logger; it also returns the function
// that stops the relay and returns once every connection has ended (called at cleanup too).
func startRelayWith(t *testing.T, addr, authData string, timeout time.Duration, log logr.Logger) (string, func()) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "authfile")
	if err := os.WriteFile(file, []byte(authData), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	listen := ln.Addr().String()
	_ = ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{Listen: listen, Memcached: addr, AuthFile: file, Timeout: timeout, MaxConns: 4}, log)
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.Dial("tcp", listen)
		if err == nil {
			_ = c.Close()
			return listen, stop
		}
		if time.Now().After(deadline) {
			t.Fatalf("the relay does not listen on %s: %v", listen, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// exchange sends send to the relay at addr and returns every line it answers until it closes the
// connection (or 2 s pass: an error).
func exchange(t *testing.T, addr, send string) ([]string, error) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := io.WriteString(c, send); err != nil {
		return nil, err
	}
	var lines []string
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadString('\n')
		// Closed: a reset when the relay closes with the client's lines unread.
		if errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) {
			return lines, nil
		}
		if err != nil {
			return lines, err
		}
		lines = append(lines, strings.TrimSuffix(line, "\r\n"))
	}
}

// The relay authenticates every connection with the auth file's first entry, forwards the
// commands memcached_exporter sends and closes the connection, forwarding nothing more, at the
// first other line; a credential memcached refuses closes the client's connection unanswered.
func TestRelay(t *testing.T) {
	tests := map[string]struct {
		auth string
		send string
		// want are the lines the client reads before the relay closes; forwarded what memcached
		// receives.
		want, forwarded []string
	}{
		"the exporter's scrape, then quit": {auth: "app:s3cret\nops:other\n", send: "stats\r\nstats slabs\r\nstats items\r\nstats settings\r\nversion\r\nquit\r\n",
			want:      []string{`STAT asked "stats"`, "END", `STAT asked "stats slabs"`, "END", `STAT asked "stats items"`, "END", `STAT asked "stats settings"`, "END", "VERSION 1.6.38"},
			forwarded: []string{"stats", "stats slabs", "stats items", "stats settings", "version"}},
		"CRLF auth file": {auth: "app:s3cret\r\n", send: "stats\r\nquit\r\n", want: []string{`STAT asked "stats"`, "END"}, forwarded: []string{"stats"}},
		"a get after stats: closed there": {auth: "app:s3cret\n", send: "stats\r\nget secret\r\nversion\r\n",
			want: []string{`STAT asked "stats"`, "END"}, forwarded: []string{"stats"}},
		"a set: closed":         {auth: "app:s3cret\n", send: "set k 0 0 1\r\nx\r\nstats\r\n"},
		"stats cachedump":       {auth: "app:s3cret\n", send: "stats cachedump 1 0\r\n"},
		"a line too long":       {auth: "app:s3cret\n", send: "stats" + strings.Repeat(" ", MaxLine) + "\r\n"},
		"wrong password":        {auth: "app:wrong\n", send: "stats\r\n"},
		"second entry not used": {auth: "ops:other\napp:s3cret\n", send: "stats\r\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			mc := startFake(t)
			relay := startRelay(t, mc.addr, tc.auth)
			got, err := exchange(t, relay, tc.send)
			if err != nil {
				t.Fatalf("the relay did not close the connection: read %q: %v", got, err)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("client read %q, want %q", got, tc.want)
			}
			if f := mc.received(); strings.Join(f, "\n") != strings.Join(tc.forwarded, "\n") {
				t.Errorf("memcached received %q, want %q", f, tc.forwarded)
			}
		})
	}
}

// Connections over MaxConns are closed on accept; the others are served.
func TestRelayBoundsConnections(t *testing.T) {
	mc := startFake(t)
	relay := startRelay(t, mc.addr, "app:s3cret\n")
	// The relay frees a slot once it has seen a connection close (startRelay's probe, at first):
	// each of the four is retried until served.
	var open []net.Conn
	deadline := time.Now().Add(2 * time.Second)
	for len(open) < 4 { // startRelay's MaxConns
		c, err := net.Dial("tcp", relay)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		_ = c.SetDeadline(time.Now().Add(time.Second))
		fmt.Fprint(c, "version\r\n")
		l, err := bufio.NewReader(c).ReadString('\n')
		if err == nil && l == "VERSION 1.6.38\r\n" {
			open = append(open, c)
			continue
		}
		if time.Now().After(deadline) {
			t.Fatalf("connection %d: %q %v", len(open), l, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	got, err := exchange(t, relay, "version\r\n")
	if err != nil || len(got) != 0 {
		t.Errorf("a fifth connection read %q, %v; want it closed unanswered", got, err)
	}
	_ = open[0].Close()
	deadline = time.Now().Add(2 * time.Second)
	for {
		got, err := exchange(t, relay, "version\r\nquit\r\n")
		if err == nil && len(got) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a close, a new connection read %q, %v", got, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The relay logs a connection's end only when it refused something or could not serve it: the
// exporter leaves its connection idle after every scrape, which the relay closes after its
// timeout without a word, as it does a quit.
func TestRelayLogs(t *testing.T) {
	tests := map[string]struct {
		auth, send string
		wantLog    string // "" for none
	}{
		"idle after a scrape": {auth: "app:s3cret\n", send: "stats\r\n"},
		"quit":                {auth: "app:s3cret\n", send: "quit\r\n"},
		"refused command":     {auth: "app:s3cret\n", send: "get k\r\n", wantLog: "a command other than the statistics"},
		"wrong password":      {auth: "app:wrong\n", send: "stats\r\n", wantLog: "CLIENT_ERROR authentication failure"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var logs []string
			log := funcr.New(func(_, line string) { mu.Lock(); logs = append(logs, line); mu.Unlock() }, funcr.Options{})
			mc := startFake(t)
			relay, stop := startRelayWith(t, mc.addr, tc.auth, 200*time.Millisecond, log)
			// exchange reads until the relay closes the connection (after its timeout when idle);
			// stop returns once every connection has ended, and with it its log.
			if _, err := exchange(t, relay, tc.send); err != nil {
				t.Fatal(err)
			}
			stop()
			mu.Lock()
			defer mu.Unlock()
			// startRelay's probe connection is refused the same way with a wrong password.
			for _, l := range logs {
				if tc.wantLog == "" || !strings.Contains(l, tc.wantLog) {
					t.Errorf("log line %q, want only lines with %q (none when empty)", l, tc.wantLog)
				}
			}
			if tc.wantLog != "" && len(logs) == 0 {
				t.Errorf("no log line, want one with %q", tc.wantLog)
			}
		})
	}
}
