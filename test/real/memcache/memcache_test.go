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

package memcache

import (
	"errors"
	"fmt"
	"net"
	"os/exec"
	"testing"
	"time"

	"github.com/example/memcached-operator/test/utils"
)

func TestPick(t *testing.T) {
	servers := []string{"c:11211", "a:11211", "b:11211"}
	tests := map[string]struct {
		key     string
		servers []string
		want    string
	}{
		// crc32.ChecksumIEEE("key-0") = 0x79eb8fec = 2045480940; 2045480940 % 3 = 0 → "a:11211".
		"modulo over the sorted list":   {key: "key-0", servers: servers, want: "a:11211"},
		"order of the input is ignored": {key: "key-0", servers: []string{"b:11211", "c:11211", "a:11211"}, want: "a:11211"},
		"one server":                    {key: "anything", servers: []string{"a:11211"}, want: "a:11211"},
		"no server":                     {key: "key-0", servers: nil, want: ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := Pick(tc.key, tc.servers); got != tc.want {
				t.Errorf("Pick(%q, %v) = %q, want %q", tc.key, tc.servers, got, tc.want)
			}
		})
	}
	// Every server gets some of 100 keys: the hash spreads them.
	seen := map[string]int{}
	for i := range 100 {
		seen[Pick(Key("key", i), servers)]++
	}
	if len(seen) != len(servers) {
		t.Errorf("100 keys landed on %d of %d servers: %v", len(seen), len(servers), seen)
	}
}

// TestAgainstRealMemcached runs the protocol client against the pinned memcached
// (utils.MemcachedBinary: skipped without it, failed in CI): set, get, a miss, version, stats and stats settings.
func TestAgainstRealMemcached(t *testing.T) {
	bin := utils.MemcachedBinary(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "-l", "127.0.0.1", "-p", fmt.Sprint(port), "-U", "0", "-m", "16", "-u", "nobody")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

	addr := fmt.Sprintf("127.0.0.1:%d", port)
	var c *Conn
	deadline := time.Now().Add(10 * time.Second)
	for c, err = Dial(addr, time.Second); err != nil; c, err = Dial(addr, time.Second) {
		if time.Now().After(deadline) {
			t.Fatalf("memcached on %s never accepted a connection: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	defer c.Close()

	if err := c.Set("k-1", Value("k-1")); err != nil {
		t.Fatal(err)
	}
	if v, err := c.Get("k-1"); err != nil || string(v) != "value-of-k-1" {
		t.Errorf("Get(k-1) = %q, %v", v, err)
	}
	if _, err := c.Get("absent"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(absent) error = %v, want ErrNotFound", err)
	}
	if err := c.Set("bad key", nil); err == nil {
		t.Error("Set with a space in the key succeeded")
	}
	if v, err := c.Version(); err != nil || v == "" {
		t.Errorf("Version() = %q, %v", v, err)
	}
	stats, err := c.Stats("")
	if err != nil || stats["curr_items"] != "1" || stats["pid"] != fmt.Sprint(cmd.Process.Pid) {
		t.Errorf("Stats() curr_items %q pid %q (want 1, %d), err %v", stats["curr_items"], stats["pid"], cmd.Process.Pid, err)
	}
	settings, err := c.Stats("settings")
	if err != nil || settings["maxbytes"] != fmt.Sprint(16*1024*1024) {
		t.Errorf("Stats(settings) maxbytes %q, want %d, err %v", settings["maxbytes"], 16*1024*1024, err)
	}
}
