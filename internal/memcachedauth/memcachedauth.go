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

// Package memcachedauth is the client side of memcached's ASCII authentication (-Y, memcached
// 1.5.15 and later), shared by the operator's sidecars that talk to the pod's own memcached: the
// certificate reloader (internal/certreload) and the stats relay (internal/statsrelay).
//
// With -Y every connection on every listener must authenticate before any other command: a `set`
// whose data is "user password" (any key, flags and exptime; memcached's docs/protocol.txt,
// "Authentication"), answered "STORED", or "CLIENT_ERROR authentication failure". memcached
// reads its auth file as lines of "user:password" (at most 8), each line one credential.
package memcachedauth

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
)

// FirstCredential returns the user and password of the first line of memcached's auth file at
// path ("user:password"; the operator checks the Secret's format before the pods mount it).
func FirstCredential(path string) (string, string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", "", fmt.Errorf("failed to read the auth file: %w", err)
	}
	user, pass, err := ParseFirstCredential(b)
	if err != nil {
		return "", "", fmt.Errorf("failed to read the auth file %s: %w", path, err)
	}
	return user, pass, nil
}

// ParseFirstCredential returns the user and password of the first line of an auth file's content.
func ParseFirstCredential(b []byte) (string, string, error) {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	user, pass, ok := bytes.Cut(bytes.TrimSuffix(line, []byte("\r")), []byte(":"))
	if !ok {
		return "", "", fmt.Errorf("its first line is not user:password")
	}
	return string(user), string(pass), nil
}

// Authenticate sends memcached's authentication for user and password on w and reads the answer
// from r (the same connection), returning an error unless memcached answers STORED. The error
// carries memcached's answer, never the password.
func Authenticate(w io.Writer, r *bufio.Reader, user, password string) error {
	cred := user + " " + password
	if _, err := fmt.Fprintf(w, "set auth 0 0 %d\r\n%s\r\n", len(cred), cred); err != nil {
		return fmt.Errorf("failed to authenticate to memcached: %w", err)
	}
	line, err := r.ReadString('\n')
	if err != nil {
		return fmt.Errorf("failed to read memcached's answer to the authentication: %w", err)
	}
	if line = strings.TrimSpace(line); line != "STORED" {
		return fmt.Errorf("failed to authenticate to memcached with the auth file's first entry: %q", line)
	}
	return nil
}
