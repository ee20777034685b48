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

package resources

import (
	"testing"

	"k8s.io/utils/ptr"

	"github.com/example/memcached-operator/controllers/internal/fixture"
)

// Where the platform assigns UIDs the pods pin none: no runAsUser, runAsGroup or fsGroup (also
// with Secrets mounted), runAsNonRoot still true; elsewhere uid and gid 11211 and, with Secrets,
// fsGroup 11211. A template that still pins a UID is drift when the platform assigns them (an
// operator upgraded on OpenShift replaces the template restricted-v2 refuses), never the reverse
// of a value the platform's admission set on pods.
func TestPodSecurityContext(t *testing.T) {
	for name, tc := range map[string]struct {
		platform, secrets bool
		user, group, fsg  *int64
	}{
		"fixed":                     {user: ptr.To[int64](11211), group: ptr.To[int64](11211)},
		"fixed, Secrets mounted":    {secrets: true, user: ptr.To[int64](11211), group: ptr.To[int64](11211), fsg: ptr.To[int64](11211)},
		"platform":                  {platform: true},
		"platform, Secrets mounted": {platform: true, secrets: true},
	} {
		t.Run(name, func(t *testing.T) {
			mc := fixture.Defaulted("a")
			if tc.secrets {
				mc = fixture.Defaulted("a", fixture.WithTLS("cert"))
			}
			sc := DesiredDeployment(mc, Options{DefaultImage: "memcached:1", PlatformAssignsUIDs: tc.platform}).Spec.Template.Spec.SecurityContext
			fixture.Expect(t, "runAsUser", sc.RunAsUser, tc.user)
			fixture.Expect(t, "runAsGroup", sc.RunAsGroup, tc.group)
			fixture.Expect(t, "fsGroup", sc.FSGroup, tc.fsg)
			fixture.Expect(t, "runAsNonRoot", sc.RunAsNonRoot, ptr.To(true))
		})
	}
	fixed := fixture.ServerDefaulted(DesiredDeployment(fixture.Defaulted("a"), Options{DefaultImage: "memcached:1"}))
	platform := DesiredDeployment(fixture.Defaulted("a"), Options{DefaultImage: "memcached:1", PlatformAssignsUIDs: true})
	fixture.Expect(t, "a pinned UID under a platform that assigns them is drift", DeploymentNeedsUpdate(fixed, platform), true)
	fixture.Expect(t, "the platform's template, as stored, is not drift", DeploymentNeedsUpdate(fixture.ServerDefaulted(platform), platform), false)
}
