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
	"fmt"
	"os"

	"github.com/distribution/reference"
	corev1 "k8s.io/api/core/v1"
)

// RanAs returns nil when pod's first container runs image exactly as named (the reference its spec
// names, untouched) and its content is digest ("" accepts any): on a node that pulls a public host
// through a mirror, the digest the mirror holds. Only the digest of the image ID is compared: the
// runtime reports one of the names it knows that content by, and the same bytes pulled under
// another name (the local registry's, by an earlier test) may be the one it reports. Otherwise it
// says what the pod names or reports.
func RanAs(pod *corev1.Pod, image, digest string) error {
	c := pod.Spec.Containers[0]
	if c.Image != image {
		return fmt.Errorf("pod %s/%s: container %s names %s, want %s", pod.Namespace, pod.Name, c.Name, c.Image, image)
	}
	var imageID string
	for _, s := range pod.Status.ContainerStatuses {
		if s.Name == c.Name {
			imageID = s.ImageID
		}
	}
	got, err := reference.ParseNormalizedNamed(imageID)
	if err != nil {
		return fmt.Errorf("pod %s/%s: failed to parse the image ID %q of container %s: %w", pod.Namespace, pod.Name, imageID, c.Name, err)
	}
	canonical, ok := got.(reference.Canonical)
	if !ok {
		return fmt.Errorf("pod %s/%s: container %s runs %q, not an image by digest", pod.Namespace, pod.Name, c.Name, imageID)
	}
	if digest != "" && canonical.Digest().String() != digest {
		return fmt.Errorf("pod %s/%s: container %s runs %s, want digest %s", pod.Namespace, pod.Name, c.Name, imageID, digest)
	}
	return nil
}

// MirrorEnv returns what hack/olm/mirror-images.sh records in $REGISTRY_DIR/mirror.env and `make
// test-olm-real`/`test-olmv1-real` export: the release the mirror holds (MIRROR_VERSION), the public
// names the committed catalog gives its catalog, bundle, operator and memcached images
// (MIRROR_*_IMAGE) and the digests the mirror serves them under (MIRROR_*_DIGEST). It fails naming
// the first one unset.
func MirrorEnv() (map[string]string, error) {
	env := map[string]string{}
	for _, k := range []string{"MIRROR_VERSION", "MIRROR_CATALOG_IMAGE", "MIRROR_CATALOG_DIGEST", "MIRROR_BUNDLE_IMAGE",
		"MIRROR_OPERATOR_IMAGE", "MIRROR_OPERATOR_DIGEST", "MIRROR_MEMCACHED_IMAGE", "MIRROR_MEMCACHED_DIGEST"} {
		if env[k] = os.Getenv(k); env[k] == "" {
			return nil, fmt.Errorf("%s is not set: hack/olm/mirror-images.sh writes it (make olm-real-images)", k)
		}
	}
	return env, nil
}
