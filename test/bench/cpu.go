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
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/prometheus/procfs"
)

// cpuSeconds is CPU time (user + system, seconds) by process: the control plane's components by
// the name of their pid file in the cluster directory (kube-apiserver, etcd, ...), "operator" for
// the subject and "bench" for this program (its creating workers and its cache).
type cpuSeconds map[string]float64

// operatorCPU and benchCPU name the subject's and this program's entries in a cpuSeconds.
const (
	operatorCPU = "operator"
	benchCPU    = "bench"
)

// cpuNow reads the CPU time of the cluster's processes (clusterDir/pids/NAME.pid, written by
// hack/cluster/cluster-up.sh), of this program and of the subject s (nil for the floor) from /proc, with
// procfs (the library client_golang's process collector uses for process_cpu_seconds_total). It
// returns an error when a pid file cannot be read or a process is gone.
func cpuNow(clusterDir string, s *subject) (cpuSeconds, error) {
	pids := map[string]int{benchCPU: os.Getpid()}
	if s != nil && s.cmd != nil {
		pids[operatorCPU] = s.cmd.Process.Pid
	}
	files, err := filepath.Glob(filepath.Join(clusterDir, "pids", "*.pid"))
	if err != nil {
		return nil, fmt.Errorf("failed to list pid files: %w", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("failed to read %s: %w", f, err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			return nil, fmt.Errorf("failed to parse %s: %w", f, err)
		}
		pids[strings.TrimSuffix(filepath.Base(f), ".pid")] = pid
	}
	c := cpuSeconds{}
	for name, pid := range pids {
		p, err := procfs.NewProc(pid)
		if err != nil {
			return nil, fmt.Errorf("failed to find process %s (pid %d): %w", name, pid, err)
		}
		st, err := p.Stat()
		if err != nil {
			return nil, fmt.Errorf("failed to read the CPU time of %s (pid %d): %w", name, pid, err)
		}
		c[name] = st.CPUTime()
	}
	return c, nil
}

// since returns the CPU time each process of c used after c0 (processes missing from c0 count
// from zero).
func (c cpuSeconds) since(c0 cpuSeconds) cpuSeconds {
	d := cpuSeconds{}
	for name, v := range c {
		d[name] = v - c0[name]
	}
	return d
}

// components returns the names of the cluster's processes (all but the operator and this
// program), largest CPU time first.
func (c cpuSeconds) components() []string {
	var names []string
	for name := range c {
		if name != operatorCPU && name != benchCPU {
			names = append(names, name)
		}
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(c[b], c[a]), strings.Compare(a, b)) })
	return names
}

// controlPlane is the CPU time of the cluster's processes (components).
func (c cpuSeconds) controlPlane() float64 {
	var sum float64
	for _, name := range c.components() {
		sum += c[name]
	}
	return sum
}

// String is "operator 12.3, control plane 80.1 (kube-apiserver 50.2, etcd 10.0, ...), bench 5.0",
// the control plane's components largest first.
func (c cpuSeconds) String() string {
	if len(c) == 0 {
		return "–"
	}
	var parts []string
	if v, ok := c[operatorCPU]; ok {
		parts = append(parts, fmt.Sprintf("operator %.1f", v))
	}
	var cp []string
	for _, name := range c.components() {
		cp = append(cp, fmt.Sprintf("%s %.1f", name, c[name]))
	}
	parts = append(parts, fmt.Sprintf("control plane %.1f (%s)", c.controlPlane(), strings.Join(cp, ", ")))
	parts = append(parts, fmt.Sprintf("bench %.1f", c[benchCPU]))
	return strings.Join(parts, ", ")
}
