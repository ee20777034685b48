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
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/test/real/pyclients"
	"github.com/example/memcached-operator/test/utils"
)

const (
	// pyClientPod is the name of the pod (and its container) that runs the Python clients.
	pyClientPod = "pyclients"
	// pyKeys is the number of keys each client writes before each event.
	pyKeys = 1000
	// pyReads is how many times a Stable check reads the keys before it counts a key the hashing
	// allows as lost. Nothing evicts them (1000 small keys per client in 64 MiB) and a server that
	// does not answer makes the client fail, and the run is retried; but a client may turn a request
	// that exceeds its own timeout on a loaded node into a miss (libmemcached's mget returns what it
	// got): that key is found by the next read, a key the operator lost by none.
	pyReads = 3
	// pyServers is the size of the Memcached the clients use: with five servers, one replaced
	// costs a fifth of the keys, and the hashing spreads keys over enough servers for its shares
	// to be checked against pyMinKeptOneOfFive.
	pyServers = 5
	// pyMinKeptOneOfFive is the share of the keys (per mille of pyKeys) a client must be allowed,
	// and find, after one of five stable servers is replaced. On average the replaced server holds
	// a fifth (80 % kept). pymemcache's rendezvous hashing puts each key on each server with
	// probability 1/5 on its own: the replaced server's count is binomial (1000, 1/5), standard
	// deviation 12.6 keys. pylibmc's ketama gives each server 100 points on the continuum
	// (libmemcached's MEMCACHED_POINTS_PER_SERVER; "ketama": True does not weight them): one
	// server's share of the circle is about Beta(100, 400), standard deviation 1.8 %, and the 1000
	// keys fall on it binomially: 2.2 % (21.9 keys) in all. The server names include the test's
	// random namespace, so each run draws anew; the floor is 5 standard deviations of ketama's
	// below the mean, 80 % − 11 % = 69 %, which an honest run misses about once in 3.5 million.
	// 79 % would be half a standard deviation below the mean and fail about one run in three.
	pyMinKeptOneOfFive = 690
	// serverIdentityField is the spec field that selects stable server identities.
	serverIdentityField = "serverIdentity"
)

// pyEntry is what the test knows of the server behind one status.serverList entry.
type pyEntry struct {
	pod         string
	uid         types.UID
	containerID string
}

// TestClientsKeepKeys measures, with the clients the user guide names — python3-pylibmc
// (libmemcached's ketama) and python3-pymemcache's HashClient (rendezvous hashing), run from the
// pyclients image (hack/images/local-images.sh pyclients, PYCLIENTS_IMAGE) in a pod of the test
// namespace — the share of keys still found after each event of a Memcached of 3: one pod deleted;
// scale 5 → 6; scale 6 → 5; a rollout (maxMemoryMB changed, as a user tunes it). Before each
// event each client writes 1000 keys over status.serverList; after it, once the instance is
// Available again with every pod Ready and serverList names exactly the live pods, each client
// reads them over the new serverList. keys.py reports found beside allowed: the keys the client's
// own hashing maps to the same server in both lists, that server still the same memcached process
// (same pod UID and container) — what the hashing scheme lets any client find.
//
// Subtests, in parallel: "Ephemeral" (spec.serverIdentity unset: servers named after pod IPs)
// only logs the figures; "Stable" (spec.serverIdentity: Stable: servers keep their names) asserts
// that serverList names exactly <name>-0 … <name>-<size-1> and that only the event's servers
// changed (deleted pod: that server restarted under its name; scale up: <name>-5 added; scale
// down: <name>-5 gone; rollout: every server restarted under its name), that allowed is exactly
// what consistent hashing promises for that change (total − the keys of the servers that lost
// their memory or left − the keys the new server takes), at least pyMinKeptOneOfFive when one of
// five is replaced, and that every key allowed is found. Stable is skipped, naming the field,
// when the installed CRD has no spec.serverIdentity.
func TestClientsKeepKeys(t *testing.T) {
	image := os.Getenv("PYCLIENTS_IMAGE")
	if image == "" {
		t.Fatal("PYCLIENTS_IMAGE is not set: run `make test-real` (make real-images pushes the pyclients image and records it in images.env)")
	}
	for _, mode := range []string{"Ephemeral", "Stable"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			if mode == "Stable" {
				if ok, err := crdHasSpecField(utils.TestContext(t), serverIdentityField); err != nil {
					t.Fatal(err)
				} else if !ok {
					t.Skipf("the installed Memcached CRD has no spec.%s: stable server identities are not in this operator build", serverIdentityField)
				}
			}
			clientsKeepKeys(t, mode, image)
		})
	}
}

