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

// The reports below are what the client program (test/real/cmd/mcclient) prints as JSON on its
// standard output, one object per run, and what the real-node suite decodes. A report is printed
// even when the command fails; Errors then says what went wrong.

// ServerInfo describes one memcached server as the client reached it.
type ServerInfo struct {
	// Server is the host:port the client was given (an entry of status.serverList).
	Server string `json:"server"`
	// Addrs are the addresses the host resolved to through the pod's resolver (cluster DNS).
	Addrs []string `json:"addrs,omitempty"`
	// RemoteAddr is the ip:port the connection reached.
	RemoteAddr string `json:"remoteAddr,omitempty"`
	// Version is the answer to "version".
	Version string `json:"version,omitempty"`
	// PID, Uptime (seconds) and CurrItems come from "stats".
	PID       string `json:"pid,omitempty"`
	Uptime    string `json:"uptime,omitempty"`
	CurrItems string `json:"currItems,omitempty"`
	// MaxBytes is the item memory of "stats settings" (memcached's -m, in bytes).
	MaxBytes string `json:"maxBytes,omitempty"`
	// CertSerial is the serial number (hex) of the certificate the server presented, over TLS.
	CertSerial string `json:"certSerial,omitempty"`
	// Error is why the server could not be resolved or queried.
	Error string `json:"error,omitempty"`
}

// ServersReport is the result of `mcclient servers`.
type ServersReport struct {
	Servers []ServerInfo `json:"servers"`
	Errors  []string     `json:"errors,omitempty"`
}

// ServiceReport is the result of `mcclient service`: keys written and read back through one
// connection to a Service name.
type ServiceReport struct {
	// Addr is the name:port the client dialled.
	Addr string `json:"addr"`
	// Resolved are the addresses the name resolved to (every ready pod for a headless Service).
	Resolved []string `json:"resolved"`
	// RemoteAddr is the pod ip:port the connection reached.
	RemoteAddr string `json:"remoteAddr"`
	// Stored and Read count the keys stored, and read back with the value written.
	Stored int      `json:"stored"`
	Read   int      `json:"read"`
	Errors []string `json:"errors,omitempty"`
}

// PlacementReport is the result of `mcclient hashset` (where each key was stored) and of
// `mcclient locate` (where each key was found).
type PlacementReport struct {
	// Servers are the servers considered, sorted.
	Servers []string `json:"servers"`
	// Keys maps each key to the servers holding it with the expected value: for hashset the one
	// server Pick chose and the key was stored on; for locate every server that returned it.
	Keys map[string][]string `json:"keys"`
	// Wrong maps keys to the servers that returned a value other than Value(key) (locate).
	Wrong  map[string][]string `json:"wrong,omitempty"`
	Errors []string            `json:"errors,omitempty"`
}

// HTTPSReport is the result of `mcclient https-get`.
type HTTPSReport struct {
	URL string `json:"url"`
	// Status is the HTTP status code, 0 when no response arrived.
	Status int      `json:"status"`
	Body   string   `json:"body"`
	Errors []string `json:"errors,omitempty"`
}

// WatchReport is the result of `mcclient watch`: every interval it gets each key from the server
// Pick chose for it, until stdin closes or the duration ends.
type WatchReport struct {
	Servers []string `json:"servers"`
	// IntervalMs is the time between two rounds, in milliseconds.
	IntervalMs int64 `json:"intervalMs"`
	// Rounds is the number of rounds run; Gets the gets answered with the expected value.
	Rounds int `json:"rounds"`
	Gets   int `json:"gets"`
	// Errors holds one line per failed get (connection error, miss or wrong value), with the time
	// (RFC 3339, UTC) it happened.
	Errors []string `json:"errors,omitempty"`
}
