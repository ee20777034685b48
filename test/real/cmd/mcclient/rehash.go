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
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/example/memcached-operator/test/real/memcache"
)

// maxErrorLines bounds RehashReport.Errors (a server that went away fails every round).
const maxErrorLines = 50

// rehash is a cache-aside memcached client with the re-hashing rule the README states: it reads
// server lists from stdin, one comma-separated line each (status.serverList as the caller sees it
// change), and every interval gets each of the n keys from memcache.Pick over the current list,
// sorted. A miss is filled with a set on that server (the key moved with a re-hash: a real client
// would recompute the value); a new line switches the list at once; stdin's end or duration stops
// it. Connections are kept per server; dialTimeout bounds each dial and request. After a server
// fails in a round, its other keys of that round count as failed without another dial. With
// progress set, each round ends with a line "round N list L" on it (rounds done, lists received),
// so a caller can wait for rounds instead of sleeping.
func rehash(prefix string, n int, interval, duration, dialTimeout time.Duration, progress io.Writer) memcache.RehashReport {
	r := memcache.RehashReport{IntervalMs: interval.Milliseconds(), Answered: map[string]int{},
		LastAnswer: map[string]string{}, FirstError: map[string]string{}}
	now := func() string { return time.Now().UTC().Format(time.RFC3339Nano) }
	lists := make(chan []string)
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			if l := splitList(sc.Text()); len(l) > 0 {
				lists <- slices.Sorted(slices.Values(l))
			}
		}
		close(lists)
	}()
	cur, ok := <-lists
	if !ok {
		r.Errors = append(r.Errors, "no server list on stdin")
		r.Failed++
		return r
	}
	r.Lists = append(r.Lists, memcache.ServerList{At: now(), Servers: cur})

	conns := map[string]*memcache.Conn{}
	defer closeAll(conns)
	fail := func(s, format string, args ...any) {
		r.Failed++
		t := now()
		if _, seen := r.FirstError[s]; !seen {
			r.FirstError[s] = t
		}
		if len(r.Errors) < maxErrorLines {
			r.Errors = append(r.Errors, t+" "+fmt.Sprintf(format, args...))
		}
	}
	answered := func(s string) {
		r.Answered[s]++
		r.LastAnswer[s] = now()
	}
	drop := func(s string) {
		if c := conns[s]; c != nil {
			_ = c.Close()
			delete(conns, s)
		}
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	deadline := time.After(duration)
	for {
		r.Rounds++
		down := map[string]bool{}
		for i := range n {
			key := memcache.Key(prefix, i)
			s := memcache.Pick(key, cur)
			if down[s] {
				fail(s, "get %s from %s: server down in this round", key, s)
				continue
			}
			c := conns[s]
			if c == nil {
				var err error
				if c, err = memcache.Dial(s, dialTimeout); err != nil {
					fail(s, "%v", err)
					down[s] = true
					continue
				}
				conns[s] = c
			}
			v, err := c.Get(key)
			switch {
			case errors.Is(err, memcache.ErrNotFound):
				answered(s)
				if err := c.Set(key, memcache.Value(key)); err != nil {
					fail(s, "set %s on %s after a miss: %v", key, s, err)
					drop(s)
					down[s] = true
					continue
				}
				answered(s)
				r.Refills++
			case err != nil:
				fail(s, "get %s from %s: %v", key, s, err)
				drop(s)
				down[s] = true
			case string(v) != string(memcache.Value(key)):
				fail(s, "get %s from %s: value %q, want %q", key, s, v, memcache.Value(key))
			default:
				answered(s)
				r.Gets++
			}
		}
		if progress != nil {
			fmt.Fprintf(progress, "round %d list %d\n", r.Rounds, len(r.Lists))
		}
		select {
		case l, ok := <-lists:
			if !ok {
				return r
			}
			for s := range conns {
				if !slices.Contains(l, s) {
					drop(s)
				}
			}
			cur = l
			r.Lists = append(r.Lists, memcache.ServerList{At: now(), Servers: cur})
		case <-deadline:
			return r
		case <-tick.C:
		}
	}
}