// crdHasSpecField reports whether the served version of the Memcached CRD has spec.<field>.
func crdHasSpecField(ctx context.Context, field string) (bool, error) {
	crd := &unstructured.Unstructured{}
	crd.SetGroupVersionKind(schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"})
	name := "memcacheds." + cachev1alpha1.GroupVersion.Group
	if err := suite.k8s.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
		return false, fmt.Errorf("failed to get CustomResourceDefinition %s: %w", name, err)
	}
	versions, _, err := unstructured.NestedSlice(crd.Object, "spec", "versions")
	if err != nil {
		return false, fmt.Errorf("failed to read the versions of CustomResourceDefinition %s: %w", name, err)
	}
	for _, v := range versions {
		vm, ok := v.(map[string]any)
		if !ok || vm["name"] != cachev1alpha1.GroupVersion.Version {
			continue
		}
		_, found, err := unstructured.NestedMap(vm, "schema", "openAPIV3Schema", "properties", "spec", "properties", field)
		if err != nil {
			return false, fmt.Errorf("failed to read the schema of CustomResourceDefinition %s: %w", name, err)
		}
		return found, nil
	}
	return false, fmt.Errorf("CustomResourceDefinition %s serves no version %s", name, cachev1alpha1.GroupVersion.Version)
}

