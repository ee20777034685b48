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

// Package hostscripts tests the parts of the real node's host scripts (hack/lib/node.sh) that do
// not need root or a running node, against the mount tables of the hosts they must handle.
package hostscripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// nodeSh runs script in bash after sourcing hack/lib/procs.sh and hack/lib/node.sh, with env added,
// and returns its stdout lines.
func nodeSh(t *testing.T, env []string, script string) []string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", `set -euo pipefail; . hack/lib/procs.sh; . hack/lib/node.sh; `+script)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), append([]string{"CLUSTER_DIR=" + t.TempDir()}, env...)...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	return strings.Fields(string(out))
}

// The node's cgroups must be found in every mounted hierarchy, read from the mount table: a fixed
// list of v1 controller names missed the unified cgroup2 mount of a hybrid host, where the kubelet
// and runc create the node's cgroups too (memcached-node/kubepods/{burstable,besteffort}), so
// cluster-down left them behind. mountinfo(5) lines: optional fields (shared:N) before "-", a tmpfs
// at /sys/fs/cgroup and a mount whose source is named cgroup are not hierarchies.
func TestCgroupMountsAndDirs(t *testing.T) {
	const hybrid = `25 31 0:23 / /sys rw,nosuid - sysfs sysfs rw
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime shared:12 - cgroup cgroup rw,cpuset
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime shared:9 master:3 - cgroup cgroup rw,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
50 23 0:40 / /run/cgroup-notes rw - tmpfs cgroup rw
`
	tests := map[string]struct {
		mountinfo string
		want      []string
	}{
		"hybrid host: every v1 controller and the unified cgroup2 mount": {
			mountinfo: hybrid,
			want:      []string{"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpuset", "/sys/fs/cgroup/memory", "/sys/fs/cgroup/systemd", "/sys/fs/cgroup/unified"},
		},
		"cgroup v1 only": {
			mountinfo: strings.ReplaceAll(hybrid, "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n", ""),
			want:      []string{"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpuset", "/sys/fs/cgroup/memory", "/sys/fs/cgroup/systemd"},
		},
		"pure cgroup2 host: the root mount itself": {
			mountinfo: "25 31 0:23 / /sys rw - sysfs sysfs rw\n30 25 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n",
			want:      []string{"/sys/fs/cgroup"},
		},
		"no cgroup mounted": {
			mountinfo: "25 31 0:23 / /sys rw - sysfs sysfs rw\n",
			want:      nil,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "mountinfo")
			if err := os.WriteFile(f, []byte(tc.mountinfo), 0o644); err != nil {
				t.Fatal(err)
			}
			got := nodeSh(t, []string{"NODE_MOUNTINFO=" + f}, "node_cgroup_mounts")
			if !slices.Equal(got, tc.want) {
				t.Errorf("node_cgroup_mounts = %q, want %q", got, tc.want)
			}
		})
	}

	// node_cgroup_dirs names NODE_CGROUP in each hierarchy where it exists, the cgroup2 one included.
	top := t.TempDir()
	var mountinfo strings.Builder
	for i, h := range []string{"cpu", "memory", "unified"} {
		kind := "cgroup"
		if h == "unified" {
			kind = "cgroup2"
		}
		if err := os.MkdirAll(filepath.Join(top, h), 0o755); err != nil {
			t.Fatal(err)
		}
		mountinfo.WriteString(strings.Join([]string{"3" + string(rune('0'+i)), "31", "0:29", "/", filepath.Join(top, h), "rw", "-", kind, kind, "rw"}, " ") + "\n")
	}
	for _, d := range []string{"memory/test-node/kubepods", "unified/test-node/kubepods/burstable", "cpu/other-node"} {
		if err := os.MkdirAll(filepath.Join(top, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f := filepath.Join(t.TempDir(), "mountinfo")
	if err := os.WriteFile(f, []byte(mountinfo.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	got := nodeSh(t, []string{"NODE_MOUNTINFO=" + f, "NODE_CGROUP=test-node"}, "node_cgroup_dirs")
	want := []string{filepath.Join(top, "memory/test-node"), filepath.Join(top, "unified/test-node")}
	if !slices.Equal(got, want) {
		t.Errorf("node_cgroup_dirs = %q, want %q", got, want)
	}
}
