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

package controllers

import (
	"testing"

	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
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
			mc := defaulted("a")
			if tc.secrets {
				mc = defaulted("a", withTLS("cert"))
			}
			sc := desiredDeployment(mc, Options{DefaultImage: "memcached:1", PlatformAssignsUIDs: tc.platform}).Spec.Template.Spec.SecurityContext
			expect(t, "runAsUser", sc.RunAsUser, tc.user)
			expect(t, "runAsGroup", sc.RunAsGroup, tc.group)
			expect(t, "fsGroup", sc.FSGroup, tc.fsg)
			expect(t, "runAsNonRoot", sc.RunAsNonRoot, ptr.To(true))
		})
	}
	fixed := serverDefaulted(desiredDeployment(defaulted("a"), Options{DefaultImage: "memcached:1"}))
	platform := desiredDeployment(defaulted("a"), Options{DefaultImage: "memcached:1", PlatformAssignsUIDs: true})
	expect(t, "a pinned UID under a platform that assigns them is drift", deploymentNeedsUpdate(fixed, platform), true)
	expect(t, "the platform's template, as stored, is not drift", deploymentNeedsUpdate(serverDefaulted(platform), platform), false)
}

// POD_UIDS=auto follows API discovery: without OpenShift's security.openshift.io/v1
// SecurityContextConstraints the pods pin uid 11211; once the API server serves that kind (here a
// CRD of the same group, version and kind stands in for OpenShift's built-in API) the platform
// assigns UIDs. fixed and platform ignore discovery.
func TestResolveUIDPolicy(t *testing.T) {
	g := NewWithT(t)
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	g.Expect(err).NotTo(HaveOccurred())
	resolve := func(p UIDPolicy) bool {
		got, err := ResolveUIDPolicy(dc, p)
		g.Expect(err).NotTo(HaveOccurred())
		return got
	}
	g.Expect(resolve(UIDsAuto)).To(BeFalse(), "no OpenShift API: fixed UIDs")
	g.Expect(resolve(UIDsPlatform)).To(BeTrue())
	g.Expect(resolve(UIDsFixed)).To(BeFalse())

	_, err = envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{CRDs: []*apiextensionsv1.CustomResourceDefinition{{
		ObjectMeta: metav1.ObjectMeta{Name: "securitycontextconstraints.security.openshift.io"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "security.openshift.io", Scope: apiextensionsv1.ClusterScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "securitycontextconstraints", Singular: "securitycontextconstraints", Kind: sccKind, ListKind: "SecurityContextConstraintsList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)}}}},
		},
	}}})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(resolve(UIDsAuto)).To(BeTrue(), "OpenShift's SecurityContextConstraints served: the platform assigns UIDs")
	g.Expect(resolve(UIDsFixed)).To(BeFalse())
}
