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
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"

	"github.com/example/memcached-operator/controllers/internal/fixture"
)

// shutdown returns a mutation setting spec.gracefulShutdown (nil: leave the field unset).
func shutdown(delay, grace *int32) func(*cachev1alpha1.Memcached) {
	return func(mc *cachev1alpha1.Memcached) {
		mc.Spec.GracefulShutdown = cachev1alpha1.GracefulShutdownSpec{PreStopDelaySeconds: delay, TerminationGracePeriodSeconds: grace}
	}
}

// The pod template carries the preStop sleep and the grace period of spec.gracefulShutdown; the
// defaults (no delay, 30 s) add no hook and equal the Pod API's default, so the pod template of an
// instance created before the field existed does not change.
func TestGracefulShutdownInPodTemplate(t *testing.T) {
	tests := map[string]struct {
		mutate    func(*cachev1alpha1.Memcached)
		wantSleep *int64 // nil: no lifecycle at all
		wantGrace int64
	}{
		"unset (built in Go): defaults": {mutate: shutdown(nil, nil), wantGrace: 30},
		"CRD defaults":                  {mutate: shutdown(ptr.To[int32](0), ptr.To[int32](30)), wantGrace: 30},
		"delay 10, grace 30":            {mutate: shutdown(ptr.To[int32](10), ptr.To[int32](30)), wantSleep: ptr.To[int64](10), wantGrace: 30},
		"delay 1, grace 2":              {mutate: shutdown(ptr.To[int32](1), ptr.To[int32](2)), wantSleep: ptr.To[int64](1), wantGrace: 2},
		"delay 300, grace 3600":         {mutate: shutdown(ptr.To[int32](300), ptr.To[int32](3600)), wantSleep: ptr.To[int64](300), wantGrace: 3600},
		"grace only":                    {mutate: shutdown(nil, ptr.To[int32](5)), wantGrace: 5},
		"delay only (grace default)":    {mutate: shutdown(ptr.To[int32](7), nil), wantSleep: ptr.To[int64](7), wantGrace: 30},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ps := DesiredDeployment(fixture.Defaulted("cache", tc.mutate), Options{DefaultImage: "img:1"}).Spec.Template.Spec
			fixture.Expect(t, "terminationGracePeriodSeconds", ps.TerminationGracePeriodSeconds, ptr.To(tc.wantGrace))
			lc := ps.Containers[0].Lifecycle
			if tc.wantSleep == nil {
				if lc != nil {
					t.Fatalf("lifecycle = %+v, want none", lc)
				}
				return
			}
			want := &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: *tc.wantSleep}}}
			fixture.Expect(t, "lifecycle", lc, want)
		})
	}
}

// Graceful shutdown is drift-corrected: a hook or grace period edited in the Deployment is
// reverted, a spec change reaches it, and the server-defaulted copy of what we built is no drift.
func TestGracefulShutdownDrift(t *testing.T) {
	withDelay := DesiredDeployment(fixture.Defaulted("cache", shutdown(ptr.To[int32](10), ptr.To[int32](45))), Options{DefaultImage: "img:1"})
	noDelay := DesiredDeployment(fixture.Defaulted("cache"), Options{DefaultImage: "img:1"})
	tests := map[string]struct {
		live, desired *appsv1.Deployment
		mutate        func(d *appsv1.Deployment)
		want          bool
	}{
		"as built, server-defaulted": {live: withDelay, desired: withDelay, mutate: func(*appsv1.Deployment) {}, want: false},
		"defaults, server-defaulted": {live: noDelay, desired: noDelay, mutate: func(*appsv1.Deployment) {}, want: false},
		"hook removed by hand":       {live: withDelay, desired: withDelay, mutate: func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Lifecycle = nil }, want: true},
		"sleep changed by hand":      {live: withDelay, desired: withDelay, mutate: func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Lifecycle.PreStop.Sleep.Seconds = 1 }, want: true},
		"hook added by hand": {live: noDelay, desired: noDelay, mutate: func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].Lifecycle = withDelay.Spec.Template.Spec.Containers[0].Lifecycle.DeepCopy()
		}, want: true},
		"grace period changed":   {live: withDelay, desired: withDelay, mutate: func(d *appsv1.Deployment) { d.Spec.Template.Spec.TerminationGracePeriodSeconds = ptr.To[int64](30) }, want: true},
		"spec: delay turned off": {live: withDelay, desired: noDelay, mutate: func(*appsv1.Deployment) {}, want: true},
		"spec: delay turned on":  {live: noDelay, desired: withDelay, mutate: func(*appsv1.Deployment) {}, want: true},
		"stop signal added by hand": {live: withDelay, desired: withDelay, mutate: func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].Lifecycle.StopSignal = ptr.To(corev1.SIGINT)
		}, want: true},
		"postStart hook added by hand": {live: withDelay, desired: withDelay, mutate: func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].Lifecycle.PostStart = &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 1}}
		}, want: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			live := fixture.ServerDefaulted(tc.live)
			tc.mutate(live)
			if got := DeploymentNeedsUpdate(live, tc.desired); got != tc.want {
				t.Fatalf("deploymentNeedsUpdate() = %v, want %v", got, tc.want)
			}
			UpdateDeployment(live, tc.desired)
			if DeploymentNeedsUpdate(live, tc.desired) {
				t.Fatal("still needs an update after updateDeployment")
			}
		})
	}
}
