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

package pyclients

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/example/memcached-operator/test/real/memcache"
	"github.com/example/memcached-operator/test/utils"
)

const (
	// python is Debian's interpreter, the one python3-pylibmc and python3-pymemcache install for
	// (keys.py's #! line names it; a python3 earlier in PATH, e.g. pyenv's, lacks them).
	python = "/usr/bin/python3"
	// count is the number of keys each client stores per case: enough that every server holds
	// some and the shares are meaningful, few enough to stay well under a second per run.
	count = 600
)

// requireClients returns the pinned memcached (utils.MemcachedBinary, which make test assembles)
// and fails the test unless both Python clients are installed: make test runs after
// hack/cluster/host-packages.sh base, which installs them, so a missing one is a broken setup, not
// a reason to skip.
func requireClients(t *testing.T) string {
	t.Helper()
	bin := utils.MemcachedBinary(t)
	if out, err := exec.Command(python, "-I", "-c", "import pylibmc, pymemcache.client.hash").CombinedOutput(); err != nil {
		t.Fatalf("%s cannot import pylibmc and pymemcache (%v: %s): install python3-pylibmc and python3-pymemcache with hack/cluster/host-packages.sh base",
			python, err, strings.TrimSpace(string(out)))
	}
	return bin
}

// server is one memcached process on loopback, named as a client sees it: "127.0.0.1:<port>".
type server struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
}

