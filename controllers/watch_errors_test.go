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
	"errors"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// flakyReader lists the Memcacheds it holds, failing the first fail lists.
type flakyReader struct {
	client.Reader
	mu    sync.Mutex
	fail  int
	calls int
	items []cachev1alpha1.Memcached
}

func (r *flakyReader) List(_ context.Context, list client.ObjectList, _ ...client.ListOption) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	if r.calls <= r.fail {
		return errors.New("the cache is not synced")
	}
	list.(*cachev1alpha1.MemcachedList).Items = append([]cachev1alpha1.Memcached(nil), r.items...)
	return nil
}

func (r *flakyReader) setFail(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fail, r.calls = n, 0
}

func (r *flakyReader) setItems(items ...cachev1alpha1.Memcached) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.items = items
}

// A Secret event whose Memcacheds cannot be listed (the index List fails) is not dropped: the
// instances that reference the Secret are enqueued once a retry succeeds.
func TestSecretEventRetriedAfterListError(t *testing.T) {
	g := NewWithT(t)
	reader := &flakyReader{fail: 3, items: []cachev1alpha1.Memcached{{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "mc"}}}}
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer q.ShutDown()
	secret := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "users"}}
	secretEvents(reader).Update(testCtx, event.UpdateEvent{ObjectOld: secret, ObjectNew: secret}, q)
	g.Eventually(q.Len, 5*time.Second, 10*time.Millisecond).Should(Equal(1), "the instance is enqueued once a list succeeds")
	req, _ := q.Get()
	g.Expect(req).To(Equal(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "mc"}}))
}

// A scrape whose list fails repeats the series of the last successful one (a firing
// MemcachedInstanceDegraded is not resolved by a cache hiccup) and counts the failure.
func TestInstanceCollectorKeepsSeriesOnListError(t *testing.T) {
	g := NewWithT(t)
	degraded := cachev1alpha1.Memcached{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "mc"}}
	degraded.Spec.Size = 3
	degraded.Status.Conditions = []metav1.Condition{{Type: cachev1alpha1.ConditionDegraded, Status: metav1.ConditionTrue, Reason: cachev1alpha1.ReasonContainerFailing}}
	reader := &flakyReader{items: []cachev1alpha1.Memcached{degraded}}
	elected := make(chan struct{})
	close(elected)
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(&InstanceCollector{Reader: reader, Elected: elected})
	degradedOf := func() (float64, int) {
		families, err := reg.Gather()
		g.Expect(err).NotTo(HaveOccurred())
		v, n := 0.0, 0
		for _, f := range families {
			for _, m := range f.GetMetric() {
				n++
				if f.GetName() == "memcached_operator_instance_degraded" {
					v += m.GetGauge().GetValue()
				}
			}
		}
		return v, n
	}
	v, n := degradedOf()
	g.Expect([]any{v, n}).To(Equal([]any{1.0, 3}))

	failures := counterValue(g, instanceListFailures)
	reader.setFail(1)
	v, n = degradedOf()
	g.Expect([]any{v, n}).To(Equal([]any{1.0, 3}), "the last series, not none")
	g.Expect(counterValue(g, instanceListFailures)).To(Equal(failures + 1))

	// The next successful list is exported as it is (a deleted instance's series are gone).
	reader.setItems()
	_, n = degradedOf()
	g.Expect(n).To(BeZero())
}

// counterValue returns the value of counter c.
func counterValue(g Gomega, c prometheus.Counter) float64 {
	m := &dto.Metric{}
	g.Expect(c.Write(m)).To(Succeed())
	return m.GetCounter().GetValue()
}
