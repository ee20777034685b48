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

package olmreal

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	operatorsv2 "github.com/operator-framework/api/pkg/operators/v2"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/memcached-operator/test/real/memcache"
	"github.com/example/memcached-operator/test/utils"
)

// watchInterval is how often the client pod gets every key while the upgrade runs.
const watchInterval = 200 * time.Millisecond

// TestUpgradeByChannelBump is the upgrade user story on real pods, the one users of the last
// release take: the previous release (VERSION_PREVIOUS, its operator as released) is installed from
// stable while our catalog image's stable channel ends there, and creates the Memcached; then a
// catalog image whose stable head is the current release is pushed over the same tag, and OLM, polling the tag, finds
// it and upgrades with no manual step. While a Memcached is stuck mid-rollout the old operator
// reports Upgradeable=False and OLM holds the new CSV; once it goes, the upgrade completes. A
// client pod gets every key every 200 ms throughout and must see no error; the memcached pods are
// not restarted. Sources: operator-framework/operator-registry#292 (a catalog pushed again under
// the same tag is not picked up without polling), operator-framework/operator-lifecycle-manager#1733
// (how polling swaps the catalog pod), OLM's doc/design/catalog-polling.md.
func TestUpgradeByChannelBump(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	oldCSV := packageName + ".v" + suite.env["VERSION_PREVIOUS"]
	headCSV := csvName(suite.env["BUNDLE_HEAD"])

	start := time.Now()
	publishCatalog(t, upgradeCatalogSource, suite.env["CATALOG_IMAGE_PREVIOUS"], oldCSV)
	suite.phases.Record(t, "catalog image with stable ending at "+oldCSV+" published and served", start)

	start = time.Now()
	ns := newNamespace(t)
	ensureOperatorGroup(t, ns, []string{ns})
	g.Expect(subscribe(t, upgradeCatalogSource, ns, "")).To(Equal(oldCSV))
	waitOperatorReady(t, ns, suite.env["OPERATOR_IMAGE_PREVIOUS"])
	suite.phases.Record(t, "Subscription to stable: "+oldCSV+" Succeeded, operator pod Ready", start)

	start = time.Now()
	key := client.ObjectKey{Namespace: ns, Name: memcachedName}
	g.Expect(suite.k8s.Create(ctx, utils.NewMemcached(ns, memcachedName, memcachedSize))).To(Succeed())
	mc, pods := waitAvailable(t, key)
	before := utils.PodUIDs(pods)
	startClientPod(t, ns)
	servers := strings.Join(mc.Status.ServerList, ",")
	var set memcache.PlacementReport
	mustClient(t, ns, &set, "hashset", "-servers", servers, "-prefix", keyPrefix, "-n", "100")
	g.Expect(set.Keys).To(HaveLen(100))
	w := startWatch(t, ns, servers)
	suite.phases.Record(t, "Memcached Available (3 pods), 100 keys set, client pod getting them every 200 ms", start)

	// A rollout that waits without failing makes the operator report Upgradeable=False; OLM reads
	// it from the OperatorCondition's status. The stuck instance's pod is held by a scheduling
	// gate, as a batch queue (Kueue) holds pods: the rollout waits, and nothing fails. A failing
	// rollout (a pod no node can take, a crash loop) would not do: it reports Degraded, which
	// never holds an upgrade, since the next release may be what fixes it.
	start = time.Now()
	gateStuckPods(t, ns, "stuck")
	stuck := utils.NewMemcached(ns, "stuck", 1)
	g.Expect(suite.k8s.Create(ctx, stuck)).To(Succeed())
	g.Eventually(func(g Gomega) {
		oc := &operatorsv2.OperatorCondition{}
		g.Expect(suite.k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: oldCSV}, oc)).To(Succeed())
		c := meta.FindStatusCondition(oc.Spec.Conditions, operatorsv2.Upgradeable)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(c.Message).To(ContainSubstring(ns + "/stuck"))
		s := meta.FindStatusCondition(oc.Status.Conditions, operatorsv2.Upgradeable)
		g.Expect(s).NotTo(BeNil())
		g.Expect(s.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(s.ObservedGeneration).To(Equal(oc.Generation))
	}, time.Minute, poll).Should(Succeed())
	suite.phases.Record(t, "operator reports Upgradeable=False while "+ns+"/stuck rolls out", start)

	// The stable head moves forward: a new catalog image on the polled tag.
	start = time.Now()
	publishCatalog(t, upgradeCatalogSource, suite.env["CATALOG_IMAGE_HEAD"], headCSV)
	suite.phases.Record(t, "catalog image with stable ending at "+headCSV+" pushed, picked up by polling", start)
	start = time.Now()
	g.Eventually(func(g Gomega) {
		next := &operatorsv1alpha1.ClusterServiceVersion{}
		g.Expect(suite.k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: headCSV}, next)).To(Succeed())
		g.Expect(next.Status.Reason).To(Equal(operatorsv1alpha1.CSVReasonOperatorConditionNotUpgradeable))
	}, 2*time.Minute, poll).Should(Succeed())
	g.Consistently(func(g Gomega) {
		old := &operatorsv1alpha1.ClusterServiceVersion{}
		g.Expect(suite.k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: oldCSV}, old)).To(Succeed())
		g.Expect(old.Status.Phase).To(BeElementOf(operatorsv1alpha1.CSVPhaseSucceeded, operatorsv1alpha1.CSVPhaseReplacing))
		next := &operatorsv1alpha1.ClusterServiceVersion{}
		g.Expect(suite.k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: headCSV}, next)).To(Succeed())
		g.Expect(next.Status.Phase).To(Equal(operatorsv1alpha1.CSVPhasePending), "the new CSV is held")
		g.Expect(operatorImages(g, ns)).To(Equal([]string{suite.env["OPERATOR_IMAGE_PREVIOUS"]}))
	}, 10*time.Second, time.Second).Should(Succeed())
	suite.phases.Record(t, "OLM holds "+headCSV+" (Pending, OperatorConditionNotUpgradeable); old operator still running", start)

	// The stuck instance goes: Upgradeable turns True and OLM upgrades, nobody approving anything.
	start = time.Now()
	g.Expect(suite.k8s.Delete(ctx, stuck)).To(Succeed())
	waitCSVSucceeded(t, ns, headCSV)
	g.Eventually(func() bool {
		return apierrors.IsNotFound(suite.k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: oldCSV}, &operatorsv1alpha1.ClusterServiceVersion{}))
	}, 2*time.Minute, poll).Should(BeTrue(), "the old CSV %s was not removed", oldCSV)
	waitOperatorReady(t, ns, suite.env["OPERATOR_IMAGE_HEAD"])
	sub := &operatorsv1alpha1.Subscription{}
	g.Expect(suite.k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: packageName}, sub)).To(Succeed())
	g.Expect(sub.Status.InstalledCSV).To(Equal(headCSV))
	suite.phases.Record(t, "after Upgradeable cleared: "+headCSV+" Succeeded, "+oldCSV+" gone, new operator pod Ready", start)

	// The new operator leads (once the old one's lease is released or expires), reconciles and
	// reports Upgradeable on its own OperatorCondition.
	start = time.Now()
	g.Eventually(func() error { return operatorHasReconciled(ns) }, 2*time.Minute, poll).Should(Succeed())
	mc, pods = waitAvailable(t, key)
	g.Expect(utils.PodUIDs(pods)).To(Equal(before), "memcached pods changed across the upgrade")
	for _, p := range pods {
		for _, cs := range p.Status.ContainerStatuses {
			g.Expect(cs.RestartCount).To(BeZero(), "container %s of %s restarted", cs.Name, p.Name)
		}
	}
	g.Expect(strings.Join(mc.Status.ServerList, ",")).To(Equal(servers))
	report := w.stop(t)
	t.Logf("client pod: %d rounds of 100 gets every %d ms, %d gets answered, %d errors", report.Rounds, report.IntervalMs, report.Gets, len(report.Errors))
	g.Expect(report.Errors).To(BeEmpty(), "the client pod saw errors during the upgrade")
	g.Expect(report.Rounds).To(BeNumerically(">", 50), "the client pod watched for less than 10 s")
	g.Expect(report.Gets).To(Equal(100 * report.Rounds))
	g.Expect(forbiddenLines(t, ns)).To(BeEmpty(), "\"forbidden\" in the upgraded operator's log")
	suite.phases.Record(t, "new operator Upgradeable=True; same memcached pods; client saw 0 errors", start)

	// Uninstall: the Memcached first (its pods must go while the CRD exists), then the operator,
	// then what OLM leaves cluster-wide.
	start = time.Now()
	g.Expect(suite.k8s.Delete(ctx, mc)).To(Succeed())
	g.Eventually(func() (int, error) {
		list := &corev1.PodList{}
		err := suite.k8s.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{"app.kubernetes.io/instance": memcachedName})
		return len(list.Items), err
	}, 2*time.Minute, poll).Should(BeZero(), "the memcached pods were not garbage-collected")
	unsubscribe(t, ns)
	removeClusterObjects(t)
	suite.phases.Record(t, "uninstalled: Memcached, Subscription, CSV, ClusterRoles, CRD", start)
}

