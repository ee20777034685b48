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
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/resources"
	"github.com/example/memcached-operator/test/real/memcache"
	"github.com/example/memcached-operator/test/utils"
)

// warmKeys is how many keys TestWarmRestarts writes (small values: far below -m 64).
const warmKeys = 2000

// warmServer is what the test knows of one server: its pod's UID and its memcached container's
// restart count and image.
type warmServer struct {
	uid      types.UID
	restarts int32
	image    string
}

// TestWarmRestarts proves spec.warmRestart on real pods, with memcached images built from
// Debian's packages: a Memcached of 2 Stable servers on the previous memcached
// (MEMCACHED_PREVIOUS_IMAGE, trixie's 1.6.38) holds warmKeys keys; spec.image moves to the
// current one (MEMCACHED_IMAGE, sid's 1.6.45). The operator must update both servers in place,
// one at a time (never both unready at once), in the same pods (same UIDs, one restart each), and
// every key must still be found on the server it was written to, with one UpdatedInPlace event
// per server. Then spec.memcached.threads changes 4 → 8, a setting memcached restores: the same,
// each container restarted once more with the new arguments. Then the password rotates (the
// auth Secret's data): the new one works and the old one is refused on both servers, with no
// restart and every key kept. All with authentication on (spec.auth). Last, maxMemoryMB changes,
// which a running pod cannot take: both servers are replaced, one at a time, with one Replaced
// event each. Then memcached of server 0 is killed with SIGKILL (crictl stop --timeout 0 on the
// node's containerd, as an OOM kill would): that server must start empty within seconds, not in a
// crash loop, and server 1 keep its keys.
func TestWarmRestarts(t *testing.T) {
	previous, current := os.Getenv("MEMCACHED_PREVIOUS_IMAGE"), os.Getenv("MEMCACHED_IMAGE")
	if previous == "" || current == "" {
		t.Fatal("MEMCACHED_PREVIOUS_IMAGE and MEMCACHED_IMAGE must be set: run `make test-real` (make real-images records both in images.env)")
	}
	g := NewWithT(t)
	ctx := utils.TestContext(t)
	ns := newRestrictedNamespace(t, "warm")
	key := client.ObjectKey{Namespace: ns, Name: "warm"}
	password := randomPassword(t)
	users := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "warm-users", Namespace: ns},
		Data: map[string][]byte{"authfile": []byte("app:" + password + "\n")}}
	g.Expect(suite.k8s.Create(ctx, users)).To(Succeed())
	mc := &cachev1alpha1.Memcached{
		ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace},
		Spec: cachev1alpha1.MemcachedSpec{
			Size:           2,
			Image:          previous,
			ServerIdentity: cachev1alpha1.ServerIdentityStable,
			WarmRestart:    cachev1alpha1.WarmRestartSpec{Enabled: true},
			Auth:           &cachev1alpha1.AuthSpec{SecretName: users.Name},
			Memcached:      cachev1alpha1.MemcachedConfig{MaxMemoryMB: 64, MaxConnections: 1024, Threads: 4},
		},
	}
	g.Expect(suite.k8s.Create(ctx, mc)).To(Succeed())
	startClientPod(t, ns)
	before := waitWarmServers(t, key, previous, nil)
	servers := warmServerList(key, 2)

	var set memcache.PlacementReport
	mustClientRun(t, ns, creds("", password), &set, "hashset", "-servers", strings.Join(servers, ","), "-prefix", "warm", "-n", fmt.Sprint(warmKeys), "-user", "app", "-credentials-stdin")
	g.Expect(set.Keys).To(HaveLen(warmKeys))
	t.Logf("memory with %d keys on %s: %s", warmKeys, previous, podMemory(t, ns, key.Name+"-0"))

	// The upgrade, watched: at most one server away at any time.
	var versionBefore string
	g.Eventually(func() string { versionBefore = getWarm(t, key).Status.Version; return versionBefore }, 30*time.Second, time.Second).ShouldNot(BeEmpty())
	after := changeAndWatch(t, key, "memcached "+current, func(mc *cachev1alpha1.Memcached) { mc.Spec.Image = current },
		func() (map[string]warmServer, error) { return warmState(ctx, key, current, before) })
	for name, s := range after {
		g.Expect(s.uid).To(Equal(before[name].uid), "server %s kept its pod", name)
		g.Expect(s.restarts).To(Equal(before[name].restarts+1), "server %s restarted once", name)
	}
	t.Logf("memory after the in-place restart: %s", podMemory(t, ns, key.Name+"-0"))
	found := keysOnTheirServer(t, ns, servers, set, password)
	t.Logf("after the upgrade %s → %s: %d of %d keys found on their server", previous, current, found, warmKeys)
	g.Expect(found).To(Equal(warmKeys), "every key survived the in-place upgrade")
	g.Expect(eventsFor(ctx, ns, "UpdatedInPlace")).To(HaveLen(2))
	// status.version follows the images the kubelet reports: one version again, not the old one.
	g.Eventually(func(g Gomega) {
		v := getWarm(t, key).Status.Version
		g.Expect(v).NotTo(BeEmpty())
		g.Expect(v).NotTo(Equal(versionBefore))
		g.Expect(v).NotTo(ContainSubstring(","), "servers still differ")
	}, 30*time.Second, time.Second).Should(Succeed())
	t.Logf("status.version: %q before the upgrade, %q after", versionBefore, getWarm(t, key).Status.Version)

	// A setting memcached restores (its threads): the new arguments reach the running pods
	// through their annotation; each launcher saves, exits, and its container restarts with them.
	tuned := changeAndWatch(t, key, "-t 8", func(mc *cachev1alpha1.Memcached) { mc.Spec.Memcached.Threads = 8 },
		func() (map[string]warmServer, error) { return warmState(ctx, key, current, after) })
	for name, s := range tuned {
		g.Expect(s.uid).To(Equal(after[name].uid), "server %s kept its pod", name)
	}
	found = keysOnTheirServer(t, ns, servers, set, password)
	t.Logf("after -t 4 → 8: %d of %d keys found on their server", found, warmKeys)
	g.Expect(found).To(Equal(warmKeys), "every key survived the change of threads")
	g.Expect(eventsFor(ctx, ns, "UpdatedInPlace")).To(HaveLen(4))
	after = tuned

	// A password rotation: the launcher sees the new auth file and sends memcached SIGHUP; no
	// container restarts, every key stays.
	start := time.Now()
	rotated := randomPassword(t)
	users.Data["authfile"] = []byte("app:" + rotated + "\n")
	g.Expect(suite.k8s.Update(ctx, users)).To(Succeed())
	g.Eventually(func() error {
		var r memcache.ServersReport
		return clientRun(ctx, ns, creds("", rotated), &r, "servers", "-servers", strings.Join(servers, ","), "-user", "app", "-credentials-stdin")
	}, 3*time.Minute, time.Second).Should(Succeed(), "the rotated password works on every server")
	t.Logf("rotated password accepted by both servers %s after the Secret's update", utils.Ms(time.Since(start)))
	var old memcache.ServersReport
	g.Expect(clientRun(ctx, ns, creds("", password), &old, "servers", "-servers", strings.Join(servers, ","), "-user", "app", "-credentials-stdin")).NotTo(Succeed(), "the old password is refused")
	password = rotated
	rotatedState, err := warmState(ctx, key, current, nil)
	g.Expect(err).NotTo(HaveOccurred())
	for name, s := range rotatedState {
		g.Expect(s.uid).To(Equal(after[name].uid), "server %s kept its pod", name)
		g.Expect(s.restarts).To(Equal(after[name].restarts), "server %s did not restart for the rotation", name)
	}
	found = keysOnTheirServer(t, ns, servers, set, password)
	t.Logf("after the rotation: %d of %d keys found on their server", found, warmKeys)
	g.Expect(found).To(Equal(warmKeys), "every key survived the password rotation")

	// A SIGKILL leaves no usable save: server 0 starts empty, within seconds, once.
	pod := &corev1.Pod{}
	g.Expect(suite.k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: key.Name + "-0"}, pod)).To(Succeed())
	id := strings.TrimPrefix(containerStatus(pod, resources.ContainerName).ContainerID, "containerd://")
	killed := time.Now()
	out, err := exec.CommandContext(ctx, os.Getenv("CRICTL"), "--runtime-endpoint", os.Getenv("CRI_ENDPOINT"), "stop", "--timeout", "0", id).CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), "crictl stop: %s", out)
	g.Eventually(func() error {
		for i, want := range []int32{after[key.Name+"-0"].restarts + 1, after[key.Name+"-1"].restarts} {
			p := &corev1.Pod{}
			if err := suite.k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: fmt.Sprintf("%s-%d", key.Name, i)}, p); err != nil {
				return err
			}
			if c := containerStatus(p, resources.ContainerName); c == nil || c.RestartCount != want || !utils.PodRunningReady(p) {
				return fmt.Errorf("server %d: want %d restarts and ready: %s", i, want, podState(p))
			}
		}
		return nil
	}, podStartTimeout, 200*time.Millisecond).Should(Succeed(), "server 0 restarted once and serves, server 1 did not restart")
	t.Logf("server 0 serving again %s after its SIGKILL", utils.Ms(time.Since(killed)))
	var loc memcache.PlacementReport
	mustClientRun(t, ns, creds("", password), &loc, "locate", "-servers", strings.Join(servers, ","), "-prefix", "warm", "-n", fmt.Sprint(warmKeys), "-user", "app", "-credentials-stdin")
	on0, on1 := 0, 0
	for k, where := range set.Keys {
		if len(loc.Keys[k]) == 1 && loc.Keys[k][0] == where[0] {
			if where[0] == servers[0] {
				on0++
			} else {
				on1++
			}
		}
	}
	t.Logf("after the SIGKILL: %d keys found on server 0, %d on server 1", on0, on1)
	g.Expect(on0).To(BeZero(), "server 0 started empty")
	g.Expect(on1).To(BeNumerically(">", warmKeys/4), "server 1 kept its keys")

	// A change a running pod cannot take (the memory size: the memory volume and the container's
	// resources): each server is replaced, one at a time, under its name, and says so.
	changeAndWatch(t, key, "maxMemoryMB 96, servers replaced", func(mc *cachev1alpha1.Memcached) { mc.Spec.Memcached.MaxMemoryMB = 96 },
		func() (map[string]warmServer, error) {
			state, err := warmState(ctx, key, current, nil)
			for name, s := range state {
				if s.uid == after[name].uid {
					return nil, fmt.Errorf("server %s not replaced yet", name)
				}
			}
			return state, err
		})
	g.Expect(eventsFor(ctx, ns, "Replaced")).To(HaveLen(2))
}

