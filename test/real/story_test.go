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
	"fmt"
	"hash/crc32"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/test/real/memcache"
	"github.com/example/memcached-operator/test/utils"
)

// memcachedUID is the uid and gid the operator runs memcached as (and the image's memcache user).
const memcachedUID = "11211"

// server is one memcached server as the suite tracks it across the story.
type server struct {
	entry       string // its status.serverList entry
	pod         string
	uid         types.UID
	containerID string
}

// TestSampleStory is the user's story on real pods, one instance through every phase, with an
// availability watcher (see availabilityWatcher) polling it from the first moment to the last:
//
//  1. the shipped sample (3 servers) becomes Available only after its 3 pods passed their readiness
//     probes; the pods run the digest-pinned image as uid 11211 with a read-only root, under the
//     restricted profile, with the README's memory limit — in the API and in the kernel;
//  2. from a client pod, every serverList entry resolves to its pod and answers the protocol, 100
//     keys go through the headless Service name, and 100 keys placed by CRC-32 over serverList are
//     each found on exactly the server the hash chose;
//  3. scale 3 → 5: the 3 original servers keep their keys (same pods, same containers, no restart);
//  4. scale 5 → 2: the 2 survivors keep theirs;
//  5. a rollout (maxMemoryMB 64 → 96, minReadySeconds 5) replaces the pods one by one while the
//     manager pod is killed: the replacement takes the Lease and finishes; the new pods run -m 96;
//     no Deployment, Service or PodDisruptionBudget is duplicated or recreated; no status is lost.
func TestSampleStory(t *testing.T) {
	expectCleanManagerLog(t)
	ns := newRestrictedNamespace(t, "sample")
	key := client.ObjectKey{Namespace: ns, Name: "memcached-sample"}
	watcher := watchAvailability(t, key)
	startClientPod(t, ns)

	servers3, maxMB := sampleBecomesAvailable(t, key, watcher)
	owners := clientReachesEveryServer(t, key, servers3, maxMB)
	servers5, owners := scaleUpKeepsKeys(t, key, servers3, owners, maxMB)
	scaleDownKeepsKeys(t, key, servers5, owners, maxMB)
	rolloutSurvivesManagerKill(t, key, 2, maxMB+32)
}

// sampleBecomesAvailable is phase 1. It returns the servers and maxMemoryMB.
func sampleBecomesAvailable(t *testing.T, key client.ObjectKey, watcher *availabilityWatcher) (map[string]server, int32) {
	start := time.Now()
	g := NewWithT(t)
	ctx := utils.TestContext(t)
	kubectl(t, "apply", "-n", key.Namespace, "-f", filepath.Join(suite.repoRoot, "config", "samples", "cache_v1alpha1_memcached.yaml"))
	mc, err := utils.GetMemcached(ctx, suite.k8s, key)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(mc.Spec.Size).To(Equal(int32(3)), "the shipped sample has 3 servers")
	size, maxMB := mc.Spec.Size, mc.Spec.Memcached.MaxMemoryMB
	mc, pods := waitConverged(t, key, size, maxMB, 2*podStartTimeout)
	suite.phases.Record(t, "sample applied -> 3 real pods Ready, Available", start)

	// Available only after every pod passed its readiness probe.
	avail := meta.FindStatusCondition(mc.Status.Conditions, cachev1alpha1.ConditionAvailable)
	for i := range pods {
		ready := podReadyCondition(&pods[i])
		g.Expect(avail.LastTransitionTime.Before(&ready.LastTransitionTime)).To(BeFalse(),
			"Available became True at %s, before pod %s was Ready at %s", avail.LastTransitionTime, pods[i].Name, ready.LastTransitionTime)
	}
	// The watcher polls on its own schedule: give it a moment to see what waitConverged saw.
	var first time.Time
	g.Eventually(func() (ok bool) {
		first, ok = watcher.firstAvailableAt(mc.Generation)
		return ok
	}, 5*time.Second, poll).Should(BeTrue(), "the watcher never judged Available=True at generation %d", mc.Generation)
	t.Logf("Available=True at %s (first seen by the watcher %s after the apply); pods Ready at %v",
		avail.LastTransitionTime.Format(time.TimeOnly), utils.Ms(first.Sub(start)), readyTimes(pods))

	limit := defaultMemoryLimit(maxMB)
	servers := map[string]server{}
	var entries []string // in pod name order, as the README documents serverList
	for i := range pods {
		p := &pods[i]
		checkMemcachedPod(t, p, maxMB)
		servers[entryOf(mc, p)] = server{entry: entryOf(mc, p), pod: p.Name, uid: p.UID, containerID: containerID(p, memcachedContainer)}
		entries = append(entries, entryOf(mc, p))
	}
	g.Expect(mc.Status.ServerList).To(Equal(entries), "status.serverList: every ready pod once, sorted by pod name")
	t.Logf("3 pods: uid/gid %s, read-only root, no capabilities, seccomp filter, memory limit %s (= %d + 25%% + 32 MiB) in the pod spec and the memory cgroup",
		memcachedUID, limit.String(), maxMB)

	// The namespace really enforces the restricted profile: a privileged pod is refused.
	_, errOut, err := runKubectl(ctx, "", "run", "privileged", "-n", key.Namespace, "--image="+suite.memcachedImage,
		"--restart=Never", "--dry-run=server", "--overrides", `{"spec":{"containers":[{"name":"privileged","image":"`+suite.memcachedImage+`","securityContext":{"privileged":true}}]}}`)
	g.Expect(err).To(HaveOccurred(), "a privileged pod must be refused in %s", key.Namespace)
	g.Expect(errOut).To(ContainSubstring("violates PodSecurity"))
	t.Logf("a privileged pod is refused in %s: %s", key.Namespace, strings.TrimSpace(errOut))
	return servers, maxMB
}

