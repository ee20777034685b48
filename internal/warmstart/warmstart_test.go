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

package warmstart

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"

	"github.com/example/memcached-operator/internal/memcachedauth"
	"github.com/example/memcached-operator/test/utils"
)

// The tests run the launcher in-process over the pinned memcached (utils.MemcachedBinary), and
// signal it through Config.Signals as cmd/memcached-launcher does; cmd/memcached-launcher's test
// runs the binary itself. memcached listens on a unix socket in the test's directory, not on a
// loopback port: a warm start consumes the save (memcached reads and deletes FILE.meta) before
// it binds its listeners, so a port taken by another process between a free-port check and the
// bind would fail a warm start for a reason that is not the launcher's, with no retry possible.

// keys is how many items the tests store: 5000 of valueSize bytes.
const (
	keys      = 5000
	valueSize = 100
)

// previousBinaryEnv names the environment variable holding an older memcached build (Debian
// trixie's 1.6.38) whose save the pinned build must restore.
const previousBinaryEnv = "MEMCACHED_BINARY_PREVIOUS"

// A graceful stop saves; the next start restores every key, and reports how soon it serves. Two
// SIGTERMs (the kubelet's and, say, a user's) still make one save.
func TestWarmRestartKeepsEveryKey(t *testing.T) {
	t.Parallel()
	bin := utils.MemcachedBinary(t)
	saveAndRestore(t, bin, bin)
}

// A save by the previous memcached build is restored by the pinned one (an image upgrade over a
// warm pod).
func TestWarmRestartAcrossVersions(t *testing.T) {
	t.Parallel()
	bin := utils.MemcachedBinary(t)
	prev := os.Getenv(previousBinaryEnv)
	if prev == "" {
		t.Skipf("%s is not set: no older memcached build to save with (e.g. %s=$(MEMCACHED_DEBIAN_SUITE=trixie MEMCACHED_DEBIAN_VERSION=1.6.38-1 hack/images/debian-memcached.sh path))", previousBinaryEnv, previousBinaryEnv)
	}
	saveAndRestore(t, prev, bin)
}

// saveAndRestore fills memcached first run by the launcher, stops it with SIGTERM and checks that
// memcached second, started by a new launcher over the same file, serves every key.
func saveAndRestore(t *testing.T, first, second string) {
	dir := memoryDir(t)
	l := startLauncher(t, Config{Memcached: first, MemoryFile: filepath.Join(dir, "memory_file")})
	c := l.client(t, 5*time.Second)
	if !l.logged("Starting cold") {
		t.Errorf("the first start was not cold: %s", l.logs())
	}
	t.Logf("memory file after the start (-m 64): %s", usage(t, l.cfg.MemoryFile))
	c.fill(t)
	t.Logf("memory file with %d items of %d bytes: %s", keys, valueSize, usage(t, l.cfg.MemoryFile))
	l.signal(syscall.SIGTERM)
	l.signal(syscall.SIGTERM)
	if code := l.wait(t, 10*time.Second); code != 0 {
		t.Fatalf("the launcher exited %d after SIGTERM, want 0; logs: %s", code, l.logs())
	}
	b, err := os.ReadFile(l.cfg.MemoryFile + MarkerSuffix)
	if err != nil {
		t.Fatalf("no marker after a graceful stop: %v", err)
	}
	if _, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(b))); err != nil {
		t.Errorf("the marker holds %q, not a time: %v", b, err)
	}

	cfg := l.cfg
	cfg.Memcached = second
	l = startLauncher(t, cfg)
	c = l.client(t, 5*time.Second)
	t.Logf("warm start: serving %s after the launcher started, %s after memcached started", l.ready.Round(time.Millisecond), l.restored.Round(time.Millisecond))
	if !l.logged("Starting warm") {
		t.Errorf("the second start was not warm: %s", l.logs())
	}
	if _, err := os.Stat(cfg.MemoryFile + MarkerSuffix); !os.IsNotExist(err) {
		t.Errorf("the marker is still there while memcached runs (%v): a crash now would restart warm", err)
	}
	if n := c.count(t); n != keys {
		t.Errorf("%d of %d keys after the warm restart", n, keys)
	}
	l.signal(syscall.SIGTERM)
	if code := l.wait(t, 10*time.Second); code != 0 {
		t.Errorf("the launcher exited %d, want 0", code)
	}
}

