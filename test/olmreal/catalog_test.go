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
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/test/utils"
)

const (
	// catalogSource is the CatalogSource running our catalog image, in OLM's global catalog
	// namespace so that a Subscription in any namespace can use it.
	catalogSource = "memcached-real"
	// upgradeCatalogSource is the channel-bump test's own CatalogSource (and polled tag): reusing
	// catalogSource after its tag went back to an older catalog raced with OLM's resolver cache,
	// which still offered the newer head for a few seconds after packageserver showed the old one.
	upgradeCatalogSource = "memcached-real-upgrade"
	catalogSourceNS      = "olm"
	// registryPoll is how often OLM looks for a new digest behind the catalog image's tag.
	registryPoll = 10 * time.Second
	// globalOperatorsNS is where OLM's release installs the OperatorGroup global-operators (all
	// namespaces): an AllNamespaces install there reuses it.
	globalOperatorsNS = "operators"
	stableChannel     = "stable"
)

// TestCatalogInstallModes is the OperatorHub user story on real pods: our catalog image runs as a
// CatalogSource polled by OLM, and for each install mode the CSV declares, an OperatorGroup and a
// Subscription to stable install the head release; the operator reconciles a Memcached in a target
// namespace, leaves one outside its targets alone and logs no "forbidden" (its RBAC is what OLM
// granted for that mode). Sources: kube-green/kube-green#296 (install modes must match what the
// operator does), operator-framework/community-operators#199 (WATCH_NAMESPACE semantics),
// elastic/cloud-on-k8s#9654 (RBAC in the wrong CSV field).
func TestCatalogInstallModes(t *testing.T) {
	headCSV := csvName(suite.env["BUNDLE_HEAD"])
	start := time.Now()
	publishCatalog(t, catalogSource, suite.env["CATALOG_IMAGE_HEAD"], headCSV)
	suite.phases.Record(t, "catalog image published, CatalogSource serving "+headCSV+" as the stable head", start)

	modes := []struct {
		mode operatorsv1alpha1.InstallModeType
		// own: the operator's namespace is its target; targets: new target namespaces (0 with
		// own or all); all: install into operators, targeting every namespace.
		own, all bool
		targets  int
	}{
		{mode: operatorsv1alpha1.InstallModeTypeOwnNamespace, own: true},
		{mode: operatorsv1alpha1.InstallModeTypeSingleNamespace, targets: 1},
		{mode: operatorsv1alpha1.InstallModeTypeMultiNamespace, targets: 2},
		{mode: operatorsv1alpha1.InstallModeTypeAllNamespaces, all: true},
	}
	for _, tc := range modes {
		t.Run(string(tc.mode), func(t *testing.T) {
			g := NewWithT(t)
			start := time.Now()
			var opNS, outside string
			var targets []string
			switch {
			case tc.all:
				opNS = globalOperatorsNS
				targets = newNamespaces(t, 1)
			case tc.own:
				nss := newNamespaces(t, 2)
				opNS, targets, outside = nss[0], nss[:1], nss[1]
			default:
				nss := newNamespaces(t, 2+tc.targets)
				opNS, targets, outside = nss[0], nss[1:1+tc.targets], nss[1+tc.targets]
			}
			ogTargets := targets
			if tc.all {
				ogTargets = nil
			}
			ensureOperatorGroup(t, opNS, ogTargets)
			csv := subscribe(t, catalogSource, opNS, "")
			g.Expect(csv).To(Equal(headCSV))
			waitOperatorReady(t, opNS, suite.env["OPERATOR_IMAGE_HEAD"])
			suite.phases.Record(t, string(tc.mode)+": Subscription to stable, CSV Succeeded, operator pod Ready", start)

			start = time.Now()
			for _, ns := range targets {
				g.Expect(suite.k8s.Create(context.Background(), utils.NewMemcached(ns, memcachedName, 1))).To(Succeed())
			}
			for _, ns := range targets {
				waitAvailableSize(t, client.ObjectKey{Namespace: ns, Name: memcachedName}, 1)
			}
			if outside != "" {
				g.Expect(suite.k8s.Create(context.Background(), utils.NewMemcached(outside, memcachedName, 1))).To(Succeed())
				g.Consistently(func(g Gomega) {
					err := suite.k8s.Get(context.Background(), client.ObjectKey{Namespace: outside, Name: memcachedName}, &appsv1.Deployment{})
					g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "a Deployment outside the target namespaces")
					mc := &cachev1alpha1.Memcached{}
					g.Expect(suite.k8s.Get(context.Background(), client.ObjectKey{Namespace: outside, Name: memcachedName}, mc)).To(Succeed())
					g.Expect(mc.Status.Conditions).To(BeEmpty(), "status written outside the target namespaces")
				}, 5*time.Second, 500*time.Millisecond).Should(Succeed())
			}
			g.Expect(forbiddenLines(t, opNS)).To(BeEmpty(), "\"forbidden\" in the operator's log")
			suite.phases.Record(t, fmt.Sprintf("%s: Memcached Available in %v, untouched in %q, no \"forbidden\" logged", tc.mode, targets, outside), start)
		})
	}
}

