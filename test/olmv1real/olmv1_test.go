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

// Package olmv1real proves the OLM v1 story on the real-node tier (`make test-olmv1-real`):
// operator-controller and catalogd (v1.2.0) and cert-manager (v1.11.5) run in the cluster as pods
// (hack/olm/olmv1-up.sh), and the objects of config/samples/olmv1 (the ones docs/olm.md shows) install,
// upgrade and remove the operator from our catalog image, with real operator and memcached pods and
// a memcached client.
//
// Environment (make test-olmv1-real sets all of it): KUBECONFIG, KUBECTL, SAMPLES_DIR
// (config/samples/olmv1), MCCLIENT_IMAGE, CATALOG_IMAGE_HEAD (our catalog with every release, local
// names), CATALOG_IMAGE_OLDEST (the same cut at VERSION_OLDEST), VERSION_HEAD, VERSION_OLDEST,
// VERSION_PREVIOUS (the newest release before the head), OPERATOR_IMAGE_HEAD, OPERATOR_IMAGE_OLDEST
// and OPERATOR_IMAGE_PREVIOUS (what each release's CSV runs, by digest). The
// ClusterCatalog of SAMPLES_DIR polls a tag; the test pushes the two catalog images over it.
package olmv1real

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/test/real/memcache"
	"github.com/example/memcached-operator/test/utils"
)

const (
	poll      = 500 * time.Millisecond
	extName   = "memcached-operator"
	installNS = "memcached-operator-system"
	// leaseName is the operator's leader election Lease (main.go's leaderElectionID).
	leaseName     = "memcached-operator.cache.example.com"
	operatorLabel = "control-plane=controller-manager"
	crdName       = "memcacheds.cache.example.com"
	clientPod     = "mcclient"
	clientBinary  = "/mcclient"
	keyPrefix     = "olmv1"
	// watchNamespaceAnnotation selects Own/SingleNamespace in operator-controller v1.2.0 (later
	// releases moved it to spec.config.inline.watchNamespace); it needs the feature gate
	// SingleOwnNamespaceInstallSupport, which hack/olm/olmv1-up.sh turns on.
	watchNamespaceAnnotation = "olm.operatorframework.io/watch-namespace"
)

var (
	ceGVK = schema.GroupVersionKind{Group: "olm.operatorframework.io", Version: "v1", Kind: "ClusterExtension"}
	ccGVK = schema.GroupVersionKind{Group: "olm.operatorframework.io", Version: "v1", Kind: "ClusterCatalog"}
)

var suite struct {
	env     map[string]string
	k8s     client.Client
	kubectl utils.Kubectl
	phases  utils.Phases
}

func TestMain(m *testing.M) {
	start := time.Now()
	suite.env = map[string]string{}
	for _, k := range []string{"KUBECONFIG", "KUBECTL", "SAMPLES_DIR", "MCCLIENT_IMAGE", "CATALOG_IMAGE_HEAD", "CATALOG_IMAGE_OLDEST",
		"VERSION_HEAD", "VERSION_OLDEST", "VERSION_PREVIOUS", "OPERATOR_IMAGE_HEAD", "OPERATOR_IMAGE_OLDEST", "OPERATOR_IMAGE_PREVIOUS"} {
		if suite.env[k] = os.Getenv(k); suite.env[k] == "" {
			fmt.Fprintf(os.Stderr, "olmv1real: %s is not set: run `make test-olmv1-real` (see the package doc)\n", k)
			os.Exit(1)
		}
	}
	var err error
	if suite.k8s, err = utils.NewClient(suite.env["KUBECONFIG"], 100, cachev1alpha1.AddToScheme); err != nil {
		fmt.Fprintf(os.Stderr, "olmv1real: %v\n", err)
		os.Exit(1)
	}
	suite.kubectl = utils.Kubectl{Path: suite.env["KUBECTL"], Kubeconfig: suite.env["KUBECONFIG"], Timeout: 3 * time.Minute}
	code := m.Run()
	suite.phases.Print(os.Stdout, "olmv1real: phase timings", time.Since(start))
	os.Exit(code)
}

