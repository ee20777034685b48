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
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	operatorsv2 "github.com/operator-framework/api/pkg/operators/v2"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/test/real/memcache"
	"github.com/example/memcached-operator/test/utils"
)

const (
	poll            = 200 * time.Millisecond
	packageName     = "memcached-operator"
	operatorDeploy  = "memcached-operator-controller-manager"
	sdkTimeout      = "4m"
	clientPod       = "mcclient"
	clientBinary    = "/mcclient"
	keyPrefix       = "olm"
	memcachedName   = "cache"
	memcachedSize   = 3
	labelSuite      = "olmreal.cache.example.com/suite"
	httpsIndexError = "http: server gave HTTP response to HTTPS client"
)

// TestRunBundleUpgradeCleanup is the operator-sdk user story on real pods: run bundle of the previous
// release, a Memcached serving keys, run bundle-upgrade to the head release with the memcached pods
// untouched and the keys still served, then cleanup.
func TestRunBundleUpgradeCleanup(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	prevCSV := csvName(suite.env["BUNDLE_PREVIOUS"])
	headCSV := csvName(suite.env["BUNDLE_HEAD"])

	// operator-sdk v1.42.3 reads the labels of --index-image over HTTPS whatever --use-http says
	// (internal/olm/fbcutil IsFBC), so a plain-HTTP registry cannot serve the index image: prove
	// it, so a fixed operator-sdk shows up here, then use the registry's HTTPS address.
	start := time.Now()
	out, err := operatorSDK(t, "use-http", "run", "bundle", suite.env["BUNDLE_PREVIOUS_HTTP"], "-n", ns, "--use-http",
		"--index-image", suite.env["INDEX_IMAGE_HTTP"], "--decompression-image", suite.env["DECOMPRESSION_IMAGE"], "--timeout", "1m")
	g.Expect(err).To(HaveOccurred(), "run bundle --use-http with a plain-HTTP index image succeeded: operator-sdk changed, use it")
	g.Expect(out).To(ContainSubstring("error determining whether index"))
	g.Expect(out).To(ContainSubstring(httpsIndexError))
	t.Logf("run bundle --use-http fails as expected on the index image check: %q", httpsIndexError)
	suite.phases.Record(t, "run bundle --use-http (expected failure)", start)

	// run bundle <previous>
	start = time.Now()
	_, err = operatorSDK(t, "run-bundle", "run", "bundle", suite.env["BUNDLE_PREVIOUS"], "-n", ns,
		"--index-image", suite.env["INDEX_IMAGE"], "--decompression-image", suite.env["DECOMPRESSION_IMAGE"], "--timeout", sdkTimeout)
	g.Expect(err).NotTo(HaveOccurred())
	waitCSVSucceeded(t, ns, prevCSV)
	waitOperatorReady(t, ns, suite.env["OPERATOR_IMAGE_PREVIOUS"])
	suite.phases.Record(t, "run bundle "+prevCSV+" (CSV Succeeded, operator pod Ready)", start)
	pm := &metav1.PartialObjectMetadata{}
	pm.SetGroupVersionKind(schemaPackageManifest)
	g.Expect(suite.k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: packageName}, pm)).To(Succeed(),
		"packageserver does not list package %s in %s", packageName, ns)
	t.Logf("PackageManifest %s/%s served by packageserver", ns, packageName)

	// A Memcached with real pods, and keys on every server.
	start = time.Now()
	key := client.ObjectKey{Namespace: ns, Name: memcachedName}
	mc := &cachev1alpha1.Memcached{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: memcachedName},
		Spec: cachev1alpha1.MemcachedSpec{Size: memcachedSize}}
	g.Expect(suite.k8s.Create(context.Background(), mc)).To(Succeed())
	mc, pods := waitAvailable(t, key)
	suite.phases.Record(t, "Memcached Available (3 real pods)", start)
	start = time.Now()
	startClientPod(t, ns)
	servers := strings.Join(mc.Status.ServerList, ",")
	var set memcache.PlacementReport
	mustClient(t, ns, &set, "hashset", "-servers", servers, "-prefix", keyPrefix, "-n", "100")
	g.Expect(set.Keys).To(HaveLen(100))
	checkKeys(t, ns, servers, set)
	suite.phases.Record(t, "client pod up, 100 keys set and read on their servers", start)
	before := utils.PodUIDs(pods)

	// run bundle-upgrade <head>
	start = time.Now()
	_, err = operatorSDK(t, "bundle-upgrade", "run", "bundle-upgrade", suite.env["BUNDLE_HEAD"], "-n", ns, "--timeout", sdkTimeout)
	g.Expect(err).NotTo(HaveOccurred())
	waitCSVSucceeded(t, ns, headCSV)
	g.Eventually(func() bool {
		return apierrors.IsNotFound(suite.k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: prevCSV}, &operatorsv1alpha1.ClusterServiceVersion{}))
	}, 2*time.Minute, poll).Should(BeTrue(), "the previous CSV %s was not removed", prevCSV)
	waitOperatorReady(t, ns, suite.env["OPERATOR_IMAGE_HEAD"])
	suite.phases.Record(t, "run bundle-upgrade "+headCSV+" (CSV Succeeded, old CSV gone, operator pod Ready)", start)

	// The new operator reconciled the Memcached without touching its pods; the keys are served.
	start = time.Now()
	g.Eventually(func() error { return operatorHasReconciled(ns) }, 2*time.Minute, poll).Should(Succeed())
	mc, pods = waitAvailable(t, key)
	g.Expect(utils.PodUIDs(pods)).To(Equal(before), "memcached pods changed across the operator upgrade")
	for _, p := range pods {
		for _, cs := range p.Status.ContainerStatuses {
			g.Expect(cs.RestartCount).To(BeZero(), "container %s of %s restarted", cs.Name, p.Name)
		}
	}
	g.Expect(strings.Join(mc.Status.ServerList, ",")).To(Equal(servers))
	checkKeys(t, ns, servers, set)
	suite.phases.Record(t, "after the upgrade: same pods (names, UIDs, 0 restarts), 100 keys still on their servers", start)

	// cleanup. The Memcached goes first: `operator-sdk cleanup` deletes the CRD, and the garbage
	// collector cannot delete the dependents (Deployment, Service, PDB, pods) of a custom resource
	// whose kind no longer exists in discovery; they would stay, owned by a dangling reference.
	start = time.Now()
	g.Expect(suite.k8s.Delete(context.Background(), mc)).To(Succeed())
	g.Eventually(func() (int, error) {
		list := &corev1.PodList{}
		err := suite.k8s.List(context.Background(), list, client.InNamespace(ns), client.MatchingLabels{"app.kubernetes.io/instance": memcachedName})
		return len(list.Items), err
	}, 2*time.Minute, poll).Should(BeZero(), "the memcached pods were not garbage-collected")
	suite.phases.Record(t, "Memcached deleted, its pods gone", start)
	start = time.Now()
	_, err = operatorSDK(t, "cleanup", "cleanup", packageName, "-n", ns, "--timeout", "2m")
	g.Expect(err).NotTo(HaveOccurred())
	g.Eventually(func() []string { return leftovers(ns) }, 2*time.Minute, poll).Should(BeEmpty(), "objects left in %s after cleanup", ns)
	crd := &metav1.PartialObjectMetadata{}
	crd.SetGroupVersionKind(schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"})
	g.Eventually(func() bool {
		return apierrors.IsNotFound(suite.k8s.Get(context.Background(), client.ObjectKey{Name: "memcacheds.cache.example.com"}, crd))
	}, time.Minute, poll).Should(BeTrue(), "cleanup did not remove the Memcached CRD")
	suite.phases.Record(t, "cleanup: no OLM object, operator, registry pod or ConfigMap left; CRD removed", start)
	// OLM never deletes the cluster-scoped objects of a bundle (here its editor, viewer and
	// metrics-reader ClusterRoles, labelled olm.owner=<CSV>) and operator-sdk cleanup does not either:
	// name them, then delete them so that the next run starts from a clean cluster.
	for _, csv := range []string{prevCSV, headCSV} {
		roles := &rbacv1.ClusterRoleList{}
		g.Expect(suite.k8s.List(context.Background(), roles, client.MatchingLabels{"olm.owner": csv})).To(Succeed())
		for i := range roles.Items {
			t.Logf("left by operator-sdk cleanup (a bundle's cluster-scoped object, which OLM never deletes): ClusterRole %s (olm.owner=%s); deleting it", roles.Items[i].Name, csv)
			g.Expect(client.IgnoreNotFound(suite.k8s.Delete(context.Background(), &roles.Items[i]))).To(Succeed())
		}
	}
}