// checkMemcachedPod checks one memcached pod in the API and in the kernel: the digest-pinned
// image, uid/gid 11211, read-only root filesystem, no privilege escalation, no capabilities,
// RuntimeDefault seccomp, the README's default memory request and limit, no restart.
func checkMemcachedPod(t *testing.T, p *corev1.Pod, maxMB int32) {
	t.Helper()
	g := NewWithT(t)
	c := memcachedContainerOf(p)
	g.Expect(c).NotTo(BeNil())
	g.Expect(c.Image).To(Equal(suite.memcachedImage), "pod %s image", p.Name)
	sc, psc := c.SecurityContext, p.Spec.SecurityContext
	g.Expect(psc).NotTo(BeNil())
	g.Expect(strconv.FormatInt(ptr.Deref(psc.RunAsUser, -1), 10)).To(Equal(memcachedUID))
	g.Expect(strconv.FormatInt(ptr.Deref(psc.RunAsGroup, -1), 10)).To(Equal(memcachedUID))
	g.Expect(ptr.Deref(psc.RunAsNonRoot, false)).To(BeTrue())
	g.Expect(sc).NotTo(BeNil())
	g.Expect(ptr.Deref(sc.ReadOnlyRootFilesystem, false)).To(BeTrue())
	g.Expect(ptr.Deref(sc.AllowPrivilegeEscalation, true)).To(BeFalse())
	limit := defaultMemoryLimit(maxMB)
	g.Expect(c.Resources.Limits.Memory().Cmp(limit)).To(Equal(0), "pod %s memory limit %s, want %s", p.Name, c.Resources.Limits.Memory(), limit.String())
	g.Expect(c.Resources.Requests.Memory().Cmp(limit)).To(Equal(0), "pod %s memory request %s, want %s", p.Name, c.Resources.Requests.Memory(), limit.String())

	cs := containerStatus(p, memcachedContainer)
	g.Expect(cs).NotTo(BeNil())
	g.Expect(cs.RestartCount).To(BeZero(), "pod %s restarted: %s", p.Name, podState(p))
	_, digest, _ := strings.Cut(suite.memcachedImage, "@")
	g.Expect(cs.ImageID).To(HaveSuffix("@"+digest), "pod %s runs image %s, want digest %s", p.Name, cs.ImageID, digest)

	kv, err := kernelViewOf(containerID(p, memcachedContainer))
	g.Expect(err).NotTo(HaveOccurred(), "pod %s", p.Name)
	g.Expect(kv.comm).To(Equal("memcached"))
	g.Expect(kv.uid).To(Equal(memcachedUID), "uid of memcached in pod %s", p.Name)
	g.Expect(kv.gid).To(Equal(memcachedUID), "gid of memcached in pod %s", p.Name)
	g.Expect(hasMountOption(kv.rootOptions, "ro")).To(BeTrue(), "root filesystem of pod %s mounted %q", p.Name, kv.rootOptions)
	g.Expect(kv.noNewPrivs).To(Equal("1"))
	g.Expect(kv.capEff).To(Equal("0000000000000000"))
	g.Expect(kv.seccomp).To(Equal("2"))
	g.Expect(kv.memoryLimitBytes).To(Equal(limit.Value()), "memory cgroup limit of pod %s (%s)", p.Name, kv.memoryCgroup)
}