// TestOperatorGroupReuse: an install reuses the OperatorGroup already in its namespace when it
// targets the right namespaces, and refuses (naming it) when it targets others or when there are two,
// instead of adding one more: with two OperatorGroups OLM resolves nothing in the namespace
// (TooManyOperatorGroups: operator-framework/operator-lifecycle-manager#669,
// opendatahub-io/opendatahub-operator#114, redhat-developer/rhdh-operator#1037).
func TestOperatorGroupReuse(t *testing.T) {
	g := NewWithT(t)
	nss := newNamespaces(t, 2)
	ns, other := nss[0], nss[1]
	og, err := operatorGroupFor(ns, []string{ns})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(og.Created).To(BeTrue(), og.Message)
	again, err := operatorGroupFor(ns, []string{ns})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(again.Created).To(BeFalse(), "a second OperatorGroup was created: %s", again.Message)
	g.Expect(again.Name).To(Equal(og.Name))
	_, err = operatorGroupFor(ns, []string{other})
	g.Expect(err).To(MatchError(ContainSubstring(og.Name)), "a group serving only %s reused for %s", ns, other)
	second := &operatorsv1.OperatorGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "second"}}
	g.Expect(suite.k8s.Create(context.Background(), second)).To(Succeed())
	_, err = operatorGroupFor(ns, []string{ns})
	g.Expect(err).To(MatchError(And(ContainSubstring(og.Name), ContainSubstring("second"))), "two groups not both named")
	list := &operatorsv1.OperatorGroupList{}
	g.Expect(suite.k8s.List(context.Background(), list, client.InNamespace(ns))).To(Succeed())
	g.Expect(list.Items).To(HaveLen(2), "nothing added by the refused calls")
}

// newNamespaces creates count namespaces that enforce the restricted Pod Security Standard (the
// operator's pod OLM creates from the CSV and the memcached pods pass it; OLM runs no pod of its own
// there: bundles are unpacked in the CatalogSource's namespace); when t ends it deletes them all at
// once and waits until they are gone (deleting them one by one would cost ~10 s each).
func newNamespaces(t *testing.T, count int) []string {
	t.Helper()
	ctx := context.Background()
	var names []string
	for range count {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "olmreal-", Labels: map[string]string{
			labelSuite: "true", "pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/enforce-version": "latest"}}}
		if err := suite.k8s.Create(ctx, ns); err != nil {
			t.Fatalf("failed to create a namespace: %v", err)
		}
		names = append(names, ns.Name)
	}
	t.Cleanup(func() {
		start := time.Now()
		for _, n := range names {
			_ = client.IgnoreNotFound(suite.k8s.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}}))
		}
		NewWithT(t).Eventually(func() []string {
			var left []string
			for _, n := range names {
				if !apierrors.IsNotFound(suite.k8s.Get(ctx, client.ObjectKey{Name: n}, &corev1.Namespace{})) {
					left = append(left, n)
				}
			}
			return left
		}, 3*time.Minute, poll).Should(BeEmpty(), "namespaces still there after their deletion")
		t.Logf("namespaces %v deleted in %s", names, utils.Ms(time.Since(start)))
	})
	for _, n := range names {
		NewWithT(t).Eventually(func() error {
			return suite.k8s.Get(ctx, client.ObjectKey{Namespace: n, Name: "default"}, &corev1.ServiceAccount{})
		}, 30*time.Second, poll).Should(Succeed(), "ServiceAccount %s/default", n)
	}
	return names
}

