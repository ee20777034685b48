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