// memcached killed while running (crash, OOM kill) leaves no marker: the next start is cold and
// serves at once. A warm start killed within WarmStartWindow is a bad save: the launcher starts
// memcached cold again in-process; killed later, it exits with memcached's status.
func TestKilledMemcachedStartsCold(t *testing.T) {
	t.Parallel()
	bin := utils.MemcachedBinary(t)
	tests := map[string]struct {
		warm     bool
		window   time.Duration
		wantExit bool // the launcher exits 137; else it starts memcached cold in-process
	}{
		"cold start":                    {wantExit: true},
		"warm start, after the window":  {warm: true, window: 300 * time.Millisecond, wantExit: true},
		"warm start, within the window": {warm: true}, // the default window, 30 s
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg := Config{Memcached: bin, MemoryFile: filepath.Join(memoryDir(t), "memory_file"), WarmStartWindow: tc.window}
			l := startLauncher(t, cfg)
			l.client(t, 5*time.Second).fill(t)
			if tc.warm {
				l.signal(syscall.SIGTERM)
				if code := l.wait(t, 10*time.Second); code != 0 {
					t.Fatalf("the launcher exited %d after SIGTERM, want 0", code)
				}
				l = startLauncher(t, cfg)
				if n := l.client(t, 5*time.Second).count(t); n != keys {
					t.Fatalf("%d of %d keys after the warm start", n, keys)
				}
				time.Sleep(2 * tc.window) // beyond a short window; none for the default
			}
			if err := syscall.Kill(l.pid(t), syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			if tc.wantExit {
				if code := l.wait(t, 5*time.Second); code != 128+int(syscall.SIGKILL) {
					t.Errorf("the launcher exited %d, want 137", code)
				}
				if _, err := os.Stat(cfg.MemoryFile + MarkerSuffix); !os.IsNotExist(err) {
					t.Errorf("a marker after memcached was killed (%v)", err)
				}
				start := time.Now()
				l = startLauncher(t, cfg)
				c := l.client(t, 2*time.Second)
				t.Logf("next start served after %s", time.Since(start).Round(time.Millisecond))
				if !l.logged("Starting cold") {
					t.Errorf("the next start was not cold: %s", l.logs())
				}
				if n := c.count(t); n != 0 {
					t.Errorf("%d keys after a cold start, want 0", n)
				}
			} else {
				l.waitLog(t, "Warm start failed; starting cold", 2*time.Second)
				c := l.client(t, 2*time.Second)
				if n := c.count(t); n != 0 {
					t.Errorf("%d keys after the cold restart, want 0", n)
				}
			}
			l.signal(syscall.SIGTERM)
			if code := l.wait(t, 10*time.Second); code != 0 {
				t.Errorf("the launcher exited %d after SIGTERM, want 0", code)
			}
		})
	}
}

