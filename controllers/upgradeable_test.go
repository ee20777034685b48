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
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/operator-framework/operator-lib/conditions"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/upgradeable"

	"github.com/example/memcached-operator/controllers/cache"
	"github.com/example/memcached-operator/controllers/resources"
)

// recordedCondition is an OperatorCondition that records every status written to it.
type recordedCondition struct {
	mu       sync.Mutex
	set      []metav1.ConditionStatus
	messages []string
}

func (c *recordedCondition) Get(context.Context) (*metav1.Condition, error) { return nil, nil }

func (c *recordedCondition) Set(_ context.Context, s metav1.ConditionStatus, opts ...conditions.Option) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.set = append(c.set, s)
	cond := &metav1.Condition{}
	for _, o := range opts {
		o(cond)
	}
	c.messages = append(c.messages, cond.Message)
	return nil
}

// last returns the status and message last written.
func (c *recordedCondition) last() (metav1.ConditionStatus, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.set) == 0 {
		return "", ""
	}
	return c.set[len(c.set)-1], c.messages[len(c.messages)-1]
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

// namespaceReader reads only one namespace (other tests' instances keep rolling out in theirs).
type namespaceReader struct {
	client.Reader
	ns string
}

func (r namespaceReader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return r.Reader.List(ctx, list, append(opts, client.InNamespace(r.ns))...)
}

// An instance rolling out holds the operator's upgrade, with a message that names it and says how
// to release the hold; once it crash-loops (Degraded/ContainerFailing, its rollout still
// unfinished) it no longer does: the release that holds back may be the one that fixes it.
func TestUpgradeableNotHeldByAFailingInstance(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-upgradeable-fail", "mc"
	g.Expect(k8sClient.Create(testCtx, newMemcached(ns, name, 2))).To(Succeed())
	pods := readyPods(g, ns, name, 2)
	g.Eventually(func(g Gomega) {
		mc := getMemcached(g, ns, name)
		g.Expect(mc.Status.ObservedGeneration).To(Equal(mc.Generation))
		g.Expect(conditionOf(mc, cachev1alpha1.ConditionProgressing).Status).To(Equal(metav1.ConditionTrue))
	}, timeout, interval).Should(Succeed())

	cond := &recordedCondition{}
	r := &upgradeable.Reconciler{Reader: namespaceReader{k8sClient, ns}, Condition: cond, ConditionName: "memcached-operator.v0.3.0"}
	_, err := r.Reconcile(testCtx, ctrl.Request{})
	g.Expect(err).NotTo(HaveOccurred())
	status, msg := cond.last()
	g.Expect(status).To(Equal(metav1.ConditionFalse))
	g.Expect(msg).To(And(ContainSubstring(ns+"/"+name), ContainSubstring(cachev1alpha1.PauseAnnotation+"=true"),
		ContainSubstring("kubectl patch operatorcondition memcached-operator.v0.3.0")))

	g.Eventually(func() error {
		p := &corev1.Pod{}
		if err := k8sClient.Get(testCtx, key(ns, pods[1]), p); err != nil {
			return err
		}
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: metav1.Now()}}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{
			Name: resources.ContainerName, Image: testImage, RestartCount: 3,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}},
		}}
		return k8sClient.Status().Update(testCtx, p)
	}, timeout, interval).Should(Succeed())
	g.Eventually(func(g Gomega) {
		mc := getMemcached(g, ns, name)
		g.Expect(conditionOf(mc, cachev1alpha1.ConditionDegraded).Reason).To(Equal(cachev1alpha1.ReasonContainerFailing))
		g.Expect(conditionOf(mc, cachev1alpha1.ConditionProgressing).Status).To(Equal(metav1.ConditionTrue), "the rollout has not finished")
	}, timeout, interval).Should(Succeed())
	_, err = r.Reconcile(testCtx, ctrl.Request{})
	g.Expect(err).NotTo(HaveOccurred())
	status, msg = cond.last()
	g.Expect(status).To(Equal(metav1.ConditionTrue), msg)
}
