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

// Command mcclient is the client pod of the real-node test tier (make test-real, make demo-real).
// It runs as a pod under the restricted Pod Security profile, idle, and the suite runs its other
// subcommands through `kubectl exec`; each prints one JSON report (test/real/memcache) on stdout
// and exits 1 when anything failed.
//
//	mcclient idle                                    block until SIGTERM (the pod's main process)
//	mcclient servers -servers H:P,...                resolve each server, ask version, stats, stats settings
//	mcclient service -addr NAME:P -prefix K -n 100   set then get n keys over one connection to NAME
//	mcclient hashset -servers H:P,... -prefix K -n N set each key on memcache.Pick(key, servers)
//	mcclient locate -servers H:P,... -prefix K -n N  get each key from every server
//	mcclient https-get -url URL [-token-stdin]       GET URL (TLS not verified), bearer token from stdin
//	mcclient watch -servers H:P,... -prefix K -n N [-interval 200ms] [-duration 15m] [-progress]
//	                                                 every interval get each key from the server
//	                                                 memcache.Pick chose, until stdin closes;
//	                                                 -progress: "round N" on stderr after each round
//	mcclient rehash -prefix K -n N [-interval 100ms] [-timeout 1s] [-progress]
//	                                                 server lists on stdin, one a line: get each key
//	                                                 from its server over the latest list, fill a
//	                                                 miss with a set, until stdin closes (rehash.go);
//	                                                 -progress: "round N list L" on stderr after
//	                                                 each round (rounds done, lists received)
//
// Keys are memcache.Key(prefix, i) for i in [0, n); values memcache.Value(key).
//
// servers, service, hashset and locate also take -tls (speak TLS, verifying the server's
// certificate against the CA given on stdin, or the system's CAs without one) and -user (memcached's
// ASCII authentication as that user). Secrets are never arguments: with -credentials-stdin the
// client reads a JSON object {"ca": PEM, "password": "...", "cert": PEM, "key": PEM} (every field
// optional; cert and key are a client certificate) from stdin. watch reads stdin for its end and
// takes neither.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/example/memcached-operator/test/real/memcache"
)

// timeout bounds each connection and request.
const timeout = 5 * time.Second

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	cmd, args := os.Args[1], os.Args[2:]
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	servers := fs.String("servers", "", "comma-separated host:port list (e.g. status.serverList)")
	addr := fs.String("addr", "", "name:port to dial (service)")
	prefix := fs.String("prefix", "key", "key prefix")
	n := fs.Int("n", 100, "number of keys")
	url := fs.String("url", "", "URL (https-get)")
	tokenStdin := fs.Bool("token-stdin", false, "read a bearer token from stdin (https-get)")
	interval := fs.Duration("interval", 200*time.Millisecond, "time between two rounds (watch)")
	duration := fs.Duration("duration", 15*time.Minute, "longest watch, when stdin stays open (watch, rehash)")
	dialTimeout := fs.Duration("timeout", time.Second, "dial and request timeout (rehash)")
	progress := fs.Bool("progress", false, `print "round N" to stderr after each round, N rounds done (watch), "round N list L" with L server lists received (rehash)`)
	useTLS := fs.Bool("tls", false, "speak TLS, verifying servers against the CA of -credentials-stdin (or the system's)")
	user := fs.String("user", "", "authenticate as this user (memcached -Y); the password comes from -credentials-stdin")
	credsStdin := fs.Bool("credentials-stdin", false, `read {"ca","password","cert","key"} as JSON from stdin`)
	_ = fs.Parse(args)
	if err := setDialOptions(*useTLS, *user, *credsStdin); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}

	var report any
	var errs []string
	switch cmd {
	case "idle":
		idle()
		return
	case "servers":
		r := serversReport(splitList(*servers))
		report, errs = r, r.Errors
	case "service":
		r := serviceReport(*addr, *prefix, *n)
		report, errs = r, r.Errors
	case "hashset":
		r := hashSet(splitList(*servers), *prefix, *n)
		report, errs = r, r.Errors
	case "locate":
		r := locate(splitList(*servers), *prefix, *n)
		report, errs = r, r.Errors
	case "https-get":
		r := httpsGet(*url, *tokenStdin)
		report, errs = r, r.Errors
	case "watch":
		r := watch(splitList(*servers), *prefix, *n, *interval, *duration, progressWriter(*progress))
		report, errs = r, r.Errors
	case "rehash":
		r := rehash(*prefix, *n, *interval, *duration, *dialTimeout, progressWriter(*progress))
		report, errs = r, r.Errors
	default:
		usage()
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(report); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if len(errs) > 0 {
		fmt.Fprintf(os.Stderr, "mcclient %s: %d error(s):\n  %s\n", cmd, len(errs), strings.Join(errs, "\n  "))
		os.Exit(1)
	}
}