var schemaPackageManifest = schema.GroupVersionKind{Group: "packages.operators.coreos.com", Version: "v1", Kind: "PackageManifest"}

// csvName is the CSV name of bundle image ref (<package>.v<tag without v>).
func csvName(ref string) string {
	return packageName + ".v" + strings.TrimPrefix(ref[strings.LastIndex(ref, ":")+1:], "v")
}

// operatorSDK runs operator-sdk with args in the suite's cluster, its output kept in the artifacts
// directory as <name>.log; it returns the combined output.
func operatorSDK(t *testing.T, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, suite.env["OPERATOR_SDK"], args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+suite.env["KUBECONFIG"], "SSL_CERT_FILE="+suite.env["SSL_CERT_FILE"])
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	_ = os.WriteFile(filepath.Join(suite.artifacts, name+".log"), out.Bytes(), 0o644)
	t.Logf("operator-sdk %s: %v in %s", strings.Join(args, " "), errString(err), time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Logf("operator-sdk output (last 1500 bytes):\n%s", tail(out.String(), 1500))
	}
	return out.String(), err
}

func errString(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// newNamespace creates a namespace for the test, deleted at the end (utils.NewNamespace). It
// enforces the baseline Pod Security Standard (restricted as a warning): operator-sdk's registry pod
// sets no runAsNonRoot and its init container no security context, which restricted refuses, with
// either --security-context-config.
func newNamespace(t *testing.T) string {
	t.Helper()
	return utils.NewNamespace(t, suite.k8s, "olmreal", map[string]string{
		labelSuite:                           "true",
		"pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/warn": "restricted",
	}, 2*time.Minute)
}

func waitCSVSucceeded(t *testing.T, ns, name string) {
	t.Helper()
	NewWithT(t).Eventually(func() (operatorsv1alpha1.ClusterServiceVersionPhase, error) {
		csv := &operatorsv1alpha1.ClusterServiceVersion{}
		err := suite.k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, csv)
		return csv.Status.Phase, err
	}, 3*time.Minute, poll).Should(Equal(operatorsv1alpha1.CSVPhaseSucceeded), "CSV %s/%s", ns, name)
	t.Logf("CSV %s/%s Succeeded", ns, name)
}

