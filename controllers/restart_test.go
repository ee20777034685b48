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
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"

	"github.com/example/memcached-operator/controllers/cache"
	"github.com/example/memcached-operator/controllers/resources"
)

// An operator restarted over converged instances reconciles them and writes nothing: its caches
// fill from the initial list (client-go's watch-list, which runs the cache transforms on objects
// it has already transformed), and what they hold must compare equal to the desired state. A
// transform that was not idempotent made every Deployment look drifted after a restart (a patch and
// an event per instance, found by make bench-scale's restart phase).
func TestRestartMakesNoWrites(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-restart", "r1"
	g.Expect(k8sClient.Create(testCtx, newMemcached(ns, name, 2))).To(Succeed())
	simulateRollout(t, g, ns, name, 2)
	g.Eventually(func(g Gomega) {
		g.Expect(conditionOf(getMemcached(g, ns, name), cachev1alpha1.ConditionAvailable).Status).To(Equal(metav1.ConditionTrue))
	}, timeout, interval).Should(Succeed())
	before := settledWritesIn(g, ns, time.Second)

	// The restarted operator: a second manager running the same controller on this namespace,
	// while the suite's (quiet in steady state) keeps running.
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:     k8sClient.Scheme(),
		Metrics:    metricsserver.Options{BindAddress: "0"},
		Cache:      cache.ManagerOptions([]string{ns}),
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	g.Expect(err).NotTo(HaveOccurred())
	reads := &instanceReads{Client: mgr.GetClient(), key: key(ns, name)}
	g.Expect((&MemcachedReconciler{
		Client:     countingClient{Client: reads},
		APIReader:  mgr.GetAPIReader(),
		Scheme:     mgr.GetScheme(),
		Recorder:   mgr.GetEventRecorder("memcached-operator"),
		Options:    resources.Options{DefaultImage: testImage, DefaultExporterImage: testExporterImage},
		Namespaces: []string{ns},
	}).SetupWithManager(mgr)).To(Succeed())
	ctx, cancel := context.WithCancel(testCtx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	// The restarted operator's own reconcile of the instance begins with reading it.
	g.Eventually(reads.n.Load, timeout, interval).Should(BeNumerically(">", 0), "the restarted operator reconciles the instance")
	after := settledWritesIn(g, ns, time.Second)
	g.Expect(after).To(Equal(before), "writes by the restarted operator")
}

// instanceReads is a client that counts its reads of one Memcached (key).
type instanceReads struct {
	client.Client
	key client.ObjectKey
	n   atomic.Int64
}

func (c *instanceReads) Get(ctx context.Context, k client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if _, ok := obj.(*cachev1alpha1.Memcached); ok && k == c.key {
		c.n.Add(1)
	}
	return c.Client.Get(ctx, k, obj, opts...)
}
