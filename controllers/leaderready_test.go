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
	"net/http/httptest"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/example/memcached-operator/internal/leaderready"
)

// The readiness check main.go adds with --leader-elect, against a real API server: a manager that
// leads is Ready; one that stands by behind a leader renewing the Lease is Ready (a rolling update
// of the operator is not held); one whose RBAC refuses it the Lease is not Ready, and says why.
func TestLeaderElectionReadiness(t *testing.T) {
	const ns = "default"
	start := func(t *testing.T, g Gomega, c *rest.Config, id string) (ctrl.Manager, *leaderready.Check) {
		mgr, err := ctrl.NewManager(c, ctrl.Options{
			Scheme: k8sClient.Scheme(), Metrics: metricsserver.Options{BindAddress: "0"},
			LeaderElection: true, LeaderElectionID: id, LeaderElectionNamespace: ns, LeaderElectionReleaseOnCancel: true,
			Controller: config.Controller{SkipNameValidation: ptr.To(true)},
		})
		g.Expect(err).NotTo(HaveOccurred())
		check := &leaderready.Check{Elected: mgr.Elected(), Reader: mgr.GetAPIReader(), Lease: types.NamespacedName{Namespace: ns, Name: id}, Start: time.Now()}
		ctx, cancel := context.WithCancel(testCtx)
		done := make(chan error, 1)
		go func() { done <- mgr.Start(ctx) }()
		t.Cleanup(func() { cancel(); <-done })
		return mgr, check
	}
	req := httptest.NewRequest("GET", "/readyz", nil)

	t.Run("leading", func(t *testing.T) {
		g := NewWithT(t)
		mgr, check := start(t, g, cfg, "fc-leading")
		g.Eventually(mgr.Elected(), timeout).Should(BeClosed())
		g.Expect(check.Check(req)).To(Succeed())
	})

	t.Run("standby behind a live leader", func(t *testing.T) {
		g := NewWithT(t)
		const id = "fc-standby"
		lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: id}, Spec: coordinationv1.LeaseSpec{
			HolderIdentity: ptr.To("the-old-pod"), LeaseDurationSeconds: ptr.To[int32](15),
			AcquireTime: ptr.To(metav1.NowMicro()), RenewTime: ptr.To(metav1.NowMicro()),
		}}
		g.Expect(k8sClient.Create(testCtx, lease)).To(Succeed())
		mgr, check := start(t, g, cfg, id)
		g.Consistently(func() error { return check.Check(req) }, 2*time.Second, 200*time.Millisecond).Should(Succeed())
		g.Expect(mgr.Elected()).NotTo(BeClosed(), "the other holder still leads")
	})

	t.Run("refused the Lease", func(t *testing.T) {
		g := NewWithT(t)
		user, err := testEnv.AddUser(envtest.User{Name: "no-lease-rbac"}, cfg)
		g.Expect(err).NotTo(HaveOccurred())
		mgr, check := start(t, g, user.Config(), "fc-refused")
		g.Eventually(func() error { return check.Check(req) }, timeout, interval).Should(MatchError(ContainSubstring("forbidden")))
		g.Expect(mgr.Elected()).NotTo(BeClosed())
	})
}
