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
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/test/real/memcache"
	"github.com/example/memcached-operator/test/utils"
)

// rehashClient is `mcclient rehash` running in the client pod through `kubectl exec -i`: the test
// writes server lists to its stdin (status.serverList as it changes) and closes it to get the report.
type rehashClient struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bytes.Buffer
	err   *utils.Progress
}

// startRehash starts `mcclient rehash` over n keys with prefix in the client pod of ns, with the
// server list servers, getting every key every 100 ms with a 1 s dial and request timeout.
func startRehash(t *testing.T, ns, prefix string, n int, servers []string) *rehashClient {
	t.Helper()
	c := &rehashClient{out: &bytes.Buffer{}, err: &utils.Progress{}}
	c.cmd = exec.Command(suite.kubectl, "exec", "-i", "-n", ns, clientPod, "-c", clientPod, "--", clientBinary,
		"rehash", "-prefix", prefix, "-n", strconv.Itoa(n), "-interval", "100ms", "-timeout", "1s", "-progress")
	c.cmd.Env = append(os.Environ(), "KUBECONFIG="+suite.kubeconfig)
	c.cmd.Stdout, c.cmd.Stderr = c.out, c.err
	var err error
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		t.Fatalf("failed to open the stdin of kubectl exec: %v", err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatalf("failed to start kubectl exec mcclient rehash: %v", err)
	}
	t.Cleanup(func() {
		if c.cmd.ProcessState == nil {
			_ = c.cmd.Process.Kill()
			_ = c.cmd.Wait()
		}
	})
	c.send(t, servers)
	return c
}

// waitRounds waits until the client has done at least n rounds over the latest of lists server
// lists it was given.
func (c *rehashClient) waitRounds(t *testing.T, lists, n int) {
	t.Helper()
	NewWithT(t).Eventually(func() string {
		rounds, l, onList := c.err.Rounds()
		if l == lists && onList >= n {
			return ""
		}
		return fmt.Sprintf("%d rounds, %d over list %d (want %d over list %d)", rounds, onList, l, n, lists)
	}, 30*time.Second, 50*time.Millisecond).Should(BeEmpty(), "mcclient rehash made no progress; stderr: %.2000s", c.err.String())
}

// send gives the client a new server list: it re-hashes at once.
func (c *rehashClient) send(t *testing.T, servers []string) {
	t.Helper()
	if _, err := io.WriteString(c.stdin, strings.Join(servers, ",")+"\n"); err != nil {
		t.Fatalf("failed to send a server list to mcclient rehash: %v", err)
	}
}

// stop closes the client's stdin and returns its report.
func (c *rehashClient) stop(t *testing.T) memcache.RehashReport {
	t.Helper()
	_ = c.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		_ = c.cmd.Process.Kill()
		t.Fatalf("mcclient rehash did not stop 30 s after its stdin closed; stderr: %.2000s", c.err.String())
	}
	var r memcache.RehashReport
	if derr := json.Unmarshal(c.out.Bytes(), &r); derr != nil {
		t.Fatalf("mcclient rehash: %v / %v\nstdout: %.2000s\nstderr: %.2000s", err, derr, c.out.String(), c.err.String())
	}
	return r
}

// clientTime parses a time of a client report (RFC 3339, the client pod shares the host's clock).
func clientTime(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("bad time %q in a client report: %v", s, err)
	}
	return at
}

