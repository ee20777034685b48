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
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/example/memcached-operator/test/real/memcache"
	"github.com/example/memcached-operator/test/utils"
)

// mirrorCatalogSource runs the committed catalog under its public name, as a disconnected cluster
// does once its mirror registry holds the catalog's images.
const mirrorCatalogSource = "memcached-mirror"

// TestMirroredCatalog is the disconnected install: the real node's container runtime serves the
// public registries (registry.example.com, docker.io) from the local registry, as a mirrored cluster
// does (hack/lib/node.sh, containerd's hosts.toml), and hack/olm/mirror-images.sh filled that
// registry with the images one release of the committed catalog names, digests kept. A
// CatalogSource runs catalog/ as committed under the Makefile's public CATALOG_IMG; a Subscription
// installs that release (manual approval, so OLM stays on it); OLM unpacks its bundle by the digest
// the catalog pins, runs the operator image the CSV names and the operator runs the memcached image
// its RELATED_IMAGE_MEMCACHED names, every reference exactly as committed; each pod runs the digest
// the mirror holds, a client reads back its keys, and the channel's next release, unpacked from the
// mirror as well, waits for approval.
func TestMirroredCatalog(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	env, err := utils.MirrorEnv()
	if err != nil {
		t.Fatal(err)
	}
	csvName := "memcached-operator.v" + env["MIRROR_VERSION"]

	// What the committed catalog names for the release, read from catalog/ itself: the test checks
	// that these exact references run, not the ones the script recorded.
	committed := committedBundle(t, csvName)
	g.Expect(committed.Image).To(Equal(env["MIRROR_BUNDLE_IMAGE"]), "the bundle image of %s in catalog/", csvName)
	g.Expect(committed.Related).To(ContainElements(env["MIRROR_OPERATOR_IMAGE"], env["MIRROR_MEMCACHED_IMAGE"]))
	g.Expect(committed.ClusterRoles).NotTo(BeEmpty(), "the ClusterRoles of the committed bundle %s", csvName)
	for _, ref := range append([]string{committed.Image}, committed.Related...) {
		g.Expect(ref).To(Or(HavePrefix("registry.example.com/"), HavePrefix("docker.io/")), "a public name")
	}

	start := time.Now()
	cs := &operatorsv1alpha1.CatalogSource{
		ObjectMeta: metav1.ObjectMeta{Name: mirrorCatalogSource, Namespace: catalogSourceNS},
		Spec: operatorsv1alpha1.CatalogSourceSpec{
			SourceType: operatorsv1alpha1.SourceTypeGrpc, Image: env["MIRROR_CATALOG_IMAGE"],
			DisplayName: "memcached-operator (mirrored)", Publisher: "memcached-operator project",
			GrpcPodConfig: &operatorsv1alpha1.GrpcPodConfig{SecurityContextConfig: operatorsv1alpha1.Restricted},
		},
	}
	g.Expect(suite.k8s.Create(ctx, cs)).To(Succeed())
	t.Cleanup(func() { _ = client.IgnoreNotFound(suite.k8s.Delete(context.Background(), cs)) })
	g.Eventually(func() (string, error) { return channelHead(mirrorCatalogSource, stableChannel) }, 3*time.Minute, time.Second).
		ShouldNot(BeEmpty(), "packageserver never listed the mirrored catalog's stable channel")
	catalogPod := podOf(t, catalogSourceNS, client.MatchingLabels{"olm.catalogSource": mirrorCatalogSource})
	g.Expect(utils.RanAs(catalogPod, env["MIRROR_CATALOG_IMAGE"], env["MIRROR_CATALOG_DIGEST"])).To(Succeed())
	suite.phases.Record(t, "mirrored catalog serving, its pod on "+env["MIRROR_CATALOG_IMAGE"], start)

	start = time.Now()
	ns := newNamespaces(t, 1)[0]
	ensureOperatorGroup(t, ns, []string{ns})
	sub := &operatorsv1alpha1.Subscription{
		ObjectMeta: metav1.ObjectMeta{Name: packageName, Namespace: ns},
		Spec: &operatorsv1alpha1.SubscriptionSpec{
			CatalogSource: mirrorCatalogSource, CatalogSourceNamespace: catalogSourceNS, Package: packageName,
			Channel: stableChannel, StartingCSV: csvName, InstallPlanApproval: operatorsv1alpha1.ApprovalManual,
		},
	}
	// After unsubscribe (cleanups run last first): OLM never deletes a bundle's cluster-scoped objects,
	// and installed from a catalog (v0.46.0) its ClusterRoles carry no olm.owner label to find them by,
	// so they go by the names the bundle gives them; OLM v1 refuses to adopt one it finds.
	t.Cleanup(func() { deleteClusterRoles(t, committed.ClusterRoles) })
	g.Expect(suite.k8s.Create(ctx, sub)).To(Succeed())
	t.Cleanup(func() { unsubscribe(t, ns) })
	approveInstallPlan(t, ns, csvName)
	waitCSVSucceeded(t, ns, csvName)
	// OLM unpacked the bundle in a pod of the catalog's namespace, whose image is the one the catalog
	// pins, by digest: the kubelet's event for that pod names it.
	g.Eventually(func() ([]string, error) { return imageEvents(catalogSourceNS, committed.Image, start) }, time.Minute, poll).
		ShouldNot(BeEmpty(), "no pod of %s ran the bundle image %s", catalogSourceNS, committed.Image)
	csv := &operatorsv1alpha1.ClusterServiceVersion{}
	g.Expect(suite.k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: csvName}, csv)).To(Succeed())
	g.Expect(csv.Annotations["containerImage"]).To(Equal(env["MIRROR_OPERATOR_IMAGE"]), "the CSV as committed")
	// The channel's next release waits for approval: OLM unpacked its bundle too (a mirror holds
	// every bundle the catalog pins) and holds the upgrade.
	g.Eventually(func() ([]string, error) { return plansAwaitingApproval(ns) }, 2*time.Minute, poll).
		ShouldNot(BeEmpty(), "no InstallPlan awaiting approval in %s", ns)
	operatorPod := waitOperatorReady(t, ns, env["MIRROR_OPERATOR_IMAGE"])
	g.Expect(utils.RanAs(operatorPod, env["MIRROR_OPERATOR_IMAGE"], env["MIRROR_OPERATOR_DIGEST"])).To(Succeed())
	suite.phases.Record(t, csvName+" installed from the mirrored catalog, operator on "+env["MIRROR_OPERATOR_IMAGE"], start)

	start = time.Now()
	key := client.ObjectKey{Namespace: ns, Name: memcachedName}
	g.Expect(suite.k8s.Create(ctx, utils.NewMemcached(ns, memcachedName, 2))).To(Succeed())
	mc, pods := waitAvailableSize(t, key, 2)
	for i := range pods {
		g.Expect(utils.RanAs(&pods[i], env["MIRROR_MEMCACHED_IMAGE"], env["MIRROR_MEMCACHED_DIGEST"])).To(Succeed())
	}
	startClientPod(t, ns)
	servers := strings.Join(mc.Status.ServerList, ",")
	var set memcache.PlacementReport
	mustClient(t, ns, &set, "hashset", "-servers", servers, "-prefix", keyPrefix, "-n", "100")
	g.Expect(set.Keys).To(HaveLen(100))
	checkKeys(t, ns, servers, set)
	suite.phases.Record(t, "Memcached Available on "+env["MIRROR_MEMCACHED_IMAGE"]+", 100 keys set and read", start)
}

