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

// Package statsrelay is the stats relay of memcached pods with spec.monitoring and spec.auth: a
// sidecar that lets memcached_exporter, which cannot authenticate, read the pod's own memcached,
// which asks every connection on every listener to (-Y).
//
// It listens on the pod's loopback address only (127.0.0.1, which only the pod's own containers
// reach: no Service, NetworkPolicy peer or other pod), and for each connection it accepts it dials
// memcached, authenticates with the first entry of the mounted auth file (memcachedauth), and then
// forwards only the read-only commands the exporter sends (Command): anything else closes the
// connection. So what the loopback port offers without credentials is memcached's statistics,
// never a key or a value, and never a write.
//
// Why no library: a memcached client library (gomemcache and its forks, the exporter's own)
// speaks for its caller and has no server side, and a generic TCP proxy forwards every command;
// what is needed is a line filter on one direction of a byte pipe, which is the 100 lines below.
package statsrelay

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/go-logr/logr"

	"github.com/example/memcached-operator/internal/memcachedauth"
)

// commands are the command lines the relay forwards, as memcached_exporter v0.16.0 sends them
// through github.com/grobie/gomemcache (Stats: "stats", "stats slabs", "stats items";
// StatsSettings: "stats settings"), plus "version" for a health check by hand. All of them only
// read counters and settings. Left out on purpose: every storage and retrieval command, "stats
// reset" and "stats detail on|off" (they change the server), "stats cachedump" and "stats detail
// dump" (they list keys), and every other "stats" argument (none is needed).
var commands = map[string]bool{
	"stats":          true,
	"stats settings": true,
	"stats items":    true,
	"stats slabs":    true,
	"version":        true,
}

// MaxLine is the longest command line the relay reads, terminator included: the longest allowed
// command is 16 bytes; a longer line is not one of them and closes the connection.
const MaxLine = 64

// Verdict is what the relay does with one command line.
type Verdict int

const (
	// Refuse closes the connection: the line is not one of commands.
	Refuse Verdict = iota
	// Forward sends the command to memcached.
	Forward
	// Quit closes the connection as the client asked (memcached's "quit").
	Quit
)

// Command returns what the relay does with one command line read from a client (line with or
// without its "\r\n" or "\n" terminator) and, for Forward, the command as memcached receives it
// ("\r\n"-terminated). A line is allowed only when it is exactly one of commands: no other
// spacing, case or argument.
func Command(line []byte) (Verdict, string) {
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	switch s := string(line); {
	case commands[s]:
		return Forward, s + "\r\n"
	case s == "quit":
		return Quit, ""
	default:
		return Refuse, ""
	}
}

// Config is where the relay listens and whom it reads.
type Config struct {
	// Listen is the relay's address, on the pod's loopback address (127.0.0.1:11213).
	Listen string
	// Memcached is the address the relay reads memcached at: its port on localhost, or with TLS
	// its plain-text loopback listener.
	Memcached string
	// AuthFile is memcached's -Y file; its first entry authenticates every connection.
	AuthFile string
	// Timeout bounds connecting to and authenticating with memcached, and how long a client
	// connection may stay idle between two commands.
	Timeout time.Duration
	// MaxConns bounds the connections served at once; one more is closed on accept. The exporter
	// opens one or two per scrape.
	MaxConns int
}