// Graceful shutdown on real pods: an instance with a preStop delay of shutdownDelay seconds is
// scaled 3 -> 2 while two clients get 90 keys every 100 ms from inside the cluster:
//
//   - a re-hashing client, whose rule is the README's: it uses status.serverList, sorted, picks a
//     key's server by CRC-32 of the key modulo the number of servers, re-hashes when it learns that
//     the list changed and fills a miss with a set (cache-aside). It learns late on purpose: the
//     test polls the Memcached every 100 ms and hands it a new list clientLag after the change, as
//     a client polling serverList every 2 s would. It must
//     lose no request: every get and set answered. Without the delay the removed server is gone
//     about 0.4 s after its deletion (measured with preStopDelaySeconds 0) and this client loses
//     every request to it until it re-hashes (135 and 72 in two control runs by hand);
//   - a client that never re-hashes, over the three pods' IPs, which measures how long the removed
//     server keeps answering: at least shutdownDelay seconds after the pod was seen terminating.
//
// The removed pod stays Terminating, its memcached container running, for the delay, then goes
// well before terminationGracePeriodSeconds (memcached exits on the SIGTERM that follows the
// hook: no SIGKILL). Meanwhile the pod leaves status.serverList at once.
func TestGracefulShutdownOnScaleDown(t *testing.T) {
	const (
		shutdownDelay = 6
		shutdownGrace = 20
		keys          = 90
		prefix        = "gs" // the re-hashing client's keys
		fixedPrefix   = "gf" // the other client's: each client fills its own keys
		clientLag     = 2 * time.Second
	)
	g := NewWithT(t)
	ctx := utils.TestContext(t)
	start := time.Now()
	ns := newRestrictedNamespace(t, "shutdown")
	key := client.ObjectKey{Namespace: ns, Name: "graceful"}
	mc := &cachev1alpha1.Memcached{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: key.Name},
		Spec: cachev1alpha1.MemcachedSpec{Size: 3, GracefulShutdown: cachev1alpha1.GracefulShutdownSpec{
			PreStopDelaySeconds: ptr.To[int32](shutdownDelay), TerminationGracePeriodSeconds: ptr.To[int32](shutdownGrace),
		}},
	}
	g.Expect(suite.k8s.Create(ctx, mc)).To(Succeed())
	mc, pods := waitConverged(t, key, 3, 64, 2*podStartTimeout)
	for i := range pods {
		c := memcachedContainerOf(&pods[i])
		g.Expect(c.Lifecycle).NotTo(BeNil(), "pod %s has no lifecycle", pods[i].Name)
		g.Expect(c.Lifecycle.PreStop.Sleep).To(Equal(&corev1.SleepAction{Seconds: shutdownDelay}), "pod %s preStop", pods[i].Name)
		g.Expect(pods[i].Spec.TerminationGracePeriodSeconds).To(HaveValue(Equal(int64(shutdownGrace))))
	}
	startClientPod(t, ns)
	servers := slices.Clone(mc.Status.ServerList)
	serversResolved(t, ns, servers)
	var ipServers []string
	for _, p := range pods {
		ipServers = append(ipServers, net.JoinHostPort(p.Status.PodIP, strconv.Itoa(cachev1alpha1.DefaultPort)))
	}
	suite.phases.Record(t, "shutdown: 3 pods with a 6 s preStop sleep, client pod, names resolved", start)

	start = time.Now()
	rehashing := startRehash(t, ns, prefix, keys, servers)
	fixed := startRehash(t, ns, fixedPrefix, keys, ipServers)
	// Both fill their keys (the first round) and read them back (the next two).
	rehashing.waitRounds(t, 1, 3)
	fixed.waitRounds(t, 1, 3)

	g.Expect(suite.k8s.Patch(ctx, &cachev1alpha1.Memcached{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: key.Name}},
		client.RawPatch(types.MergePatchType, []byte(`{"spec":{"size":2}}`)))).To(Succeed())
	scaled := time.Now()
	var (
		removed                  *corev1.Pod
		seenTerminating, goneAt  time.Time
		lastRunning, listChanged time.Time
		newList                  []string
		sent                     bool
	)
	for time.Since(scaled) < 2*time.Minute && (goneAt.IsZero() || !sent) {
		if cur, err := utils.GetMemcached(ctx, suite.k8s, key); err == nil && newList == nil && !slices.Equal(cur.Status.ServerList, servers) && len(cur.Status.ServerList) == 2 {
			newList, listChanged = slices.Clone(cur.Status.ServerList), time.Now()
		}
		if newList != nil && !sent && time.Since(listChanged) >= clientLag {
			rehashing.send(t, newList)
			sent = true
		}
		switch {
		case !goneAt.IsZero(): // only the hand-off to the re-hashing client is left
		case removed == nil:
			all, err := utils.InstancePods(ctx, suite.k8s, key)
			g.Expect(err).NotTo(HaveOccurred())
			for i := range all {
				if all[i].DeletionTimestamp != nil {
					removed, seenTerminating = &all[i], time.Now()
				}
			}
		default:
			p := &corev1.Pod{}
			err := suite.k8s.Get(ctx, client.ObjectKeyFromObject(removed), p)
			switch {
			case apierrors.IsNotFound(err):
				goneAt = time.Now()
			case err != nil:
				t.Fatalf("failed to get pod %s: %v", removed.Name, err)
			default:
				if cs := containerStatus(p, memcachedContainer); cs != nil && cs.State.Running != nil {
					lastRunning = time.Now()
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	g.Expect(removed).NotTo(BeNil(), "no pod turned terminating after the scale to 2")
	g.Expect(goneAt.IsZero()).To(BeFalse(), "pod %s still exists 2 min after the scale", removed.Name)
	g.Expect(newList).NotTo(BeNil(), "status.serverList never changed to 2 entries")
	g.Expect(sent).To(BeTrue())
	// The re-hashing client refills the moved keys (its first round over the final list) and
	// reads them back (the next two).
	rehashing.waitRounds(t, 2, 3)
	rr, fr := rehashing.stop(t), fixed.stop(t)
	suite.phases.Record(t, "shutdown: scale 3 -> 2 with two clients running", start)

	removedServer := net.JoinHostPort(removed.Status.PodIP, strconv.Itoa(cachev1alpha1.DefaultPort))
	terminating := goneAt.Sub(seenTerminating)
	t.Logf("pod %s (%s): seen terminating %s after the scale patch, container running until %s later, gone %s later (preStop delay %d s, grace %d s); serverList changed %s after it was seen terminating",
		removed.Name, removedServer, utils.Ms(seenTerminating.Sub(scaled)), utils.Ms(lastRunning.Sub(seenTerminating)), utils.Ms(terminating),
		shutdownDelay, shutdownGrace, utils.Ms(listChanged.Sub(seenTerminating)))
	g.Expect(slices.ContainsFunc(newList, func(s string) bool {
		return strings.HasPrefix(s, strings.ReplaceAll(removed.Status.PodIP, ".", "-")+".")
	})).
		To(BeFalse(), "serverList %v still lists the removed pod %s", newList, removed.Name)
	// The pod is seen terminating at most a poll after its deletion: it stays at least the delay
	// (less that poll) and leaves long before the grace period ends.
	g.Expect(terminating).To(BeNumerically(">=", shutdownDelay*time.Second-500*time.Millisecond), "terminating for less than the preStop delay")
	g.Expect(terminating).To(BeNumerically("<", (shutdownGrace-5)*time.Second), "killed at the end of the grace period, not stopped by SIGTERM")
	g.Expect(lastRunning.Sub(seenTerminating)).To(BeNumerically(">=", (shutdownDelay-1)*time.Second), "the container stopped before the delay ended")

	// The client that never re-hashes: the removed server answered until the delay ended, and was
	// the only one to fail.
	t.Logf("fixed-list client: %d rounds, %d gets, %d failed; removed server last answered %s, first failed %s after the pod was seen terminating; answered %v",
		fr.Rounds, fr.Gets, fr.Failed, utils.Ms(clientTime(t, fr.LastAnswer[removedServer]).Sub(seenTerminating)),
		utils.Ms(clientTime(t, fr.FirstError[removedServer]).Sub(seenTerminating)), fr.Answered)
	g.Expect(fr.FirstError).To(HaveLen(1), "only the removed server fails: %v", fr.Errors)
	g.Expect(fr.FirstError).To(HaveKey(removedServer))
	g.Expect(clientTime(t, fr.LastAnswer[removedServer]).Sub(seenTerminating)).To(BeNumerically(">=", (shutdownDelay-1)*time.Second),
		"the removed server stopped answering before the preStop delay ended")
	g.Expect(clientTime(t, fr.FirstError[removedServer]).Sub(seenTerminating)).To(BeNumerically(">=", (shutdownDelay-1)*time.Second))

	// The re-hashing client lost nothing: every request answered, and exactly the keys whose
	// server changed were refilled once (plus the first fill of all of them).
	moved := 0
	for i := range keys {
		k := memcache.Key(prefix, i)
		if memcache.Pick(k, slices.Sorted(slices.Values(servers))) != memcache.Pick(k, slices.Sorted(slices.Values(newList))) {
			moved++
		}
	}
	switched := clientTime(t, rr.Lists[len(rr.Lists)-1].At)
	t.Logf("re-hashing client switched lists %s after the pod was seen terminating", utils.Ms(switched.Sub(seenTerminating)))
	g.Expect(switched.Sub(seenTerminating)).To(BeNumerically(">=", clientLag), "the client re-hashed before it was meant to")
	t.Logf("re-hashing client: %d rounds, %d gets, %d refills (%d keys moved with the re-hash), %d failed; lists %+v; answered %v",
		rr.Rounds, rr.Gets, rr.Refills, moved, rr.Failed, rr.Lists, rr.Answered)
	g.Expect(rr.Failed).To(BeZero(), "the re-hashing client lost requests: %v", rr.Errors)
	g.Expect(rr.Lists).To(HaveLen(2))
	g.Expect(rr.Refills).To(Equal(keys+moved), "each key filled once at start and once when it moved")
	dep := &appsv1.Deployment{}
	g.Expect(suite.k8s.Get(ctx, key, dep)).To(Succeed())
	g.Expect(dep.Spec.Replicas).To(HaveValue(Equal(int32(2))))
}
