//go:build olm

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

package olm

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// expectBundleDeprecated waits until OLM reports, in the conditions of the Subscription in ns,
// whether its installed bundle is deprecated by the catalog's olm.deprecations blob: with
// deprecated, BundleDeprecated and the Deprecated roll-up are True and their messages contain each
// of want; without, neither condition is there. Source: operator-framework/olm-docs#323 (the
// olm.deprecations schema; OLM shows a deprecation on the Subscription's conditions).
func expectBundleDeprecated(t *testing.T, g Gomega, ns string, deprecated bool, want ...string) {
	t.Helper()
	start := time.Now()
	g.Eventually(func(g Gomega) {
		sub := &operatorsv1alpha1.Subscription{}
		g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: packageName}, sub)).To(Succeed())
		for _, ct := range []operatorsv1alpha1.SubscriptionConditionType{operatorsv1alpha1.SubscriptionBundleDeprecated, operatorsv1alpha1.SubscriptionDeprecated} {
			c := sub.Status.GetCondition(ct)
			if !deprecated {
				g.Expect(c.Status).NotTo(Equal(corev1.ConditionTrue), "condition %s of the Subscription (installed %s): %s", ct, sub.Status.InstalledCSV, c.Message)
				continue
			}
			g.Expect(c.Status).To(Equal(corev1.ConditionTrue), "condition %s of the Subscription (installed %s)", ct, sub.Status.InstalledCSV)
			for _, w := range want {
				g.Expect(c.Message).To(ContainSubstring(w), "condition %s", ct)
			}
		}
	}, 60*time.Second, 250*time.Millisecond).Should(Succeed())
	if deprecated {
		step(t, "Subscription reports BundleDeprecated", start)
	} else {
		step(t, "Subscription reports no deprecation", start)
	}
}
