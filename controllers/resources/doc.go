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

// Package resources holds the pure builders of every object the operator owns for a Memcached:
// the Deployment and its pod template's feature parts (TLS and auth files: deployment_secrets.go,
// the exporter sidecar: deployment_monitoring.go, graceful shutdown: deployment_shutdown.go), the
// headless Service, the PodDisruptionBudget, the NetworkPolicy, the ServiceMonitor and the
// PrometheusRule, their labels and names, and the one list of them, DesiredState, that drives
// apply and delete from what the reconciler read (Read). Beside each builder are its NeedsUpdate
// (only the fields the operator owns) and its Update; how a live workload changes (the handover
// between Deployment and StatefulSet, the template an operator upgrade keeps) is rollout.go. It also checks and hashes the data of the Secrets the pods mount
// (secret_data.go). Nothing here talks to the API server; it depends on the API and on apply only.
package resources
