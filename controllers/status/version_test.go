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

package status

import (
	"testing"

	"github.com/example/memcached-operator/internal/podview"
)

func TestImageVersion(t *testing.T) {
	const digest = "sha256:56214e2130d367044d7a0f022f88d8c70fdc94694ac1683462cb15bf107ba7f1"
	for image, want := range map[string]string{
		"docker.io/library/memcached:1.6.46-alpine":                        "1.6.46",
		"memcached:1.6.46":                                                 "1.6.46",
		"memcached:1.6-bookworm":                                           "1.6",
		"127.0.0.1:5000/memcached:1.6.45":                                  "1.6.45",
		"quay.io/x/memcached:v1.6.45":                                      "1.6.45",
		"memcached:1.6.46@" + digest:                                       "1.6.46",
		"127.0.0.1:5000/memcached@" + digest:                               "sha256:56214e2130d3",
		"56214e2130d367044d7a0f022f88d8c70fdc94694ac1683462cb15bf107ba7f1": "sha256:56214e2130d3",
		"memcached:latest":                                                 "latest",
		"memcached":                                                        "memcached",
		"Not A Reference":                                                  "Not A Reference",
	} {
		if got := imageVersion(image); got != want {
			t.Errorf("imageVersion(%q) = %q, want %q", image, got, want)
		}
	}
}

func TestServerVersion(t *testing.T) {
	pod := func(image string) *podview.Pod { return &podview.Pod{Status: podview.PodStatus{ServerImage: image}} }
	for name, c := range map[string]struct {
		pods []*podview.Pod
		want string
	}{
		"no pods":                 {nil, ""},
		"no container yet":        {[]*podview.Pod{pod(""), pod("")}, ""},
		"one version":             {[]*podview.Pod{pod("memcached:1.6.46-alpine"), pod("docker.io/library/memcached:1.6.46"), pod("")}, "1.6.46"},
		"a rollout":               {[]*podview.Pod{pod("memcached:1.6.46"), pod("memcached:1.6.38"), pod("memcached:1.6.46")}, "1.6.38 (1), 1.6.46 (2)"},
		"numeric order":           {[]*podview.Pod{pod("memcached:1.6.10"), pod("memcached:1.6.9")}, "1.6.9 (1), 1.6.10 (1)"},
		"a tag without a version": {[]*podview.Pod{pod("memcached:latest"), pod("memcached:1.6.46")}, "1.6.46 (1), latest (1)"},
		"read without the cache": {[]*podview.Pod{{Status: podview.PodStatus{ContainerStatuses: []podview.ContainerStatus{
			{Name: "exporter", Image: "quay.io/prometheus/memcached-exporter:v0.16.0"}, {Name: "memcached", Image: "memcached:1.6.45"}}}}}, "1.6.45"},
	} {
		if got := serverVersion(c.pods); got != c.want {
			t.Errorf("%s: serverVersion = %q, want %q", name, got, c.want)
		}
	}
}