// A save that passed the marker's checks but is corrupt never crash-loops memcached: the launcher
// serves within a few seconds, at worst after one in-process cold start. (memcached aborts on a
// metadata file it cannot parse, and a truncated one can corrupt its heap.)
func TestCorruptSaveStartsCold(t *testing.T) {
	t.Parallel()
	bin := utils.MemcachedBinary(t)
	garbage := func(n int) []byte {
		b := make([]byte, n)
		_, _ = rand.NewChaCha8([32]byte{1}).Read(b)
		return b
	}
	tests := map[string]struct {
		meta     func(good []byte) []byte // nil: keep it
		memory   func(path string) error
		wantCold bool // the launcher itself starts cold (the save is incomplete)
	}{
		"metadata missing": {
			memory:   func(p string) error { return os.Remove(p + MetaSuffix) },
			wantCold: true,
		},
		"metadata garbage, memory truncated": {
			meta:   func([]byte) []byte { return garbage(300) },
			memory: func(p string) error { return os.Truncate(p, 1<<20) },
		},
		"metadata truncated, memory truncated": {
			meta:   func(good []byte) []byte { return good[:100] },
			memory: func(p string) error { return os.Truncate(p, 1<<20) },
		},
		"metadata empty": {
			meta: func([]byte) []byte { return nil },
		},
		"memory garbage": {
			memory: func(p string) error { return os.WriteFile(p, garbage(64<<20), 0o600) },
		},
		"memory truncated": {
			memory: func(p string) error { return os.Truncate(p, 1<<20) },
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg := Config{Memcached: bin, MemoryFile: filepath.Join(memoryDir(t), "memory_file")}
			l := startLauncher(t, cfg)
			l.client(t, 5*time.Second).fill(t)
			l.signal(syscall.SIGTERM)
			if code := l.wait(t, 10*time.Second); code != 0 {
				t.Fatalf("the launcher exited %d after SIGTERM, want 0", code)
			}
			metaPath := cfg.MemoryFile + MetaSuffix
			if tc.meta != nil {
				good, err := os.ReadFile(metaPath)
				if err != nil {
					t.Fatal(err)
				}
				writeAs(t, metaPath, tc.meta(good))
			}
			if tc.memory != nil {
				if err := tc.memory(cfg.MemoryFile); err != nil {
					t.Fatal(err)
				}
			}

			start := time.Now()
			l = startLauncher(t, cfg)
			c := l.client(t, 5*time.Second)
			t.Logf("serving after %s; memcached: %q; launcher: %s", time.Since(start).Round(time.Millisecond), l.stderr(), l.logs())
			if n := strings.Count(l.logs(), "Warm start failed"); n > 1 || (tc.wantCold && n > 0) {
				t.Errorf("%d cold restarts, want at most 1 (none when the launcher starts cold)", n)
			}
			if tc.wantCold != l.logged("Starting cold") {
				t.Errorf("started cold: %t, want %t", !tc.wantCold, tc.wantCold)
			}
			n := c.count(t)
			t.Logf("%d of %d keys served", n, keys)
			// Served means memcached took the requests; it must also stay up, and stop with a save.
			time.Sleep(200 * time.Millisecond)
			if n2 := c.count(t); n2 != n {
				t.Errorf("%d keys, then %d", n, n2)
			}
			l.signal(syscall.SIGTERM)
			if code := l.wait(t, 10*time.Second); code != 0 {
				t.Errorf("the launcher exited %d after SIGTERM, want 0", code)
			}
		})
	}
}

// Starts right after a stop, in the stop's wall-clock second, still restore, twice in a row (the
// second stop comes within a second of the warm start before it): the launcher waits for the next
// second before memcached starts, as memcached starts cold over a save from its own second.
func TestQuickRestartsRestore(t *testing.T) {
	t.Parallel()
	bin := utils.MemcachedBinary(t)
	cfg := Config{Memcached: bin, MemoryFile: filepath.Join(memoryDir(t), "memory_file")}
	l := startLauncher(t, cfg)
	l.client(t, 5*time.Second).fill(t)
	for i := range 2 {
		l.signal(syscall.SIGTERM)
		if code := l.wait(t, 10*time.Second); code != 0 {
			t.Fatalf("stop %d: the launcher exited %d, want 0", i, code)
		}
		stopped := time.Now()
		l = startLauncher(t, cfg)
		c := l.client(t, 5*time.Second)
		t.Logf("restart %d: stopped at %s, serving %s later", i, stopped.Format("15:04:05.000"), time.Since(stopped).Round(time.Millisecond))
		if n := c.count(t); n != keys {
			t.Fatalf("restart %d: %d of %d keys; memcached: %s", i, n, keys, l.stderr())
		}
	}
	l.signal(syscall.SIGTERM)
	l.wait(t, 10*time.Second)
}

