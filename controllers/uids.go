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
	"k8s.io/client-go/discovery"
)

// securityGroupVersion and sccKind are OpenShift's SecurityContextConstraints API, whose admission
// assigns pods their UIDs.
const (
	securityGroupVersion = "security.openshift.io/v1"
	sccKind              = "SecurityContextConstraints"
)

// ResolveUIDPolicy returns whether the platform assigns the memcached pods' UIDs
// (resources.Options.PlatformAssignsUIDs) under policy: UIDsPlatform yes, UIDsFixed no, UIDsAuto
// when API discovery lists SecurityContextConstraints in security.openshift.io/v1 (OpenShift; one
// GET at start, which every authenticated client may make). Why not a setting alone: on OpenShift a
// pinned UID outside the namespace's range is refused, and the operator would fail on the platform
// it is published for unless each installer knew to set it.
func ResolveUIDPolicy(dc discovery.DiscoveryInterface, policy UIDPolicy) (bool, error) {
	switch policy {
	case UIDsPlatform:
		return true, nil
	case UIDsFixed:
		return false, nil
	}
	return kindServed(dc, securityGroupVersion, sccKind)
}

// UIDPolicy is the operator setting POD_UIDS: who picks the memcached pods' UID.
type UIDPolicy string

const (
	// UIDsAuto (the default): the platform, when the API server serves
	// security.openshift.io/v1 SecurityContextConstraints (OpenShift), else UIDsFixed.
	UIDsAuto UIDPolicy = "auto"
	// UIDsFixed: the pods run as uid and gid 11211 (the memcache account of the official images).
	UIDsFixed UIDPolicy = "fixed"
	// UIDsPlatform: the pods set no UID, group or fsGroup; the platform assigns them.
	UIDsPlatform UIDPolicy = "platform"
)
