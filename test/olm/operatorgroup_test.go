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
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/memcached-operator/test/utils"
)

// operatorGroup runs hack/operator-group.sh (what `make demo-olm` runs) for ns and targets (nil:
// all namespaces). It returns the name of the OperatorGroup it created or reused, what the script
// said on stderr, and its error when it refused.
func operatorGroup(ns string, targets []string) (string, string, error) {
	res, err := utils.OperatorGroup(repoRoot, os.Getenv("KUBECONFIG"), filepath.Join(repoRoot, "bin", "kubectl"), ns, targets)
	return res.Name, res.Message, err
}

// ensureOperatorGroup gives ns the OperatorGroup for targets (nil: all namespaces) through
// hack/operator-group.sh: the one ns holds when it fits, else a new one named memcached.
func ensureOperatorGroup(t *testing.T, g Gomega, ns string, targets []string) string {
	t.Helper()
	name, msg, err := operatorGroup(ns, targets)
	g.Expect(err).NotTo(HaveOccurred(), "operator-group.sh %s %v: %s", ns, targets, msg)
	t.Logf("%s", strings.TrimSpace(msg))
	return name
}

// operatorGroupNames lists the OperatorGroups of ns.
func operatorGroupNames(g Gomega, ns string) []string {
	list := &operatorsv1.OperatorGroupList{}
	g.Expect(k8s.List(context.Background(), list, client.InNamespace(ns))).To(Succeed())
	var names []string
	for _, og := range list.Items {
		names = append(names, og.Name)
	}
	return names
}

// A namespace that already holds an OperatorGroup keeps exactly that one: hack/operator-group.sh
// (used by `make demo-olm` and this suite) reuses it when it serves the namespace, and OLM
// installs from our catalog with it; it refuses, naming the group, when the group serves other
// namespaces, and when the namespace holds two groups, the state in which OLM fails every CSV
// there with TooManyOperatorGroups (shown here). Sources: operator-framework/operator-lifecycle-
// manager doc/design/operatorgroups.md ("If multiple OperatorGroups exist in a single namespace,
// any CSV created in that namespace will transition to a failure state with the reason
// TooManyOperatorGroups"), opendatahub-io/opendatahub-operator#114 (an install adding a second
// group failed that way), operator-framework/operator-sdk#3689 (run packagemanifests reuses a
// matching group, refuses a conflicting one).
func TestOperatorGroupReuse(t *testing.T) {
	serveCatalog(t, "")
	g := NewWithT(t)
	ctx := context.Background()
	ns, other := "olm-og", "olm-og-other"
	deleteNamespaces(t, g, ns, other) // leftovers of an interrupted run
	t.Cleanup(func() {
		g := NewWithT(t)
		uninstallAll(t, g, ns)
		deleteNamespaces(t, g, ns, other)
	})
	createNamespace(t, g, ns)
	createNamespace(t, g, other)
	newGroup := func(ns, name string, targets ...string) {
		g.Expect(k8s.Create(ctx, &operatorsv1.OperatorGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: operatorsv1.OperatorGroupSpec{TargetNamespaces: targets}})).To(Succeed())
	}

	// The namespace's own OperatorGroup (an administrator's, say) serves it: reused, nothing added.
	newGroup(ns, "team", ns)
	name, msg, err := operatorGroup(ns, []string{ns})
	g.Expect(err).NotTo(HaveOccurred(), msg)
	g.Expect(name).To(Equal("team"))
	g.Expect(msg).To(ContainSubstring("reusing OperatorGroup olm-og/team"))
	g.Expect(operatorGroupNames(g, ns)).To(ConsistOf("team"))
	csv := subscribe(t, g, ns, "stable", "")
	g.Expect(csv.Annotations).To(HaveKeyWithValue("olm.operatorGroup", "team"))

	// A group that serves another namespace does not fit: refused, naming it; none added.
	newGroup(other, "elsewhere", ns)
	_, msg, err = operatorGroup(other, []string{other})
	g.Expect(err).To(HaveOccurred(), "operator-group.sh accepted a group that does not serve %s: %s", other, msg)
	g.Expect(msg).To(And(ContainSubstring("OperatorGroup elsewhere"), ContainSubstring("not "+other)))
	g.Expect(operatorGroupNames(g, other)).To(ConsistOf("elsewhere"))
	t.Logf("refused: %s", strings.TrimSpace(msg))

	// Two groups in one namespace: OLM fails the CSV there, and the script refuses, naming both.
	start := time.Now()
	newGroup(ns, "second", ns)
	g.Eventually(func(g Gomega) {
		c := &operatorsv1alpha1.ClusterServiceVersion{}
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(csv), c)).To(Succeed())
		g.Expect(c.Status.Reason).To(Equal(operatorsv1alpha1.CSVReasonTooManyOperatorGroups), "CSV %s: %s %s", c.Name, c.Status.Phase, c.Status.Message)
	}, 60*time.Second, 250*time.Millisecond).Should(Succeed())
	step(t, "a second OperatorGroup: CSV "+csv.Name+" TooManyOperatorGroups", start)
	_, msg, err = operatorGroup(ns, []string{ns})
	g.Expect(err).To(HaveOccurred(), "operator-group.sh accepted a namespace with two groups: %s", msg)
	g.Expect(msg).To(And(ContainSubstring("team"), ContainSubstring("second"), ContainSubstring("TooManyOperatorGroups")))
	t.Logf("refused: %s", strings.TrimSpace(msg))
}
