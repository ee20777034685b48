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
	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// Names and inputs shared by the builders of every owned kind (deployment.go, service.go, pdb.go)
// and by the reconciler.

// Options are the operator-wide inputs of the builders, read once at start-up.
type Options struct {
	// DefaultImage is the memcached image used when spec.image is empty; main.go reads it from the
	// RELATED_IMAGE_MEMCACHED environment variable (OLM lists it in the CSV's relatedImages).
	DefaultImage string
	// DefaultExporterImage is the memcached_exporter image used when spec.monitoring.image is
	// empty; main.go reads it from RELATED_IMAGE_MEMCACHED_EXPORTER (listed in relatedImages too).
	DefaultExporterImage string
	// PlatformAssignsUIDs leaves the pods' runAsUser, runAsGroup and fsGroup unset, for the
	// platform to assign (OpenShift's restricted-v2 SecurityContextConstraints give every pod a
	// UID, and an fsGroup, from its namespace's openshift.io/sa.scc.uid-range and refuse a pinned
	// one outside it); runAsNonRoot stays true. When false the pods run as memcachedUID. main.go
	// sets it from POD_UIDS (see UIDPolicy).
	PlatformAssignsUIDs bool
	// CertReloaderImage is the operator's own image, which runs the certificate reloader sidecar
	// of pods with spec.tls (deployment_certreload.go); main.go reads it from
	// RELATED_IMAGE_CERT_RELOADER. Empty: no reloader, and a certificate renewal rolls the pods.
	CertReloaderImage string
}

// portName names the memcached TCP port on the container and the Service.
const portName = "memcached"

// DeploymentName is the name of the Deployment, and of the Service and PodDisruptionBudget, of
// mc: the Memcached's own name, so clients find the Service under it.
func DeploymentName(mc *cachev1alpha1.Memcached) string { return mc.Name }

// ServiceName is the name of mc's headless Service (DeploymentName), the serviceName of its
// StatefulSet and the middle of its servers' DNS names.
func ServiceName(mc *cachev1alpha1.Memcached) string { return DeploymentName(mc) }
