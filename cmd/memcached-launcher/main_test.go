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

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/example/memcached-operator/internal/warmstart"
	"github.com/example/memcached-operator/test/utils"
)

// asMain makes the test binary run main() instead of the tests, so the tests run the command
// itself (its flags, its signal handling, its exit codes) without building it.
const asMain = "MEMCACHED_LAUNCHER_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMain) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// command returns the test binary (or path, a copy of it) run as the launcher with args.
func command(path string, args ...string) *exec.Cmd {
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), asMain+"=1")
	return cmd
}

// install copies the executable to DIR/memcached-launcher, mode 0555, replacing a launcher already
// there (read-only, as the last install left it), and leaves no temporary file; the copy runs.
func TestInstall(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i := range 2 {
		if out, err := command(self, "install", dir).CombinedOutput(); err != nil {
			t.Fatalf("install %d: %v: %s", i, err, out)
		}
		dst := filepath.Join(dir, name)
		fi, err := os.Stat(dst)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o555 {
			t.Errorf("install %d: mode %v, want 0555", i, fi.Mode().Perm())
		}
		if got, _ := os.ReadFile(dst); !bytes.Equal(got, want) {
			t.Errorf("install %d: the copy differs from the executable (%d bytes, want %d)", i, len(got), len(want))
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("install %d: %d files in the directory, want 1", i, len(entries))
		}
	}
	if out, err := command(filepath.Join(dir, name)).CombinedOutput(); !strings.Contains(string(out), "usage:") {
		t.Errorf("the installed launcher does not run: %v: %s", err, out)
	}
	if out, err := command(self, "install", filepath.Join(dir, "missing")).CombinedOutput(); exitCode(err) != 1 {
		t.Errorf("install into a missing directory: %v, want exit status 1: %s", err, out)
	}
}

// Bad usage exits 2 before anything starts; memcached arguments that set the memory file exit 1.
func TestUsage(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		args []string
		want int
	}{
		"no command":                     {want: 2},
		"unknown command":                {args: []string{"start"}, want: 2},
		"install without a directory":    {args: []string{"install"}, want: 2},
		"run without --memory-file":      {args: []string{"run", "--", "-m", "64"}, want: 2},
		"run with an unknown flag":       {args: []string{"run", "--memory-file=/x", "--frobnicate", "--"}, want: 2},
		"memcached arguments setting -e": {args: []string{"run", "--memory-file=/x", "--memcached=/bin/true", "--", "-e", "/y"}, want: 1},
		"memcached not found":            {args: []string{"run", "--memory-file=/x", "--memcached=no-such-memcached", "--"}, want: 1},
		"args file not a JSON array":     {args: []string{"run", "--memory-file=/x", "--memcached=/bin/true", "--args-file=/dev/null"}, want: 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out, err := command(self, tc.args...).CombinedOutput()
			if got := exitCode(err); got != tc.want {
				t.Errorf("exit status %d, want %d: %s", got, tc.want, out)
			}
		})
	}
}

// The command turns SIGTERM into memcached's saving stop and exits 0 with the marker written;
// started again it restores the key. Its logs are JSON named memcached-launcher.
func TestRunSavesOnSIGTERM(t *testing.T) {
	t.Parallel()
	bin := utils.MemcachedBinary(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "memcached-launcher-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil { // memcached runs as nobody when the tests run as root
		t.Fatal(err)
	}
	file, sock := filepath.Join(dir, "memory_file"), filepath.Join(dir, "memcached.sock")
	args := []string{"run", "--memory-file=" + file, "--memcached=" + bin, "--warm-start-window=10s", "--", "-s", sock, "-m", "64"}
	if os.Geteuid() == 0 {
		args = append(args, "-u", "nobody")
	}
	for i := range 2 {
		cmd := command(self, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill() })
		// add answers STORED on the cold start (the key is new), NOT_STORED on the warm one.
		if got := add(t, sock); (got == "NOT_STORED") != (i == 1) {
			t.Errorf("start %d: add answered %s; launcher: %s", i, got, stderr.String())
		}
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("start %d: the launcher exited with %v after SIGTERM, want 0; stderr: %s", i, err, stderr.String())
		}
		if _, err := os.Stat(file + warmstart.MarkerSuffix); err != nil {
			t.Errorf("start %d: no marker after SIGTERM: %v", i, err)
		}
		var msgs []string
		for _, line := range strings.Split(stderr.String(), "\n") {
			var entry struct{ Logger, Msg string }
			if json.Unmarshal([]byte(line), &entry) == nil && entry.Logger == name {
				msgs = append(msgs, entry.Msg)
			}
		}
		if !strings.Contains(strings.Join(msgs, "|"), "memcached saved its cache") {
			t.Errorf("start %d: launcher logs %q, want \"memcached saved its cache\"; stderr: %s", i, msgs, stderr.String())
		}
	}
}

