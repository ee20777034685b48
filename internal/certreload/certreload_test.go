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

package certreload

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"

	"github.com/example/memcached-operator/test/utils"
)

// The reloader's loop is quiet: while memcached is not answering it logs one line however many
// times it retries; once memcached answers it sends refresh_certs once per change of the files
// (none while they stay the same); a mismatched pair is logged once and never sent. A listener that
// answers OK stands in for memcached here (the test above runs the real one).
func TestCertReloaderIsQuiet(t *testing.T) {
	dir := t.TempDir()
	cert, key := utils.KeyPair(t, "gen1")
	utils.PublishVolume(t, dir, map[string][]byte{"tls.crt": cert, "tls.key": key})

	// A port nothing listens on yet.
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := free.Addr().String()
	free.Close()
	var mu sync.Mutex
	var logs []string
	count := func(s string) int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, l := range logs {
			if strings.Contains(l, s) {
				n++
			}
		}
		return n
	}
	log := funcr.New(func(_, line string) { mu.Lock(); logs = append(logs, line); mu.Unlock() }, funcr.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		_ = Run(ctx, Config{Dir: dir, Address: addr, Interval: 10 * time.Millisecond}, log)
	}()
	time.Sleep(300 * time.Millisecond)
	if n := count("Waiting for memcached"); n != 1 {
		t.Fatalf("%d waiting lines in 300 ms of retries every 10 ms, want 1", n)
	}

	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var sent sync.Map // command -> count
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			line, _ := bufio.NewReader(c).ReadString('\n')
			n, _ := sent.LoadOrStore(line, new(int))
			mu.Lock()
			*n.(*int)++
			mu.Unlock()
			fmt.Fprint(c, "OK\r\n")
			c.Close()
		}
	}()
	refreshes := func() int {
		n, ok := sent.Load("refresh_certs\r\n")
		if !ok {
			return 0
		}
		mu.Lock()
		defer mu.Unlock()
		return *n.(*int)
	}
	wait := func(what string, cond func() bool) {
		t.Helper()
		for start := time.Now(); !cond(); time.Sleep(5 * time.Millisecond) {
			if time.Since(start) > 5*time.Second {
				t.Fatalf("%s: not within 5 s", what)
			}
		}
	}
	wait("the first refresh once the server answers", func() bool { return refreshes() == 1 })
	time.Sleep(200 * time.Millisecond)
	if n := refreshes(); n != 1 {
		t.Errorf("%d refreshes while the files did not change, want 1", n)
	}

	cert2, key2 := utils.KeyPair(t, "gen2")
	utils.PublishVolume(t, dir, map[string][]byte{"tls.crt": cert2, "tls.key": key2})
	wait("one refresh for the renewal", func() bool { return refreshes() == 2 })

	cert3, _ := utils.KeyPair(t, "gen3")
	utils.PublishVolume(t, dir, map[string][]byte{"tls.crt": cert3, "tls.key": key2})
	wait("the mismatched pair reported", func() bool { return count("Not reloading") == 1 })
	time.Sleep(200 * time.Millisecond)
	if n, m := refreshes(), count("Not reloading"); n != 2 || m != 1 {
		t.Errorf("after a mismatched pair: %d refreshes (want 2), %d reports (want 1)", n, m)
	}
}
