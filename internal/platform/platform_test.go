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

package platform

import (
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fakediscovery "k8s.io/client-go/discovery/fake"
	clienttesting "k8s.io/client-go/testing"
)

// POD_UIDS=auto follows API discovery: without OpenShift's security.openshift.io/v1
// SecurityContextConstraints the pods pin uid 11211; where the API server serves that kind the
// platform assigns UIDs. fixed and platform ignore discovery; a failed discovery is an error for
// auto only.
func TestResolveUIDPolicy(t *testing.T) {
	openShift := []*metav1.APIResourceList{{GroupVersion: "security.openshift.io/v1",
		APIResources: []metav1.APIResource{{Name: "securitycontextconstraints", Kind: "SecurityContextConstraints"}}}}
	otherKind := []*metav1.APIResourceList{{GroupVersion: "security.openshift.io/v1",
		APIResources: []metav1.APIResource{{Name: "rangeallocations", Kind: "RangeAllocation"}}}}
	tests := map[string]struct {
		served  []*metav1.APIResourceList
		fail    bool
		policy  UIDPolicy
		want    bool
		wantErr bool
	}{
		"auto, no OpenShift API: fixed UIDs":           {policy: UIDsAuto, want: false},
		"auto, the group without the kind":             {served: otherKind, policy: UIDsAuto, want: false},
		"auto, OpenShift: the platform's UIDs":         {served: openShift, policy: UIDsAuto, want: true},
		"auto, discovery fails":                        {fail: true, policy: UIDsAuto, wantErr: true},
		"platform, whatever discovery says":            {fail: true, policy: UIDsPlatform, want: true},
		"fixed, on OpenShift too":                      {served: openShift, policy: UIDsFixed, want: false},
		"the empty policy is auto (settings' default)": {served: openShift, policy: "", want: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dc := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{Resources: tc.served}}
			if tc.fail {
				dc.AddReactor("get", "resource", func(clienttesting.Action) (bool, runtime.Object, error) {
					return true, nil, errors.New("connection refused")
				})
			}
			got, err := ResolveUIDPolicy(dc, tc.policy)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("ResolveUIDPolicy(%q) = %v, %v; want %v, error %v", tc.policy, got, err, tc.want, tc.wantErr)
			}
		})
	}
}