// A stop while the launcher waits for the next second ends it at once and keeps the save: memcached
// never ran over it, and the next start restores every key.
func TestStopBeforeStartKeepsSave(t *testing.T) {
	t.Parallel()
	bin := utils.MemcachedBinary(t)
	cfg := Config{Memcached: bin, MemoryFile: filepath.Join(memoryDir(t), "memory_file")}
	l := startLauncher(t, cfg)
	l.client(t, 5*time.Second).fill(t)
	l.signal(syscall.SIGTERM)
	if code := l.wait(t, 10*time.Second); code != 0 {
		t.Fatalf("the launcher exited %d after SIGTERM, want 0", code)
	}
	// Within the save's second: the launcher waits at least until the next one.
	l = startLauncher(t, cfg)
	l.signal(syscall.SIGTERM)
	if code := l.wait(t, 2*time.Second); code != 0 {
		t.Fatalf("the launcher exited %d, want 0", code)
	}
	if !l.logged("Stopped before memcached started; the save is kept") || l.logged("Started memcached") {
		t.Errorf("memcached started, or the stop was not logged: %s", l.logs())
	}
	l = startLauncher(t, cfg)
	if n := l.client(t, 5*time.Second).count(t); n != keys {
		t.Errorf("%d of %d keys after the interrupted start", n, keys)
	}
}

// memcached re-reads its -Y auth file on SIGHUP (1.6.38 and 1.6.45 both do): a SIGHUP to the
// launcher reaches it, and so does a change of the --reload-file, so a new password works
// without a restart and the old one stops working.
func TestAuthFileReload(t *testing.T) {
	t.Parallel()
	bin := utils.MemcachedBinary(t)
	tests := map[string]struct {
		reloadFile bool
	}{
		"SIGHUP forwarded":    {},
		"reload file changed": {reloadFile: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := memoryDir(t)
			auth := filepath.Join(dir, "auth")
			writeAs(t, auth, []byte("user:old\n"))
			cfg := Config{Memcached: bin, MemoryFile: filepath.Join(dir, "memory_file"), Args: []string{"-Y", auth}}
			if tc.reloadFile {
				cfg.ReloadFile, cfg.ReloadInterval = auth, 20*time.Millisecond
			}
			l := startLauncher(t, cfg)
			if err := l.authenticate("user", "old", 5*time.Second); err != nil {
				t.Fatal(err)
			}
			writeAs(t, auth, []byte("user:new\n"))
			if !tc.reloadFile {
				l.signal(syscall.SIGHUP)
			}
			if err := l.authenticate("user", "new", 2*time.Second); err != nil {
				t.Fatalf("the new password: %v; logs: %s", err, l.logs())
			}
			if err := l.authenticate("user", "old", 0); err == nil {
				t.Error("the old password still works")
			}
			l.signal(syscall.SIGTERM)
			if code := l.wait(t, 10*time.Second); code != 0 {
				t.Errorf("the launcher exited %d after SIGTERM, want 0", code)
			}
		})
	}
}

