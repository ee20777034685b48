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

// RehashReport is the result of `mcclient rehash`: a cache-aside client that gets keys every
// interval, each from the server Pick chooses over its current server list, fills a miss with a
// set, and re-hashes whenever it is given a new list. Times are RFC 3339, UTC, of the client pod.
type RehashReport struct {
	// IntervalMs is the time between two rounds, in milliseconds.
	IntervalMs int64 `json:"intervalMs"`
	// Lists are the server lists the client used, each from the time it switched to it.
	Lists []ServerList `json:"lists"`
	// Rounds is the number of rounds; Gets the gets answered with the expected value; Refills the
	// misses filled with a set (a key whose server changed with a re-hash).
	Rounds  int `json:"rounds"`
	Gets    int `json:"gets"`
	Refills int `json:"refills"`
	// Answered counts, per server, the requests (gets and refill sets) it answered; LastAnswer is
	// the time of its last answer and FirstError the time of its first failure.
	Answered   map[string]int    `json:"answered"`
	LastAnswer map[string]string `json:"lastAnswer"`
	FirstError map[string]string `json:"firstError,omitempty"`
	// Failed counts the requests that got no answer (connection refused or broken, timeout) or a
	// wrong one: lost requests. Errors holds the first of them, with their time.
	Failed int      `json:"failed"`
	Errors []string `json:"errors,omitempty"`
}

// ServerList is a server list a client switched to, and when.
type ServerList struct {
	At      string   `json:"at"`
	Servers []string `json:"servers"`
}
