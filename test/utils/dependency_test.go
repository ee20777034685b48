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
