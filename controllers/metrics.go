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
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// Prometheus collectors of the operator, registered on controller-runtime's registry so they are
// served by the manager's (secure) metrics endpoint next to controller_runtime_* and workqueue_*.
var (
	// desiredReplicasDesc is spec.size of each Memcached (replicas), from InstanceCollector.
	desiredReplicasDesc = prometheus.NewDesc("memcached_operator_instance_desired_replicas",
		"Desired memcached servers (spec.size) of a Memcached instance.", []string{"namespace", "name"}, nil)

	// readyReplicasDesc is status.readyReplicas of each Memcached (replicas), from InstanceCollector.
	readyReplicasDesc = prometheus.NewDesc("memcached_operator_instance_ready_replicas",
		"Ready memcached servers (status.readyReplicas) of a Memcached instance.", []string{"namespace", "name"}, nil)

	// degradedDesc is 1 while a Memcached's Degraded condition is True, else 0, labelled with the
	// condition's reason (none before the first status), from InstanceCollector. It is what the
	// operator's alert MemcachedInstanceDegraded reads (config/prometheus/operator_rules.yaml).
	degradedDesc = prometheus.NewDesc("memcached_operator_instance_degraded",
		"1 while the Degraded condition of a Memcached instance is True, else 0; reason is the condition's reason.", []string{"namespace", "name", "reason"}, nil)

	// reconcileOutcomes counts reconciles by result (success, error) and reason (the Degraded
	// reason, or AsExpected).
	reconcileOutcomes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "memcached_operator_reconcile_outcomes_total",
		Help: "Reconciles of Memcached instances by result (success, error) and reason.",
	}, []string{"result", "reason"})

	// instanceListFailures counts the scrapes in which InstanceCollector could not list the
	// Memcacheds and exported the series of its last successful list instead.
	instanceListFailures = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "memcached_operator_instance_metrics_list_failures_total",
		Help: "Scrapes whose per-instance series repeat the last successful list because the Memcacheds could not be listed.",
	})
)

func init() {
	metrics.Registry.MustRegister(reconcileOutcomes, instanceListFailures)
}

// instanceScrapeTimeout bounds how long a scrape waits for the Memcacheds' cache (it waits only
// before the cache has synced).
const instanceScrapeTimeout = 5 * time.Second

// InstanceCollector is a prometheus.Collector of the per-instance gauges
// memcached_operator_instance_desired_replicas (spec.size) and
// memcached_operator_instance_ready_replicas (status.readyReplicas), labelled namespace and name,
// and memcached_operator_instance_degraded (the Degraded condition, with its reason).
// It computes them at each scrape from the Memcacheds in Reader (the manager's cache), as
// kube-state-metrics does for the objects it exports, instead of holding a series per instance
// between scrapes: a deleted instance's series are gone at the next scrape. ready is what the
// operator last wrote to the status. Only the replica that leads exports them (Elected), as only
// it reconciles: a standby's cache holds the same Memcacheds, and two replicas exporting would
// double a sum over pods.
//
// When the Memcacheds cannot be listed (the cache not synced within instanceScrapeTimeout), the
// scrape repeats the values of the last successful list and counts the failure in
// memcached_operator_instance_metrics_list_failures_total, with the error logged: a scrape
// without the series would resolve every firing MemcachedInstanceDegraded alert although
// nothing was fixed. What it keeps for that is a few words per instance (instanceSample, about
// 80 bytes: 40 KB at 500 instances), not the series themselves (a GaugeVec of two of them held
// 0.76 MiB at 500 instances).
type InstanceCollector struct {
	// Reader lists the Memcacheds; the manager's cache (mgr.GetCache()).
	Reader client.Reader
	// Elected is closed once this replica leads (mgr.Elected(); at once without leader election).
	Elected <-chan struct{}

	// mu guards last, the samples of the last successful list.
	mu   sync.Mutex
	last []instanceSample
}

// instanceSample is what InstanceCollector exports of one Memcached.
type instanceSample struct {
	namespace, name, reason  string
	desired, ready, degraded float64
}

// Describe implements prometheus.Collector.
func (c *InstanceCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- desiredReplicasDesc
	ch <- readyReplicasDesc
	ch <- degradedDesc
}

// Collect implements prometheus.Collector.
func (c *InstanceCollector) Collect(ch chan<- prometheus.Metric) {
	select {
	case <-c.Elected:
	default:
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), instanceScrapeTimeout)
	defer cancel()
	list := &cachev1alpha1.MemcachedList{}
	// The cached objects are only read here, so they need not be copied.
	if err := c.Reader.List(ctx, list, client.UnsafeDisableDeepCopy); err != nil {
		instanceListFailures.Inc()
		logf.Log.WithName("metrics").Error(err, "Failed to list Memcacheds: this scrape repeats the last instance metrics", "instances", len(c.last))
	} else {
		c.last = c.last[:0]
		for i := range list.Items {
			mc := &list.Items[i]
			s := instanceSample{namespace: mc.Namespace, name: mc.Name, desired: float64(mc.Spec.Size), ready: float64(mc.Status.ReadyReplicas)}
			if d := meta.FindStatusCondition(mc.Status.Conditions, cachev1alpha1.ConditionDegraded); d != nil {
				s.reason = d.Reason
				if d.Status == metav1.ConditionTrue {
					s.degraded = 1
				}
			}
			c.last = append(c.last, s)
		}
	}
	for _, s := range c.last {
		ch <- prometheus.MustNewConstMetric(desiredReplicasDesc, prometheus.GaugeValue, s.desired, s.namespace, s.name)
		ch <- prometheus.MustNewConstMetric(readyReplicasDesc, prometheus.GaugeValue, s.ready, s.namespace, s.name)
		ch <- prometheus.MustNewConstMetric(degradedDesc, prometheus.GaugeValue, s.degraded, s.namespace, s.name, s.reason)
	}
}