// publishCatalog copies catalog image src over the tag CatalogSource source polls (skopeo copy), as
// a release pipeline pushes a new catalog image, creates the CatalogSource on first use, and waits
// until packageserver reports head as the stable channel's head: OLM polled the tag, started a
// catalog pod on the new digest and serves it.
func publishCatalog(t *testing.T, source, src, head string) {
	t.Helper()
	polled := polledImage(source)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "skopeo", "copy", "--quiet", "--src-tls-verify=false", "--dest-tls-verify=false",
		"docker://"+src, "docker://"+polled).CombinedOutput()
	if err != nil {
		t.Fatalf("skopeo copy %s -> %s: %v\n%s", src, polled, err, out)
	}
	t.Logf("pushed %s as %s", src, polled)
	cs := &operatorsv1alpha1.CatalogSource{
		ObjectMeta: metav1.ObjectMeta{Name: source, Namespace: catalogSourceNS},
		Spec: operatorsv1alpha1.CatalogSourceSpec{
			SourceType: operatorsv1alpha1.SourceTypeGrpc, Image: polled,
			DisplayName: "memcached-operator (local registry)", Publisher: "memcached-operator project",
			// As the README's CatalogSource: the catalog pod passes the restricted profile, which
			// OLM's namespace (olm) enforces.
			GrpcPodConfig: &operatorsv1alpha1.GrpcPodConfig{SecurityContextConfig: operatorsv1alpha1.Restricted},
			UpdateStrategy: &operatorsv1alpha1.UpdateStrategy{RegistryPoll: &operatorsv1alpha1.RegistryPoll{
				RawInterval: registryPoll.String(), Interval: &metav1.Duration{Duration: registryPoll}}},
		},
	}
	if err := suite.k8s.Create(context.Background(), cs); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("failed to create CatalogSource %s/%s: %v", catalogSourceNS, source, err)
	} else if err == nil {
		t.Logf("CatalogSource %s/%s created: image %s, registryPoll %s", catalogSourceNS, source, cs.Spec.Image, registryPoll)
	}
	NewWithT(t).Eventually(func() (string, error) { return channelHead(source, stableChannel) }, 3*time.Minute, time.Second).
		Should(Equal(head), "packageserver never reported %s as the head of %s", head, stableChannel)
	t.Logf("CatalogSource %s/%s serves %s as the head of %s", catalogSourceNS, source, head, stableChannel)
}

// polledImage is the image tag CatalogSource source polls: CATALOG_IMAGE_POLLED for catalogSource,
// a tag of its own (the same name with "-<source>") for any other.
func polledImage(source string) string {
	if source == catalogSource {
		return suite.env["CATALOG_IMAGE_POLLED"]
	}
	return suite.env["CATALOG_IMAGE_POLLED"] + "-" + source
}

// deleteCatalogSources removes the suite's CatalogSources (at the end of the suite).
func deleteCatalogSources() error {
	for _, name := range []string{catalogSource, upgradeCatalogSource} {
		cs := &operatorsv1alpha1.CatalogSource{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: catalogSourceNS}}
		if err := client.IgnoreNotFound(suite.k8s.Delete(context.Background(), cs)); err != nil {
			return fmt.Errorf("failed to delete CatalogSource %s/%s: %w", catalogSourceNS, name, err)
		}
	}
	return nil
}

// channelHead returns the currentCSV packageserver reports for channel of our package from
// CatalogSource source ("" when it lists none yet).
func channelHead(source, channel string) (string, error) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(schemaPackageManifest.GroupVersion().WithKind("PackageManifestList"))
	if err := suite.k8s.List(context.Background(), list, client.InNamespace(catalogSourceNS),
		client.MatchingLabels{"catalog": source, "catalog-namespace": catalogSourceNS}); err != nil {
		return "", err
	}
	for _, pm := range list.Items {
		if pm.GetName() != packageName {
			continue
		}
		channels, _, _ := unstructured.NestedSlice(pm.Object, "status", "channels")
		for _, c := range channels {
			m, _ := c.(map[string]any)
			if m["name"] == channel {
				head, _ := m["currentCSV"].(string)
				return head, nil
			}
		}
	}
	return "", nil
}

// ensureOperatorGroup gives ns the OperatorGroup an install targeting targets (nil: all
// namespaces) needs, by hack/olm/operator-group.sh (the rules `make demo-olm-real` follows: the one
// group of ns when it fits, else a new one, deleted when t ends); it stops the test when the
// script refuses.
func ensureOperatorGroup(t *testing.T, ns string, targets []string) {
	t.Helper()
	res, err := operatorGroupFor(ns, targets)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res.Message)
	if res.Created {
		og := &operatorsv1.OperatorGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: res.Name}}
		t.Cleanup(func() { _ = client.IgnoreNotFound(suite.k8s.Delete(context.Background(), og)) })
	}
}

// operatorGroupFor runs hack/olm/operator-group.sh against the real-node cluster for ns and targets.
func operatorGroupFor(ns string, targets []string) (utils.OperatorGroupResult, error) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		return utils.OperatorGroupResult{}, err
	}
	return utils.OperatorGroup(root, suite.env["KUBECONFIG"], suite.env["KUBECTL"], ns, targets)
}

func describeTargets(targets []string) string {
	if len(targets) == 0 {
		return "all namespaces"
	}
	return strings.Join(targets, ",")
}

