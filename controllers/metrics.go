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
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Prometheus collectors of the operator, registered on controller-runtime's registry so they are
// served by the manager's (secure) metrics endpoint next to controller_runtime_* and workqueue_*.
var (
	// desiredReplicasGauge is spec.size of each Memcached (replicas).
	desiredReplicasGauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "memcached_operator_instance_desired_replicas",
		Help: "Desired memcached servers (spec.size) of a Memcached instance.",
	}, []string{"namespace", "name"})

	// readyReplicasGauge is status.readyReplicas of each Memcached (replicas).
	readyReplicasGauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "memcached_operator_instance_ready_replicas",
		Help: "Ready memcached servers (status.readyReplicas) of a Memcached instance.",
	}, []string{"namespace", "name"})

	// reconcileOutcomes counts reconciles by result (success, error) and reason (the Degraded
	// reason, or AsExpected).
	reconcileOutcomes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "memcached_operator_reconcile_outcomes_total",
		Help: "Reconciles of Memcached instances by result (success, error) and reason.",
	}, []string{"result", "reason"})
)

func init() {
	metrics.Registry.MustRegister(desiredReplicasGauge, readyReplicasGauge, reconcileOutcomes)
}

// observeInstance records the replica gauges of one instance.
func observeInstance(namespace, name string, desired, ready int32) {
	desiredReplicasGauge.WithLabelValues(namespace, name).Set(float64(desired))
	readyReplicasGauge.WithLabelValues(namespace, name).Set(float64(ready))
}

// forgetInstance removes the gauges of a deleted instance.
func forgetInstance(namespace, name string) {
	desiredReplicasGauge.DeleteLabelValues(namespace, name)
	readyReplicasGauge.DeleteLabelValues(namespace, name)
}
