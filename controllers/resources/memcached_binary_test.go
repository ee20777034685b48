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
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"

	"github.com/example/memcached-operator/controllers/internal/fixture"
	"github.com/example/memcached-operator/test/utils"
)

// TestArgsAcceptedByRealMemcached starts the pinned memcached (utils.MemcachedBinary: skipped
// without it, failed in CI) with the args the builder produces, on a loopback port, and checks
// through `stats settings` that memcached applied them. It proves the flags and values we generate
// are ones memcached accepts, e.g. -I in bytes and its bounds against -m, and that every extended
// option spec.memcached.extraArgs may set (api/v1alpha1's extendedOptions) exists in memcached and
// takes the values the operator lets through. Every row passes Validate.
func TestArgsAcceptedByRealMemcached(t *testing.T) {
	bin := utils.MemcachedBinary(t)
	tests := map[string]struct {
		mc   *cachev1alpha1.Memcached
		want map[string]string // stats settings key -> value
	}{
		"defaults": {
			mc:   fixture.Defaulted("a"),
			want: map[string]string{"maxbytes": "67108864", "maxconns": "1024", "num_threads": "4", "udpport": "0"},
		},
		"smallest item size": {
			mc:   fixture.Defaulted("a", func(mc *cachev1alpha1.Memcached) { mc.Spec.Memcached.MaxItemSize = ptr.To(resource.MustParse("512Ki")) }),
			want: map[string]string{"item_size_max": "524288"},
		},
		"item size 1.5Mi": {
			mc:   fixture.Defaulted("a", func(mc *cachev1alpha1.Memcached) { mc.Spec.Memcached.MaxItemSize = ptr.To(resource.MustParse("1.5Mi")) }),
			want: map[string]string{"item_size_max": "1572864"},
		},
		"every allowed extra option": {
			mc: fixture.Defaulted("a", func(mc *cachev1alpha1.Memcached) {
				mc.Spec.Memcached.ExtraArgs = []string{"-M", "-R", "40", "-B", "ascii", "-f", "1.5", "-n", "64", "-C", "-D", ":", "-b", "2048", "-F", "-X", "-o", "modern"}
			}),
			want: map[string]string{"evictions": "off", "reqs_per_event": "40", "binding_protocol": "ascii", "growth_factor": "1.50", "chunk_size": "64", "cas_enabled": "no", "tcp_backlog": "2048", "flush_enabled": "no"},
		},
		"every allowed extended option that turns something on": {
			mc: fixture.Defaulted("a", func(mc *cachev1alpha1.Memcached) {
				mc.Spec.Memcached.ExtraArgs = []string{"-o", "hashpower=16,no_hashexpand,hash_algorithm=murmur3,maxconns_fast,idle_timeout=600,read_buf_mem_limit=64,slab_reassign,slab_automove,slab_automove=2,slab_automove_ratio=0.5,slab_automove_window=40",
					"-o", "tail_repair_time=60,lru_crawler,lru_crawler_sleep=200,lru_crawler_tocrawl=10,lru_maintainer,hot_lru_pct=25,warm_lru_pct=45,hot_max_factor=0.3,warm_max_factor=3.0,temporary_ttl=61,modern,track_sizes,watcher_logbuf_size=256,worker_logbuf_size=128",
					"-o", "slab_sizes=96-192-384-768-1536"}
			}),
			want: map[string]string{"hashpower_init": "16", "hash_algorithm": "murmur3", "idle_timeout": "600", "slab_reassign": "yes", "slab_automove": "2", "slab_automove_ratio": "0.50", "slab_automove_window": "40", "tail_repair_time": "60", "lru_crawler": "yes", "lru_crawler_sleep": "200", "lru_crawler_tocrawl": "10", "lru_maintainer_thread": "yes", "hot_lru_pct": "25", "warm_lru_pct": "45", "temporary_ttl": "61", "maxconns_fast": "yes"},
		},
		// slab_chunk_max is in bytes up to memcached 1.6.23 (bookworm's 1.6.18 reports 256 here)
		// and in KiB from 1.6.24 (1.6.38 and the pinned 1.6.45 report 262144).
		"largest slab chunk": {
			mc:   fixture.Defaulted("a", func(mc *cachev1alpha1.Memcached) { mc.Spec.Memcached.ExtraArgs = []string{"-o", "slab_chunk_max=256"} }),
			want: map[string]string{},
		},
		"every allowed extended option that turns something off": {
			mc: fixture.Defaulted("a", func(mc *cachev1alpha1.Memcached) {
				mc.Spec.Memcached.ExtraArgs = []string{"-o", "no_modern,no_chunked_items,no_slab_reassign,no_slab_automove,no_maxconns_fast,no_lru_crawler,no_lru_maintainer"}
			}),
			want: map[string]string{"slab_reassign": "no", "slab_automove": "0", "maxconns_fast": "no", "lru_crawler": "no", "lru_maintainer_thread": "no", "hash_algorithm": "jenkins"},
		},
		"fully tuned": {
			mc:   fixture.Defaulted("a", fixture.Tuned),
			want: map[string]string{"maxbytes": "536870912", "maxconns": "4096", "num_threads": "8", "item_size_max": "4194304", "evictions": "on"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if errs := tc.mc.Validate(); len(errs) > 0 {
				t.Fatalf("Validate() = %v: the operator would not run these arguments", errs)
			}
			p, err := startMemcached(t, bin, MemcachedArgs(tc.mc, Options{}))
			if err != nil {
				t.Fatal(err)
			}
			settings, err := statsSettings(p.addr, 5*time.Second)
			if err != nil {
				t.Fatalf("memcached did not serve: %v; stderr: %s", err, p.Stderr())
			}
			for k, v := range tc.want {
				if settings[k] != v {
					t.Errorf("stats settings %s = %q, want %q", k, settings[k], v)
				}
			}
		})
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// memcachedProcess is a memcached that startMemcached started: its address, its process id and
// what it wrote to stderr.
type memcachedProcess struct {
	addr   string
	pid    int
	mu     sync.Mutex
	stderr bytes.Buffer
}

// Write collects memcached's stderr (exec copies it from another goroutine).
func (p *memcachedProcess) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.Write(b)
}

// Stderr returns what memcached wrote to stderr so far.
func (p *memcachedProcess) Stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// startMemcached starts bin with args on a free loopback port (the builder's -p 11211 replaced, its
// listener on every address, -l *:11211, bound to 127.0.0.1 at that port instead, or -l 127.0.0.1
// added when it has none, and -u nobody when run as root, which memcached requires), killed at
// t.Cleanup, and returns once it accepts connections. The error, with memcached's stderr, says
// that it exited first (as it does on a malformed -Y file) or did not listen within 5s.
func startMemcached(t *testing.T, bin string, args []string) (*memcachedProcess, error) {
	t.Helper()
	// A port freePort found free may be taken before memcached binds it (by any process of the
	// machine): that start fails on its bind, and another port is tried. Any other exit is the
	// answer.
	for range 3 {
		p, err := startMemcachedOnce(t, bin, args)
		if err == nil || !strings.Contains(err.Error(), "Address already in use") {
			return p, err
		}
		t.Logf("retrying on another port: %v", err)
	}
	return startMemcachedOnce(t, bin, args)
}

// startMemcachedOnce is one try of startMemcached, on a port freePort chooses.
func startMemcachedOnce(t *testing.T, bin string, args []string) (*memcachedProcess, error) {
	t.Helper()
	port := freePort(t)
	args = slices.Clone(args)
	everyAddress := "*:" + strconv.Itoa(cachev1alpha1.DefaultPort)
	for i := range args {
		switch args[i] {
		case "-p":
			args[i+1] = strconv.Itoa(port)
		case everyAddress:
			args[i] = "127.0.0.1:" + strconv.Itoa(port)
		}
	}
	if !slices.Contains(args, "127.0.0.1:"+strconv.Itoa(port)) {
		args = append(args, "-l", "127.0.0.1")
	}
	if os.Geteuid() == 0 {
		args = append(args, "-u", "nobody")
	}
	p := &memcachedProcess{addr: fmt.Sprintf("127.0.0.1:%d", port)}
	cmd := exec.Command(bin, args...)
	cmd.Stderr = p
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start memcached %q: %w", args, err)
	}
	p.pid = cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	done := false
	t.Cleanup(func() {
		if !done {
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	deadline := time.Now().Add(5 * time.Second)
	for {
		select {
		case err := <-exited:
			done = true
			return nil, fmt.Errorf("memcached %q exited (%v): %s", args, err, p.Stderr())
		default:
		}
		// The port was free when freePort chose it, but any process of the machine (another test
		// package's API server, say) may bind it before memcached does: then memcached exits and a
		// dial would reach that process. So the listening socket must be memcached's own.
		err := listensOn(p.pid, port)
		if err == nil {
			return p, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("memcached %q did not listen on %s: %v; stderr: %s", args, p.addr, err, p.Stderr())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// listensOn returns nil when process pid holds a TCP socket listening on port, else why not. It
// reads Linux's /proc (the socket inodes of the process's descriptors, and /proc/net/tcp for the
// listening sockets of this network namespace): no library of the project reads sockets by
// process, and net.Dial cannot tell which process accepted.
func listensOn(pid, port int) error {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return err
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		if link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); err == nil && strings.HasPrefix(link, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] = true
		}
	}
	table, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		return err
	}
	suffix := fmt.Sprintf(":%04X", port)
	for _, line := range strings.Split(string(table), "\n")[1:] {
		// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
		f := strings.Fields(line)
		if len(f) > 9 && strings.HasSuffix(f[1], suffix) && f[3] == "0A" && inodes[f[9]] {
			return nil
		}
	}
	return fmt.Errorf("process %d does not listen on port %d", pid, port)
}

// statsSettings dials addr until it answers (or the deadline passes) and returns `stats settings`.
func statsSettings(addr string, wait time.Duration) (map[string]string, error) {
	deadline := time.Now().Add(wait)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			if time.Now().After(deadline) {
				return nil, err
			}
			time.Sleep(50 * time.Millisecond)
			continue
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := conn.Write([]byte("stats settings\r\n")); err != nil {
			return nil, err
		}
		out := map[string]string{}
		sc := bufio.NewScanner(conn)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "END" {
				return out, nil
			}
			if f := strings.Fields(line); len(f) == 3 && f[0] == "STAT" {
				out[f[1]] = f[2]
			}
		}
		return nil, fmt.Errorf("no END in stats settings: %v", sc.Err())
	}
}
