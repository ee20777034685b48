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
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
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
// and has none of its pages in the page cache, however the original got there; a second start
// replaces the copy.
func TestColdCopy(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "manager")
	data := bytes.Repeat([]byte("memcached-operator\n"), 64<<10) // 1.2 MiB, just written: cached
	if err := os.WriteFile(src, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if residentPages(t, src) == 0 {
		t.Skip("this filesystem keeps no page cache for a file just written; nothing to compare")
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
		st, err := os.Stat(dst)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm()&0o100 == 0 {
			t.Errorf("copy %d: mode %v, want executable", i, st.Mode())
		}
		b, err := os.ReadFile(dst)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, data) {
			t.Errorf("copy %d: content differs from the original", i)
		}
	}
}