// A change of the arguments file (--args-file) to other arguments stops memcached with a save and
// ends the launcher with 0, as SIGTERM does; the next start runs memcached with the new arguments
// (here -t, which memcached's restore does not depend on) and every key.
func TestArgsFileChangeRestartsWarm(t *testing.T) {
	t.Parallel()
	bin := utils.MemcachedBinary(t)
	dir := memoryDir(t)
	cfg := Config{Memcached: bin, MemoryFile: filepath.Join(dir, "memory_file"), ArgsFile: filepath.Join(dir, "args"), ReloadInterval: 20 * time.Millisecond}
	replaceFile(t, cfg.ArgsFile, `["-t","2"]`)
	l := startLauncher(t, cfg)
	c := l.client(t, 5*time.Second)
	if got := c.setting(t, "num_threads"); got != "2" {
		t.Errorf("num_threads %s, want 2 (the args file's -t)", got)
	}
	c.fill(t)
	replaceFile(t, cfg.ArgsFile, `["-t", "3"]`)
	changed := time.Now()
	if code := l.wait(t, 5*time.Second); code != 0 {
		t.Fatalf("the launcher exited %d after the args file changed, want 0; logs: %s", code, l.logs())
	}
	t.Logf("the launcher exited %s after the change (interval %s)", time.Since(changed).Round(time.Millisecond), cfg.ReloadInterval)
	if !l.logged("Arguments changed; restarting memcached with its items") || !l.logged("memcached saved its cache") {
		t.Errorf("the change or the save was not logged: %s", l.logs())
	}
	if _, err := os.Stat(cfg.MemoryFile + MarkerSuffix); err != nil {
		t.Errorf("no marker after the change: %v", err)
	}

	l = startLauncher(t, cfg)
	c = l.client(t, 5*time.Second)
	if !l.logged("Starting warm") {
		t.Errorf("the start after the change was not warm: %s", l.logs())
	}
	if !strings.Contains(l.logs(), `"added":["-t 3"]`) || !strings.Contains(l.logs(), `"removed":["-t 2"]`) {
		t.Errorf("the changed arguments were not logged at the warm start: %s", l.logs())
	}
	if got := c.setting(t, "num_threads"); got != "3" {
		t.Errorf("num_threads %s after the restart, want 3", got)
	}
	if n := c.count(t); n != keys {
		t.Errorf("%d of %d keys after the restart with the new arguments", n, keys)
	}
	l.signal(syscall.SIGTERM)
	if code := l.wait(t, 10*time.Second); code != 0 {
		t.Errorf("the launcher exited %d after SIGTERM, want 0", code)
	}
}

// Changes of the arguments file to invalid contents (each logged once), or to the same arguments
// written otherwise, leave memcached running and serving.
func TestArgsFileInvalidChangeKeepsRunning(t *testing.T) {
	t.Parallel()
	bin := utils.MemcachedBinary(t)
	dir := memoryDir(t)
	cfg := Config{Memcached: bin, MemoryFile: filepath.Join(dir, "memory_file"), ArgsFile: filepath.Join(dir, "args"), ReloadInterval: 20 * time.Millisecond}
	replaceFile(t, cfg.ArgsFile, `["-t","2"]`)
	l := startLauncher(t, cfg)
	c := l.client(t, 5*time.Second)
	contents := []struct {
		content string // "": the file is removed
		invalid bool
	}{
		{content: `["-t","2"`, invalid: true},
		{content: ` [ "-t", "2" ]` + "\n"},
		{content: `["-t",2]`, invalid: true},
		{content: `null`, invalid: true},
		{content: `["-t","2","-e","/tmp/other"]`, invalid: true},
		{content: "", invalid: true},
		{content: `["-t","2"]`},
	}
	invalid := 0
	for _, tc := range contents {
		if tc.content == "" {
			if err := os.Remove(cfg.ArgsFile); err != nil {
				t.Fatal(err)
			}
		} else {
			replaceFile(t, cfg.ArgsFile, tc.content)
		}
		if tc.invalid {
			invalid++
		}
		time.Sleep(5 * cfg.ReloadInterval)
		if got := strings.Count(l.logs(), "The arguments file changed to invalid arguments"); got != invalid {
			t.Errorf("after %q: %d errors logged, want %d; logs: %s", tc.content, got, invalid, l.logs())
		}
		if line, err := c.cmd("version\r\n"); err != nil || !strings.HasPrefix(line, "VERSION ") {
			t.Fatalf("after %q: memcached answered %q, %v; logs: %s", tc.content, line, err, l.logs())
		}
	}
	if l.logged("Arguments changed; restarting memcached with its items") {
		t.Errorf("memcached was stopped for arguments that did not change: %s", l.logs())
	}
	l.signal(syscall.SIGTERM)
	if code := l.wait(t, 10*time.Second); code != 0 {
		t.Errorf("the launcher exited %d after SIGTERM, want 0", code)
	}
}

