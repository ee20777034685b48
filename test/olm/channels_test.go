//go:build olm

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

package olm

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const (
	stableNS    = "olm-ch-stable"
	candidateNS = "olm-ch-candidate"
	// pollWindow is how long a stable subscriber is watched while the next release is only in
	// candidate: several resyncs of the catalog operator and reconnections to the catalog.
	pollWindow = 30 * time.Second
)

// releaseCopy is a copy of the repository's sources (as bundle-check makes one) in which the next
// release is cut the way `make release` cuts it, without images: `make bundle VERSION=next`, then
// `catalog-tool add -channels candidate` (what `make catalog` runs) into the copy's catalog template,
// and, as there is no registry to render from, with -dir straight into the copy's catalog/ (the
// bundle as `opm render` renders its directory).
type releaseCopy struct {
	dir, next string
}

// newReleaseCopy copies the sources and publishes the release after the newest in catalog/ and
// the head's VERSION (its minor version bumped) to candidate in the copy's catalog.
func newReleaseCopy(t *testing.T, g Gomega) *releaseCopy {
	t.Helper()
	start := time.Now()
	dir := t.TempDir()
	runIn(t, repoRoot, "bash", "-c", `git ls-files -z --cached --others --exclude-standard | xargs -0 tar --ignore-failed-read -cf - 2>/dev/null | tar -C "$0" -xf -`, dir)
	entries, err := os.ReadDir(filepath.Join(dir, "catalog", packageName, "bundles"))
	g.Expect(err).NotTo(HaveOccurred())
	var versions [][3]int
	for _, e := range entries {
		v := strings.TrimSuffix(strings.TrimPrefix(e.Name(), packageName+".v"), ".yaml")
		var mj, mn, pt int
		_, err := fmt.Sscanf(v, "%d.%d.%d", &mj, &mn, &pt)
		g.Expect(err).NotTo(HaveOccurred(), "bundle file %s", e.Name())
		versions = append(versions, [3]int{mj, mn, pt})
	}
	// The head builds as the next version after a release: the release cut here comes after it.
	var mj, mn, pt int
	if _, err := fmt.Sscanf(strings.TrimPrefix(headVersion, "v"), "%d.%d.%d", &mj, &mn, &pt); err == nil {
		versions = append(versions, [3]int{mj, mn, pt})
	}
	sort.Slice(versions, func(i, j int) bool {
		a, b := versions[i], versions[j]
		return a[0] < b[0] || a[0] == b[0] && (a[1] < b[1] || a[1] == b[1] && a[2] < b[2])
	})
	newest := versions[len(versions)-1]
	next := strconv.Itoa(newest[0]) + "." + strconv.Itoa(newest[1]+1) + ".0"
	bin := filepath.Join(repoRoot, "bin")
	// IMG_DIGEST empty: the copy's operator is named by its tag (v<next>), which the runner maps to
	// the head's binary; the head's own release digest would name the head.
	runIn(t, dir, "make", "--no-print-directory", "bundle", "VERSION="+next, "IMG_DIGEST=", "LOCALBIN="+bin)
	runIn(t, dir, filepath.Join(bin, "catalog-tool"), "add", "-template", filepath.Join("catalog-template", packageName+".yaml"), "-version", next,
		"-dir", filepath.Join("catalog", packageName), "-bundle-dir", "bundle",
		"-image", "registry.example.com/memcached-operator-bundle:v"+next, "-channels", "candidate", "-default-channel", "stable",
		"-opm", filepath.Join(bin, "opm"))
	step(t, "release "+next+" cut into candidate of a copy of catalog/ (make bundle, catalog-tool add)", start)
	return &releaseCopy{dir: dir, next: next}
}

// promote runs `make promote VERSION=next CHANNEL=channel` in the copy.
func (c *releaseCopy) promote(t *testing.T, channel string) {
	t.Helper()
	runIn(t, c.dir, "make", "--no-print-directory", "promote", "VERSION="+c.next, "CHANNEL="+channel, "LOCALBIN="+filepath.Join(repoRoot, "bin"))
}

// serve publishes the copy's catalog (hack/olm/catalog-serve.sh start DIR).
func (c *releaseCopy) serve(t *testing.T) {
	t.Helper()
	runIn(t, repoRoot, filepath.Join(repoRoot, "hack", "olm", "catalog-serve.sh"), "start", filepath.Join(c.dir, "catalog"))
}

