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

// Package pyclients drives keys.py, which stores and reads keys through the Python memcached
// clients docs/user-guide.md names — python3-pylibmc (libmemcached's ketama) and
// python3-pymemcache's HashClient (rendezvous hashing) — and reports how many keys a client still
// finds beside how many its hashing scheme allows it to find. keys.py runs on the host against
// memcached on loopback (keys_test.go) and in the pyclients image on the real node
// (hack/images/local-images.sh pyclients; test/real clients_test.go).
package pyclients

import (
	"strconv"
	"strings"
)

// Clients are the client names keys.py accepts (--client), each hashing as the user guide says.
var Clients = []string{"pylibmc", "pymemcache"}

// ScriptInImage is the path of keys.py in the pyclients image (its ENTRYPOINT).
const ScriptInImage = "/keys.py"

// Report is what keys.py prints for write and check.
type Report struct {
	Client  string   `json:"client"`
	Servers []string `json:"servers"`
	// Total is the number of keys asked for (--count).
	Total int `json:"total"`
	// Stored is the number of keys the servers accepted (write).
	Stored int `json:"stored"`
	// Found is the number of keys read back with their value (check).
	Found int `json:"found"`
	// Wrong lists the keys read back with another value (check).
	Wrong []string `json:"wrong"`
	// PerServer is how many of the keys the client's hashing maps to each server of Servers.
	PerServer map[string]int `json:"per_server"`
	// OldServers and Cold echo check's --old-servers and --cold.
	OldServers []string `json:"old_servers"`
	Cold       []string `json:"cold"`
	// Allowed is the number of keys the client's hashing maps to the same server in OldServers and
	// Servers, that server not in Cold: what the hashing scheme allows the client to find. Nil
	// without --old-servers.
	Allowed *int `json:"allowed"`
}

// WriteArgs are keys.py's arguments to store count keys of prefix over servers with client.
func WriteArgs(client string, servers []string, count int, prefix string) []string {
	return []string{"write", "--client", client, "--servers", strings.Join(servers, ","), "--count", strconv.Itoa(count), "--prefix", prefix}
}

// CheckArgs are keys.py's arguments to read count keys of prefix over servers with client,
// judged against the list old they were written with and the servers of old that lost their
// memory (cold).
func CheckArgs(client string, servers []string, count int, prefix string, old, cold []string) []string {
	args := []string{"check", "--client", client, "--servers", strings.Join(servers, ","), "--count", strconv.Itoa(count), "--prefix", prefix,
		"--old-servers", strings.Join(old, ",")}
	if len(cold) > 0 {
		args = append(args, "--cold", strings.Join(cold, ","))
	}
	return args
}

// Sum returns the number of keys PerServer maps to the given servers.
func (r Report) Sum(servers []string) int {
	n := 0
	for _, s := range servers {
		n += r.PerServer[s]
	}
	return n
}