// An arguments file that is missing, empty or not a JSON array of strings at start is an error
// before anything starts: the save over the memory file is kept.
func TestArgsFileInvalidAtStart(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		content string // "": no file
		want    string
	}{
		"missing":         {want: "no such file or directory"},
		"empty":           {content: "\n", want: "empty"},
		"not JSON":        {content: "-t 4", want: "not a JSON array of strings"},
		"an object":       {content: `{"t":4}`, want: "not a JSON array of strings"},
		"a number in it":  {content: `["-t",4]`, want: "element 1 (4) is not a string"},
		"setting -e":      {content: `["-e","/x"]`, want: "set the memory file"},
		"trailing tokens": {content: `["-t","4"] ["-m"]`, want: "not a JSON array of strings"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cfg := Config{Memcached: "/bin/true", MemoryFile: filepath.Join(dir, "memory_file"), ArgsFile: filepath.Join(dir, "args")}
			if tc.content != "" {
				replaceFile(t, cfg.ArgsFile, tc.content)
			}
			save := []string{cfg.MemoryFile, cfg.MemoryFile + MetaSuffix, cfg.MemoryFile + MarkerSuffix}
			for _, f := range save {
				writeAs(t, f, []byte(time.Now().UTC().Format(time.RFC3339Nano)))
			}
			code, err := Run(cfg, funcr.New(func(string, string) {}, funcr.Options{}))
			if code != 1 || err == nil || !strings.Contains(err.Error(), "failed to read memcached's arguments") || !strings.Contains(err.Error(), tc.want) ||
				!strings.Contains(err.Error(), cfg.ArgsFile) {
				t.Errorf("Run returned %d, %v; want 1 and an error naming %s with %q", code, err, cfg.ArgsFile, tc.want)
			}
			for _, f := range save {
				if _, err := os.Stat(f); err != nil {
					t.Errorf("the save is not kept: %v", err)
				}
			}
		})
	}
}

// replaceFile replaces path with content atomically (a temporary file renamed over it), as the
// kubelet's symlink swap of a downwardAPI volume does.
func replaceFile(t *testing.T, path, content string) {
	t.Helper()
	tmp := path + ".new"
	writeAs(t, tmp, []byte(content))
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// launcher is a Run in a goroutine, its logs and memcached's output kept.
type launcher struct {
	cfg      Config
	sock     string
	sigs     chan os.Signal
	started  time.Time
	ready    time.Duration // from the launcher's start to memcached's first answer
	restored time.Duration // from memcached's (last) start to its first answer
	execAt   time.Time     // when the launcher logged that it started memcached
	done     chan int
	out      *lockedBuffer // memcached's stdout and stderr
	mu       sync.Mutex
	entries  []map[string]any
}

// startLauncher runs Run over cfg with memcached on a unix socket beside the memory file (-m 64,
// and -u nobody when the tests run as root, which memcached requires) and stops it (SIGKILL to
// memcached) when t ends.
func startLauncher(t *testing.T, cfg Config) *launcher {
	t.Helper()
	l := &launcher{sock: filepath.Join(filepath.Dir(cfg.MemoryFile), "memcached.sock"), sigs: make(chan os.Signal, 4), done: make(chan int, 1), out: &lockedBuffer{}}
	l.cfg = cfg
	cfg.Args = append([]string{"-s", l.sock, "-m", "64"}, cfg.Args...)
	if os.Geteuid() == 0 {
		cfg.Args = append(cfg.Args, "-u", "nobody")
	}
	cfg.Signals, cfg.Stdout, cfg.Stderr = l.sigs, l.out, l.out
	log := funcr.NewJSON(func(obj string) {
		var m map[string]any
		_ = json.Unmarshal([]byte(obj), &m)
		l.mu.Lock()
		l.entries = append(l.entries, m)
		if m["msg"] == "Started memcached" {
			l.execAt = time.Now()
		}
		l.mu.Unlock()
	}, funcr.Options{})
	l.started = time.Now()
	go func() {
		code, err := Run(cfg, log)
		if err != nil {
			t.Errorf("Run: %v", err)
		}
		l.done <- code
	}()
	t.Cleanup(func() {
		select {
		case l.sigs <- syscall.SIGTERM:
		default:
		}
		select {
		case <-l.done:
		case <-time.After(10 * time.Second):
			if pid, ok := l.lastPID(); ok {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			<-l.done
		}
	})
	return l
}

func (l *launcher) signal(sig os.Signal) { l.sigs <- sig }

// wait returns the launcher's exit status, failing t when it has not exited within d.
func (l *launcher) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case code := <-l.done:
		l.done <- code // for the cleanup
		return code
	case <-time.After(d):
		t.Fatalf("the launcher did not exit within %s; logs: %s", d, l.logs())
		return 0
	}
}