// clientsKeepKeys is one subtest of TestClientsKeepKeys.
func clientsKeepKeys(t *testing.T, mode, image string) {
	start := time.Now()
	g := NewWithT(t)
	ctx := utils.TestContext(t)
	ns := newRestrictedNamespace(t, "clients-"+strings.ToLower(mode))
	key := client.ObjectKey{Namespace: ns, Name: "cache"}
	const maxMB = 64

	// Built as unstructured: spec.serverIdentity may be newer than this package's Go type.
	mc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": cachev1alpha1.GroupVersion.String(),
		"kind":       "Memcached",
		"metadata":   map[string]any{"name": key.Name, "namespace": ns},
		"spec":       map[string]any{"size": int64(pyServers), "memcached": map[string]any{"maxMemoryMB": int64(maxMB)}},
	}}
	if mode == "Stable" {
		g.Expect(unstructured.SetNestedField(mc.Object, "Stable", "spec", serverIdentityField)).To(Succeed())
	}
	g.Expect(suite.k8s.Create(ctx, mc)).To(Succeed(), "failed to create Memcached %s", key)

	pod := utils.ClientPod(ns, pyClientPod, image, pyclients.ScriptInImage)
	g.Expect(suite.k8s.Create(ctx, pod)).To(Succeed(), "failed to create the client pod %s/%s", ns, pyClientPod)
	g.Eventually(func() error {
		p := &corev1.Pod{}
		if err := suite.k8s.Get(ctx, client.ObjectKeyFromObject(pod), p); err != nil {
			return err
		}
		if !utils.PodRunningReady(p) {
			return fmt.Errorf("client pod not Running and Ready: %s", podState(p))
		}
		return nil
	}, podStartTimeout, poll).Should(Succeed())

	servers := waitServers(t, key, pyServers, maxMB)
	t.Logf("%s: %d servers %v, client pod Ready, %s after the start", mode, pyServers, slices.Sorted(maps.Keys(servers)), utils.Ms(time.Since(start)))
	// entry is server i's serverList entry under stable identities.
	entry := func(i int) string {
		return fmt.Sprintf("%s-%d.%s.%s.svc:%d", key.Name, i, key.Name, ns, cachev1alpha1.DefaultPort)
	}
	if mode == "Stable" {
		g.Expect(stableNames(slices.Sorted(maps.Keys(servers)), entry, pyServers)).To(Succeed())
	}

	type figure struct {
		event, client    string
		found, allowed   int
		promised, sample int
	}
	var figures []figure
	// measure writes keys with both clients over the current servers, runs event, waits until
	// the instance serves again with size servers of the template with maxMB, reads the keys and
	// checks the figures. want is what the event may change under stable identities: the entries
	// that leave serverList, join it, and stay in it with a new server (pod or container) behind.
	measure := func(name string, size, newMB int32, event func(), want serverChange) {
		prefix := strings.NewReplacer(" ", "", ">", "", "-", "").Replace(name)
		old := slices.Sorted(maps.Keys(servers))
		written := map[string]pyclients.Report{}
		for _, c := range pyclients.Clients {
			w := pyRun(t, ns, pyclients.WriteArgs(c, old, pyKeys, c+prefix)...)
			g.Expect(w.Stored).To(Equal(pyKeys), "%s stored %d of %d keys over %v", c, w.Stored, pyKeys, old)
			written[c] = w
		}
		eventStart := time.Now()
		event()
		now := waitServers(t, key, size, newMB)
		settled := time.Since(eventStart)
		list := slices.Sorted(maps.Keys(now))
		var cold, gone, added []string
		for _, e := range old {
			switch n, ok := now[e]; {
			case !ok:
				gone = append(gone, e)
			case n != servers[e]:
				cold = append(cold, e) // the same name, another pod or container: its memory is lost
			}
		}
		for _, e := range list {
			if _, ok := servers[e]; !ok {
				added = append(added, e)
			}
		}
		t.Logf("%s/%s: served again after %s; servers %v (gone %v, added %v, restarted under their name %v)",
			mode, name, utils.Ms(settled), list, gone, added, cold)
		if mode == "Stable" {
			g.Expect(stableNames(list, entry, int(size))).To(Succeed(), "%s: serverList after the event", name)
			g.Expect(serverChange{gone: gone, added: added, cold: cold}.diff(want)).To(BeEmpty(),
				"%s: with stable names only the event's servers may change", name)
		}
		for _, c := range pyclients.Clients {
			r := pyRun(t, ns, pyclients.CheckArgs(c, list, pyKeys, c+prefix, old, cold)...)
			// A miss the hashing allows is read again (pyReads): a client timeout is not a lost key.
			for try := 1; mode == "Stable" && r.Allowed != nil && r.Found < *r.Allowed && try < pyReads; try++ {
				t.Logf("%s/%s: %s found %d of the %d keys allowed; reading again", mode, name, c, r.Found, *r.Allowed)
				r = pyRun(t, ns, pyclients.CheckArgs(c, list, pyKeys, c+prefix, old, cold)...)
			}
			g.Expect(r.Allowed).NotTo(BeNil(), "keys.py check reported no allowed count")
			allowed := *r.Allowed
			// What consistent hashing promises: the keys of the servers that left or lost their
			// memory, and the keys now owned by the servers that joined, go cold; no other key
			// moves. Exact when servers only joined or only left or restarted; a lower bound
			// when some left and others joined (a key can be in both groups), and then never
			// below 0 (every server replaced: the two groups overlap entirely).
			promised := max(0, pyKeys-written[c].Sum(append(slices.Clone(gone), cold...))-r.Sum(added))
			exact := len(added) == 0 || len(gone)+len(cold) == 0
			t.Logf("%s/%s: %-10s found %4d of %d (%5.1f %%), the hashing allows %4d (%5.1f %%); consistent hashing promises %s%d",
				mode, name, c, r.Found, pyKeys, pct(r.Found), allowed, pct(allowed), map[bool]string{true: "", false: "at least "}[exact], promised)
			g.Expect(r.Wrong).To(BeEmpty(), "%s read keys with another value", c)
			figures = append(figures, figure{event: name, client: c, found: r.Found, allowed: allowed, promised: promised, sample: pyKeys})
			if mode != "Stable" {
				continue
			}
			// Names checked above: one group changed at most, so the promise is exact.
			g.Expect(exact).To(BeTrue(), "%s/%s: servers both left and joined (gone %v, added %v, restarted %v)", name, c, gone, added, cold)
			g.Expect(allowed).To(Equal(promised),
				"%s/%s: with stable names only the event's servers may change: allowed %d, consistent hashing promises %d (gone %v, added %v, restarted %v)",
				name, c, allowed, promised, gone, added, cold)
			if len(old) == pyServers && len(gone)+len(cold) == 1 && len(added) == 0 {
				g.Expect(allowed*1000/pyKeys).To(BeNumerically(">=", pyMinKeptOneOfFive),
					"%s/%s: one of %d servers replaced, the hashing allows %d of %d keys", name, c, pyServers, allowed, pyKeys)
			}
			g.Expect(r.Found).To(BeNumerically(">=", allowed),
				"%s/%s: found %d keys after %d reads, the hashing allows %d: every one must be found", name, c, r.Found, pyReads, allowed)
		}
		servers = now
	}

	// Under stable identities the pod deleted is server pyServers/2 (pods sort by name, and a
	// StatefulSet names them <name>-<ordinal>).
	var all []string
	for i := range pyServers {
		all = append(all, entry(i))
	}
	measure("pod deleted", pyServers, maxMB, func() {
		pods := livePods(t, key)
		victim := pods[len(pods)/2]
		g.Expect(suite.k8s.Delete(ctx, &victim)).To(Succeed(), "failed to delete pod %s", victim.Name)
		t.Logf("%s: deleted pod %s", mode, victim.Name)
	}, serverChange{cold: []string{entry(pyServers / 2)}})
	measure(fmt.Sprintf("scale %d->%d", pyServers, pyServers+1), pyServers+1, maxMB, func() {
		kubectl(t, "scale", "memcached/"+key.Name, "-n", ns, fmt.Sprintf("--replicas=%d", pyServers+1))
	}, serverChange{added: []string{entry(pyServers)}})
	measure(fmt.Sprintf("scale %d->%d", pyServers+1, pyServers), pyServers, maxMB, func() {
		kubectl(t, "scale", "memcached/"+key.Name, "-n", ns, fmt.Sprintf("--replicas=%d", pyServers))
	}, serverChange{gone: []string{entry(pyServers)}})
	measure("rollout", pyServers, maxMB+32, func() {
		kubectl(t, "patch", "memcached", key.Name, "-n", ns, "--type=merge",
			"-p", fmt.Sprintf(`{"spec":{"memcached":{"maxMemoryMB":%d}}}`, maxMB+32))
	}, serverChange{cold: all})

	var b strings.Builder
	for _, f := range figures {
		fmt.Fprintf(&b, "\n  %-12s %-10s found %5.1f %%  allowed %5.1f %%  promised %5.1f %%", f.event, f.client, pct(f.found), pct(f.allowed), pct(f.promised))
	}
	t.Logf("%s: keys still found (of %d per client and event):%s", mode, pyKeys, b.String())
	suite.phases.Record(t, fmt.Sprintf("clients keep keys (%s): pod deleted, scale %d->%d->%d, rollout", mode, pyServers, pyServers+1, pyServers), start)
}