func runIn(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// subscription returns the Subscription of our package in ns.
func subscription(g Gomega, ns string) *operatorsv1alpha1.Subscription {
	sub := &operatorsv1alpha1.Subscription{}
	g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: packageName}, sub)).To(Succeed())
	return sub
}

// csvNames returns the names of our package's CSVs in ns (not copies), sorted.
func csvNames(g Gomega, ns string) []string {
	csvs := &operatorsv1alpha1.ClusterServiceVersionList{}
	g.Expect(k8s.List(context.Background(), csvs, client.InNamespace(ns))).To(Succeed())
	var out []string
	for _, c := range csvs.Items {
		if strings.HasPrefix(c.Name, packageName+".") && c.Status.Reason != operatorsv1alpha1.CSVReasonCopied {
			out = append(out, c.Name)
		}
	}
	sort.Strings(out)
	return out
}

// describeSub renders what OLM says on a Subscription: state, installed and current CSV, and its
// conditions that are True.
func describeSub(sub *operatorsv1alpha1.Subscription) string {
	var conds []string
	for _, c := range sub.Status.Conditions {
		if c.Status == "True" {
			conds = append(conds, fmt.Sprintf("%s (%s: %s)", c.Type, c.Reason, c.Message))
		}
	}
	return fmt.Sprintf("channel %s, state %s, installedCSV %s, currentCSV %s, conditions %v",
		sub.Spec.Channel, sub.Status.State, sub.Status.InstalledCSV, sub.Status.CurrentCSV, conds)
}

