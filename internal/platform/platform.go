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

// Package platform discovers what the cluster the operator runs on provides: which API kinds it
// serves (KindServed: the monitoring.coreos.com kinds the operator manages once they appear,
// OpenShift's SecurityContextConstraints) and so who assigns the memcached pods' UIDs
// (ResolveUIDPolicy). It asks API discovery only, which every authenticated client may read (the
// system:discovery ClusterRole), so it needs no RBAC.
package platform

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/discovery"
)

// securityGroupVersion and sccKind are OpenShift's SecurityContextConstraints API, whose admission
// assigns pods their UIDs.
const (
	securityGroupVersion = "security.openshift.io/v1"
	sccKind              = "SecurityContextConstraints"
)

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

// ResolveUIDPolicy returns whether the platform assigns the memcached pods' UIDs
// (resources.Options.PlatformAssignsUIDs) under policy: UIDsPlatform yes, UIDsFixed no, UIDsAuto
// when API discovery lists SecurityContextConstraints in security.openshift.io/v1 (OpenShift; one
// GET at start). Why not a setting alone: on OpenShift a pinned UID outside the namespace's range
// is refused, and the operator would fail on the platform it is published for unless each
// installer knew to set it.
func ResolveUIDPolicy(dc discovery.DiscoveryInterface, policy UIDPolicy) (bool, error) {
	switch policy {
	case UIDsPlatform:
		return true, nil
	case UIDsFixed:
		return false, nil
	}
	return KindServed(dc, securityGroupVersion, sccKind)
}

// KindServed reports whether API discovery lists kind in group version gv. A group version that
// is not served at all (404) is not an error.
func KindServed(dc discovery.DiscoveryInterface, gv, kind string) (bool, error) {
	list, err := dc.ServerResourcesForGroupVersion(gv)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("failed to get API resources of %s: %w", gv, err)
	}
	for _, r := range list.APIResources {
		if r.Kind == kind {
			return true, nil
		}
	}
	return false, nil
}