// serverChange is what an event did to serverList: the entries that left it, those that joined it,
// and those that stayed with another server (pod or container) behind the name.
type serverChange struct {
	gone, added, cold []string
}

// diff returns how c differs from want, one line per group that does ("" groups equal as sets).
func (c serverChange) diff(want serverChange) []string {
	var out []string
	for _, g := range []struct {
		name      string
		got, want []string
	}{{"gone", c.gone, want.gone}, {"added", c.added, want.added}, {"restarted under their name", c.cold, want.cold}} {
		if !slices.Equal(slices.Sorted(slices.Values(g.got)), slices.Sorted(slices.Values(g.want))) {
			out = append(out, fmt.Sprintf("%s %v, want %v", g.name, g.got, g.want))
		}
	}
	return out
}

// stableNames returns an error unless list (sorted) is exactly the stable entries 0 … size-1
// that entry names.
func stableNames(list []string, entry func(int) string, size int) error {
	var want []string
	for i := range size {
		want = append(want, entry(i))
	}
	slices.Sort(want)
	if !slices.Equal(list, want) {
		return fmt.Errorf("serverList %v, want the stable names %v", list, want)
	}
	return nil
}

// pct is n as a percentage of pyKeys.
func pct(n int) float64 { return 100 * float64(n) / pyKeys }

