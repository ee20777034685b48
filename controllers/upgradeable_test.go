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
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/operator-framework/operator-lib/conditions"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/upgradeable"

	"github.com/example/memcached-operator/controllers/cache"
)

// recordedCondition is an OperatorCondition that records every status written to it.
type recordedCondition struct {
	mu  sync.Mutex
	set []metav1.ConditionStatus
}

func (c *recordedCondition) Get(context.Context) (*metav1.Condition, error) { return nil, nil }

func (c *recordedCondition) Set(_ context.Context, s metav1.ConditionStatus, _ ...conditions.Option) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.set = append(c.set, s)
	return nil
}

func (c *recordedCondition) written() []metav1.ConditionStatus {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]metav1.ConditionStatus(nil), c.set...)
}

// An operator restarted while an instance rolls out reports Upgradeable=False from its first
// write, and True only once the rollout has ended. (The reporter it replaces published True from
// an empty in-memory map as soon as it started.)
func TestUpgradeableAfterRestartMidRollout(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-upgrade", "rolling"
	g.Expect(k8sClient.Create(testCtx, newMemcached(ns, name, 2))).To(Succeed())
	g.Eventually(func(g Gomega) {
		mc := getMemcached(g, ns, name)
		g.Expect(mc.Status.ObservedGeneration).To(Equal(mc.Generation))
		g.Expect(conditionOf(mc, cachev1alpha1.ConditionProgressing).Status).To(Equal(metav1.ConditionTrue))
	}, timeout, interval).Should(Succeed())

	// The restarted operator: a new manager whose only controller is Upgradeable.
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:     k8sClient.Scheme(),
		Metrics:    metricsserver.Options{BindAddress: "0"},
		Cache:      cache.ManagerOptions([]string{ns}),
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	g.Expect(err).NotTo(HaveOccurred())
	cond := &recordedCondition{}
	g.Expect((&upgradeable.Reconciler{Reader: mgr.GetCache(), Condition: cond}).SetupWithManager(mgr)).To(Succeed())
	ctx, cancel := context.WithCancel(testCtx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	g.Eventually(cond.written, timeout, interval).ShouldNot(BeEmpty())
	g.Consistently(cond.written, "1s", interval).Should(HaveEach(metav1.ConditionFalse), "Upgradeable before the rollout ends")

	simulateRollout(t, g, ns, name, 2)
	g.Eventually(func() metav1.ConditionStatus { w := cond.written(); return w[len(w)-1] }, timeout, interval).Should(Equal(metav1.ConditionTrue))
	w := cond.written()
	g.Expect(w[:len(w)-1]).To(HaveEach(metav1.ConditionFalse), "one write per change: False, then True once")
}

// missingCondition is an OperatorCondition that does not exist (deleted, or not created yet).
type missingCondition struct{ recordedCondition }

func (c *missingCondition) Set(ctx context.Context, s metav1.ConditionStatus, o ...conditions.Option) error {
	_ = c.recordedCondition.Set(ctx, s, o...)
	return apierrors.NewNotFound(schema.GroupResource{Group: "operators.coreos.com", Resource: "operatorconditions"}, "memcached-operator.v0.3.0")
}

// A missing OperatorCondition is logged once, not on every reconcile, and looked for again later.
func TestUpgradeableMissingConditionLoggedOnce(t *testing.T) {
	g := NewWithT(t)
	var logs bytes.Buffer
	ctx := logf.IntoContext(testCtx, zap.New(zap.WriteTo(&logs)))
	cond := &missingCondition{}
	r := &upgradeable.Reconciler{Reader: k8sClient, Condition: cond}
	for range 3 {
		res, err := r.Reconcile(ctx, ctrl.Request{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(res.RequeueAfter).To(Equal(upgradeable.RetryInterval))
	}
	g.Expect(cond.written()).To(HaveLen(3), "tried on every reconcile")
	g.Expect(strings.Count(logs.String(), "OperatorCondition not found")).To(Equal(1), "logged once:\n%s", logs.String())
}