// changeAndWatch patches the Memcached key with edit, then polls every 200 ms until done
// returns the servers without error, and fails the test unless at most one server was away
// (unready or missing) at any poll: the operator moves one server at a time. It logs how long
// the change took, as what.
func changeAndWatch(t *testing.T, key client.ObjectKey, what string, edit func(*cachev1alpha1.Memcached), done func() (map[string]warmServer, error)) map[string]warmServer {
	t.Helper()
	g := NewWithT(t)
	ctx := utils.TestContext(t)
	start := time.Now()
	mc := &cachev1alpha1.Memcached{}
	g.Expect(suite.k8s.Get(ctx, key, mc)).To(Succeed())
	patch := client.MergeFrom(mc.DeepCopy())
	edit(mc)
	g.Expect(suite.k8s.Patch(ctx, mc, patch)).To(Succeed())
	maxAway := 0
	var servers map[string]warmServer
	g.Eventually(func() error {
		pods, err := utils.InstancePods(ctx, suite.k8s, key)
		if err != nil {
			return err
		}
		away := int(mc.Spec.Size) - len(pods)
		for i := range pods {
			if !utils.PodRunningReady(&pods[i]) {
				away++
			}
		}
		maxAway = max(maxAway, away)
		servers, err = done()
		return err
	}, 3*podStartTimeout, 200*time.Millisecond).Should(Succeed())
	t.Logf("%s on both servers in %s, at most %d away at once", what, utils.Ms(time.Since(start)), maxAway)
	g.Expect(maxAway).To(BeNumerically("<=", 1), "the servers were changed one at a time")
	return servers
}