// entryOf returns the serverList entry the operator documents for pod p of mc:
// <pod-ip-with-dashes>.<name>.<namespace>.svc:11211.
func entryOf(mc *cachev1alpha1.Memcached, p *corev1.Pod) string {
	return fmt.Sprintf("%s.%s.%s.svc:%d", strings.ReplaceAll(p.Status.PodIP, ".", "-"), mc.Name, mc.Namespace, cachev1alpha1.DefaultPort)
}

// ipOfEntry returns the pod IP encoded in a serverList entry.
func ipOfEntry(entry string) string {
	host, _, _ := strings.Cut(entry, ".")
	return strings.ReplaceAll(host, "-", ".")
}

// readyTimes lists each pod's Ready transition time.
func readyTimes(pods []corev1.Pod) []string {
	var out []string
	for i := range pods {
		if c := podReadyCondition(&pods[i]); c != nil {
			out = append(out, c.LastTransitionTime.Format(time.TimeOnly))
		}
	}
	return out
}

// owner is the suite's own statement of the client's placement (independent of
// memcache.Pick): CRC-32 (IEEE) of the key modulo the number of servers, over the sorted list.
func owner(key string, servers []string) string {
	sorted := slices.Sorted(slices.Values(servers))
	return sorted[crc32.ChecksumIEEE([]byte(key))%uint32(len(sorted))]
}

// placeKeys stores 100 keys with prefix through the client, placed over servers, checks every
// server for every key (locate), and returns key → owner. Every name in servers must resolve
// already (serversResolved): a lookup that fails here fails the test.
func placeKeys(t *testing.T, ns, prefix string, servers []string) map[string]string {
	t.Helper()
	g := NewWithT(t)
	list := strings.Join(servers, ",")
	var set, loc memcache.PlacementReport
	mustClientRun(t, ns, "", &set, "hashset", "-servers", list, "-prefix", prefix, "-n", "100")
	mustClientRun(t, ns, "", &loc, "locate", "-servers", list, "-prefix", prefix, "-n", "100")
	owners := map[string]string{}
	perServer := map[string]int{}
	for i := range 100 {
		k := memcache.Key(prefix, i)
		want := owner(k, servers)
		g.Expect(set.Keys[k]).To(Equal([]string{want}), "key %s stored on %v, the hash chooses %s", k, set.Keys[k], want)
		g.Expect(loc.Keys[k]).To(Equal([]string{want}), "key %s found on %v; it must live on exactly %s", k, loc.Keys[k], want)
		owners[k] = want
		perServer[want]++
	}
	g.Expect(loc.Wrong).To(BeEmpty(), "servers returned wrong values")
	t.Logf("100 keys %s-*: each found on exactly its server (CRC-32 mod %d over the sorted serverList); keys per server %v", prefix, len(servers), perServer)
	return owners
}