// A missing --args-file at start exits 1 with an error naming it, before memcached starts.
func TestRunArgsFileMissing(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	argsFile := filepath.Join(dir, "args")
	cmd := command(self, "run", "--memory-file="+filepath.Join(dir, "memory_file"), "--memcached="+utils.MemcachedBinary(t), "--args-file="+argsFile)
	out, err := cmd.CombinedOutput()
	if got := exitCode(err); got != 1 {
		t.Errorf("exit status %d, want 1: %s", got, out)
	}
	var errs []string
	for _, line := range strings.Split(string(out), "\n") {
		var entry struct{ Level, Msg, Err string }
		if json.Unmarshal([]byte(line), &entry) == nil && entry.Level == "ERROR" {
			errs = append(errs, entry.Msg+": "+entry.Err)
		}
	}
	want := "failed to read memcached's arguments: open " + argsFile + ": no such file or directory"
	if len(errs) != 1 || !strings.HasSuffix(errs[0], want) {
		t.Errorf("errors logged %q, want one ending %q; output: %s", errs, want, out)
	}
}

// With --args-file the command runs memcached with the file's arguments after those after "--";
// a change of the file (written as the kubelet does, by a rename) makes it stop memcached with a
// save and exit 0 within a few --reload-interval; started again it restores the key.
func TestRunArgsFileChange(t *testing.T) {
	t.Parallel()
	bin := utils.MemcachedBinary(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "memcached-launcher-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil { // memcached runs as nobody when the tests run as root
		t.Fatal(err)
	}
	file, sock, argsFile := filepath.Join(dir, "memory_file"), filepath.Join(dir, "memcached.sock"), filepath.Join(dir, "args")
	fileArgs := []string{"-m", "64"}
	if os.Geteuid() == 0 {
		fileArgs = append(fileArgs, "-u", "nobody")
	}
	writeArgs := func(args []string) {
		b, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(argsFile+".new", b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(argsFile+".new", argsFile); err != nil {
			t.Fatal(err)
		}
	}
	writeArgs(fileArgs)
	args := []string{"run", "--memory-file=" + file, "--memcached=" + bin, "--args-file=" + argsFile, "--reload-interval=50ms", "--", "-s", sock}

	cmd := command(self, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	if got := add(t, sock); got != "STORED" {
		t.Errorf("add answered %s on the first start", got)
	}
	writeArgs(append(fileArgs, "-t", "2"))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the launcher exited with %v after the args file changed, want 0; stderr: %s", err, stderr.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("the launcher did not exit within 5 s after the args file changed; stderr: %s", stderr.String())
	}
	if _, err := os.Stat(file + warmstart.MarkerSuffix); err != nil {
		t.Errorf("no marker after the args file changed: %v", err)
	}
	if !strings.Contains(stderr.String(), "Arguments changed; restarting memcached with its items") {
		t.Errorf("the change was not logged: %s", stderr.String())
	}

	cmd = command(self, args...)
	stderr.Reset()
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	if got := add(t, sock); got != "NOT_STORED" {
		t.Errorf("add answered %s after the restart, want NOT_STORED (the key restored); stderr: %s", got, stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("the launcher exited with %v after SIGTERM, want 0", err)
	}
}

// add waits up to 5 s for memcached on the unix socket sock and sends `add k 0 0 1`, returning the
// answer (STORED when k is new).
func add(t *testing.T, sock string) string {
	t.Helper()
	for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		conn, err := net.Dial("unix", sock)
		if err == nil {
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
			if _, err := conn.Write([]byte("add k 0 0 1\r\nv\r\n")); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(conn).ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			return strings.TrimSpace(line)
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("memcached not serving on %s within 5 s: %v", sock, err)
		}
	}
}

// exitCode returns the exit status in err from exec (0 for nil, -1 when it is no exit).
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}