// The channel policy under OLM. The next release is cut into candidate only (in a copy of the
// catalog): a stable subscriber stays on the head of stable through pollWindow of catalog
// resolution while a candidate subscriber upgrades. The candidate subscriber then switches its
// Subscription to stable, whose head is older than what it runs: OLM never downgrades (the CSV
// stays, no older CSV is created). `make promote` to fast, then stable: the stable subscriber
// upgrades with no manual step, its operator follows the new Deployment and its memcached pods are
// untouched; the switched subscriber is then simply at the head of stable.
func TestChannelPolicy(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	headCSV := packageName + "." + headVersion

	rc := newReleaseCopy(t, g)
	nextCSV := packageName + ".v" + rc.next
	// The next release's operator is the current code: the runner runs the head's binary for it.
	binaries["v"+rc.next] = binaries[headVersion]
	t.Cleanup(func() { delete(binaries, "v"+rc.next) })

	start := time.Now()
	serveCatalog(t, "")
	t.Cleanup(func() { serveCatalog(t, "") })
	deleteNamespaces(t, g, stableNS, candidateNS) // leftovers of an interrupted run
	for _, ns := range []string{stableNS, candidateNS} {
		createNamespace(t, g, ns)
		ensureOperatorGroup(t, g, ns, []string{ns})
	}
	t.Cleanup(func() {
		g := NewWithT(t)
		uninstallAll(t, g, stableNS)
		uninstallAll(t, g, candidateNS)
		deleteNamespaces(t, g, stableNS, candidateNS)
	})
	stableCSV := subscribe(t, g, stableNS, "stable", "")
	g.Expect(stableCSV.Name).To(Equal(headCSV))
	candidateCSV := subscribe(t, g, candidateNS, "candidate", "")
	g.Expect(candidateCSV.Name).To(Equal(headCSV))
	step(t, "stable and candidate subscribers on "+headCSV, start)

	// The stable subscriber runs its operator and a Memcached, to see the upgrade leave it alone.
	r := startRunner(t, g, stableNS, stableCSV)
	newMemcached(t, g, stableNS, "cache", 2)
	waitAvailable(t, g, stableNS, "cache")
	podsBefore := podsOf(g, stableNS, "cache")
	g.Expect(podsBefore).To(HaveLen(2))

	// Publish the next release to candidate only.
	start = time.Now()
	rc.serve(t)
	step(t, "catalog serves "+rc.next+" in candidate only", start)
	// Within the same window: the candidate subscriber upgrades, then (once the replaced CSV is
	// gone) switches its Subscription to stable, whose head is older than what it now runs, and
	// from then on must keep what it runs.
	var switchedAt time.Time
	var switched string
	checkSwitched := func(g Gomega) {
		sub := subscription(g, candidateNS)
		switched = describeSub(sub)
		g.Expect(sub.Status.InstalledCSV).To(Equal(nextCSV), "never downgraded: %s", switched)
		g.Expect(csvNames(g, candidateNS)).To(Equal([]string{nextCSV}), "no older CSV created: %s", switched)
		csv := &operatorsv1alpha1.ClusterServiceVersion{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: candidateNS, Name: nextCSV}, csv)).To(Succeed())
		g.Expect(csv.Status.Phase).To(Equal(operatorsv1alpha1.CSVPhaseSucceeded))
	}
	g.Consistently(func(g Gomega) {
		sub := subscription(g, stableNS)
		g.Expect(sub.Status.InstalledCSV).To(Equal(headCSV), "stable subscriber: %s", describeSub(sub))
		g.Expect(sub.Status.CurrentCSV).To(Equal(headCSV), "stable subscriber: %s", describeSub(sub))
		g.Expect(csvNames(g, stableNS)).To(Equal([]string{headCSV}), "no CSV of an unpromoted release in the stable namespace")
		if !switchedAt.IsZero() {
			checkSwitched(g)
			return
		}
		cs := subscription(g, candidateNS)
		csv := &operatorsv1alpha1.ClusterServiceVersion{}
		if cs.Status.InstalledCSV != nextCSV || k8s.Get(ctx, client.ObjectKey{Namespace: candidateNS, Name: nextCSV}, csv) != nil ||
			csv.Status.Phase != operatorsv1alpha1.CSVPhaseSucceeded || !slices.Equal(csvNames(g, candidateNS), []string{nextCSV}) {
			return
		}
		step(t, "candidate subscriber upgraded to "+nextCSV+", the replaced CSV gone", start)
		cs.Spec.Channel = "stable"
		g.Expect(k8s.Update(ctx, cs)).To(Succeed())
		switchedAt = time.Now()
	}, pollWindow, time.Second).Should(Succeed())
	step(t, "stable subscriber stayed on "+headCSV+" for "+pollWindow.String(), start)
	g.Expect(switchedAt.IsZero()).To(BeFalse(), "candidate subscriber upgraded within %s: %s", pollWindow, describeSub(subscription(g, candidateNS)))
	if rest := 15*time.Second - time.Since(switchedAt); rest > 0 {
		g.Consistently(checkSwitched, rest, time.Second).Should(Succeed())
	}
	t.Logf("candidate subscriber switched to stable (head %s) while on %s, watched %s: %s", headCSV, nextCSV, time.Since(switchedAt).Round(time.Second), switched)

	// Promote: fast, then stable. The stable subscriber upgrades by itself.
	start = time.Now()
	rc.promote(t, "fast")
	rc.promote(t, "stable")
	rc.serve(t)
	step(t, "make promote "+rc.next+" to fast and stable; catalog served", start)
	g.Eventually(func(g Gomega) {
		sub := subscription(g, stableNS)
		g.Expect(sub.Status.InstalledCSV).To(Equal(nextCSV), "stable subscriber: %s", describeSub(sub))
	}, 120*time.Second, 250*time.Millisecond).Should(Succeed())
	waitCSV(t, g, stableNS, nextCSV)
	g.Eventually(func() bool {
		return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKey{Namespace: stableNS, Name: headCSV}, &operatorsv1alpha1.ClusterServiceVersion{}))
	}, 60*time.Second, 250*time.Millisecond).Should(BeTrue(), "CSV %s removed", headCSV)
	step(t, "stable subscriber upgraded to "+nextCSV+" with no manual step", start)
	g.Eventually(r.Image, 30*time.Second, 100*time.Millisecond).Should(HaveSuffix(":v"+rc.next), "runner follows the upgraded Deployment")
	waitReady(t, g, r)
	time.Sleep(2 * time.Second) // let the new operator reconcile
	g.Expect(available(g, stableNS, "cache")).To(BeTrue())
	g.Expect(podsOf(g, stableNS, "cache")).To(Equal(podsBefore), "memcached pods untouched (names, UIDs, pod-template-hash)")

	// The switched subscriber is now at the head of its new channel.
	g.Eventually(func(g Gomega) {
		sub := subscription(g, candidateNS)
		g.Expect(sub.Status.InstalledCSV).To(Equal(nextCSV))
		g.Expect(string(sub.Status.State)).To(Equal(string(operatorsv1alpha1.SubscriptionStateAtLatest)), "switched subscriber: %s", describeSub(sub))
	}, 60*time.Second, 250*time.Millisecond).Should(Succeed())
	t.Logf("switched subscriber after the promotion: %s", describeSub(subscription(g, candidateNS)))
}