// ParseFlags reads a Config from the command line args (without the program name), with the
// defaults the pod template relies on.
func ParseFlags(args []string) (Config, error) {
	var cfg Config
	fs := flag.NewFlagSet("stats-relay", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the error says what is wrong; the pod template sets every flag
	fs.StringVar(&cfg.Listen, "listen", "127.0.0.1:11213", "The relay's address; keep it on the loopback address: what it serves needs no credentials.")
	fs.StringVar(&cfg.Memcached, "memcached-address", "localhost:11211", "The pod's memcached, a listener that speaks plain text.")
	fs.StringVar(&cfg.AuthFile, "auth-file", "", "memcached's -Y auth file: its first entry authenticates every connection.")
	fs.DurationVar(&cfg.Timeout, "timeout", 5*time.Second, "Bound of connecting to memcached and authenticating; a client idle this long is closed.")
	fs.IntVar(&cfg.MaxConns, "max-connections", 8, "Connections served at once.")
	if err := fs.Parse(args); err != nil {
		return cfg, fmt.Errorf("failed to parse the flags: %w", err)
	}
	switch {
	case fs.NArg() > 0:
		return cfg, fmt.Errorf("failed to parse the flags: unexpected arguments %q", fs.Args())
	case cfg.AuthFile == "":
		return cfg, errors.New("failed to parse the flags: --auth-file is required")
	case cfg.Timeout <= 0 || cfg.MaxConns <= 0:
		return cfg, errors.New("failed to parse the flags: --timeout and --max-connections must be positive")
	}
	return cfg, nil
}

// Run reads the credential, listens on cfg.Listen and relays every connection until ctx is done.
//
// The auth file is read once, at the start, as memcached reads it: a password rotation changes
// the pod template's secret hash (controllers/resources' SecretHashAnnotation covers the auth
// file), which rolls the pods, so memcached and the relay start again with the new file together.
// Re-reading it on change would only let the relay run ahead of the memcached beside it.
func Run(ctx context.Context, cfg Config, log logr.Logger) error {
	user, pass, err := memcachedauth.FirstCredential(cfg.AuthFile)
	if err != nil {
		return err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("failed to listen on %s: %w", cfg.Listen, err)
	}
	stop := context.AfterFunc(ctx, func() { _ = ln.Close() })
	defer stop()
	slots := make(chan struct{}, cfg.MaxConns)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("failed to accept a connection on %s: %w", cfg.Listen, err)
		}
		select {
		case slots <- struct{}{}:
		default:
			log.Info("Too many connections: closing one", "max", cfg.MaxConns)
			_ = c.Close()
			continue
		}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			if err := relay(ctx, c, cfg, user, pass); err != nil {
				log.Info("Connection closed", "reason", err.Error())
			}
		}()
	}
}

// errRefused is relay's answer to a command line Command does not allow.
var errRefused = errors.New("a command other than the statistics the exporter reads: closed")

// relay serves one client connection: it connects and authenticates to memcached (on failure the
// client is closed: the exporter reports memcached_up 0 and logs why), then copies memcached's
// answers back as they come and forwards each allowed command line, until the client quits, sends
// anything else, stays idle for cfg.Timeout or either side closes; the answers to the commands
// forwarded before that still reach the client. It returns why it closed, nil for a quit or the
// client's close.
func relay(ctx context.Context, client net.Conn, cfg Config, user, pass string) error {
	defer client.Close() //nolint:errcheck // nothing to report on close
	d := net.Dialer{Timeout: cfg.Timeout}
	server, err := d.DialContext(ctx, "tcp", cfg.Memcached)
	if err != nil {
		return fmt.Errorf("failed to connect to memcached at %s: %w", cfg.Memcached, err)
	}
	defer server.Close() //nolint:errcheck // nothing to report on close
	stop := context.AfterFunc(ctx, func() { _ = client.Close(); _ = server.Close() })
	defer stop()
	_ = server.SetDeadline(time.Now().Add(cfg.Timeout))
	answers := bufio.NewReader(server)
	if err := memcachedauth.Authenticate(server, answers, user, pass); err != nil {
		return err
	}
	_ = server.SetDeadline(time.Time{})
	copied := make(chan struct{})
	go func() {
		// memcached's answers, unchanged; when memcached closes, so does the client.
		_, _ = io.Copy(client, answers)
		_ = client.Close()
		close(copied)
	}()
	// done ends the connection: memcached gets "quit", so it answers every command forwarded
	// before it and then closes, and the client reads those answers before its connection closes
	// (bounded by cfg.Timeout).
	done := func(reason error) error {
		_, _ = io.WriteString(server, "quit\r\n")
		_ = server.SetReadDeadline(time.Now().Add(cfg.Timeout))
		<-copied
		return reason
	}
	lines := bufio.NewReaderSize(client, MaxLine)
	for {
		_ = client.SetReadDeadline(time.Now().Add(cfg.Timeout))
		line, err := lines.ReadSlice('\n')
		switch {
		// The exporter's client keeps its connection open after a scrape and opens another for the
		// next one: an idle connection's end is as normal as a close.
		case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed), errors.Is(err, os.ErrDeadlineExceeded):
			return done(nil)
		case errors.Is(err, bufio.ErrBufferFull):
			return done(errRefused)
		case err != nil:
			return done(fmt.Errorf("failed to read a command: %w", err))
		}
		verdict, cmd := Command(line)
		switch verdict {
		case Quit:
			return done(nil)
		case Refuse:
			return done(errRefused)
		}
		if _, err := io.WriteString(server, cmd); err != nil {
			return fmt.Errorf("failed to forward a command to memcached: %w", err)
		}
	}
}
