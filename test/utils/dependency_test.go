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

package utils

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// memcachedBinary takes only an executable file named by MEMCACHED_BINARY, and says how to set it
// otherwise.
func TestMemcachedBinaryPath(t *testing.T) {
	dir := t.TempDir()
	exe, plain := filepath.Join(dir, "memcached"), filepath.Join(dir, "plain")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		path, wantErr string
	}{
		"an executable":  {path: exe},
		"unset":          {wantErr: "MEMCACHED_BINARY is not set"},
		"missing":        {path: filepath.Join(dir, "none"), wantErr: "no such file"},
		"a directory":    {path: dir, wantErr: "not an executable file"},
		"not executable": {path: plain, wantErr: "not an executable file"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := memcachedBinary(tc.path)
			if tc.wantErr == "" {
				if err != nil || got != tc.path {
					t.Fatalf("memcachedBinary(%q) = %q, %v; want the path", tc.path, got, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "hack/images/debian-memcached.sh path") {
				t.Fatalf("memcachedBinary(%q) = %q, %v; want an error with %q and how to set it", tc.path, got, err, tc.wantErr)
			}
		})
	}
}

// ending records how MissingDependency ends a test, Fatalf or Skip, and then stops the goroutine as
// testing.TB's own do.
type ending struct {
	testing.TB
	fatal, skip string
}

func (e *ending) Helper()                        {}
func (e *ending) Fatalf(format string, a ...any) { e.fatal = format; runtime.Goexit() }
func (e *ending) Skip(a ...any)                  { e.skip = "skip"; runtime.Goexit() }

// A missing dependency skips on a developer's machine and fails in CI, whatever CI's value says
// "yes" (.ci/run sets CI=true; hosted CI services set it too).
func TestMissingDependencyFailsInCI(t *testing.T) {
	for value, wantFail := range map[string]bool{"": false, "0": false, "false": false, "true": true, "1": true, "yes": true} {
		t.Run("CI="+value, func(t *testing.T) {
			t.Setenv("CI", value)
			e := &ending{TB: t}
			done := make(chan struct{})
			go func() {
				defer close(done)
				MissingDependency(e, "memcached not found")
			}()
			<-done
			if failed := e.fatal != ""; failed != wantFail || (e.skip != "") == wantFail {
				t.Errorf("CI=%q: fatal %q, skip %q; want a failure: %v", value, e.fatal, e.skip, wantFail)
			}
		})
	}
}
