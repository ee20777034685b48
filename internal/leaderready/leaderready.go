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

// Package leaderready is the readiness check of a manager that elects a leader: Ready means the
// replica can do its work, which for a replica that does not lead is to stand by behind a leader
// that renews the Lease. A replica that cannot read or take the Lease (its RBAC refuses it, the
// API server rejects its writes) reconciles nothing and says so by failing readiness: the pod is
// not Ready, its Deployment not Available, and OLM shows the CSV as not installed.
//
// Why not fail readiness whenever the replica does not lead: during a rolling update of the
// operator's Deployment (one replica, maxUnavailable 0) the new pod waits for the old one to
// release the Lease, and the old one is terminated only once the new one is Ready, so that rule
// would hold every upgrade until its progress deadline. A standby behind a live leader is Ready.
package leaderready

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// readTimeout bounds the Lease read of one check (the kubelet's default probe timeout is 1 s; the
// manifests give the probe its default).
const readTimeout = 900 * time.Millisecond

// Check is a healthz.Checker (its Check method) for a manager with leader election.
type Check struct {
	// Elected is closed once this replica leads (mgr.Elected()).
	Elected <-chan struct{}
	// Reader reads the Lease from the API server (an uncached reader: mgr.GetAPIReader()).
	Reader client.Reader
	// Lease names the leader election Lease (LeaderElectionNamespace/LeaderElectionID).
	Lease types.NamespacedName
	// LeaseDuration is the manager's LeaseDuration (controller-runtime's default, 15 s, when 0):
	// how long a Lease that is free, expired or missing may stay so before a replica that does not
	// take it counts as refused.
	LeaseDuration time.Duration
	// Start is when the manager started (a missing Lease counts from then).
	Start time.Time
	// Now returns the current time (time.Now when nil).
	Now func() time.Time

	mu       sync.Mutex
	reported string
}

// Check implements healthz.Checker: nil while this replica leads, or stands by behind a leader
// that renews the Lease; an error saying why otherwise (decide). A change of its verdict is logged.
func (c *Check) Check(req *http.Request) error {
	select {
	case <-c.Elected:
		return c.report(nil)
	default:
	}
	ctx, cancel := context.WithTimeout(req.Context(), readTimeout)
	defer cancel()
	lease := &coordinationv1.Lease{}
	err := c.Reader.Get(ctx, c.Lease, lease)
	if err != nil {
		lease = nil
	}
	now := time.Now()
	if c.Now != nil {
		now = c.Now()
	}
	d := c.LeaseDuration
	if d <= 0 {
		d = 15 * time.Second
	}
	return c.report(decide(c.Lease, lease, err, c.Start, now, d))
}

// report logs err when the verdict changes, and returns it.
func (c *Check) report(err error) error {
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if msg != c.reported {
		log := logf.Log.WithName("leader-election")
		if err != nil {
			log.Error(err, "Not ready: this replica cannot lead and no other replica does; it reconciles nothing")
		} else if c.reported != "" {
			log.Info("Ready again: leading, or standing by behind a leader")
		}
		c.reported = msg
	}
	return err
}

// decide returns why a replica that does not lead is not ready, or nil, from the Lease key read at
// now (lease nil when getErr is set), the manager's start and the lease duration d:
//   - the Lease cannot be read (other than NotFound): the elector cannot read it either;
//   - no Lease, for longer than d since the start: the elector could not create it;
//   - a Lease with no holder, or whose holder has not renewed it for longer than twice d (it
//     expired d ago and the elector, which tries every 2 s, has not taken it): it is refused;
//   - otherwise another replica leads (or this one is taking over): nil.
func decide(key types.NamespacedName, lease *coordinationv1.Lease, getErr error, start, now time.Time, d time.Duration) error {
	if getErr != nil {
		if !apierrors.IsNotFound(getErr) {
			return fmt.Errorf("cannot read the leader election Lease %s: %w", key, getErr)
		}
		if now.Sub(start) > d {
			return fmt.Errorf("the leader election Lease %s does not exist %s after the start: this replica could not create it", key, now.Sub(start).Round(time.Second))
		}
		return nil
	}
	spec := lease.Spec
	if spec.HolderIdentity == nil || *spec.HolderIdentity == "" {
		if now.Sub(start) > d {
			return fmt.Errorf("the leader election Lease %s has no holder and this replica has not taken it", key)
		}
		return nil
	}
	renewed := start
	if spec.RenewTime != nil {
		renewed = spec.RenewTime.Time
	} else if spec.AcquireTime != nil {
		renewed = spec.AcquireTime.Time
	}
	if spec.LeaseDurationSeconds != nil && time.Duration(*spec.LeaseDurationSeconds)*time.Second > d {
		d = time.Duration(*spec.LeaseDurationSeconds) * time.Second
	}
	if since := now.Sub(renewed); since > 2*d && now.Sub(start) > d {
		return fmt.Errorf("the leader election Lease %s, held by %s, was last renewed %s ago and this replica has not taken it over", key, *spec.HolderIdentity, since.Round(time.Second))
	}
	return nil
}