// pyRun runs `keys.py args...` in the client pod of ns and decodes its report. A run that fails
// (a name not yet in cluster DNS, a server not yet answering: see dnsLag) is retried every poll for
// up to dnsLag; the test fails after that.
func pyRun(t *testing.T, ns string, args ...string) pyclients.Report {
	t.Helper()
	start := time.Now()
	kargs := append([]string{"exec", "-n", ns, pyClientPod, "-c", pyClientPod, "--", pyclients.ScriptInImage}, args...)
	for tries := 1; ; tries++ {
		out, errOut, err := runKubectl(utils.TestContext(t), "", kargs...)
		var r pyclients.Report
		if err == nil {
			if derr := json.Unmarshal([]byte(out), &r); derr != nil {
				t.Fatalf("keys.py %s: failed to decode its report: %v\n%.2000s", args[0], derr, out)
			}
			if tries > 1 {
				t.Logf("keys.py %s --client %s: succeeded after %d tries (%s)", args[0], args[2], tries, utils.Ms(time.Since(start)))
			}
			return r
		}
		if time.Since(start) > dnsLag {
			t.Fatalf("keys.py %s: still failing after %d tries (%s): %v\n%.4000s", strings.Join(args, " "), tries, utils.Ms(time.Since(start)), err, errOut)
		}
		time.Sleep(poll)
	}
}

// livePods returns the instance's pods that are not terminating, sorted by name.
func livePods(t *testing.T, key client.ObjectKey) []corev1.Pod {
	t.Helper()
	pods, err := utils.InstancePods(utils.TestContext(t), suite.k8s, key)
	if err != nil {
		t.Fatalf("failed to list the pods of %s: %v", key, err)
	}
	return live(pods)
}

// serving returns the servers of the Memcached key by serverList entry when it serves with size
// servers of the template with item memory maxMB: Available=True at its generation, exactly size
// pods, none terminating, all Running and Ready and of that template, and serverList exactly one
// entry per pod, named after the pod (stable identities: <pod>.<name>.<ns>.svc:11211) or after its
// IP (<ip-with-dashes>.<name>.<ns>.svc:11211). Otherwise an error says what differs.
func serving(ctx context.Context, key client.ObjectKey, size, maxMB int32) (map[string]pyEntry, error) {
	mc, err := utils.GetMemcached(ctx, suite.k8s, key)
	if err != nil {
		return nil, err
	}
	if c := meta.FindStatusCondition(mc.Status.Conditions, cachev1alpha1.ConditionAvailable); c == nil ||
		c.Status != metav1.ConditionTrue || c.ObservedGeneration != mc.Generation {
		return nil, fmt.Errorf("not Available at generation %d: %+v", mc.Generation, mc.Status.Conditions)
	}
	pods, err := utils.InstancePods(ctx, suite.k8s, key)
	if err != nil {
		return nil, err
	}
	lp := live(pods)
	if len(lp) != len(pods) || len(lp) != int(size) {
		return nil, fmt.Errorf("%d pods (%d live), want %d:\n%s", len(pods), len(lp), size, podsState(pods))
	}
	byHost := map[string]pyEntry{}
	for i := range lp {
		p := &lp[i]
		if !utils.PodRunningReady(p) || !ofTemplate(p, maxMB) {
			return nil, fmt.Errorf("pod %s is not Running and Ready with -m %d: %s", p.Name, maxMB, podState(p))
		}
		e := pyEntry{pod: p.Name, uid: p.UID, containerID: containerID(p, memcachedContainer)}
		byHost[p.Name] = e
		byHost[strings.ReplaceAll(p.Status.PodIP, ".", "-")] = e
	}
	if len(mc.Status.ServerList) != int(size) {
		return nil, fmt.Errorf("status.serverList %v, want %d entries", mc.Status.ServerList, size)
	}
	servers := map[string]pyEntry{}
	seen := map[types.UID]bool{}
	suffix := fmt.Sprintf(".%s.%s.svc:%d", key.Name, key.Namespace, cachev1alpha1.DefaultPort)
	for _, s := range mc.Status.ServerList {
		host, ok := strings.CutSuffix(s, suffix)
		e, known := byHost[host]
		if !ok || !known || seen[e.uid] {
			return nil, fmt.Errorf("status.serverList %v: %s does not name one live pod of %v", mc.Status.ServerList, s, podNames(lp))
		}
		seen[e.uid] = true
		servers[s] = e
	}
	return servers, nil
}

// waitServers waits until the Memcached key serves (see serving) and returns its servers.
func waitServers(t *testing.T, key client.ObjectKey, size, maxMB int32) map[string]pyEntry {
	t.Helper()
	ctx := utils.TestContext(t)
	var servers map[string]pyEntry
	NewWithT(t).Eventually(func() error {
		var err error
		servers, err = serving(ctx, key, size, maxMB)
		return err
	}, 3*podStartTimeout, poll).Should(Succeed(), "Memcached %s did not serve with %d servers of -m %d", key, size, maxMB)
	return servers
}
