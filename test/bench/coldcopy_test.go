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
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/example/memcached-operator/test/utils"
)

// residentPages counts the pages of path that are in the page cache (mincore on a mapping of it).
func residentPages(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	vec := make([]byte, (len(m)+os.Getpagesize()-1)/os.Getpagesize())
	// x/sys/unix has no mincore wrapper.
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatal(errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// TestColdCopy: a subject runs from a copy of its binary that has the same bytes, is executable,
// and has none of its pages in the page cache, however the original got there; a restart replaces
// the copy while the process started from it may still be running (a running file cannot be
// written, ETXTBSY).
func TestColdCopy(t *testing.T) {
	dir := t.TempDir()
	// A control: on a filesystem whose pages cannot be dropped (tmpfs keeps the file in them) there
	// is nothing to check.
	control := filepath.Join(dir, "control")
	if err := os.WriteFile(control, bytes.Repeat([]byte{1}, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if f, err := os.Open(control); err != nil {
		t.Fatal(err)
	} else {
		_ = f.Sync()
		_ = unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
		f.Close()
	}
	if n := residentPages(t, control); n != 0 {
		t.Skipf("this filesystem keeps %d pages of a flushed file after FADV_DONTNEED: nothing to check", n)
	}
	data, err := os.ReadFile("/bin/sleep")
	if err != nil {
		utils.MissingDependency(t, "no /bin/sleep to run: "+err.Error())
	}
	src := filepath.Join(dir, "manager")
	if err := os.WriteFile(src, data, 0o755); err != nil { // just written: in the page cache
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "subjects", "operator")
	for i := range 2 {
		got, err := coldCopy(src, dst)
		if err != nil {
			t.Fatalf("copy %d: %v", i, err)
		}
		if got != dst {
			t.Fatalf("copy %d: got %s, want %s", i, got, dst)
		}
		if n := residentPages(t, dst); n != 0 {
			t.Errorf("copy %d: %d pages of the copy in the page cache, want 0", i, n)
		}
		b, err := os.ReadFile(dst)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, data) {
			t.Errorf("copy %d: content differs from the original", i)
		}
		// Run the copy, as the benchmark does; the next copy is made while it runs.
		cmd := exec.Command(dst, "30")
		if err := cmd.Start(); err != nil {
			t.Fatalf("copy %d: not executable: %v", i, err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	}
}
