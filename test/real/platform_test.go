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
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/resources"
	"github.com/example/memcached-operator/test/real/memcache"
	"github.com/example/memcached-operator/test/utils"
)

const (
	// standinManifest is the stand-in for OpenShift's restricted-v2 SecurityContextConstraints
	// (its comment says what it reproduces and what not).
	standinManifest = "testdata/restricted-v2-standin.yaml"
	// sccUIDRange is the namespace annotation restricted-v2 takes UIDs from, as OpenShift writes it
	// (<first>/<size>); sccGroups the one it takes the fsGroup from.
	sccUIDRange = "openshift.io/sa.scc.uid-range"
	sccGroups   = "openshift.io/sa.scc.supplemental-groups"
	// firstUID and firstGroup are the first IDs of the test namespace's ranges (OpenShift's own
	// ranges start at 1000000000 and step by 10000 per namespace).
	firstUID, firstGroup = 1000680000, 1000690000
)

// TestPlatformAssignedUIDs proves POD_UIDS=auto on a platform that assigns UIDs, with the
// restricted-v2 stand-in of testdata/restricted-v2-standin.yaml (API, mutating and validating
// admission policies) in a namespace that also enforces the restricted Pod Security Standard:
//
//  1. the manager, restarted once the security.openshift.io API is served, reports
//     platformAssignsUIDs true;
//  2. a pod of the template the operator writes elsewhere (uid, gid and fsGroup 11211) is refused
//     there, naming the field and the namespace's range; the template it writes now is admitted
//     and given the namespace's first UID and group (server-side dry run);
//  3. a Memcached with TLS and auth (2 servers, with the certificate reloader) and one with TLS and
//     monitoring (the exporter) become Available: every container runs with the UID the platform
//     gave it (the API objects and the kernel's /proc agree), the Deployments pin none, the mounted
//     Secret files are read (TLS and auth work for a client, the exporter reports memcached_up 1).
//
// When it ends the stand-in is removed and the manager restarted, back to uid 11211.
func TestPlatformAssignedUIDs(t *testing.T) {
	g := NewWithT(t)
	ctx := utils.TestContext(t)
	expectCleanManagerLog(t)
	start := time.Now()

	kubectl(t, "apply", "--server-side", "-f", standinManifest)
	t.Cleanup(func() {
		kubectl(t, "delete", "--ignore-not-found", "--wait", "-f", standinManifest)
		restartManager(t, `"platformAssignsUIDs":false`)
	})
	kubectl(t, "wait", "--for=condition=Established", "--timeout=30s", "crd/securitycontextconstraints.security.openshift.io")
	restartManager(t, `"platformAssignsUIDs":true`)
	suite.phases.Record(t, "restricted-v2 stand-in applied, manager restarted: platform assigns UIDs", start)

	ns := newRestrictedNamespace(t, "scc")
	kubectl(t, "annotate", "namespace", ns,
		fmt.Sprintf("%s=%d/10000", sccUIDRange, firstUID), fmt.Sprintf("%s=%d/10000", sccGroups, firstGroup))

	// The admission chain: the fixed template is refused, the platform one admitted and given IDs.
	// Policies take effect a moment after they are created; the refusal is awaited.
	probe := &cachev1alpha1.Memcached{ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: ns},
		Spec: cachev1alpha1.MemcachedSpec{Size: 1, Memcached: cachev1alpha1.MemcachedConfig{MaxMemoryMB: 64}}}
	podOf := func(platform bool) *corev1.Pod {
		tmpl := resources.DesiredDeployment(probe, resources.Options{DefaultImage: suite.memcachedImage, PlatformAssignsUIDs: platform}).Spec.Template
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: "probe-", Namespace: ns, Labels: tmpl.Labels}, Spec: tmpl.Spec}
	}
	var refusal error
	g.Eventually(func() error {
		refusal = suite.k8s.Create(ctx, podOf(false), client.DryRunAll)
		want := fmt.Sprintf("runAsUser 11211 is not in the namespace range %d-%d", firstUID, firstUID+9999)
		if refusal == nil || !strings.Contains(refusal.Error(), want) {
			return fmt.Errorf("a pod pinning uid 11211: want a refusal containing %q, got %v", want, refusal)
		}
		return nil
	}, 30*time.Second, poll).Should(Succeed())
	t.Logf("the fixed template (uid 11211) is refused: %v", refusal)
	admitted := podOf(true)
	g.Expect(suite.k8s.Create(ctx, admitted, client.DryRunAll)).To(Succeed())
	g.Expect(admitted.Spec.SecurityContext.FSGroup).To(HaveValue(BeEquivalentTo(firstGroup)))
	g.Expect(admitted.Spec.SecurityContext.RunAsNonRoot).To(HaveValue(BeTrue()))
	for _, c := range admitted.Spec.Containers {
		g.Expect(c.SecurityContext.RunAsUser).To(HaveValue(BeEquivalentTo(firstUID)), "container %s", c.Name)
	}

	// Real servers: TLS + auth (the reloader sidecar reads the certificate too), and TLS +
	// monitoring (the exporter).
	start = time.Now()
	const name, monName = "mc-scc", "mc-scc-mon"
	ca, caKey := newCA(t)
	password := randomPassword(t)
	secrets := []*corev1.Secret{
		{ObjectMeta: metav1.ObjectMeta{Name: "users", Namespace: ns}, Data: map[string][]byte{"authfile": []byte("app:" + password + "\n")}},
	}
	for _, n := range []string{name, monName} {
		cert, key := newCert(t, ca, caKey, "*."+n+"."+ns+".svc", n, n+"."+ns+".svc")
		secrets = append(secrets, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: n + "-cert", Namespace: ns}, Type: corev1.SecretTypeTLS,
			Data: map[string][]byte{"tls.crt": cert, "tls.key": key, "ca.crt": pemCert(ca)}})
	}
	for _, s := range secrets {
		g.Expect(suite.k8s.Create(ctx, s)).To(Succeed())
	}
	for _, mc := range []*cachev1alpha1.Memcached{
		{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: cachev1alpha1.MemcachedSpec{
			Size: 2, Memcached: cachev1alpha1.MemcachedConfig{MaxMemoryMB: 64},
			TLS: &cachev1alpha1.TLSSpec{SecretName: name + "-cert"}, Auth: &cachev1alpha1.AuthSpec{SecretName: "users"},
		}},
		{ObjectMeta: metav1.ObjectMeta{Name: monName, Namespace: ns}, Spec: cachev1alpha1.MemcachedSpec{
			Size: 1, Memcached: cachev1alpha1.MemcachedConfig{MaxMemoryMB: 64},
			TLS:        &cachev1alpha1.TLSSpec{SecretName: monName + "-cert"},
			Monitoring: cachev1alpha1.MonitoringSpec{Enabled: ptr.To(true), Image: os.Getenv("MEMCACHED_EXPORTER_IMAGE")},
		}},
	} {
		g.Expect(suite.k8s.Create(ctx, mc)).To(Succeed())
	}
	// The client pins no UID either: restricted-v2 would refuse its usual 65532.
	startClientPodWith(t, ns, func(p *corev1.Pod) { p.Spec.SecurityContext.RunAsUser, p.Spec.SecurityContext.RunAsGroup = nil, nil })
	mc, pods := waitConverged(t, client.ObjectKey{Namespace: ns, Name: name}, 2, 64, 2*podStartTimeout)
	mon, monPods := waitConverged(t, client.ObjectKey{Namespace: ns, Name: monName}, 1, 64, 2*podStartTimeout)
	suite.phases.Record(t, "platform UIDs: TLS + auth and TLS + monitoring Memcacheds Available", start)

	for _, n := range []string{name, monName} {
		dep := &appsv1.Deployment{}
		g.Expect(suite.k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: n}, dep)).To(Succeed())
		psc := dep.Spec.Template.Spec.SecurityContext
		g.Expect(psc.RunAsUser).To(BeNil(), "Deployment %s pins a UID", n)
		g.Expect(psc.RunAsGroup).To(BeNil(), "Deployment %s pins a group", n)
		g.Expect(psc.FSGroup).To(BeNil(), "Deployment %s pins an fsGroup", n)
	}
	var seen []string
	for _, p := range append(pods, monPods...) {
		g.Expect(p.Spec.SecurityContext.FSGroup).To(HaveValue(BeEquivalentTo(firstGroup)), "pod %s", p.Name)
		for _, c := range p.Spec.Containers {
			g.Expect(c.SecurityContext.RunAsUser).To(HaveValue(BeEquivalentTo(firstUID)), "pod %s container %s", p.Name, c.Name)
			v, err := kernelViewOf(containerID(&p, c.Name))
			g.Expect(err).NotTo(HaveOccurred(), "pod %s container %s", p.Name, c.Name)
			g.Expect(v.uid).To(Equal(strconv.Itoa(firstUID)), "pod %s container %s: the kernel's uid", p.Name, c.Name)
			seen = append(seen, fmt.Sprintf("%s/%s %s uid %s gid %s", p.Name, c.Name, v.comm, v.uid, v.gid))
		}
	}
	t.Logf("every container runs with the namespace's first UID (kernel view):\n  %s", strings.Join(seen, "\n  "))

	// The Secret files are read: TLS verified with the CA and the password, on every server.
	caPEM := string(pemCert(ca))
	var ok memcache.ServersReport
	deadline := time.Now().Add(dnsLag)
	for {
		err := clientRun(ctx, ns, creds(caPEM, password), &ok, "servers", "-servers", strings.Join(mc.Status.ServerList, ","), "-tls", "-user", "app", "-credentials-stdin")
		if err == nil && len(ok.Servers) == 2 {
			break
		}
		if time.Now().After(deadline) || unresolved(&ok) == "" {
			t.Fatalf("TLS with the CA and the password as uid %d: %v (report %+v)", firstUID, err, ok)
		}
		time.Sleep(poll)
	}
	var svc memcache.ServiceReport
	mustClientRun(t, ns, creds(caPEM, password), &svc, "service", "-addr", name+":11211", "-prefix", "scc", "-n", "100", "-tls", "-user", "app", "-credentials-stdin")
	g.Expect(svc.Read).To(Equal(100))
	t.Logf("TLS + auth as uid %d: %d servers answered, 100 keys set and read through %s:11211", firstUID, len(ok.Servers), name)

	host := strings.TrimSuffix(mon.Status.ServerList[0], fmt.Sprintf(":%d", cachev1alpha1.DefaultPort))
	url := fmt.Sprintf("http://%s:%d/metrics", host, cachev1alpha1.ExporterPort)
	var r memcache.HTTPSReport
	g.Expect(clientRun(ctx, ns, "", &r, "https-get", "-url", url)).To(Succeed())
	g.Expect(r.Status).To(Equal(http.StatusOK), "%s: %.300s", url, r.Body)
	m, err := utils.ParseMetrics(r.Body)
	g.Expect(err).NotTo(HaveOccurred())
	up, _ := m.Sum("memcached_up", nil)
	g.Expect(up).To(Equal(1.0), "%s: memcached_up with TLS, as uid %d", url, firstUID)
	t.Logf("the exporter as uid %d reads memcached over its loopback listener: memcached_up 1", firstUID)
}

// restartManager deletes the manager pod (grace period 1 s: see rolloutSurvivesManagerKill) and
// waits until its replacement is Ready and has logged a line containing want.
func restartManager(t *testing.T, want string) {
	t.Helper()
	ctx := utils.TestContext(t)
	old := waitManagerReady(t, "")
	if err := suite.k8s.Delete(ctx, old, client.GracePeriodSeconds(1)); err != nil {
		t.Fatalf("failed to delete manager pod %s: %v", old.Name, err)
	}
	pod := waitManagerReady(t, old.Name)
	waitLogLine(t, pod.Name, want, 30*time.Second)
	t.Logf("manager pod %s replaced by %s, which logged %s", old.Name, pod.Name, want)
}
