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

// Package helmreal installs the Helm chart on the real node (make test-helm-real): the chart of
// the newest release (written from its source by hack/helm/previous.sh), a Memcached with clients
// reading its keys, the upgrade to the head's chart (dist/chart), and the uninstall.
package helmreal

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/test/real/memcache"
	"github.com/example/memcached-operator/test/utils"
)

const (
	release      = "memcached-operator"
	installNS    = "memcached-operator-helm"
	crdName      = "memcacheds.cache.example.com"
	clientPod    = "mcclient"
	clientBinary = "/mcclient"
	poll         = 500 * time.Millisecond
)

// env returns the environment variables make test-helm-real passes, failing on a missing one.
func env(t *testing.T) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, k := range []string{"KUBECONFIG", "KUBECTL", "HELM", "HELM_CHART", "HELM_PREVIOUS_CHART", "HELM_PREVIOUS_VERSION",
		"HELM_PREVIOUS_OPERATOR_IMAGE", "OPERATOR_IMAGE", "MEMCACHED_IMAGE", "MCCLIENT_IMAGE"} {
		if m[k] = os.Getenv(k); m[k] == "" {
			t.Fatalf("%s is not set: run make test-helm-real", k)
		}
	}
	return m
}

// helm runs the helm binary against the real node and returns its output.
func helm(t *testing.T, e map[string]string, args ...string) string {
	t.Helper()
	cmd := exec.Command(e["HELM"], args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+e["KUBECONFIG"])
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// values are the --set flags a user with a mirror passes: the operator image (by digest: the
// chart appends no tag to a repository holding "@") and the operand images the node can pull.
func values(e map[string]string, operatorImage string) []string {
	return []string{
		"--set", "manager.image.repository=" + operatorImage,
		"--set", "manager.envOverrides.RELATED_IMAGE_MEMCACHED=" + e["MEMCACHED_IMAGE"],
		"--set", "manager.envOverrides.RELATED_IMAGE_CERT_RELOADER=" + operatorImage,
	}
}

// The chart's life on a real node, as a Helm user lives it: install the previous release's chart,
// create a Memcached and read its keys without a pause while `helm upgrade` moves to the head's
// chart (operator replaced, CRD upgraded, memcached pods untouched), then `helm uninstall`, which
// removes the operator and keeps the CRD and the caches (crd.keep, the chart's default).
func TestChartInstallUpgradeUninstall(t *testing.T) {
	g := NewWithT(t)
	e := env(t)
	ctx := context.Background()
	c, err := utils.NewClient(e["KUBECONFIG"], 100, cachev1alpha1.AddToScheme, apiextensionsv1.AddToScheme)
	g.Expect(err).NotTo(HaveOccurred())
	phases := &utils.Phases{}
	total := time.Now()
	defer func() { phases.Print(os.Stdout, "Helm chart on the real node", time.Since(total)) }()

	operatorPod := func(image string) {
		t.Helper()
		g.Eventually(func(g Gomega) {
			pods := &corev1.PodList{}
			g.Expect(c.List(ctx, pods, client.InNamespace(installNS), client.MatchingLabels{"control-plane": "controller-manager"})).To(Succeed())
			g.Expect(pods.Items).To(HaveLen(1))
			p := pods.Items[0]
			g.Expect(p.DeletionTimestamp).To(BeNil())
			g.Expect(p.Spec.Containers[0].Image).To(Equal(image))
			g.Expect(utils.PodRunningReady(&p)).To(BeTrue())
		}, 3*time.Minute, poll).Should(Succeed(), "the operator pod of %s is not running and Ready", image)
	}

	// Install: the previous release's chart, as `helm install --create-namespace` does it.
	start := time.Now()
	t.Cleanup(func() {
		cmd := exec.Command(e["HELM"], "uninstall", release, "-n", installNS, "--ignore-not-found", "--wait")
		cmd.Env = append(os.Environ(), "KUBECONFIG="+e["KUBECONFIG"])
		_ = cmd.Run()
		_ = c.Delete(ctx, &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: crdName}})
		_ = c.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: installNS}})
	})
	helm(t, e, append([]string{"install", release, e["HELM_PREVIOUS_CHART"], "-n", installNS, "--create-namespace", "--wait", "--timeout", "3m"},
		values(e, e["HELM_PREVIOUS_OPERATOR_IMAGE"])...)...)
	operatorPod(e["HELM_PREVIOUS_OPERATOR_IMAGE"])
	crd := &apiextensionsv1.CustomResourceDefinition{}
	g.Expect(c.Get(ctx, client.ObjectKey{Name: crdName}, crd)).To(Succeed())
	g.Expect(crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties).NotTo(HaveKey("warmRestart"),
		"the previous release's CRD already has spec.warmRestart: is HELM_PREVIOUS_CHART the previous release's?")
	phases.Record(t, "helm install of the "+e["HELM_PREVIOUS_VERSION"]+" chart, operator Ready", start)

	// A Memcached that release creates, and a client that reads every key every 200 ms.
	start = time.Now()
	ns := utils.NewNamespace(t, c, "helm", map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}, 2*time.Minute)
	key := client.ObjectKey{Namespace: ns, Name: "cache"}
	g.Expect(c.Create(ctx, utils.NewMemcached(ns, key.Name, 2))).To(Succeed())
	mc, pods := utils.WaitAvailable(t, c, key, 2, 3*time.Minute)
	mcc := utils.MCClient{Kubectl: e["KUBECTL"], Kubeconfig: e["KUBECONFIG"], Namespace: ns, Pod: clientPod, Image: e["MCCLIENT_IMAGE"], Binary: clientBinary}
	mcc.Start(t, c)
	servers := strings.Join(mc.Status.ServerList, ",")
	var set memcache.PlacementReport
	mcc.Run(t, &set, "hashset", "-servers", servers, "-prefix", "helm", "-n", "100")
	g.Expect(set.Keys).To(HaveLen(100))
	phases.Record(t, "Memcached Available (2 real pods), 100 keys set", start)

	// Upgrade to the head's chart.
	start = time.Now()
	before := utils.PodUIDs(pods)
	w := mcc.Watch(t, "watch", "-servers", servers, "-prefix", "helm", "-n", "100", "-interval", "200ms", "-progress")
	w.WaitRounds(t, 3, 30*time.Second)
	helm(t, e, append([]string{"upgrade", release, e["HELM_CHART"], "-n", installNS, "--wait", "--timeout", "3m"}, values(e, e["OPERATOR_IMAGE"])...)...)
	operatorPod(e["OPERATOR_IMAGE"])
	g.Expect(c.Get(ctx, client.ObjectKey{Name: crdName}, crd)).To(Succeed())
	g.Expect(crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties).To(HaveKey("warmRestart"), "helm upgrade left the CRD as it was")
	g.Eventually(func(g Gomega) {
		got := &cachev1alpha1.Memcached{}
		g.Expect(c.Get(ctx, key, got)).To(Succeed())
		// Ready is written by the head only: the new operator has reconciled the instance.
		cond := meta.FindStatusCondition(got.Status.Conditions, cachev1alpha1.ConditionReady)
		g.Expect(cond).NotTo(BeNil())
		g.Expect(cond.Status).To(Equal(metav1.ConditionTrue))
	}, 2*time.Minute, poll).Should(Succeed())
	g.Consistently(func(g Gomega) {
		now, err := utils.InstancePods(ctx, c, key)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(utils.PodUIDs(now)).To(Equal(before))
	}, 10*time.Second, poll).Should(Succeed(), "memcached pods changed after the upgrade")
	_, pods = utils.WaitAvailable(t, c, key, 2, time.Minute)
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
	g.Expect(helm(t, e, "history", release, "-n", installNS)).To(MatchRegexp(`(?m)^2\s.*deployed`))
	phases.Record(t, "helm upgrade to the head's chart: operator replaced, CRD upgraded, same memcached pods, 0 restarts, every key in every round", start)

	// Uninstall: the operator goes; the CRD (helm.sh/resource-policy: keep) and the caches stay.
	start = time.Now()
	helm(t, e, "uninstall", release, "-n", installNS, "--wait")
	g.Eventually(func() bool {
		err := c.Get(ctx, client.ObjectKey{Namespace: installNS, Name: release + "-controller-manager"}, &appsv1.Deployment{})
		return apierrors.IsNotFound(err)
	}, 2*time.Minute, poll).Should(BeTrue(), "the operator Deployment outlived helm uninstall")
	g.Expect(c.Get(ctx, client.ObjectKey{Name: crdName}, crd)).To(Succeed(), "helm uninstall deleted the CRD (crd.keep is the default)")
	_, pods = utils.WaitAvailable(t, c, key, 2, time.Minute)
	g.Expect(utils.PodUIDs(pods)).To(Equal(before))
	phases.Record(t, "helm uninstall: operator removed, CRD and Memcached kept, its pods still serving", start)
}
