//go:build real

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

package real

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// kernelView is what the node's kernel says about a container's main process: read from /proc
// and the memory cgroup on the host, it shows what really runs, whatever the API objects say.
type kernelView struct {
	pid              int
	comm             string
	uid, gid         string // real uid and gid (first field of Uid:/Gid: in /proc/PID/status)
	noNewPrivs       string // NoNewPrivs: 1 when privilege escalation is off
	capEff           string // CapEff: effective capabilities, 0000000000000000 when all dropped
	seccomp          string // Seccomp: 2 = filter (RuntimeDefault)
	rootOptions      string // mount options of the process's "/" (mountinfo)
	memoryLimitBytes int64  // memory.limit_in_bytes (cgroup v1) or memory.max (v2)
	memoryCgroup     string
}

// containerID returns the runtime's ID of container name of p (without the "containerd://"
// prefix), or "".
func containerID(p *corev1.Pod, name string) string {
	cs := containerStatus(p, name)
	if cs == nil {
		return ""
	}
	_, id, _ := strings.Cut(cs.ContainerID, "://")
	return id
}

// kernelViewOf finds the main process of the container with runtime ID id among the host's
// processes (the process whose cgroup path ends in the ID and whose parent is not in it) and reads
// its view. It needs the suite to run on the node's host with access to every /proc/PID.
func kernelViewOf(id string) (*kernelView, error) {
	if id == "" {
		return nil, fmt.Errorf("no container ID")
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cg, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cgroup"))
		if err == nil && strings.Contains(string(cg), id) {
			pids = append(pids, pid)
		}
	}
	if len(pids) == 0 {
		return nil, fmt.Errorf("no process on this host is in a cgroup of container %s (does the suite run on the node's host, as root?)", id)
	}
	// The container's first process: the one whose parent is not in the container (the shim).
	main := pids[0]
	for _, pid := range pids {
		ppid := statusField(pid, "PPid")
		inside := false
		for _, other := range pids {
			if strconv.Itoa(other) == ppid {
				inside = true
			}
		}
		if !inside {
			main = pid
			break
		}
	}
	v := &kernelView{pid: main}
	comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", main))
	v.comm = strings.TrimSpace(string(comm))
	v.uid = firstField(statusField(main, "Uid"))
	v.gid = firstField(statusField(main, "Gid"))
	v.noNewPrivs = statusField(main, "NoNewPrivs")
	v.capEff = statusField(main, "CapEff")
	v.seccomp = statusField(main, "Seccomp")

	mountinfo, err := os.ReadFile(fmt.Sprintf("/proc/%d/mountinfo", main))
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(mountinfo), "\n") {
		// ID parent major:minor root mountpoint options ...
		f := strings.Fields(line)
		if len(f) > 5 && f[4] == "/" {
			v.rootOptions = f[5]
		}
	}

	cg, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", main))
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(cg), "\n") {
		// hierarchy-ID:controllers:path (v1), or 0::path (v2)
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var file string
		switch {
		case parts[1] == "memory" || strings.Contains(parts[1], "memory,") || strings.HasSuffix(parts[1], ",memory"):
			file = filepath.Join("/sys/fs/cgroup/memory", parts[2], "memory.limit_in_bytes")
		case parts[0] == "0" && parts[1] == "":
			file = filepath.Join("/sys/fs/cgroup", parts[2], "memory.max")
		default:
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		if v.memoryLimitBytes, err = strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err == nil {
			v.memoryCgroup = file
			break
		}
	}
	if v.memoryCgroup == "" {
		return v, fmt.Errorf("no memory cgroup limit found for pid %d (%s)", main, strings.TrimSpace(string(cg)))
	}
	return v, nil
}

// statusField returns the value of field name in /proc/PID/status, or "".
func statusField(pid int, name string) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && k == name {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// firstField returns the first whitespace-separated field of s.
func firstField(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// hasMountOption reports whether the comma-separated options include opt.
func hasMountOption(options, opt string) bool {
	for _, o := range strings.Split(options, ",") {
		if o == opt {
			return true
		}
	}
	return false
}
