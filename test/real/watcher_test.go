//go:build real

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

package real

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/test/utils"
)

// availabilityWatcher polls a Memcached every 200 ms for as long as a test runs and records every
// moment its status claims Available=True while fewer than spec.size pods of the current template
// are ready: the claim must never be false.
//
// One sample is: read the Memcached (A), list its pods (P), read it again (B). A sample is judged
// only when A and B have the same resourceVersion, so the status was in force during the whole pod
// list, and when the Available condition and status.observedGeneration are at metadata.generation,
// so the claim is about the spec the sample read (a claim left over from an older generation is
// counted as stale: it is about a spec that no longer exists, e.g. the size before a scale).
// Judging: count the pods of P that are not terminating, Running, Ready and run the current -m;
// Available=True with fewer than spec.size of them is a violation.
//
// It also checks that the status is never lost: status.observedGeneration never goes down and,
// once written, the conditions never disappear.
type availabilityWatcher struct {
	key    client.ObjectKey
	cancel context.CancelFunc
	done   chan struct{}

	mu                             sync.Mutex
	samples, judged, availableTrue int
	stale, moved                   int
	maxObservedGeneration          int64
	hadConditions                  bool
	violations, lost, readErrors   []string
	firstAvailable                 map[int64]time.Time
}

// watchAvailability starts polling the Memcached key (it may not exist yet) until the test ends,
// then reports every violation as a test error.
func watchAvailability(t *testing.T, key client.ObjectKey) *availabilityWatcher {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w := &availabilityWatcher{key: key, cancel: cancel, done: make(chan struct{}), firstAvailable: map[int64]time.Time{}}
	go w.run(ctx)
	t.Cleanup(func() {
		w.stop()
		w.mu.Lock()
		defer w.mu.Unlock()
		t.Logf("availability watcher on %s: %d samples, %d judged (%d with Available=True), %d stale claims skipped, %d moved during the sample",
			key, w.samples, w.judged, w.availableTrue, w.stale, w.moved)
		if w.judged == 0 || w.availableTrue == 0 {
			t.Errorf("availability watcher on %s judged %d samples, %d with Available=True: it proved nothing", key, w.judged, w.availableTrue)
		}
		if len(w.violations) > 0 {
			t.Errorf("Memcached %s claimed Available=True while fewer than spec.size pods were ready, %d time(s):\n%s",
				key, len(w.violations), strings.Join(w.violations, "\n"))
		}
		if len(w.lost) > 0 {
			t.Errorf("Memcached %s lost status %d time(s):\n%s", key, len(w.lost), strings.Join(w.lost, "\n"))
		}
		if len(w.readErrors) > 0 {
			t.Errorf("the availability watcher could not read %s %d time(s):\n%s", key, len(w.readErrors), strings.Join(w.readErrors, "\n"))
		}
	})
	return w
}

// stop ends the polling (idempotent).
func (w *availabilityWatcher) stop() {
	w.cancel()
	<-w.done
}

// firstAvailableAt returns when the watcher first saw a judged Available=True at generation gen.
func (w *availabilityWatcher) firstAvailableAt(gen int64) (time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	at, ok := w.firstAvailable[gen]
	return at, ok
}

func (w *availabilityWatcher) run(ctx context.Context) {
	defer close(w.done)
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		w.sample(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func (w *availabilityWatcher) sample(ctx context.Context) {
	a, err := utils.GetMemcached(ctx, suite.k8s, w.key)
	if err != nil {
		if !apierrors.IsNotFound(err) && ctx.Err() == nil {
			w.note(&w.readErrors, "failed to read the Memcached: %v", err)
		}
		return
	}
	pods, err := utils.InstancePods(ctx, suite.k8s, w.key)
	if err != nil {
		return
	}
	b, err := utils.GetMemcached(ctx, suite.k8s, w.key)
	if err != nil {
		return
	}
	at := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.samples++
	if b.Status.ObservedGeneration < w.maxObservedGeneration {
		w.lost = append(w.lost, fmt.Sprintf("%s status.observedGeneration went down from %d to %d", at.Format(time.StampMilli), w.maxObservedGeneration, b.Status.ObservedGeneration))
	}
	w.maxObservedGeneration = max(w.maxObservedGeneration, b.Status.ObservedGeneration)
	if w.hadConditions && len(b.Status.Conditions) == 0 {
		w.lost = append(w.lost, fmt.Sprintf("%s the conditions disappeared (status %+v)", at.Format(time.StampMilli), b.Status))
	}
	w.hadConditions = w.hadConditions || len(b.Status.Conditions) > 0
	if a.ResourceVersion != b.ResourceVersion {
		w.moved++
		return
	}
	c := meta.FindStatusCondition(b.Status.Conditions, cachev1alpha1.ConditionAvailable)
	if c == nil || c.ObservedGeneration != b.Generation || b.Status.ObservedGeneration != b.Generation {
		if c != nil && c.Status == metav1.ConditionTrue {
			w.stale++
		}
		return
	}
	w.judged++
	if c.Status != metav1.ConditionTrue {
		return
	}
	w.availableTrue++
	if _, ok := w.firstAvailable[b.Generation]; !ok {
		w.firstAvailable[b.Generation] = at
	}
	ready := 0
	for i := range pods {
		p := &pods[i]
		if p.DeletionTimestamp == nil && utils.PodRunningReady(p) && ofTemplate(p, b.Spec.Memcached.MaxMemoryMB) {
			ready++
		}
	}
	if ready < int(b.Spec.Size) {
		w.violations = append(w.violations, fmt.Sprintf("%s generation %d: Available=True (%s: %s) with spec.size %d but %d ready pods with -m %d:\n%s",
			at.Format(time.StampMilli), b.Generation, c.Reason, c.Message, b.Spec.Size, ready, b.Spec.Memcached.MaxMemoryMB, podsState(pods)))
	}
}

// note appends a formatted message to list under the lock.
func (w *availabilityWatcher) note(list *[]string, format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	*list = append(*list, time.Now().Format(time.StampMilli)+" "+fmt.Sprintf(format, args...))
}