// clientReachesEveryServer is phase 2. It returns key → owning serverList entry.
func clientReachesEveryServer(t *testing.T, key client.ObjectKey, servers map[string]server, maxMB int32) map[string]string {
	start := time.Now()
	g := NewWithT(t)
	ns := key.Namespace
	entries := slices.Sorted(maps.Keys(servers))

	sr := serversResolved(t, ns, entries)
	g.Expect(sr.Servers).To(HaveLen(len(entries)))
	for _, s := range sr.Servers {
		g.Expect(s.Server).To(HaveSuffix(fmt.Sprintf(".%s.%s.svc:%d", key.Name, ns, cachev1alpha1.DefaultPort)))
		g.Expect(s.Addrs).To(Equal([]string{ipOfEntry(s.Server)}), "%s must resolve to its pod's IP", s.Server)
		g.Expect(s.RemoteAddr).To(Equal(fmt.Sprintf("%s:%d", ipOfEntry(s.Server), cachev1alpha1.DefaultPort)))
		g.Expect(s.Version).NotTo(BeEmpty())
		g.Expect(s.MaxBytes).To(Equal(strconv.Itoa(int(maxMB)*1024*1024)), "%s stats settings maxbytes", s.Server)
	}
	t.Logf("every serverList entry resolves to its pod and answers: memcached %s, maxbytes %s", sr.Servers[0].Version, sr.Servers[0].MaxBytes)

	var ips []string
	for _, e := range entries {
		ips = append(ips, ipOfEntry(e))
	}
	slices.Sort(ips)
	var svc memcache.ServiceReport
	clientRunResolving(t, ns, &svc, func() string {
		if !slices.Equal(svc.Resolved, ips) {
			return fmt.Sprintf("%s resolves to %v, want every ready pod %v", key.Name, svc.Resolved, ips)
		}
		return ""
	}, "service", "-addr", fmt.Sprintf("%s:%d", key.Name, cachev1alpha1.DefaultPort), "-prefix", "svc", "-n", "100")
	g.Expect(svc.Resolved).To(Equal(ips), "the headless Service name resolves to every ready pod")
	g.Expect(svc.Stored).To(Equal(100))
	g.Expect(svc.Read).To(Equal(100))
	remoteIP, _, _ := strings.Cut(svc.RemoteAddr, ":")
	g.Expect(ips).To(ContainElement(remoteIP))
	t.Logf("headless Service %s resolves to %v; 100 keys set then read back through it (connection to %s)", svc.Addr, svc.Resolved, svc.RemoteAddr)

	owners := placeKeys(t, ns, "k3", entries)
	suite.phases.Record(t, "client pod: DNS, protocol, 100 keys via the Service, 100 placed keys", start)
	return owners
}

// checkSameServers checks that every pod of before that is still live is the same pod, with the
// same container, never restarted.
func checkSameServers(t *testing.T, pods []corev1.Pod, before map[string]server) {
	t.Helper()
	g := NewWithT(t)
	byName := map[string]*corev1.Pod{}
	for i := range pods {
		byName[pods[i].Name] = &pods[i]
	}
	for _, s := range before {
		p := byName[s.pod]
		if p == nil {
			continue
		}
		g.Expect(p.UID).To(Equal(s.uid), "pod %s was recreated", s.pod)
		g.Expect(containerID(p, memcachedContainer)).To(Equal(s.containerID), "the memcached container of pod %s changed", s.pod)
		g.Expect(containerStatus(p, memcachedContainer).RestartCount).To(BeZero(), "pod %s restarted", s.pod)
	}
}

// locateKeys asks every server of servers for every key of owners (by prefix) and checks each key
// is found exactly on its owner when the owner is among servers, and nowhere otherwise.
func locateKeys(t *testing.T, ns string, servers []string, owners map[string]string) int {
	t.Helper()
	g := NewWithT(t)
	prefixes := map[string]bool{}
	for k := range owners {
		prefixes[k[:strings.LastIndex(k, "-")]] = true
	}
	kept := 0
	for prefix := range prefixes {
		var loc memcache.PlacementReport
		mustClientRun(t, ns, "", &loc, "locate", "-servers", strings.Join(servers, ","), "-prefix", prefix, "-n", "100")
		g.Expect(loc.Wrong).To(BeEmpty())
		for i := range 100 {
			k := memcache.Key(prefix, i)
			if slices.Contains(servers, owners[k]) {
				g.Expect(loc.Keys[k]).To(Equal([]string{owners[k]}), "key %s must still be on %s, and only there", k, owners[k])
				kept++
			} else {
				g.Expect(loc.Keys[k]).To(BeEmpty(), "key %s was on %s, which is gone; found on %v", k, owners[k], loc.Keys[k])
			}
		}
	}
	return kept
}