// bundleRefs is what catalog/ holds for one bundle: its image, its relatedImages and the names of the
// ClusterRoles among its objects.
type bundleRefs struct {
	Image        string
	Related      []string
	ClusterRoles []string
}

// committedBundle reads bundle name from the committed catalog (catalog/memcached-operator/bundles).
// The few fields it reads are decoded here: operator-registry's declcfg, which hack/catalog uses, is
// not a dependency of this module, and would become one for a test.
func committedBundle(t *testing.T, name string) bundleRefs {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "catalog", packageName, "bundles", name+".yaml"))
	if err != nil {
		t.Fatalf("failed to read the committed bundle %s: %v", name, err)
	}
	var b struct {
		Image         string `json:"image"`
		RelatedImages []struct {
			Image string `json:"image"`
		} `json:"relatedImages"`
		Properties []struct {
			Type  string `json:"type"`
			Value struct {
				Data []byte `json:"data"`
			} `json:"value"`
		} `json:"properties"`
	}
	if err := yaml.Unmarshal(data, &b); err != nil {
		t.Fatalf("failed to decode the committed bundle %s: %v", name, err)
	}
	refs := bundleRefs{Image: b.Image}
	for _, p := range b.Properties {
		if p.Type != "olm.bundle.object" {
			continue
		}
		var obj metav1.PartialObjectMetadata
		if err := yaml.Unmarshal(p.Value.Data, &obj); err != nil {
			t.Fatalf("failed to decode an object of the committed bundle %s: %v", name, err)
		}
		if obj.Kind == "ClusterRole" {
			refs.ClusterRoles = append(refs.ClusterRoles, obj.Name)
		}
	}
	for _, r := range b.RelatedImages {
		if r.Image != b.Image {
			refs.Related = append(refs.Related, r.Image)
		}
	}
	return refs
}