// warmServerList is status.serverList of a Stable instance of n servers.
func warmServerList(key client.ObjectKey, n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("%s-%d.%s.%s.svc:%d", key.Name, i, key.Name, key.Namespace, cachev1alpha1.DefaultPort))
	}
	return out
}

// waitWarmServers waits until every server of key runs image, ready, and returns them.
func waitWarmServers(t *testing.T, key client.ObjectKey, image string, prev map[string]warmServer) map[string]warmServer {
	t.Helper()
	var out map[string]warmServer
	NewWithT(t).Eventually(func() error {
		var err error
		out, err = warmState(utils.TestContext(t), key, image, prev)
		return err
	}, 3*podStartTimeout, poll).Should(Succeed())
	return out
}

// warmState returns the servers of key when each runs image, is ready, the StatefulSet counts it
// updated and, with prev, it restarted since prev; an error says what is not so yet.
func warmState(ctx context.Context, key client.ObjectKey, image string, prev map[string]warmServer) (map[string]warmServer, error) {
	sts := &appsv1.StatefulSet{}
	if err := suite.k8s.Get(ctx, key, sts); err != nil {
		return nil, err
	}
	if sts.Status.UpdatedReplicas != 2 || sts.Status.ReadyReplicas != 2 {
		return nil, fmt.Errorf("StatefulSet: %d updated, %d ready", sts.Status.UpdatedReplicas, sts.Status.ReadyReplicas)
	}
	pods, err := utils.InstancePods(ctx, suite.k8s, key)
	if err != nil {
		return nil, err
	}
	out := map[string]warmServer{}
	for i := range pods {
		p := &pods[i]
		c := containerStatus(p, resources.ContainerName)
		if c == nil || !utils.PodRunningReady(p) || memcachedContainerOf(p).Image != image {
			return nil, fmt.Errorf("server %s not ready on %s: %s", p.Name, image, podState(p))
		}
		s := warmServer{uid: p.UID, restarts: c.RestartCount, image: image}
		if old, ok := prev[p.Name]; ok && s.restarts == old.restarts {
			return nil, fmt.Errorf("server %s has not restarted yet", p.Name)
		}
		out[p.Name] = s
	}
	if len(out) != 2 {
		return nil, fmt.Errorf("%d servers, want 2", len(out))
	}
	return out, nil
}