// sample reads config/samples/olmv1/NAME, the YAML docs/olm.md shows, as objects.
func sample(t *testing.T, name string) []*unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(suite.env["SAMPLES_DIR"], name))
	if err != nil {
		t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	for _, doc := range strings.Split(string(data), "\n---\n") {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(u.Object) > 0 {
			objs = append(objs, u)
		}
	}
	return objs
}

func getObj(gvk schema.GroupVersionKind, name string) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u, suite.k8s.Get(context.Background(), client.ObjectKey{Name: name}, u)
}

// extension returns the ClusterExtension's installed version and its condition of type typ.
func extension(g Gomega) (version string, cond func(string) *metav1.Condition, obj *unstructured.Unstructured) {
	u, err := getObj(ceGVK, extName)
	g.Expect(err).NotTo(HaveOccurred())
	version, _, _ = unstructured.NestedString(u.Object, "status", "install", "bundle", "version")
	raw, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	var conds []metav1.Condition
	for _, r := range raw {
		m, _ := r.(map[string]any)
		c := metav1.Condition{}
		c.Type, _ = m["type"].(string)
		c.Status = metav1.ConditionStatus(fmt.Sprint(m["status"]))
		c.Reason, _ = m["reason"].(string)
		c.Message, _ = m["message"].(string)
		if og, ok := m["observedGeneration"].(int64); ok {
			c.ObservedGeneration = og
		}
		conds = append(conds, c)
	}
	return version, func(typ string) *metav1.Condition { return meta.FindStatusCondition(conds, typ) }, u
}

// waitInstalled waits until the ClusterExtension reports Installed=True with version installed and
// Progressing=True/Succeeded at its current generation.
func waitInstalled(t *testing.T, version string) {
	t.Helper()
	NewWithT(t).Eventually(func(g Gomega) {
		v, cond, u := extension(g)
		g.Expect(cond("Installed")).NotTo(BeNil())
		g.Expect(cond("Installed").Status).To(Equal(metav1.ConditionTrue), cond("Installed").Message)
		g.Expect(v).To(Equal(version))
		p := cond("Progressing")
		g.Expect(p).NotTo(BeNil())
		g.Expect(p.Reason).To(Equal("Succeeded"), p.Message)
		g.Expect(p.ObservedGeneration).To(Equal(u.GetGeneration()))
	}, 4*time.Minute, poll).Should(Succeed())
}

// publish pushes image over the tag the ClusterCatalog polls and, when the catalog exists, waits
// until it serves that image's digest.
func publish(t *testing.T, image string) {
	t.Helper()
	polled := pollRef(t)
	out, err := runSkopeo("copy", "-q", "--src-tls-verify=false", "--dest-tls-verify=false", "docker://"+image, "docker://"+polled)
	if err != nil {
		t.Fatalf("skopeo copy %s %s: %v\n%s", image, polled, err, out)
	}
	digest := image[strings.Index(image, "@")+1:]
	if _, err := getObj(ccGVK, extName); apierrors.IsNotFound(err) {
		return
	}
	NewWithT(t).Eventually(func(g Gomega) {
		u, err := getObj(ccGVK, extName)
		g.Expect(err).NotTo(HaveOccurred())
		ref, _, _ := unstructured.NestedString(u.Object, "status", "resolvedSource", "image", "ref")
		g.Expect(ref).To(HaveSuffix("@" + digest))
	}, 3*time.Minute, poll).Should(Succeed(), "the ClusterCatalog did not pick up %s", image)
}

// pollRef is the image reference the sample ClusterCatalog polls.
func pollRef(t *testing.T) string {
	t.Helper()
	ref, _, _ := unstructured.NestedString(sample(t, "clustercatalog.yaml")[0].Object, "spec", "source", "image", "ref")
	if ref == "" || strings.Contains(ref, "@") {
		t.Fatalf("clustercatalog.yaml must poll a tag, not %q", ref)
	}
	return ref
}