// progressWriter is where watch and rehash print their progress lines: stderr with -progress.
func progressWriter(on bool) io.Writer {
	if on {
		return os.Stderr
	}
	return nil
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: mcclient idle|servers|service|hashset|locate|https-get|watch|rehash [flags] (see the package doc)")
	os.Exit(2)
}

// dialOptions are the TLS and authentication options of every connection (setDialOptions).
var dialOptions memcache.Options

// dial connects to a server with dialOptions.
func dial(addr string) (*memcache.Conn, error) { return memcache.DialWith(addr, timeout, dialOptions) }

// credentials is what -credentials-stdin reads.
type credentials struct {
	// CA is a PEM bundle the servers' certificates must chain to.
	CA string `json:"ca"`
	// Password is the password of -user.
	Password string `json:"password"`
	// Cert and Key are a PEM client certificate and its key, for servers that ask for one.
	Cert string `json:"cert"`
	Key  string `json:"key"`
}

// setDialOptions fills dialOptions from the flags and, with credsStdin, from stdin.
func setDialOptions(useTLS bool, user string, credsStdin bool) error {
	var creds credentials
	if credsStdin {
		if err := json.NewDecoder(io.LimitReader(os.Stdin, 1<<20)).Decode(&creds); err != nil {
			return fmt.Errorf("failed to read the credentials from stdin: %w", err)
		}
	}
	dialOptions.User, dialOptions.Password = user, creds.Password
	if !useTLS {
		return nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if creds.CA != "" {
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM([]byte(creds.CA)) {
			return errors.New("the ca of the credentials holds no PEM certificate")
		}
	}
	if creds.Cert != "" {
		pair, err := tls.X509KeyPair([]byte(creds.Cert), []byte(creds.Key))
		if err != nil {
			return fmt.Errorf("failed to load the client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	dialOptions.TLS = cfg
	return nil
}

// idle blocks until SIGTERM or SIGINT. As PID 1 of its container the process gets no default
// signal handling, so it must handle them to stop promptly.
func idle() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)
	fmt.Println("mcclient: idle; use kubectl exec to run its subcommands")
	<-ch
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// serversReport resolves every server, connects, and asks version, stats and stats settings.
func serversReport(servers []string) memcache.ServersReport {
	r := memcache.ServersReport{Servers: []memcache.ServerInfo{}}
	if len(servers) == 0 {
		r.Errors = append(r.Errors, "no servers given")
	}
	for _, s := range servers {
		info := serverInfo(s)
		if info.Error != "" {
			r.Errors = append(r.Errors, s+": "+info.Error)
		}
		r.Servers = append(r.Servers, info)
	}
	return r
}

// serverInfo queries one server; failures go to the Error field.
func serverInfo(server string) memcache.ServerInfo {
	info := memcache.ServerInfo{Server: server}
	host, _, err := net.SplitHostPort(server)
	if err != nil {
		info.Error = err.Error()
		return info
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if info.Addrs, err = net.DefaultResolver.LookupHost(ctx, host); err != nil {
		info.Error = fmt.Sprintf("failed to resolve %s: %v", host, err)
		return info
	}
	c, err := dial(server)
	if err != nil {
		info.Error = err.Error()
		return info
	}
	defer c.Close()
	info.RemoteAddr = c.RemoteAddr()
	if cert := c.PeerCertificate(); cert != nil {
		info.CertSerial = cert.SerialNumber.Text(16)
	}
	if info.Version, err = c.Version(); err != nil {
		info.Error = err.Error()
		return info
	}
	stats, err := c.Stats("")
	if err != nil {
		info.Error = err.Error()
		return info
	}
	info.PID, info.Uptime, info.CurrItems = stats["pid"], stats["uptime"], stats["curr_items"]
	settings, err := c.Stats("settings")
	if err != nil {
		info.Error = err.Error()
		return info
	}
	info.MaxBytes = settings["maxbytes"]
	return info
}

// serviceReport resolves addr's name, then sets and gets n keys over one connection to addr.
func serviceReport(addr, prefix string, n int) memcache.ServiceReport {
	r := memcache.ServiceReport{Addr: addr, Resolved: []string{}}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		r.Errors = append(r.Errors, err.Error())
		return r
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if r.Resolved, err = net.DefaultResolver.LookupHost(ctx, host); err != nil {
		r.Errors = append(r.Errors, fmt.Sprintf("failed to resolve %s: %v", host, err))
		return r
	}
	slices.Sort(r.Resolved)
	c, err := dial(addr)
	if err != nil {
		r.Errors = append(r.Errors, err.Error())
		return r
	}
	defer c.Close()
	r.RemoteAddr = c.RemoteAddr()
	for i := range n {
		key := memcache.Key(prefix, i)
		if err := c.Set(key, memcache.Value(key)); err != nil {
			r.Errors = append(r.Errors, err.Error())
			continue
		}
		r.Stored++
	}
	for i := range n {
		key := memcache.Key(prefix, i)
		v, err := c.Get(key)
		switch {
		case err != nil:
			r.Errors = append(r.Errors, fmt.Sprintf("get %s: %v", key, err))
		case string(v) != string(memcache.Value(key)):
			r.Errors = append(r.Errors, fmt.Sprintf("get %s: value %q, want %q", key, v, memcache.Value(key)))
		default:
			r.Read++
		}
	}
	return r
}

// connections dials every server; failures are returned as errors and leave a nil entry.
func connections(servers []string) (map[string]*memcache.Conn, []string) {
	conns := map[string]*memcache.Conn{}
	var errs []string
	for _, s := range servers {
		c, err := dial(s)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		conns[s] = c
	}
	return conns, errs
}

// hashSet stores each key on the server memcache.Pick chooses.
func hashSet(servers []string, prefix string, n int) memcache.PlacementReport {
	sorted := slices.Sorted(slices.Values(servers))
	r := memcache.PlacementReport{Servers: sorted, Keys: map[string][]string{}}
	if len(servers) == 0 {
		r.Errors = append(r.Errors, "no servers given")
		return r
	}
	conns, errs := connections(sorted)
	r.Errors = errs
	defer closeAll(conns)
	for i := range n {
		key := memcache.Key(prefix, i)
		s := memcache.Pick(key, sorted)
		c := conns[s]
		if c == nil {
			continue
		}
		if err := c.Set(key, memcache.Value(key)); err != nil {
			r.Errors = append(r.Errors, err.Error())
			continue
		}
		r.Keys[key] = []string{s}
	}
	return r
}

// locate asks every server for every key.
func locate(servers []string, prefix string, n int) memcache.PlacementReport {
	sorted := slices.Sorted(slices.Values(servers))
	r := memcache.PlacementReport{Servers: sorted, Keys: map[string][]string{}, Wrong: map[string][]string{}}
	if len(servers) == 0 {
		r.Errors = append(r.Errors, "no servers given")
		return r
	}
	conns, errs := connections(sorted)
	r.Errors = errs
	defer closeAll(conns)
	for i := range n {
		key := memcache.Key(prefix, i)
		r.Keys[key] = []string{}
		for _, s := range sorted {
			c := conns[s]
			if c == nil {
				continue
			}
			v, err := c.Get(key)
			switch {
			case errors.Is(err, memcache.ErrNotFound):
			case err != nil:
				r.Errors = append(r.Errors, err.Error())
			case string(v) == string(memcache.Value(key)):
				r.Keys[key] = append(r.Keys[key], s)
			default:
				r.Wrong[key] = append(r.Wrong[key], s)
			}
		}
	}
	return r
}

// watch gets every key from its server (memcache.Pick) each interval, over one connection per
// server (dialled again after an error), until stdin reaches EOF (the caller closes the stdin of
// `kubectl exec -i`) or duration passes. Every failed get is an error: a connection error, a miss
// or a wrong value. With progress set, each round ends with a line "round N" on it (rounds done).
func watch(servers []string, prefix string, n int, interval, duration time.Duration, progress io.Writer) memcache.WatchReport {
	sorted := slices.Sorted(slices.Values(servers))
	r := memcache.WatchReport{Servers: sorted, IntervalMs: interval.Milliseconds()}
	if len(servers) == 0 {
		r.Errors = append(r.Errors, "no servers given")
		return r
	}
	stop := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(stop)
	}()
	conns := map[string]*memcache.Conn{}
	defer closeAll(conns)
	fail := func(format string, args ...any) {
		r.Errors = append(r.Errors, time.Now().UTC().Format(time.RFC3339Nano)+" "+fmt.Sprintf(format, args...))
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	deadline := time.After(duration)
	for {
		r.Rounds++
		for i := range n {
			key := memcache.Key(prefix, i)
			s := memcache.Pick(key, sorted)
			c := conns[s]
			if c == nil {
				var err error
				if c, err = memcache.Dial(s, timeout); err != nil {
					fail("%v", err)
					continue
				}
				conns[s] = c
			}
			v, err := c.Get(key)
			switch {
			case err != nil:
				fail("get %s from %s: %v", key, s, err)
				_ = c.Close()
				delete(conns, s)
			case string(v) != string(memcache.Value(key)):
				fail("get %s from %s: value %q, want %q", key, s, v, memcache.Value(key))
			default:
				r.Gets++
			}
		}
		if progress != nil {
			fmt.Fprintf(progress, "round %d\n", r.Rounds)
		}
		select {
		case <-stop:
			return r
		case <-deadline:
			return r
		case <-tick.C:
		}
	}
}

func closeAll(conns map[string]*memcache.Conn) {
	for _, c := range conns {
		_ = c.Close()
	}
}

// maxBody bounds the body kept in an HTTPSReport.
const maxBody = 4 << 20

// httpsGet GETs url without verifying the server's certificate (the operator serves a self-signed
// one), with "Authorization: Bearer <token>" when tokenStdin is set and stdin holds a token.
func httpsGet(url string, tokenStdin bool) memcache.HTTPSReport {
	r := memcache.HTTPSReport{URL: url}
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		r.Errors = append(r.Errors, err.Error())
		return r
	}
	if tokenStdin {
		tok, err := io.ReadAll(io.LimitReader(os.Stdin, 1<<16))
		if err != nil {
			r.Errors = append(r.Errors, fmt.Sprintf("failed to read the token from stdin: %v", err))
			return r
		}
		if t := strings.TrimSpace(string(tok)); t != "" {
			req.Header.Set("Authorization", "Bearer "+t)
		}
	}
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		Proxy:           nil,
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // the operator's self-signed metrics certificate
	}}
	resp, err := c.Do(req)
	if err != nil {
		r.Errors = append(r.Errors, err.Error())
		return r
	}
	defer resp.Body.Close()
	r.Status = resp.StatusCode
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		r.Errors = append(r.Errors, fmt.Sprintf("failed to read the body: %v", err))
	}
	r.Body = string(body)
	return r
}