// freePort returns a loopback port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("failed to find a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startServer starts memcached on 127.0.0.1:port (a free port when 0), empty, and waits until it
// accepts connections; it is killed when the test ends.
func startServer(t *testing.T, bin string, port int) *server {
	t.Helper()
	if port == 0 {
		port = freePort(t)
	}
	args := []string{"-l", "127.0.0.1", "-p", strconv.Itoa(port), "-U", "0", "-m", "16"}
	if os.Geteuid() == 0 {
		args = append(args, "-u", "nobody")
	}
	s := &server{name: fmt.Sprintf("127.0.0.1:%d", port), cmd: exec.Command(bin, args...), done: make(chan struct{})}
	var stderr bytes.Buffer
	s.cmd.Stderr = &stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("failed to start memcached %v: %v", args, err)
	}
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	t.Cleanup(s.kill)
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", s.name, time.Second)
		if err == nil {
			c.Close()
			return s
		}
		select {
		case <-s.done:
			t.Fatalf("memcached on %s exited: %s", s.name, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("memcached on %s did not accept connections within 5 s: %v", s.name, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// kill ends the process (SIGKILL, by its PID) and waits until it is gone; its memory is lost.
func (s *server) kill() {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Kill()
	<-s.done
}

// port returns the port of s.
func (s *server) port() int {
	_, p, _ := strings.Cut(s.name, ":")
	n, _ := strconv.Atoi(p)
	return n
}

func names(servers []*server) []string {
	var out []string
	for _, s := range servers {
		out = append(out, s.name)
	}
	return out
}

// run runs keys.py with args (through its #! line, as the image's entrypoint runs it) and decodes
// its report.
func run(t *testing.T, args ...string) Report {
	t.Helper()
	cmd := exec.Command("./keys.py", args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("keys.py %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	var r Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("keys.py %s: failed to decode its report: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return r
}

// placement reads every key of prefix from every server directly and returns how many each holds;
// it fails the test when a key is on more than one server or holds another value.
func placement(t *testing.T, servers []string, prefix string) map[string]int {
	t.Helper()
	held := map[string]int{}
	where := map[string]string{}
	for _, s := range servers {
		c, err := memcache.Dial(s, 5*time.Second)
		if err != nil {
			t.Fatalf("failed to connect to %s: %v", s, err)
		}
		for i := range count {
			k := memcache.Key(prefix, i)
			v, err := c.Get(k)
			if errors.Is(err, memcache.ErrNotFound) {
				continue
			}
			if err != nil {
				c.Close()
				t.Fatalf("failed to get %s from %s: %v", k, s, err)
			}
			if !bytes.Equal(v, memcache.Value(k)) {
				t.Errorf("%s on %s holds %q, want %q", k, s, v, memcache.Value(k))
			}
			if w, ok := where[k]; ok {
				t.Errorf("%s is on %s and on %s", k, w, s)
			}
			where[k] = s
			held[s]++
		}
		c.Close()
	}
	return held
}

// items returns the number of items server s holds (stats curr_items).
func items(t *testing.T, s string) int {
	t.Helper()
	c, err := memcache.Dial(s, 5*time.Second)
	if err != nil {
		t.Fatalf("failed to connect to %s: %v", s, err)
	}
	defer c.Close()
	st, err := c.Stats("")
	if err != nil {
		t.Fatalf("failed to read the stats of %s: %v", s, err)
	}
	n, err := strconv.Atoi(st["curr_items"])
	if err != nil {
		t.Fatalf("failed to parse curr_items %q of %s: %v", st["curr_items"], s, err)
	}
	return n
}

// event is what happens to the servers between write and check: it returns the new server list
// and the servers of the old list whose memory is lost (cold), and says which servers left the
// list (gone) and which joined it (added).
type event func(t *testing.T, bin string, servers []*server) (next []*server, cold, gone, added []string)

// TestClientsKeepWhatTheirHashingAllows runs keys.py with both clients against real memcached
// processes on loopback (the pinned memcached, utils.MemcachedBinary; started and killed by their PIDs) through the events
// of the real-node test: each client stores 600 keys over the servers, the servers change, and
// each client reads the keys back over the new list.
//
// It asserts, per client and per case:
//   - each key is stored on exactly one server, and per server as many keys as the client's
//     hashing reports (keys.py's per_server is the client's real placement, not a model of it);
//   - found == allowed, with no key read back wrong: keys.py's "allowed" is exact;
//   - the share allowed is the one consistent hashing promises: a server restarted under its own
//     name, or removed, costs exactly its own keys (allowed = total − its keys); an added server
//     takes exactly the keys it now owns and nothing else moves (allowed = total − its keys);
//     a server replaced under a new name costs at most its keys plus the new server's
//     (allowed ≥ total − both); every server restarted (a rollout) leaves nothing (allowed = 0).
func TestClientsKeepWhatTheirHashingAllows(t *testing.T) {
	bin := requireClients(t)
	// restart kills server i and starts an empty one on its port: the same name, its memory lost.
	restart := func(t *testing.T, bin string, s []*server, i int) {
		s[i].kill()
		s[i] = startServer(t, bin, s[i].port())
	}
	tests := []struct {
		name  string
		size  int
		event event
	}{
		{name: "one server restarted under its name (a replaced pod with a stable identity)", size: 3,
			event: func(t *testing.T, bin string, s []*server) ([]*server, []string, []string, []string) {
				restart(t, bin, s, 1)
				return s, []string{s[1].name}, nil, nil
			}},
		{name: "one server replaced under a new name (a replaced pod named after its IP)", size: 3,
			event: func(t *testing.T, bin string, s []*server) ([]*server, []string, []string, []string) {
				gone := s[2].name
				s[2].kill()
				s[2] = startServer(t, bin, 0)
				return s, []string{gone}, []string{gone}, []string{s[2].name}
			}},
		{name: "scale 3 to 4", size: 3,
			event: func(t *testing.T, bin string, s []*server) ([]*server, []string, []string, []string) {
				n := startServer(t, bin, 0)
				return append(s, n), nil, nil, []string{n.name}
			}},
		{name: "scale 4 to 3", size: 4,
			event: func(t *testing.T, bin string, s []*server) ([]*server, []string, []string, []string) {
				gone := s[3].name
				s[3].kill()
				return s[:3], []string{gone}, []string{gone}, nil
			}},
		{name: "rollout (every server restarted under its name)", size: 3,
			event: func(t *testing.T, bin string, s []*server) ([]*server, []string, []string, []string) {
				var cold []string
				for i := range s {
					restart(t, bin, s, i)
					cold = append(cold, s[i].name)
				}
				return s, cold, nil, nil
			}},
	}
	// The cases run in parallel, each with servers of its own.
	t.Run("each key where the client's hashing says", func(t *testing.T) {
		t.Parallel()
		var servers []*server
		for range 3 {
			servers = append(servers, startServer(t, bin, 0))
		}
		for _, c := range Clients {
			w := run(t, WriteArgs(c, names(servers), count, c)...)
			held := placement(t, names(servers), c)
			for _, s := range servers {
				if held[s.name] != w.PerServer[s.name] || held[s.name] == 0 {
					t.Errorf("%s: %s holds %d keys, the client's hashing maps %d there", c, s.name, held[s.name], w.PerServer[s.name])
				}
			}
			t.Logf("%-10s keys per server %v, each key on exactly that server with its value", c, held)
		}
	})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var servers []*server
			for range tc.size {
				servers = append(servers, startServer(t, bin, 0))
			}
			old := names(servers)
			written := map[string]Report{}
			for _, c := range Clients {
				w := run(t, WriteArgs(c, old, count, c)...)
				if w.Stored != count {
					t.Fatalf("%s stored %d of %d keys", c, w.Stored, count)
				}
				written[c] = w
			}
			// Each server holds as many keys as the clients' hashing maps to it.
			for _, s := range old {
				want := 0
				for _, c := range Clients {
					want += written[c].PerServer[s]
				}
				if got := items(t, s); got != want {
					t.Errorf("%s holds %d items, the clients' hashing maps %d keys there", s, got, want)
				}
			}

			next, cold, gone, added := tc.event(t, bin, slices.Clone(servers))
			now := names(next)
			for _, c := range Clients {
				r := run(t, CheckArgs(c, now, count, c, old, cold)...)
				if r.Allowed == nil {
					t.Fatalf("%s: check reported no allowed count", c)
				}
				allowed := *r.Allowed
				t.Logf("%-10s found %4d of %d, allowed %4d (%.1f %%)", c, r.Found, count, allowed, 100*float64(allowed)/count)
				if r.Found != allowed || len(r.Wrong) > 0 {
					t.Errorf("%s: found %d keys, the hashing allows %d; wrong values %v", c, r.Found, allowed, r.Wrong)
				}
				lost := written[c].Sum(cold) + r.Sum(added)
				switch {
				case len(cold) == len(old):
					if allowed != 0 {
						t.Errorf("%s: every server restarted, yet %d keys allowed", c, allowed)
					}
				case len(gone) > 0 && len(added) > 0:
					if allowed < count-lost || allowed > count-written[c].Sum(cold) {
						t.Errorf("%s: allowed %d, want between %d (total − the replaced server's %d keys − the new server's %d) and %d",
							c, allowed, count-lost, written[c].Sum(cold), r.Sum(added), count-written[c].Sum(cold))
					}
				default:
					if allowed != count-lost {
						t.Errorf("%s: allowed %d, want exactly %d (total − %d keys of the servers that lost their memory or joined)", c, allowed, count-lost, lost)
					}
				}
			}
		})
	}
}