// subscribe creates Subscription memcached-operator in ns to the stable channel of CatalogSource
// source (automatic approval, from startingCSV when set), removed with its CSV when t ends,
// and waits until the CSV it installs is Succeeded; it returns the CSV's name.
func subscribe(t *testing.T, source, ns, startingCSV string) string {
	t.Helper()
	g := NewWithT(t)
	ctx := context.Background()
	sub := &operatorsv1alpha1.Subscription{
		ObjectMeta: metav1.ObjectMeta{Name: packageName, Namespace: ns},
		Spec: &operatorsv1alpha1.SubscriptionSpec{
			CatalogSource: source, CatalogSourceNamespace: catalogSourceNS, Package: packageName,
			Channel: stableChannel, StartingCSV: startingCSV, InstallPlanApproval: operatorsv1alpha1.ApprovalAutomatic,
		},
	}
	g.Expect(suite.k8s.Create(ctx, sub)).To(Succeed())
	t.Cleanup(func() { unsubscribe(t, ns) })
	var csv string
	g.Eventually(func() (string, error) {
		s := &operatorsv1alpha1.Subscription{}
		err := suite.k8s.Get(ctx, client.ObjectKeyFromObject(sub), s)
		csv = s.Status.InstalledCSV
		return csv, err
	}, 3*time.Minute, poll).ShouldNot(BeEmpty(), "Subscription %s/%s installed no CSV", ns, packageName)
	waitCSVSucceeded(t, ns, csv)
	return csv
}

// unsubscribe deletes the Subscription of ns and every CSV of our package installed there (not the
// copies OLM makes in target namespaces), and waits until the CSVs and the operator's pods are gone.
func unsubscribe(t *testing.T, ns string) {
	t.Helper()
	ctx := context.Background()
	_ = client.IgnoreNotFound(suite.k8s.Delete(ctx, &operatorsv1alpha1.Subscription{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: packageName}}))
	csvs := &operatorsv1alpha1.ClusterServiceVersionList{}
	if err := suite.k8s.List(ctx, csvs, client.InNamespace(ns)); err != nil {
		t.Errorf("failed to list the CSVs of %s: %v", ns, err)
		return
	}
	for i := range csvs.Items {
		if strings.HasPrefix(csvs.Items[i].Name, packageName+".") && csvs.Items[i].Status.Reason != operatorsv1alpha1.CSVReasonCopied {
			_ = client.IgnoreNotFound(suite.k8s.Delete(ctx, &csvs.Items[i]))
		}
	}
	NewWithT(t).Eventually(func() ([]string, error) {
		var left []string
		list := &operatorsv1alpha1.ClusterServiceVersionList{}
		if err := suite.k8s.List(ctx, list, client.InNamespace(ns)); err != nil {
			return nil, err
		}
		for _, c := range list.Items {
			if strings.HasPrefix(c.Name, packageName+".") && c.Status.Reason != operatorsv1alpha1.CSVReasonCopied {
				left = append(left, "CSV/"+c.Name)
			}
		}
		pods := &corev1.PodList{}
		if err := suite.k8s.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{"control-plane": "controller-manager"}); err != nil {
			return nil, err
		}
		for _, p := range pods.Items {
			left = append(left, "Pod/"+p.Name)
		}
		return left, nil
	}, 2*time.Minute, poll).Should(BeEmpty(), "the operator was not removed from %s", ns)
	t.Logf("Subscription and CSV removed from %s", ns)
}

// removeClusterObjects deletes what OLM leaves behind cluster-wide once our operator is uninstalled
// everywhere: the bundle's ClusterRoles (labelled olm.owner=<CSV>, never deleted by OLM) and the
// Memcached CRD. Call it when no Memcached is left.
func removeClusterObjects(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	roles := &rbacv1.ClusterRoleList{}
	if err := suite.k8s.List(ctx, roles); err != nil {
		t.Errorf("failed to list ClusterRoles: %v", err)
		return
	}
	for i := range roles.Items {
		if strings.HasPrefix(roles.Items[i].Labels["olm.owner"], packageName+".") {
			_ = client.IgnoreNotFound(suite.k8s.Delete(ctx, &roles.Items[i]))
		}
	}
	crd := &metav1.PartialObjectMetadata{}
	crd.SetGroupVersionKind(schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"})
	crd.SetName("memcacheds.cache.example.com")
	_ = client.IgnoreNotFound(suite.k8s.Delete(ctx, crd))
}

// forbiddenLines returns the lines of the operator pods' logs in ns that contain "forbidden" (any
// case): an API call the RBAC OLM granted does not allow.
func forbiddenLines(t *testing.T, ns string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, suite.env["KUBECTL"], "logs", "-n", ns, "-l", "control-plane=controller-manager",
		"--all-containers", "--tail=-1", "--prefix")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+suite.env["KUBECONFIG"])
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("kubectl logs in %s: %v: %s", ns, err, errOut.String())
	}
	var lines []string
	for l := range strings.SplitSeq(out.String(), "\n") {
		if strings.Contains(strings.ToLower(l), "forbidden") {
			lines = append(lines, l)
		}
	}
	t.Logf("operator log in %s: %d lines, %d with \"forbidden\"", ns, strings.Count(out.String(), "\n"), len(lines))
	return lines
}
