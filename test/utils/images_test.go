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

package utils

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestRanAs(t *testing.T) {
	const (
		d1 = "sha256:df66f47c0a7f9f0b6a32a46c28b446de11cfafb1e68f8f373fa639e039c4ca8c"
		d2 = "sha256:5438af03b1bf18cebaab7d96b02e25ccd0f4e48f98281ea6eff24d02d14afd75"
	)
	pod := func(image, imageID string) *corev1.Pod {
		p := &corev1.Pod{}
		p.Namespace, p.Name = "ns", "p"
		p.Spec.Containers = []corev1.Container{{Name: "memcached", Image: image}, {Name: "exporter", Image: "x"}}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "exporter", ImageID: "x@" + d2}, {Name: "memcached", ImageID: imageID}}
		return p
	}
	cases := []struct {
		// image is what the pod names, want what RanAs is asked for (default: image).
		name, image, want, imageID, digest, err string
	}{
		{name: "public name by tag, resolved to the mirror's digest", image: "docker.io/library/memcached:1.6.38-alpine",
			imageID: "docker.io/library/memcached@" + d1, digest: d1},
		{name: "short name: the runtime reports the normalized one", image: "memcached:1.6.38-alpine",
			imageID: "docker.io/library/memcached@" + d1, digest: d1},
		{name: "any digest", image: "registry.example.com/memcached-operator:v0.2.2",
			imageID: "registry.example.com/memcached-operator@" + d2},
		{name: "by digest", image: "registry.example.com/memcached-operator@" + d2,
			imageID: "registry.example.com/memcached-operator@" + d2, digest: d2},
		{name: "the spec names another image (a rewritten CSV)", image: "127.0.0.1:5000/memcached:1.6.38-alpine",
			want: "docker.io/library/memcached:1.6.38-alpine", imageID: "127.0.0.1:5000/memcached@" + d1, digest: d1,
			err: "names 127.0.0.1:5000/memcached:1.6.38-alpine, want docker.io/library/memcached:1.6.38-alpine"},
		{name: "the same bytes known under another name", image: "docker.io/library/memcached:1.6.38-alpine",
			imageID: "127.0.0.1:5000/memcached@" + d1, digest: d1},
		{name: "an image ID without a digest", image: "docker.io/library/memcached:1.6.38-alpine",
			imageID: "docker.io/library/memcached:1.6.38-alpine", err: "not an image by digest"},
		{name: "another digest", image: "docker.io/library/memcached:1.6.38-alpine",
			imageID: "docker.io/library/memcached@" + d2, digest: d1, err: "want digest " + d1},
		{name: "no image ID yet", image: "docker.io/library/memcached:1.6.38-alpine", err: "failed to parse the image ID"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if want == "" {
				want = tc.image
			}
			err := RanAs(pod(tc.image, tc.imageID), want, tc.digest)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("RanAs: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("RanAs: %v, want an error with %q", err, tc.err)
			}
		})
	}
}