// waitOperatorReady waits until the operator Deployment has exactly one pod, Running and Ready,
// running image (as the CSV names it), and no other pod of the operator is left; it returns that pod.
func waitOperatorReady(t *testing.T, ns, image string) *corev1.Pod {
	t.Helper()
	var pod *corev1.Pod
	NewWithT(t).Eventually(func() error {
		pods := &corev1.PodList{}
		if err := suite.k8s.List(context.Background(), pods, client.InNamespace(ns), client.MatchingLabels{"control-plane": "controller-manager"}); err != nil {
			return err
		}
		if len(pods.Items) != 1 {
			return fmt.Errorf("%d operator pods, want 1", len(pods.Items))
		}
		p := pods.Items[0]
		if p.Spec.Containers[0].Image != image {
			return fmt.Errorf("operator pod %s runs %s, want %s", p.Name, p.Spec.Containers[0].Image, image)
		}
		if !utils.PodRunningReady(&p) || p.DeletionTimestamp != nil {
			return fmt.Errorf("operator pod %s not Ready (phase %s)", p.Name, p.Status.Phase)
		}
		pod = &p
		return nil
	}, 3*time.Minute, poll).Should(Succeed())
	t.Logf("operator pod Ready in %s, image %s", ns, image)
	return pod
}

// operatorHasReconciled returns nil once the running operator's Deployment has observed its current
// generation and the OperatorCondition of the running CSV reports Upgradeable (the new operator is up
// and working with OLM's contract).
func operatorHasReconciled(ns string) error {
	dep := &appsv1.Deployment{}
	if err := suite.k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: operatorDeploy}, dep); err != nil {
		return err
	}
	if dep.Status.ObservedGeneration != dep.Generation || dep.Status.UpdatedReplicas != 1 || dep.Status.ReadyReplicas != 1 || dep.Status.Replicas != 1 {
		return fmt.Errorf("operator deployment not rolled out: %+v", dep.Status)
	}
	conds := &operatorsv2.OperatorConditionList{}
	if err := suite.k8s.List(context.Background(), conds, client.InNamespace(ns)); err != nil {
		return err
	}
	for _, c := range conds.Items {
		if u := meta.FindStatusCondition(c.Status.Conditions, "Upgradeable"); u != nil && u.Status == metav1.ConditionTrue {
			return nil
		}
	}
	return fmt.Errorf("no OperatorCondition reports Upgradeable=True yet")
}