// schedulingGate is the gate gateStuckPods adds.
const schedulingGate = "example.com/held-by-the-upgrade-test"

// gateStuckPods makes the API server add a scheduling gate to every pod of the Memcached instance
// created in ns from now on, until the test ends: such a pod stays Pending (PodScheduled=False,
// SchedulingGated), which is waiting, not failing. A MutatingAdmissionPolicy does it, the way a
// queueing controller's webhook would; it returns once a server-side dry run shows the gate added
// (the API server loads a new policy asynchronously).
func gateStuckPods(t *testing.T, ns, instance string) {
	t.Helper()
	g := NewWithT(t)
	ctx := context.Background()
	name := "gate-" + ns + ".memcached-operator.test"
	policy := &admissionregistrationv1.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			FailurePolicy:      ptr.To(admissionregistrationv1.Fail),
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
			MatchConstraints: &admissionregistrationv1.MatchResources{
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: ns}},
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
						Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
					},
				}},
			},
			MatchConditions: []admissionregistrationv1.MatchCondition{{
				Name:       "instance",
				Expression: fmt.Sprintf(`has(object.metadata.labels) && object.metadata.labels[?'app.kubernetes.io/instance'].orValue('') == %q`, instance),
			}},
			Mutations: []admissionregistrationv1.Mutation{{
				PatchType: admissionregistrationv1.PatchTypeApplyConfiguration,
				ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{
					Expression: fmt.Sprintf(`Object{spec: Object.spec{schedulingGates: [Object.spec.schedulingGates{name: %q}]}}`, schedulingGate),
				},
			}},
		},
	}
	binding := &admissionregistrationv1.MutatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: name},
	}
	g.Expect(suite.k8s.Create(ctx, policy)).To(Succeed())
	g.Expect(suite.k8s.Create(ctx, binding)).To(Succeed())
	t.Cleanup(func() {
		for _, o := range []client.Object{binding, policy} {
			if err := suite.k8s.Delete(context.Background(), o); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("failed to delete %T %s: %v", o, o.GetName(), err)
			}
		}
	})
	g.Eventually(func(g Gomega) {
		probe := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: "gate-probe-", Labels: map[string]string{"app.kubernetes.io/instance": instance}},
			// Restricted, as the namespace enforces (a dry run is admitted like a create).
			Spec: corev1.PodSpec{
				SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
				Containers: []corev1.Container{{Name: "probe", Image: "example.invalid/probe", SecurityContext: &corev1.SecurityContext{
					AllowPrivilegeEscalation: ptr.To(false), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				}}},
			},
		}
		g.Expect(suite.k8s.Create(ctx, probe, client.DryRunAll)).To(Succeed())
		g.Expect(probe.Spec.SchedulingGates).To(ContainElement(corev1.PodSchedulingGate{Name: schedulingGate}))
	}, 30*time.Second, poll).Should(Succeed(), "the scheduling gate policy never took effect")
}

// operatorImages returns the images of the operator pods in ns.
func operatorImages(g Gomega, ns string) []string {
	pods := &corev1.PodList{}
	g.Expect(suite.k8s.List(context.Background(), pods, client.InNamespace(ns), client.MatchingLabels{"control-plane": "controller-manager"})).To(Succeed())
	var images []string
	for _, p := range pods.Items {
		images = append(images, p.Spec.Containers[0].Image)
	}
	return images
}

// watcher is a `mcclient watch` running in the client pod through `kubectl exec -i`.
type watcher struct{ *utils.Watcher }

// startWatch starts `mcclient watch` against servers in the client pod of ns: every 200 ms it gets
// the 100 keys hashset stored, each from its server.
func startWatch(t *testing.T, ns, servers string) *watcher {
	t.Helper()
	return &watcher{mcclient(ns).Watch(t, "watch", "-servers", servers, "-prefix", keyPrefix, "-n", "100", "-interval", watchInterval.String())}
}

// stop ends the watch and returns its report.
func (w *watcher) stop(t *testing.T) memcache.WatchReport {
	t.Helper()
	var r memcache.WatchReport
	w.Stop(t, &r)
	return r
}