// keysOnTheirServer counts the keys of set that locate finds, as user app with password, on the
// one server hashset put them on.
func keysOnTheirServer(t *testing.T, ns string, servers []string, set memcache.PlacementReport, password string) int {
	t.Helper()
	var loc memcache.PlacementReport
	mustClientRun(t, ns, creds("", password), &loc, "locate", "-servers", strings.Join(servers, ","), "-prefix", "warm", "-n", fmt.Sprint(warmKeys), "-user", "app", "-credentials-stdin")
	found := 0
	for k, where := range set.Keys {
		if got := loc.Keys[k]; len(got) == 1 && got[0] == where[0] {
			found++
		}
	}
	return found
}

// eventsFor returns the events of ns with reason.
func eventsFor(ctx context.Context, ns, reason string) []eventsv1.Event {
	list := &eventsv1.EventList{}
	if err := suite.k8s.List(ctx, list, client.InNamespace(ns)); err != nil {
		return nil
	}
	var out []eventsv1.Event
	for _, e := range list.Items {
		if e.Reason == reason {
			out = append(out, e)
		}
	}
	return out
}

// podMemory returns the working set of pod's memcached container and of the whole pod, as the
// kubelet's summary API reports them (the cgroups' memory less inactive file pages; the memory
// file's pages are shmem, always counted).
func podMemory(t *testing.T, ns, pod string) string {
	t.Helper()
	p := &corev1.Pod{}
	if err := suite.k8s.Get(utils.TestContext(t), client.ObjectKey{Namespace: ns, Name: pod}, p); err != nil {
		return err.Error()
	}
	// The kubelet's summary lags a container's start by a few seconds: wait for the pod's figure.
	var out string
	deadline := time.Now().Add(30 * time.Second)
	for {
		var err error
		out, _, err = runKubectl(utils.TestContext(t), "", "get", "--raw", "/api/v1/nodes/"+p.Spec.NodeName+"/proxy/stats/summary")
		if err != nil {
			return err.Error()
		}
		if podWorkingSet(out, ns, pod) > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Second)
	}
	var summary struct {
		Pods []struct {
			PodRef     struct{ Name, Namespace string }
			Memory     struct{ WorkingSetBytes uint64 }
			Containers []struct {
				Name   string
				Memory struct{ WorkingSetBytes uint64 }
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &summary); err != nil {
		return err.Error()
	}
	for _, s := range summary.Pods {
		if s.PodRef.Name == pod && s.PodRef.Namespace == ns {
			var c uint64
			for _, ct := range s.Containers {
				if ct.Name == resources.ContainerName {
					c = ct.Memory.WorkingSetBytes
				}
			}
			return fmt.Sprintf("memcached container %.1f MiB, pod %.1f MiB (working set)", float64(c)/(1<<20), float64(s.Memory.WorkingSetBytes)/(1<<20))
		}
	}
	return "no stats for the pod yet"
}

// podWorkingSet returns the pod's working set in the kubelet's summary out, 0 when absent.
func podWorkingSet(out, ns, pod string) uint64 {
	var summary struct {
		Pods []struct {
			PodRef struct{ Name, Namespace string }
			Memory struct{ WorkingSetBytes uint64 }
		}
	}
	if json.Unmarshal([]byte(out), &summary) != nil {
		return 0
	}
	for _, s := range summary.Pods {
		if s.PodRef.Name == pod && s.PodRef.Namespace == ns {
			return s.Memory.WorkingSetBytes
		}
	}
	return 0
}

// getWarm returns the Memcached key, failing the test when it cannot be read.
func getWarm(t *testing.T, key client.ObjectKey) *cachev1alpha1.Memcached {
	t.Helper()
	mc, err := utils.GetMemcached(utils.TestContext(t), suite.k8s, key)
	if err != nil {
		t.Fatal(err)
	}
	return mc
}