// scaleUpKeepsKeys is phase 3: kubectl scale 3 → 5. It returns the 5 servers and the owners of the
// keys placed so far plus 100 keys placed over the 5 servers (so every server holds some).
func scaleUpKeepsKeys(t *testing.T, key client.ObjectKey, before map[string]server, owners map[string]string, maxMB int32) (map[string]server, map[string]string) {
	start := time.Now()
	g := NewWithT(t)
	kubectl(t, "scale", "memcached/"+key.Name, "-n", key.Namespace, "--replicas=5")
	mc, pods := waitConverged(t, key, 5, maxMB, 2*podStartTimeout)
	suite.phases.Record(t, "scale 3 -> 5 (kubectl scale): Available at 5", start)

	checkSameServers(t, pods, before)
	for entry := range before {
		g.Expect(mc.Status.ServerList).To(ContainElement(entry), "original server %s must still be listed", entry)
	}
	servers := map[string]server{}
	for i := range pods {
		p := &pods[i]
		checkMemcachedPod(t, p, maxMB)
		servers[entryOf(mc, p)] = server{entry: entryOf(mc, p), pod: p.Name, uid: p.UID, containerID: containerID(p, memcachedContainer)}
	}
	serversResolved(t, key.Namespace, mc.Status.ServerList)
	kept := locateKeys(t, key.Namespace, mc.Status.ServerList, owners)
	g.Expect(kept).To(Equal(100))
	t.Logf("after 3 -> 5: the 3 original pods are the same (uid, container, 0 restarts) and keep all %d keys, each on its server only", kept)

	more := placeKeys(t, key.Namespace, "k5", mc.Status.ServerList)
	all := maps.Clone(owners)
	maps.Copy(all, more)
	return servers, all
}

// scaleDownKeepsKeys is phase 4: kubectl scale 5 → 2; the survivors keep their keys.
func scaleDownKeepsKeys(t *testing.T, key client.ObjectKey, before map[string]server, owners map[string]string, maxMB int32) {
	start := time.Now()
	g := NewWithT(t)
	kubectl(t, "scale", "memcached/"+key.Name, "-n", key.Namespace, "--replicas=2")
	mc, pods := waitConverged(t, key, 2, maxMB, 2*podStartTimeout)
	suite.phases.Record(t, "scale 5 -> 2 (kubectl scale): Available at 2", start)

	for i := range pods {
		g.Expect(before).To(HaveKey(entryOf(mc, &pods[i])), "survivor %s must be one of the 5 servers", pods[i].Name)
	}
	checkSameServers(t, pods, before)
	kept := locateKeys(t, key.Namespace, mc.Status.ServerList, owners)
	g.Expect(kept).To(BeNumerically(">", 0), "the survivors held no key: nothing was proven")
	t.Logf("after 5 -> 2: survivors %v are the same pods and keep their %d keys; the keys of the removed servers are nowhere", podNames(pods), kept)
}

// listOwned lists the instance's Deployments, Services and PodDisruptionBudgets (by its instance
// label).
func listOwned(ctx context.Context, key client.ObjectKey) ([]appsv1.Deployment, []corev1.Service, []policyv1.PodDisruptionBudget, error) {
	sel := client.MatchingLabels{"app.kubernetes.io/instance": key.Name}
	dl, sl, pl := &appsv1.DeploymentList{}, &corev1.ServiceList{}, &policyv1.PodDisruptionBudgetList{}
	for _, l := range []client.ObjectList{dl, sl, pl} {
		if err := suite.k8s.List(ctx, l, client.InNamespace(key.Namespace), sel); err != nil {
			return nil, nil, nil, fmt.Errorf("failed to list the owned objects of %s: %w", key, err)
		}
	}
	return dl.Items, sl.Items, pl.Items, nil
}

// owned is listOwned that fails the test on error.
func owned(t *testing.T, key client.ObjectKey) ([]appsv1.Deployment, []corev1.Service, []policyv1.PodDisruptionBudget) {
	t.Helper()
	d, s, p, err := listOwned(utils.TestContext(t), key)
	if err != nil {
		t.Fatal(err)
	}
	return d, s, p
}

// rolloutObserver polls the instance's pods and owned objects every 200 ms during a rollout.
type rolloutObserver struct {
	maxLive, minReady, maxDeps, maxSvcs, maxPDBs int
	newPods                                      map[string]time.Time // name → creationTimestamp
	oldGoneAt                                    time.Time
	samples                                      int
}

