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

package real

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/test/real/memcache"
	"github.com/example/memcached-operator/test/utils"
)

// flushInterval is the time between the two servers' flushes in TestKubectlPluginFlush: long
// enough that the first check (a few seconds after the plugin returns, through kubectl exec)
// always falls before the second server's flush.
const flushInterval = 30 * time.Second

// `kubectl memcached flush` on real memcached servers with authentication: the plugin reaches each
// server through a port-forward, logs in with the first entry of the instance's auth Secret, and
// sends the first server (by pod name) `flush_all 0` and the second `flush_all 30`. Checked with
// a client reading every key: right after the command the first server holds none of its keys and
// the second all of its; after the interval, none are left.
func TestKubectlPluginFlush(t *testing.T) {
	g := NewWithT(t)
	ctx := utils.TestContext(t)
	ns := newRestrictedNamespace(t, "flush")
	key := client.ObjectKey{Namespace: ns, Name: "flush"}
	password := randomPassword(t)
	users := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "flush-users", Namespace: ns},
		Data: map[string][]byte{"authfile": []byte("app:" + password + "\n")}}
	g.Expect(suite.k8s.Create(ctx, users)).To(Succeed())
	g.Expect(suite.k8s.Create(ctx, utils.NewMemcached(ns, key.Name, 2, func(mc *cachev1alpha1.Memcached) {
		mc.Spec.Auth = &cachev1alpha1.AuthSpec{SecretName: users.Name}
	}))).To(Succeed())
	mc, pods := utils.WaitAvailable(t, suite.k8s, key, 2, 2*podStartTimeout)
	startClientPod(t, ns)
	servers := strings.Join(mc.Status.ServerList, ",")
	var set memcache.PlacementReport
	mustClientRun(t, ns, creds("", password), &set, "hashset", "-servers", servers, "-prefix", "flush", "-n", "200", "-user", "app", "-credentials-stdin")
	g.Expect(set.Keys).To(HaveLen(200))

	// Which entry of serverList is which pod: the plugin flushes the pods in name order.
	slices.SortFunc(pods, func(a, b corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	serverOf := func(p corev1.Pod) string {
		for _, s := range mc.Status.ServerList {
			if strings.HasPrefix(s, strings.ReplaceAll(p.Status.PodIP, ".", "-")+".") || strings.HasPrefix(s, p.Status.PodIP+":") {
				return s
			}
		}
		t.Fatalf("no entry of serverList %v is pod %s (%s)", mc.Status.ServerList, p.Name, p.Status.PodIP)
		return ""
	}
	first, second := serverOf(pods[0]), serverOf(pods[1])
	placed := map[string]int{}
	for _, where := range set.Keys {
		placed[where[0]]++
	}
	held := func() map[string]int {
		var loc memcache.PlacementReport
		mustClientRun(t, ns, creds("", password), &loc, "locate", "-servers", servers, "-prefix", "flush", "-n", "200", "-user", "app", "-credentials-stdin")
		n := map[string]int{}
		for _, where := range loc.Keys {
			for _, s := range where {
				n[s]++
			}
		}
		return n
	}

	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "kubectl-memcached"), "./cmd/kubectl-memcached")
	build.Dir = suite.repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/kubectl-memcached: %v\n%s", err, out)
	}
	start := time.Now()
	cmd := exec.Command(suite.kubectl, "memcached", "flush", key.Name, "-n", ns, "--interval", flushInterval.String())
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "KUBECONFIG="+suite.kubeconfig)
	out, err := cmd.CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), "kubectl memcached flush: %s", out)
	t.Logf("kubectl memcached flush --interval %s (%s):\n%s", flushInterval, utils.Ms(time.Since(start)), out)

	now := held()
	elapsed := time.Since(start)
	g.Expect(elapsed).To(BeNumerically("<", flushInterval), "the first check came too late to tell the servers apart")
	t.Logf("%s after the command: %s holds %d of its %d keys, %s %d of %d", utils.Ms(elapsed), first, now[first], placed[first], second, now[second], placed[second])
	g.Expect(now[first]).To(BeZero(), "the first server still holds keys after flush_all 0")
	g.Expect(now[second]).To(Equal(placed[second]), "the second server lost keys before its flush")

	time.Sleep(time.Until(start.Add(flushInterval + 2*time.Second)))
	later := held()
	t.Logf("%s after the command: %s holds %d keys, %s %d", utils.Ms(time.Since(start)), first, later[first], second, later[second])
	g.Expect(later[first]+later[second]).To(BeZero(), "keys left after both flushes")
}
