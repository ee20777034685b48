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
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/distribution/reference"
	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/example/memcached-operator/controllers/resources"
	"github.com/example/memcached-operator/internal/podview"
)

// serverVersion returns status.version for the servers pods: the version of the image each
// server's memcached container runs (podview's ServerImage, the kubelet's report), "" while none
// reports one. When the servers differ (a rollout), every version with the number of servers
// running it, in version order: "1.6.38 (1), 1.6.46 (2)".
func serverVersion(pods []*podview.Pod) string {
	count := map[string]int{}
	for _, p := range pods {
		if image := serverImage(p); image != "" {
			count[imageVersion(image)]++
		}
	}
	versions := slices.SortedFunc(maps.Keys(count), compareVersions)
	if len(versions) == 1 {
		return versions[0]
	}
	parts := make([]string, 0, len(versions))
	for _, v := range versions {
		parts = append(parts, fmt.Sprintf("%s (%d)", v, count[v]))
	}
	return strings.Join(parts, ", ")
}

// serverImage returns the image p's memcached container runs: the cache keeps it as ServerImage
// (controllers/cache's TrimPod); a pod read without the cache has it in its container statuses.
func serverImage(p *podview.Pod) string {
	if p.Status.ServerImage != "" {
		return p.Status.ServerImage
	}
	for _, c := range p.Status.ContainerStatuses {
		if c.Name == resources.ContainerName {
			return c.Image
		}
	}
	return ""
}

// imageVersion returns the memcached version image names: its tag without the variant
// ("docker.io/library/memcached:1.6.46-alpine" is 1.6.46), a tag that names no version as it is
// ("latest"), and for an image named by digest only the digest's first 12 hex digits
// ("sha256:56214e2130d3"), as the image's bytes say nothing the operator can read. A string that
// is no image reference is returned as it is. memcached reports its version only over its
// protocol, which the operator does not speak (NetworkPolicy, TLS and authentication stand in the
// way), so the tag is the one version source the operator has.
func imageVersion(image string) string {
	ref, err := reference.ParseAnyReference(image)
	if err != nil {
		return image
	}
	if t, ok := ref.(reference.Tagged); ok {
		// A tag that starts with a version (apimachinery's generic version: dotted numbers, the
		// variant after them dropped: "1.6.46-alpine", "1.6-bookworm", "v1.6.45").
		if v, err := utilversion.ParseGeneric(t.Tag()); err == nil {
			return v.String()
		}
		return t.Tag()
	}
	if d, ok := ref.(reference.Digested); ok {
		s := d.Digest().String()
		return s[:min(len(s), len("sha256:")+12)]
	}
	return image
}

// compareVersions orders versions numerically ("1.6.9" before "1.6.10"; apimachinery's generic
// version parser), anything that is not a version after them, by its text.
func compareVersions(a, b string) int {
	va, erra := utilversion.ParseGeneric(a)
	_, errb := utilversion.ParseGeneric(b)
	switch {
	case erra == nil && errb == nil:
		if c, err := va.Compare(b); err == nil && c != 0 {
			return c
		}
	case erra == nil:
		return -1
	case errb == nil:
		return 1
	}
	return strings.Compare(a, b)
}