func apply(t *testing.T, objs ...*unstructured.Unstructured) {
	t.Helper()
	for _, o := range objs {
		if err := suite.k8s.Patch(context.Background(), o, client.Apply, client.FieldOwner("olmv1real"), client.ForceOwnership); err != nil {
			t.Fatalf("failed to apply %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
}

func patchExtension(t *testing.T, patch string) {
	t.Helper()
	suite.kubectl.Must(t, "", "patch", "clusterextension", extName, "--type=json", "-p", patch)
}

// deleteExtension deletes the ClusterExtension and waits until it is gone (operator-controller
// uninstalls its release first).
func deleteExtension(t *testing.T) {
	t.Helper()
	suite.kubectl.Must(t, "", "delete", "clusterextension", extName, "--ignore-not-found", "--wait=true", "--timeout=3m")
}

// operatorPod waits for the one Ready operator pod running image and returns it.
func operatorPod(t *testing.T, image string) corev1.Pod {
	t.Helper()
	var pod corev1.Pod
	NewWithT(t).Eventually(func(g Gomega) {
		pods := &corev1.PodList{}
		g.Expect(suite.k8s.List(context.Background(), pods, client.InNamespace(installNS), client.MatchingLabels{"control-plane": "controller-manager"})).To(Succeed())
		g.Expect(pods.Items).To(HaveLen(1))
		pod = pods.Items[0]
		g.Expect(pod.Spec.Containers[0].Image).To(Equal(image))
		g.Expect(utils.PodRunningReady(&pod)).To(BeTrue(), "operator pod %s not Ready", pod.Name)
	}, 3*time.Minute, poll).Should(Succeed())
	return pod
}

// waitLeader waits until the operator's leader election Lease is held by pod (client-go's
// identity is <hostname>_<uuid>, a pod's hostname its name): from then on that operator
// reconciles, while a Ready pod may still stand by behind the previous leader.
func waitLeader(t *testing.T, pod string) {
	t.Helper()
	NewWithT(t).Eventually(func(g Gomega) {
		l := &coordinationv1.Lease{}
		g.Expect(suite.k8s.Get(context.Background(), client.ObjectKey{Namespace: installNS, Name: leaseName}, l)).To(Succeed())
		g.Expect(ptr.Deref(l.Spec.HolderIdentity, "")).To(HavePrefix(pod + "_"))
	}, 2*time.Minute, poll).Should(Succeed())
}

// TestClusterExtensionLifecycle is the OLM v1 user story, in order: a ClusterCatalog from our
// catalog image; a ClusterExtension installing the oldest release (its deprecation surfacing); a
// version pin holding an upgrade back while the catalog moves on; the CRD upgrade safety preflight
// refusing the upgrade out of the oldest release, as our release check predicts; the previous
// release (VERSION_PREVIOUS) installed with the preflight off for that edge, as
// docs/olm.md tells users of the oldest releases; a Memcached that release creates, serving a
// client; the upgrade users take, previous to head, with the preflight at its default (Strict),
// memcached pods untouched and every key answered throughout; the uninstall and what it keeps; a
// SingleNamespace install.
func TestClusterExtensionLifecycle(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	deleteExtension(t)
	suite.kubectl.Must(t, "", "delete", "clustercatalog", extName, "--ignore-not-found", "--wait=true")
	t.Cleanup(func() {
		deleteExtension(t)
		suite.kubectl.Must(t, "", "delete", "clustercatalog", extName, "--ignore-not-found", "--wait=true")
	})

	start := time.Now()
	publish(t, suite.env["CATALOG_IMAGE_OLDEST"])
	apply(t, sample(t, "clustercatalog.yaml")...)
	suite.kubectl.Must(t, "", "wait", "--for=condition=Serving", "clustercatalog/"+extName, "--timeout=3m")
	suite.phases.Record(t, "ClusterCatalog Serving (catalog cut at "+suite.env["VERSION_OLDEST"]+")", start)

	// Install: the installer's namespace, ServiceAccount and binding, then the ClusterExtension.
	start = time.Now()
	apply(t, sample(t, "installer.yaml")...)
	apply(t, sample(t, "clusterextension.yaml")...)
	waitInstalled(t, suite.env["VERSION_OLDEST"])
	_, cond, _ := extension(g)
	g.Expect(cond("BundleDeprecated").Status).To(Equal(metav1.ConditionTrue))
	g.Expect(cond("Deprecated").Message).To(ContainSubstring("memcached-operator " + suite.env["VERSION_OLDEST"] + " is deprecated"))
	op := operatorPod(t, suite.env["OPERATOR_IMAGE_OLDEST"])
	for _, e := range op.Spec.Containers[0].Env {
		g.Expect(e.Name).NotTo(Equal("OPERATOR_CONDITION_NAME"), "OLM v1 sets no OperatorCondition")
	}
	suite.phases.Record(t, "ClusterExtension Installed "+suite.env["VERSION_OLDEST"]+" (BundleDeprecated=True), operator pod Ready", start)

	// A version pin holds the upgrade back while the catalog's channels move on.
	start = time.Now()
	patchExtension(t, `[{"op":"add","path":"/spec/source/catalog/version","value":"`+suite.env["VERSION_OLDEST"]+`"}]`)
	publish(t, suite.env["CATALOG_IMAGE_HEAD"])
	g.Consistently(func(g Gomega) {
		v, _, _ := extension(g)
		g.Expect(v).To(Equal(suite.env["VERSION_OLDEST"]))
	}, 15*time.Second, time.Second).Should(Succeed())
	waitInstalled(t, suite.env["VERSION_OLDEST"])
	suite.phases.Record(t, "catalog head pushed; version "+suite.env["VERSION_OLDEST"]+" holds the extension there", start)

	// Unpinned, the upgrade to the head is refused by the CRD upgrade safety preflight: the CRD of
	// the oldest release has no CEL rules and another spec.image pattern (see
	// hack/catalog/crd-upgrade-accepted.txt, where our release check lists the same edge).
	start = time.Now()
	patchExtension(t, `[{"op":"remove","path":"/spec/source/catalog/version"}]`)
	g.Eventually(func(g Gomega) {
		v, cond, _ := extension(g)
		g.Expect(v).To(Equal(suite.env["VERSION_OLDEST"]))
		p := cond("Progressing")
		g.Expect(p).NotTo(BeNil())
		g.Expect(p.Message).To(ContainSubstring(`validating upgrade for CRD "` + crdName + `"`))
		g.Expect(p.Message).To(ContainSubstring(`"^.spec.image"`))
	}, 2*time.Minute, poll).Should(Succeed())
	_, cond, _ = extension(g)
	t.Logf("preflight: %s", cond("Progressing").Message)
	op = operatorPod(t, suite.env["OPERATOR_IMAGE_OLDEST"])
	suite.phases.Record(t, "upgrade to the head refused by the CRD upgrade safety preflight (spec.image named)", start)

	// The previous release, with the preflight off for the edge out of the oldest one (the only
	// way off a release the preflight refuses to leave: docs/olm.md).
	start = time.Now()
	patchExtension(t, `[{"op":"add","path":"/spec/source/catalog/version","value":"`+suite.env["VERSION_PREVIOUS"]+`"},`+
		`{"op":"add","path":"/spec/install","value":{"preflight":{"crdUpgradeSafety":{"enforcement":"None"}}}}]`)
	waitInstalled(t, suite.env["VERSION_PREVIOUS"])
	operatorPod(t, suite.env["OPERATOR_IMAGE_PREVIOUS"])
	suite.phases.Record(t, "upgraded to "+suite.env["VERSION_PREVIOUS"]+" with enforcement None (the edge out of "+suite.env["VERSION_OLDEST"]+")", start)

	// A Memcached the previous release creates, in a namespace of its own, keys on every server.
	start = time.Now()
	ns := utils.NewNamespace(t, suite.k8s, "olmv1", map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}, 2*time.Minute)
	key := client.ObjectKey{Namespace: ns, Name: "cache"}
	g.Expect(suite.k8s.Create(ctx, utils.NewMemcached(ns, key.Name, 3))).To(Succeed())
	mc, pods := utils.WaitAvailable(t, suite.k8s, key, 3, 3*time.Minute)
	mcc := utils.MCClient{Kubectl: suite.env["KUBECTL"], Kubeconfig: suite.env["KUBECONFIG"], Namespace: ns,
		Pod: clientPod, Image: suite.env["MCCLIENT_IMAGE"], Binary: clientBinary}
	mcc.Start(t, suite.k8s)
	servers := strings.Join(mc.Status.ServerList, ",")
	var set memcache.PlacementReport
	mcc.Run(t, &set, "hashset", "-servers", servers, "-prefix", keyPrefix, "-n", "100")
	g.Expect(set.Keys).To(HaveLen(100))
	suite.phases.Record(t, "Memcached Available (3 real pods), 100 keys set", start)

	// The upgrade users take: previous to head, unpinned, the preflight back at its default.
	start = time.Now()
	before := utils.PodUIDs(pods)
	w := mcc.Watch(t, "watch", "-servers", servers, "-prefix", keyPrefix, "-n", "100", "-interval", "200ms", "-progress")
	w.WaitRounds(t, 3, 30*time.Second) // the client reads every key before the upgrade starts
	patchExtension(t, `[{"op":"remove","path":"/spec/source/catalog/version"},{"op":"remove","path":"/spec/install"}]`)
	waitInstalled(t, suite.env["VERSION_HEAD"])
	_, cond, _ = extension(g)
	t.Logf("upgrade %s -> %s with the preflight at its default: Progressing %s: %s", suite.env["VERSION_PREVIOUS"], suite.env["VERSION_HEAD"], cond("Progressing").Reason, cond("Progressing").Message)
	head := operatorPod(t, suite.env["OPERATOR_IMAGE_HEAD"])
	waitLeader(t, head.Name)
	g.Eventually(func(g Gomega) {
		got := &cachev1alpha1.Memcached{}
		g.Expect(suite.k8s.Get(ctx, key, got)).To(Succeed())
		c := meta.FindStatusCondition(got.Status.Conditions, cachev1alpha1.ConditionAvailable)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
		// the new operator has reconciled: its status carries the head's conditions (Degraded is
		// written by every release from 0.2.0 on).
		g.Expect(meta.FindStatusCondition(got.Status.Conditions, cachev1alpha1.ConditionDegraded)).NotTo(BeNil())
	}, 2*time.Minute, poll).Should(Succeed())
	// The new operator leads, so it has listed every Memcached and reconciles them within a
	// second or two; for a while after that it must leave the pods alone too (a rollout it started
	// would replace one within it).
	g.Consistently(func(g Gomega) {
		now, err := utils.InstancePods(ctx, suite.k8s, key)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(utils.PodUIDs(now)).To(Equal(before))
	}, 10*time.Second, poll).Should(Succeed(), "memcached pods changed after the upgrade")
	_, pods = utils.WaitAvailable(t, suite.k8s, key, 3, time.Minute)
	g.Expect(utils.PodUIDs(pods)).To(Equal(before), "memcached pods changed across the upgrade")
	for _, p := range pods {
		for _, cs := range p.Status.ContainerStatuses {
			g.Expect(cs.RestartCount).To(BeZero(), "container %s of %s restarted", cs.Name, p.Name)
		}
	}
	var report memcache.WatchReport
	w.Stop(t, &report)
	t.Logf("client pod: %d rounds of 100 gets every %d ms, %d gets answered, %d errors", report.Rounds, report.IntervalMs, report.Gets, len(report.Errors))
	g.Expect(report.Errors).To(BeEmpty(), "the client saw errors during the upgrade")
	g.Expect(report.Rounds).To(BeNumerically(">", 10))
	g.Expect(report.Gets).To(Equal(100 * report.Rounds))
	suite.phases.Record(t, "upgraded "+suite.env["VERSION_PREVIOUS"]+" -> "+suite.env["VERSION_HEAD"]+" with the preflight at its default: same memcached pods, 0 restarts, every key found in every round", start)

	// Uninstall. The release holds the CRD: deleting the ClusterExtension deletes the CRD and with
	// it every Memcached. Their Deployments and pods are another matter: once the kind is gone the
	// garbage collector cannot verify that an owner is absent and may leave its dependents running
	// (kubernetes/kubernetes#102641). So the documented order is: delete the Memcacheds first (their
	// pods go while the CRD exists), then the ClusterExtension. Both are measured here: "cache" in
	// that order, "left" still present when the ClusterExtension goes.
	start = time.Now()
	left := client.ObjectKey{Namespace: ns, Name: "left"}
	g.Expect(suite.k8s.Create(ctx, utils.NewMemcached(ns, left.Name, 1))).To(Succeed())
	utils.WaitAvailable(t, suite.k8s, left, 1, 2*time.Minute)
	g.Expect(suite.k8s.Delete(ctx, &cachev1alpha1.Memcached{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: key.Name}})).To(Succeed())
	g.Eventually(func() (int, error) {
		pods, err := utils.InstancePods(ctx, suite.k8s, key)
		return len(pods), err
	}, 2*time.Minute, poll).Should(BeZero(), "the pods of a deleted Memcached were not garbage-collected")
	deleteExtension(t)
	g.Eventually(func(g Gomega) {
		pods := &corev1.PodList{}
		g.Expect(suite.k8s.List(ctx, pods, client.InNamespace(installNS), client.MatchingLabels{"control-plane": "controller-manager"})).To(Succeed())
		g.Expect(pods.Items).To(BeEmpty())
	}, 2*time.Minute, poll).Should(Succeed(), "the operator pod outlived its ClusterExtension")
	g.Eventually(func() string {
		_, errOut, _ := suite.kubectl.Run(ctx, "", "get", "crd", crdName)
		return errOut
	}, 2*time.Minute, poll).Should(ContainSubstring("NotFound"), "the CRD outlived the ClusterExtension")
	suite.kubectl.Must(t, "", "get", "serviceaccount", "-n", installNS, "memcached-operator-installer")
	time.Sleep(30 * time.Second)
	orphans, err := utils.InstancePods(ctx, suite.k8s, left)
	g.Expect(err).NotTo(HaveOccurred())
	t.Logf("30 s after the CRD went, Memcached %s (deleted with it) still has %d running pod(s)", left, len(orphans))
	suite.kubectl.Must(t, "", "delete", "deployment,service,poddisruptionbudget", "-n", ns, "-l", "app.kubernetes.io/instance="+left.Name, "--wait=true")
	suite.phases.Record(t, fmt.Sprintf("uninstalled: Memcached deleted first leaves nothing; CRD and Memcacheds gone with the ClusterExtension; %d orphaned pod(s) of one left in place", len(orphans)), start)

	// SingleNamespace (watch-namespace another namespace): operator-controller v1.2.0 grants the
	// CSV's namespaced permissions, the Lease rules with them, in the watched namespace only, not
	// in the install namespace (OLM v0 grants both). The operator sees it may not create Leases in
	// its own namespace and elects in the watched one (leaderready.LeaseNamespace): it is Ready,
	// leads, and reconciles a Memcached there.
	start = time.Now()
	ce := sample(t, "clusterextension.yaml")[0]
	ce.SetAnnotations(map[string]string{watchNamespaceAnnotation: ns})
	apply(t, ce)
	waitInstalled(t, suite.env["VERSION_HEAD"])
	var single corev1.Pod
	g.Eventually(func(g Gomega) {
		pods := &corev1.PodList{}
		g.Expect(suite.k8s.List(ctx, pods, client.InNamespace(installNS), client.MatchingLabels{"control-plane": "controller-manager"})).To(Succeed())
		g.Expect(pods.Items).To(HaveLen(1))
		single = pods.Items[0]
		g.Expect(single.DeletionTimestamp).To(BeNil())
		g.Expect(single.Spec.Containers[0].Image).To(Equal(suite.env["OPERATOR_IMAGE_HEAD"]))
		g.Expect(single.Annotations["olm.targetNamespaces"]).To(Equal(ns))
		g.Expect(utils.PodRunningReady(&single)).To(BeTrue(), "the operator is not Ready")
	}, 3*time.Minute, poll).Should(Succeed())
	g.Eventually(func(g Gomega) {
		l := &coordinationv1.Lease{}
		g.Expect(suite.k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: leaseName}, l)).To(Succeed())
		g.Expect(ptr.Deref(l.Spec.HolderIdentity, "")).To(HavePrefix(single.Name + "_"))
	}, 2*time.Minute, poll).Should(Succeed(), "the operator does not lead through a Lease in the watched namespace %s", ns)
	singleKey := client.ObjectKey{Namespace: ns, Name: "single"}
	g.Expect(suite.k8s.Create(ctx, utils.NewMemcached(ns, singleKey.Name, 1))).To(Succeed())
	utils.WaitAvailable(t, suite.k8s, singleKey, 1, 2*time.Minute)
	singleLogs, _, _ := suite.kubectl.Run(ctx, "", "logs", "-n", installNS, single.Name, "--tail=-1")
	g.Expect(strings.ToLower(singleLogs)).NotTo(ContainSubstring("forbidden"), "the operator was refused something in SingleNamespace")
	g.Expect(suite.k8s.Delete(ctx, &cachev1alpha1.Memcached{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: singleKey.Name}})).To(Succeed())
	g.Eventually(func() (int, error) {
		pods, err := utils.InstancePods(ctx, suite.k8s, singleKey)
		return len(pods), err
	}, 2*time.Minute, poll).Should(BeZero())
	suite.phases.Record(t, "SingleNamespace ("+ns+"): installed, Ready, leading through a Lease in "+ns+", a Memcached there Available", start)

	// OwnNamespace (watch-namespace the install namespace) works: the operator watches only there.
	start = time.Now()
	ce = sample(t, "clusterextension.yaml")[0] // apply filled the last one in with the server's copy
	ce.SetAnnotations(map[string]string{watchNamespaceAnnotation: installNS})
	apply(t, ce)
	waitInstalled(t, suite.env["VERSION_HEAD"])
	g.Eventually(func(g Gomega) {
		p := operatorPod(t, suite.env["OPERATOR_IMAGE_HEAD"])
		g.Expect(p.Annotations["olm.targetNamespaces"]).To(Equal(installNS))
		op = p
	}, 2*time.Minute, poll).Should(Succeed())
	own := client.ObjectKey{Namespace: installNS, Name: "own"}
	g.Expect(suite.k8s.Create(ctx, utils.NewMemcached(installNS, own.Name, 2))).To(Succeed())
	t.Cleanup(func() {
		_ = suite.k8s.Delete(context.Background(), &cachev1alpha1.Memcached{ObjectMeta: metav1.ObjectMeta{Namespace: own.Namespace, Name: own.Name}})
	})
	g.Expect(suite.k8s.Create(ctx, utils.NewMemcached(ns, "outside", 1))).To(Succeed())
	utils.WaitAvailable(t, suite.k8s, own, 2, 2*time.Minute)
	g.Consistently(func(g Gomega) {
		got := &cachev1alpha1.Memcached{}
		g.Expect(suite.k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "outside"}, got)).To(Succeed())
		g.Expect(got.Status.Conditions).To(BeEmpty(), "a Memcached outside the watched namespace was reconciled")
	}, 10*time.Second, time.Second).Should(Succeed())
	logs := suite.kubectl.Must(t, "", "logs", "-n", installNS, op.Name, "--tail=-1")
	g.Expect(strings.ToLower(logs)).NotTo(ContainSubstring("forbidden"))
	g.Expect(suite.k8s.Delete(ctx, &cachev1alpha1.Memcached{ObjectMeta: metav1.ObjectMeta{Namespace: own.Namespace, Name: own.Name}})).To(Succeed())
	g.Eventually(func() (int, error) {
		pods, err := utils.InstancePods(ctx, suite.k8s, own)
		return len(pods), err
	}, 2*time.Minute, poll).Should(BeZero())
	suite.phases.Record(t, "OwnNamespace ("+installNS+"): reconciled there only, no \"forbidden\" in the operator's log", start)
}

// runSkopeo runs skopeo (hack/cluster/host-packages.sh real installs it) with args.
func runSkopeo(args ...string) (string, error) {
	cmd := exec.Command("skopeo", args...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