// rolloutSurvivesManagerKill is phase 5.
func rolloutSurvivesManagerKill(t *testing.T, key client.ObjectKey, size, newMB int32) {
	start := time.Now()
	g := NewWithT(t)
	ctx := utils.TestContext(t)
	const minReady = 5

	deps, svcs, pdbs := owned(t, key)
	g.Expect(deps).To(HaveLen(1))
	g.Expect(svcs).To(HaveLen(1))
	g.Expect(pdbs).To(HaveLen(1))
	uids := []types.UID{deps[0].UID, svcs[0].UID, pdbs[0].UID}
	mc, err := utils.GetMemcached(ctx, suite.k8s, key)
	g.Expect(err).NotTo(HaveOccurred())
	degradedSince := meta.FindStatusCondition(mc.Status.Conditions, cachev1alpha1.ConditionDegraded).LastTransitionTime
	l, err := lease(ctx)
	g.Expect(err).NotTo(HaveOccurred())
	holder, transitions := leaseHolder(l), ptr.Deref(l.Spec.LeaseTransitions, 0)
	oldManager := waitManagerReady(t, "")

	// The observer runs from the patch to convergence.
	obs := &rolloutObserver{minReady: 1 << 30, newPods: map[string]time.Time{}}
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			if pods, err := utils.InstancePods(ctx, suite.k8s, key); err == nil {
				lp := live(pods)
				ready, old := 0, 0
				for i := range lp {
					if utils.PodRunningReady(&lp[i]) {
						ready++
					}
					switch {
					case ofTemplate(&lp[i], newMB):
						if _, ok := obs.newPods[lp[i].Name]; !ok {
							obs.newPods[lp[i].Name] = lp[i].CreationTimestamp.Time
						}
					default:
						old++
					}
				}
				obs.samples++
				obs.maxLive, obs.minReady = max(obs.maxLive, len(lp)), min(obs.minReady, ready)
				if old == 0 && obs.oldGoneAt.IsZero() {
					obs.oldGoneAt = time.Now()
				}
			}
			if d, s, p, err := listOwned(ctx, key); err == nil {
				obs.maxDeps, obs.maxSvcs, obs.maxPDBs = max(obs.maxDeps, len(d)), max(obs.maxSvcs, len(s)), max(obs.maxPDBs, len(p))
			}
			select {
			case <-stop:
				return
			case <-time.After(poll):
			}
		}
	}()
	stopObserver := sync1(func() { close(stop); <-stopped })
	defer stopObserver()

	kubectl(t, "patch", "memcached", key.Name, "-n", key.Namespace, "--type=merge",
		"-p", fmt.Sprintf(`{"spec":{"minReadySeconds":%d,"memcached":{"maxMemoryMB":%d}}}`, minReady, newMB))
	// Mid-rollout: a new pod exists and an old one is still serving.
	g.Eventually(func() error {
		pods, err := utils.InstancePods(ctx, suite.k8s, key)
		if err != nil {
			return err
		}
		var n, o int
		for _, p := range live(pods) {
			if ofTemplate(&p, newMB) {
				n++
			} else {
				o++
			}
		}
		if n == 0 || o == 0 {
			return fmt.Errorf("%d new and %d old pods:\n%s", n, o, podsState(pods))
		}
		return nil
	}, 60*time.Second, 100*time.Millisecond).Should(Succeed(), "the rollout did not start")
	killedAt := time.Now()
	// A grace period of 1 s, not 0: with 0 the API server removes the pod object at once, its
	// service-account token stops authenticating as soon as the API server has seen that, and the
	// manager's release of the Lease on SIGTERM then fails with Unauthorized ("Failed to release
	// lease" in its log; a CI run saw it): the Lease changes hands only when it expires, 15 s
	// later, after this short rollout. With 1 s the pod is terminating while the manager stops.
	g.Expect(suite.k8s.Delete(ctx, oldManager, client.GracePeriodSeconds(1))).To(Succeed())
	t.Logf("rollout started %s after the patch; manager pod %s deleted (grace period 1 s)", utils.Ms(killedAt.Sub(start)), oldManager.Name)

	// The Lease changes hands first (the killed manager releases it on SIGTERM); the replacement
	// pod is Ready only later, after its readiness probe's initial delay.
	var tookOver time.Time
	g.Eventually(func() error {
		var err error
		if l, err = lease(ctx); err != nil {
			return err
		}
		if h := leaseHolder(l); h == "" || h == holder || strings.HasPrefix(h, oldManager.Name+"_") {
			return fmt.Errorf("lease %s/%s still held by %q", suite.operatorNS, leaseName, h)
		}
		tookOver = time.Now()
		return nil
	}, 90*time.Second, 100*time.Millisecond).Should(Succeed(), "no other manager took the Lease after %s was killed", oldManager.Name)
	g.Expect(ptr.Deref(l.Spec.LeaseTransitions, 0)).To(BeNumerically(">", transitions), "leaseTransitions must grow")
	newManager := waitManagerReady(t, oldManager.Name)
	g.Expect(leaseHolder(l)).To(HavePrefix(newManager.Name+"_"), "the Lease must be held by the replacement pod")
	t.Logf("replacement manager %s took the Lease %s after the kill (lease transitions %d -> %d), Ready %s after the kill",
		newManager.Name, utils.Ms(tookOver.Sub(killedAt)), transitions, ptr.Deref(l.Spec.LeaseTransitions, 0), utils.Ms(time.Since(killedAt)))

	mc, pods := waitConverged(t, key, size, newMB, 3*podStartTimeout)
	stopObserver()
	suite.phases.Record(t, "rollout (maxMemoryMB, minReadySeconds 5) with the manager killed", start)

	g.Expect(obs.oldGoneAt.IsZero() || obs.oldGoneAt.After(tookOver)).To(BeTrue(),
		"the last old pod was gone %s before the replacement took the Lease: the takeover was not mid-rollout", utils.Ms(tookOver.Sub(obs.oldGoneAt)))
	// One by one: at most one surge pod, never fewer than size ready pods, and each new pod
	// created only after the previous one had been ready for minReadySeconds.
	g.Expect(obs.maxLive).To(BeNumerically("<=", size+1), "more than one surge pod at a time")
	g.Expect(obs.minReady).To(BeNumerically(">=", size), "fewer than %d pods were ready during the rollout", size)
	created := slices.SortedFunc(maps.Values(obs.newPods), time.Time.Compare)
	g.Expect(created).To(HaveLen(int(size)), "new pods %v", obs.newPods)
	for i := 1; i < len(created); i++ {
		g.Expect(created[i].Sub(created[i-1])).To(BeNumerically(">=", minReady*time.Second),
			"new pods created %v apart: not one by one with minReadySeconds %d", created[i].Sub(created[i-1]), minReady)
	}
	t.Logf("rollout over %d samples: at most %d live pods, at least %d ready; new pods created at %v", obs.samples, obs.maxLive, obs.minReady, created)

	// The new pods run the new -m, in their args and in memcached itself.
	entries := []string{}
	for i := range pods {
		g.Expect(argAfter(&pods[i], "-m")).To(Equal(strconv.Itoa(int(newMB))))
		checkMemcachedPod(t, &pods[i], newMB)
		entries = append(entries, entryOf(mc, &pods[i]))
	}
	sr := serversResolved(t, key.Namespace, mc.Status.ServerList)
	for _, s := range sr.Servers {
		g.Expect(s.MaxBytes).To(Equal(strconv.Itoa(int(newMB)*1024*1024)), "%s stats settings maxbytes", s.Server)
	}
	g.Expect(mc.Status.ServerList).To(ConsistOf(entries))

	// No duplicate, no recreation, no lost status.
	g.Expect([]int{obs.maxDeps, obs.maxSvcs, obs.maxPDBs}).To(Equal([]int{1, 1, 1}), "at most one Deployment, Service, PodDisruptionBudget at any time")
	deps, svcs, pdbs = owned(t, key)
	g.Expect([]types.UID{deps[0].UID, svcs[0].UID, pdbs[0].UID}).To(Equal(uids), "Deployment, Service and PodDisruptionBudget are the same objects")
	g.Expect(meta.FindStatusCondition(mc.Status.Conditions, cachev1alpha1.ConditionDegraded).LastTransitionTime).To(Equal(degradedSince),
		"Degraded has been False since %s: the replacement must carry the status on, not rebuild it", degradedSince)
	avail := meta.FindStatusCondition(mc.Status.Conditions, cachev1alpha1.ConditionAvailable)
	g.Expect(avail.ObservedGeneration).To(Equal(mc.Generation))
	t.Logf("converged with %s: pods %v run -m %d (maxbytes %s); 1 Deployment, 1 Service, 1 PDB throughout, same UIDs; Degraded False since %s",
		newManager.Name, podNames(pods), newMB, sr.Servers[0].MaxBytes, degradedSince.Format(time.TimeOnly))
}

// sync1 returns f wrapped to run at most once.
func sync1(f func()) func() {
	done := false
	return func() {
		if !done {
			done = true
			f()
		}
	}
}