// approveInstallPlan waits for the InstallPlan of ns that installs csv, approves it (manual
// approval: OLM must install that release and not the channel's head) and waits until it is Complete.
func approveInstallPlan(t *testing.T, ns, csv string) {
	t.Helper()
	ctx := context.Background()
	var plan *operatorsv1alpha1.InstallPlan
	NewWithT(t).Eventually(func() error {
		plans := &operatorsv1alpha1.InstallPlanList{}
		if err := suite.k8s.List(ctx, plans, client.InNamespace(ns)); err != nil {
			return err
		}
		for i := range plans.Items {
			if slices.Contains(plans.Items[i].Spec.ClusterServiceVersionNames, csv) {
				plan = &plans.Items[i]
				return nil
			}
		}
		return fmt.Errorf("no InstallPlan for %s in %s (%d plans)", csv, ns, len(plans.Items))
	}, 3*time.Minute, poll).Should(Succeed())
	patch := client.MergeFrom(plan.DeepCopy())
	plan.Spec.Approved = true
	if err := suite.k8s.Patch(ctx, plan, patch); err != nil {
		t.Fatalf("failed to approve InstallPlan %s/%s: %v", ns, plan.Name, err)
	}
	t.Logf("InstallPlan %s/%s for %s approved", ns, plan.Name, csv)
	NewWithT(t).Eventually(func() (operatorsv1alpha1.InstallPlanPhase, error) {
		err := suite.k8s.Get(ctx, client.ObjectKeyFromObject(plan), plan)
		return plan.Status.Phase, err
	}, 3*time.Minute, poll).Should(Equal(operatorsv1alpha1.InstallPlanPhaseComplete), "InstallPlan %s/%s", ns, plan.Name)
}

// plansAwaitingApproval returns the CSVs of the InstallPlans of ns that wait for approval.
func plansAwaitingApproval(ns string) ([]string, error) {
	plans := &operatorsv1alpha1.InstallPlanList{}
	if err := suite.k8s.List(context.Background(), plans, client.InNamespace(ns)); err != nil {
		return nil, err
	}
	var csvs []string
	for _, p := range plans.Items {
		if p.Status.Phase == operatorsv1alpha1.InstallPlanPhaseRequiresApproval {
			csvs = append(csvs, p.Spec.ClusterServiceVersionNames...)
		}
	}
	return csvs, nil
}

// imageEvents returns the messages of the kubelet's events in ns, last seen at or after since, about
// pulling image (or finding it present) for a pod: "Successfully pulled image \"<image>\" ..." or
// "Container image \"<image>\" already present on machine".
func imageEvents(ns, image string, since time.Time) ([]string, error) {
	events := &corev1.EventList{}
	if err := suite.k8s.List(context.Background(), events, client.InNamespace(ns)); err != nil {
		return nil, err
	}
	var msgs []string
	for _, e := range events.Items {
		last := e.LastTimestamp.Time
		if e.Series != nil && e.Series.LastObservedTime.After(last) {
			last = e.Series.LastObservedTime.Time
		}
		if e.EventTime.After(last) {
			last = e.EventTime.Time
		}
		if !last.Before(since.Truncate(time.Second)) && e.InvolvedObject.Kind == "Pod" && (e.Reason == "Pulled" || e.Reason == "Pulling") &&
			strings.Contains(e.Message, `"`+image+`"`) {
			msgs = append(msgs, e.Message)
		}
	}
	return msgs, nil
}

// podOf returns the one Running pod of ns matching labels.
func podOf(t *testing.T, ns string, labels client.MatchingLabels) *corev1.Pod {
	t.Helper()
	var pod *corev1.Pod
	NewWithT(t).Eventually(func() error {
		pods := &corev1.PodList{}
		if err := suite.k8s.List(context.Background(), pods, client.InNamespace(ns), labels); err != nil {
			return err
		}
		var running []corev1.Pod
		for _, p := range pods.Items {
			if utils.PodRunningReady(&p) && p.DeletionTimestamp == nil {
				running = append(running, p)
			}
		}
		if len(running) != 1 {
			return fmt.Errorf("%d Ready pods in %s with %v, want 1", len(running), ns, labels)
		}
		pod = &running[0]
		return nil
	}, 3*time.Minute, poll).Should(Succeed())
	return pod
}

// deleteClusterRoles deletes the ClusterRoles names (those already gone are fine).
func deleteClusterRoles(t *testing.T, names []string) {
	t.Helper()
	for _, n := range names {
		role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: n}}
		if err := client.IgnoreNotFound(suite.k8s.Delete(context.Background(), role)); err != nil {
			t.Errorf("failed to delete ClusterRole %s: %v", n, err)
		}
	}
	t.Logf("deleted the bundle's ClusterRoles %v", names)
}
