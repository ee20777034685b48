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
	"fmt"
	"sort"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/operator-framework/operator-lib/conditions"
)

// UpgradeableReporter publishes the OLM OperatorCondition "Upgradeable" of the operator: False while
// any Memcached is rolling out or scaling (so OLM holds an operator upgrade until the operands are
// stable), True otherwise. It writes only when the aggregate changes. A nil *UpgradeableReporter
// (not run by OLM: OPERATOR_CONDITION_NAME unset) does nothing.
// See https://olm.operatorframework.io/docs/advanced-tasks/communicating-operator-conditions-to-olm/.
type UpgradeableReporter struct {
	condition conditions.Condition

	mu          sync.Mutex
	progressing map[types.NamespacedName]struct{}
	published   metav1.ConditionStatus // "" until the first successful write
}

// NewUpgradeableReporter returns a reporter that writes through cond (operator-lib conditions).
func NewUpgradeableReporter(cond conditions.Condition) *UpgradeableReporter {
	return &UpgradeableReporter{condition: cond, progressing: map[types.NamespacedName]struct{}{}}
}

// Start publishes the current aggregate (Upgradeable=True when nothing is progressing) once, so a
// stale False from a previous run does not outlive it, then waits for ctx (manager.Runnable).
func (u *UpgradeableReporter) Start(ctx context.Context) error {
	u.mu.Lock()
	u.publish(ctx)
	u.mu.Unlock()
	<-ctx.Done()
	return nil
}

// Report records whether the instance key is progressing and publishes the aggregate if it changed.
func (u *UpgradeableReporter) Report(ctx context.Context, key types.NamespacedName, progressing bool) {
	if u == nil {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if progressing {
		u.progressing[key] = struct{}{}
	} else {
		delete(u.progressing, key)
	}
	u.publish(ctx)
}

// Forget drops a deleted instance and publishes the aggregate if it changed.
func (u *UpgradeableReporter) Forget(ctx context.Context, key types.NamespacedName) {
	u.Report(ctx, key, false)
}

// publish writes the aggregate when it differs from what was last written. Failures are logged and
// retried on the next report. Callers hold u.mu.
func (u *UpgradeableReporter) publish(ctx context.Context) {
	status, reason, msg := metav1.ConditionTrue, "NoRolloutInProgress", "no Memcached instance is rolling out"
	if len(u.progressing) > 0 {
		names := make([]string, 0, len(u.progressing))
		for k := range u.progressing {
			names = append(names, k.String())
		}
		sort.Strings(names)
		status, reason = metav1.ConditionFalse, "RolloutInProgress"
		msg = fmt.Sprintf("Memcached instances are rolling out: %s", strings.Join(names, ", "))
	}
	if status == u.published {
		return
	}
	log := logf.FromContext(ctx).WithValues("condition", "Upgradeable", "status", status)
	if err := u.condition.Set(ctx, status, conditions.WithReason(reason), conditions.WithMessage(msg)); err != nil {
		log.Error(err, "Failed to set OperatorCondition")
		return
	}
	log.Info("Set OperatorCondition", "reason", reason)
	u.published = status
}
