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
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// InCI reports whether the tests run in CI: the environment variable CI is set to anything but
// "", "0" or "false" (.ci/run sets CI=true, as hosted CI services do).
func InCI() bool {
	switch os.Getenv("CI") {
	case "", "0", "false":
		return false
	}
	return true
}

// MissingDependency ends t because something it needs is not there (why says what, and how to
// install it): a skip on a developer's machine, a failure in CI (InCI), which installs every
// dependency the tests name, so that a broken setup there never passes as a skipped test.
func MissingDependency(t testing.TB, why string) {
	t.Helper()
	if InCI() {
		t.Fatalf("%s (CI is set: CI installs it, so the test fails instead of skipping)", why)
	}
	t.Skip(why)
}

// Program returns the path of the program name on PATH, or ends t with MissingDependency saying
// how to install it (install).
func Program(t testing.TB, name, install string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		MissingDependency(t, fmt.Sprintf("%s not found (%v): %s", name, err, install))
	}
	return p
}

// MemcachedBinaryEnv names the environment variable that holds the memcached the tests run:
// make test sets it to the wrapper of the Debian build the Makefile pins (MEMCACHED_BINARY,
// assembled by hack/images/debian-memcached.sh), the same memcached the real tier's image holds.
const MemcachedBinaryEnv = "MEMCACHED_BINARY"

// MemcachedBinary returns the path of the memcached the tests start on loopback: $MEMCACHED_BINARY
// (MemcachedBinaryEnv), which must be executable. Unset or not there, it ends t with
// MissingDependency: a skip for a bare `go test` on a developer's machine, a failure in CI, where
// make test assembles it. No memcached from PATH stands in for it: the tests' version-dependent
// rows are checked against the pinned build.
func MemcachedBinary(t testing.TB) string {
	t.Helper()
	p, err := memcachedBinary(os.Getenv(MemcachedBinaryEnv))
	if err != nil {
		MissingDependency(t, err.Error())
	}
	return p
}

// memcachedBinary checks path, the value of MemcachedBinaryEnv: set, and an executable file.
func memcachedBinary(path string) (string, error) {
	const how = "make test sets it; for go test alone: export " + MemcachedBinaryEnv + "=$(hack/images/debian-memcached.sh path)"
	if path == "" {
		return "", fmt.Errorf("%s is not set (%s)", MemcachedBinaryEnv, how)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("%s=%s: %w (%s)", MemcachedBinaryEnv, path, err, how)
	}
	if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("%s=%s is not an executable file (%s)", MemcachedBinaryEnv, path, how)
	}
	return path, nil
}