// logs returns the launcher's log entries, one JSON object a line.
func (l *launcher) logs() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for _, e := range l.entries {
		j, _ := json.Marshal(e)
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

// logged reports whether the launcher logged msg.
func (l *launcher) logged(msg string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range l.entries {
		if e["msg"] == msg {
			return true
		}
	}
	return false
}

// waitLog waits up to d for the launcher to log msg.
func (l *launcher) waitLog(t *testing.T, msg string, d time.Duration) {
	t.Helper()
	for start := time.Now(); !l.logged(msg); time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > d {
			t.Fatalf("the launcher did not log %q within %s; logs: %s", msg, d, l.logs())
		}
	}
}

// lastPID returns the pid of the memcached the launcher started last.
func (l *launcher) lastPID() (int, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.entries) - 1; i >= 0; i-- {
		if pid, ok := l.entries[i]["pid"].(float64); ok && l.entries[i]["msg"] == "Started memcached" {
			return int(pid), true
		}
	}
	return 0, false
}

func (l *launcher) pid(t *testing.T) int {
	t.Helper()
	pid, ok := l.lastPID()
	if !ok {
		t.Fatalf("no memcached started; logs: %s", l.logs())
	}
	return pid
}

func (l *launcher) stderr() string { return l.out.String() }

// client connects to memcached once it answers `version`, failing t when that takes longer than
// d, and records the time since the launcher's start as l.ready.
func (l *launcher) client(t *testing.T, d time.Duration) *client {
	t.Helper()
	start := time.Now()
	for {
		conn, err := net.DialTimeout("unix", l.sock, time.Second)
		if err == nil {
			c := &client{conn: conn, r: bufio.NewReader(conn)}
			_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
			if line, err := c.cmd("version\r\n"); err == nil && strings.HasPrefix(line, "VERSION ") {
				l.mu.Lock()
				l.ready, l.restored = time.Since(l.started), time.Since(l.execAt)
				l.mu.Unlock()
				t.Cleanup(func() { conn.Close() })
				return c
			}
			conn.Close()
		}
		if time.Since(start) > d {
			t.Fatalf("memcached not serving within %s: %v; memcached: %s; launcher: %s", d, err, l.stderr(), l.logs())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// authenticate connects and authenticates as user with password, retrying for d.
func (l *launcher) authenticate(user, password string, d time.Duration) error {
	start := time.Now()
	for {
		err := func() error {
			conn, err := net.DialTimeout("unix", l.sock, time.Second)
			if err != nil {
				return err
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
			return memcachedauth.Authenticate(conn, bufio.NewReader(conn), user, password)
		}()
		if err == nil || time.Since(start) >= d {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// client speaks memcached's text protocol on one connection.
type client struct {
	conn net.Conn
	r    *bufio.Reader
}

func (c *client) cmd(s string) (string, error) {
	if _, err := c.conn.Write([]byte(s)); err != nil {
		return "", err
	}
	line, err := c.r.ReadString('\n')
	return strings.TrimSpace(line), err
}

// setting returns memcached's `stats settings` value of name.
func (c *client) setting(t *testing.T, name string) string {
	t.Helper()
	if _, err := c.conn.Write([]byte("stats settings\r\n")); err != nil {
		t.Fatal(err)
	}
	value := ""
	for {
		line, err := c.r.ReadString('\n')
		if err != nil {
			t.Fatalf("stats settings: %v", err)
		}
		if line == "END\r\n" {
			return value
		}
		if f := strings.Fields(line); len(f) == 3 && f[0] == "STAT" && f[1] == name {
			value = f[2]
		}
	}
}

func key(i int) string { return fmt.Sprintf("key-%05d", i) }

func value(i int) []byte { return bytes.Repeat([]byte{byte('a' + i%26)}, valueSize) }

// fill sets keys items, in batches of 500 (each a write of the commands, then their answers).
func (c *client) fill(t *testing.T) {
	t.Helper()
	for base := 0; base < keys; base += 500 {
		var b bytes.Buffer
		for i := base; i < base+500; i++ {
			fmt.Fprintf(&b, "set %s 0 0 %d\r\n%s\r\n", key(i), valueSize, value(i))
		}
		if _, err := c.conn.Write(b.Bytes()); err != nil {
			t.Fatal(err)
		}
		for i := base; i < base+500; i++ {
			if line, err := c.r.ReadString('\n'); err != nil || line != "STORED\r\n" {
				t.Fatalf("set %s: %q %v", key(i), line, err)
			}
		}
	}
}

// count returns how many of the keys memcached holds with their values, 100 keys a get.
func (c *client) count(t *testing.T) int {
	t.Helper()
	n := 0
	for base := 0; base < keys; base += 100 {
		var b strings.Builder
		b.WriteString("get")
		for i := base; i < base+100; i++ {
			b.WriteString(" " + key(i))
		}
		b.WriteString("\r\n")
		if _, err := c.conn.Write([]byte(b.String())); err != nil {
			t.Fatal(err)
		}
		for {
			line, err := c.r.ReadString('\n')
			if err != nil {
				t.Fatalf("get: %v", err)
			}
			if line == "END\r\n" {
				break
			}
			var k string
			var flags, size int
			if _, err := fmt.Sscanf(line, "VALUE %s %d %d", &k, &flags, &size); err != nil {
				t.Fatalf("get: %q", line)
			}
			data := make([]byte, size+2)
			if _, err := io.ReadFull(c.r, data); err != nil {
				t.Fatal(err)
			}
			var i int
			if _, err := fmt.Sscanf(k, "key-%d", &i); err == nil && bytes.Equal(data[:size], value(i)) {
				n++
			}
		}
	}
	return n
}

// memoryDir returns a directory for the memory file on a memory-backed filesystem when the
// machine has one (/dev/shm, as the pod's emptyDir of medium Memory), writable by memcached's
// user (nobody when the tests run as root), removed when t ends.
func memoryDir(t *testing.T) string {
	t.Helper()
	parent := ""
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		parent = "/dev/shm"
	}
	dir, err := os.MkdirTemp(parent, "warmstart-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	return dir
}

// writeAs writes b to path readable and writable by memcached's user (the file may be new).
func writeAs(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
}

// usage returns the memory file's size and the memory it takes (du).
func usage(t *testing.T, path string) string {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("size %d MiB, %.1f MiB used", st.Size>>20, float64(st.Blocks*512)/(1<<20))
}

// lockedBuffer is a bytes.Buffer for concurrent writers and readers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