// waitAvailable waits until the Memcached key is Available at its generation with exactly
// memcachedSize ready pods, and returns it and its pods sorted by name.
func waitAvailable(t *testing.T, key client.ObjectKey) (*cachev1alpha1.Memcached, []corev1.Pod) {
	t.Helper()
	return waitAvailableSize(t, key, memcachedSize)
}

// waitAvailableSize waits until the Memcached key is Available at its generation with exactly size
// ready pods, and returns it and its pods sorted by name.
func waitAvailableSize(t *testing.T, key client.ObjectKey, size int) (*cachev1alpha1.Memcached, []corev1.Pod) {
	t.Helper()
	return utils.WaitAvailable(t, suite.k8s, key, size, 3*time.Minute)
}

// mcclient is the real-node tier's client (test/real/cmd/mcclient) in the pod clientPod of ns.
func mcclient(ns string) utils.MCClient {
	return utils.MCClient{Kubectl: suite.env["KUBECTL"], Kubeconfig: suite.env["KUBECONFIG"], Namespace: ns,
		Pod: clientPod, Image: suite.env["MCCLIENT_IMAGE"], Binary: clientBinary}
}

// startClientPod runs the client idle in ns under the restricted profile and waits until it is Ready.
func startClientPod(t *testing.T, ns string) { t.Helper(); mcclient(ns).Start(t, suite.k8s) }

// mustClient runs `mcclient args...` in the client pod and decodes its JSON report.
func mustClient(t *testing.T, ns string, report any, args ...string) {
	t.Helper()
	mcclient(ns).Run(t, report, args...)
}

// checkKeys asks every server for every key written by hashset and expects each on exactly the
// server it was stored on, with its value.
func checkKeys(t *testing.T, ns, servers string, set memcache.PlacementReport) {
	t.Helper()
	var loc memcache.PlacementReport
	mustClient(t, ns, &loc, "locate", "-servers", servers, "-prefix", keyPrefix, "-n", "100")
	g := NewWithT(t)
	g.Expect(loc.Errors).To(BeEmpty())
	g.Expect(loc.Wrong).To(BeEmpty())
	g.Expect(loc.Keys).To(Equal(set.Keys), "keys not found on the servers they were stored on")
}

// leftovers lists what remains in ns of the install: OLM objects, the operator's Deployment, pods
// (the memcached pods go with the CRD; the client pod is the test's), ConfigMaps other than
// kube-root-ca.crt, Jobs (bundle unpacking).
func leftovers(ns string) []string {
	var left []string
	ctx := context.Background()
	lists := map[string]client.ObjectList{
		"ClusterServiceVersion": &operatorsv1alpha1.ClusterServiceVersionList{}, "Subscription": &operatorsv1alpha1.SubscriptionList{},
		"InstallPlan": &operatorsv1alpha1.InstallPlanList{}, "CatalogSource": &operatorsv1alpha1.CatalogSourceList{},
		"OperatorGroup": &operatorsv1.OperatorGroupList{}, "OperatorCondition": &operatorsv2.OperatorConditionList{},
		"Deployment": &appsv1.DeploymentList{}, "Pod": &corev1.PodList{}, "ConfigMap": &corev1.ConfigMapList{}, "Job": &batchv1.JobList{},
	}
	for kind, l := range lists {
		if err := suite.k8s.List(ctx, l, client.InNamespace(ns)); err != nil {
			left = append(left, fmt.Sprintf("%s: %v", kind, err))
			continue
		}
		items, _ := meta.ExtractList(l)
		for _, o := range items {
			name := o.(client.Object).GetName()
			if (kind == "ConfigMap" && name == "kube-root-ca.crt") || (kind == "Pod" && name == clientPod) {
				continue
			}
			left = append(left, kind+"/"+name)
		}
	}
	slices.Sort(left)
	return left
}
