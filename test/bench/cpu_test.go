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
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

func TestCPUNowReadsTheClusterPidFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "pids"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The test process stands in for a control plane component.
	if err := os.WriteFile(filepath.Join(dir, "pids", "kube-apiserver.pid"), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c0, err := cpuNow(dir, nil)
	if err != nil {
		t.Fatalf("cpuNow: %v", err)
	}
	for end := time.Now().Add(200 * time.Millisecond); time.Now().Before(end); { // burn CPU: > 1 clock tick
	}
	c1, err := cpuNow(dir, nil)
	if err != nil {
		t.Fatalf("cpuNow: %v", err)
	}
	d := c1.since(c0)
	if len(d) != 2 || d[benchCPU] <= 0 || d["kube-apiserver"] != d[benchCPU] {
		t.Errorf("CPU seconds = %v, want the same positive time for bench and kube-apiserver (one process)", d)
	}
	if got := d.controlPlane(); got != d["kube-apiserver"] {
		t.Errorf("control plane = %v, want kube-apiserver's %v", got, d["kube-apiserver"])
	}

	// A process that is gone is an error, not a zero.
	if err := os.WriteFile(filepath.Join(dir, "pids", "etcd.pid"), []byte("2147483646"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := cpuNow(dir, nil); err == nil {
		t.Error("cpuNow with a pid file of no process: no error")
	}
}

func TestCPUSecondsString(t *testing.T) {
	c := cpuSeconds{operatorCPU: 12.34, "etcd": 10, "kube-apiserver": 50.25, "kwok": 10, benchCPU: 5}
	want := "operator 12.3, control plane 70.2 (kube-apiserver 50.2, etcd 10.0, kwok 10.0), bench 5.0"
	if got := c.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got := (cpuSeconds{}).String(); got != "–" {
		t.Errorf("empty String() = %q, want –", got)
	}
}
