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

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/procfs"
	"golang.org/x/sys/unix"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// Subject kinds: which operator a subject's binary is, so which CRD and ClusterRole it needs, what
// environment it reads and how the benchmark reads its instances.
const (
	// kindOperator is this project's manager (bin/manager or an older build of it).
	kindOperator = "operator"
	// kindSample is the operator-sdk Memcached sample (operator-sdk's testdata/go/v4/memcached-operator,
	// generated at build time by the pinned operator-sdk with kubebuilder's deploy-image plugin and
	// built by hack/tools/build-sample.sh): the same group and kind (cache.example.com/v1alpha1 Memcached)
	// with another schema (spec.size, spec.containerPort, status.conditions only).
	kindSample = "sample"
)

// defaultSampleDir is where hack/tools/build-sample.sh generates the operator-sdk sample's project (its
// sources, CRD and ClusterRole), relative to the repository root; -sample-dir overrides it.
const defaultSampleDir = "bin/sample/memcached-operator"

// subjectFiles returns the CRD (a file or a directory of them, applied before the subject starts)
// and the ClusterRole file (bound to the subject's ServiceAccount) of a subject kind, relative to
// the repository root unless sampleDir (the generated sample's project directory) is absolute, or
// an error for an unknown kind.
func subjectFiles(kind, sampleDir string) (crd, role string, err error) {
	switch kind {
	case kindOperator:
		return "config/crd/bases", "config/rbac/role.yaml", nil
	case kindSample:
		return filepath.Join(sampleDir, "config", "crd", "bases", "cache.example.com_memcacheds.yaml"),
			filepath.Join(sampleDir, "config", "rbac", "role.yaml"), nil
	}
	return "", "", fmt.Errorf("unknown subject kind %q (want %s or %s)", kind, kindOperator, kindSample)
}

// envVar matches a VAR=VALUE field: a shell variable name, then '='.
var envVar = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// newSubject parses NAME=[VAR=VALUE ...] BINARY [FLAGS...] into a subject of the given kind: the
// leading fields that look like VAR=VALUE (envVar) are environment variables it runs with
// (GOGC=100), the next field is the binary, the rest its flags. Its CRD and ClusterRole files are
// set later by setFiles, once every flag is parsed. It returns an error when NAME or BINARY is
// missing, when BINARY starts with '-' (a flag where the binary belongs), or for an unknown kind.
func newSubject(kind, v string) (*subject, error) {
	name, rest, ok := strings.Cut(v, "=")
	fields := strings.Fields(rest)
	var env []string
	for len(fields) > 0 && envVar.MatchString(fields[0]) {
		env, fields = append(env, fields[0]), fields[1:]
	}
	if !ok || name == "" || len(fields) == 0 || strings.HasPrefix(fields[0], "-") {
		return nil, fmt.Errorf("want NAME=[VAR=VALUE ...] BINARY [FLAGS...], got %q", v)
	}
	if _, _, err := subjectFiles(kind, defaultSampleDir); err != nil {
		return nil, err
	}
	return &subject{Name: name, Kind: kind, Env: env, Binary: fields[0], Args: fields[1:]}, nil
}

// setFiles sets each subject's CRD and ClusterRole files from its kind, the sample's under
// sampleDir (the project hack/tools/build-sample.sh generated).
func (l subjectFlags) setFiles(sampleDir string) error {
	for _, s := range l {
		var err error
		if s.CRD, s.Role, err = subjectFiles(s.Kind, sampleDir); err != nil {
			return err
		}
	}
	return nil
}

// subject is an operator binary under test, run as a local process with its own identity.
type subject struct {
	// Name names the subject in the report, its namespaces (s-<name>-<i>) and its ServiceAccount.
	Name string `json:"name"`
	// Kind is kindOperator or kindSample.
	Kind string `json:"kind"`
	// Env is extra environment (VAR=VALUE) it runs with, after the benchmark's own (env). The Go
	// runtime's settings (runtimeEnv) are not inherited from the benchmark's environment: a subject
	// runs with the runtime's defaults unless Env sets them.
	Env []string `json:"env,omitempty"`
	// Binary is the manager binary; Args are extra flags for it.
	Binary string   `json:"binary"`
	Args   []string `json:"args,omitempty"`
	// CRD is the CRD file or directory applied before the subject starts; Role the ClusterRole file
	// its ServiceAccount is bound to. Relative to the repository root until run makes them absolute.
	CRD  string `json:"crd"`
	Role string `json:"role"`

	kubeconfig, logPath    string
	metricsPort, probePort int
	// binPath is where the binary is copied to at each start and run from (coldCopy).
	binPath string
	cmd     *exec.Cmd
}

// start runs the subject and waits until its /readyz answers.
func (s *subject) start(ctx context.Context) error {
	args := append([]string{
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", s.metricsPort), "--metrics-secure=false",
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", s.probePort),
	}, s.Args...)
	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("failed to open %s: %w", s.logPath, err)
	}
	bin, err := coldCopy(s.Binary, s.binPath)
	if err != nil {
		logf.Close()
		return err
	}
	s.cmd = exec.Command(bin, args...)
	s.cmd.Env = append(append(inheritedEnv(), s.env()...), s.Env...)
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	if err := s.cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("failed to start %s: %w", s.Binary, err)
	}
	go func() { _ = s.cmd.Wait(); logf.Close() }()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/readyz", s.probePort))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if s.cmd.ProcessState != nil {
			return fmt.Errorf("%s exited at start (log %s)", s.Binary, s.logPath)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("%s not ready after 60s (log %s)", s.Binary, s.logPath)
}

// coldCopy copies the binary src to dst (replacing it), flushes the copy to disk and drops it from
// the page cache, and returns dst: every subject, at every start, then faults its binary in from
// disk, as a container does from its image layer, and its file-backed RSS does not depend on how
// the file entered the page cache. It does: on this machine (Linux 6.18, ext4) the same binary
// started from the file the Go linker had just written had 3.2 MiB more file-backed RSS at idle than
// started from a copy read from disk (40.4 against 37.2 MiB), which put a freshly built operator
// at a disadvantage against a sample binary built hours earlier (docs/performance.md).
func coldCopy(src, dst string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", fmt.Errorf("failed to open %s: %w", src, err)
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", fmt.Errorf("failed to create %s: %w", filepath.Dir(dst), err)
	}
	// A new file each time: the running file of the previous start cannot be written (ETXTBSY).
	if err := os.Remove(dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("failed to remove the previous copy %s: %w", dst, err)
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		return "", fmt.Errorf("failed to create %s: %w", dst, err)
	}
	defer out.Close() // for the early returns; closing twice is harmless
	if _, err := io.Copy(out, in); err != nil {
		return "", fmt.Errorf("failed to copy %s to %s: %w", src, dst, err)
	}
	if err := out.Sync(); err != nil {
		return "", fmt.Errorf("failed to flush %s: %w", dst, err)
	}
	if err := unix.Fadvise(int(out.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		return "", fmt.Errorf("failed to drop %s from the page cache: %w", dst, err)
	}
	if err := out.Close(); err != nil {
		return "", fmt.Errorf("failed to close %s: %w", dst, err)
	}
	return dst, nil
}

// runtimeEnv are the Go runtime's variables that change a subject's memory or CPU figures.
var runtimeEnv = []string{"GOGC", "GOMEMLIMIT", "GODEBUG", "GOMAXPROCS"}

// inheritedEnv is the benchmark's environment without runtimeEnv, the base of a subject's.
func inheritedEnv() []string {
	return slices.DeleteFunc(os.Environ(), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return slices.Contains(runtimeEnv, k)
	})
}

// memcachedImage is the operand image every subject is given.
const memcachedImage = "docker.io/library/memcached:1.6.46-alpine"

// env is the environment the subject runs with, besides the benchmark's own: its kubeconfig, and
// the operand image where its kind reads it. The sample reads MEMCACHED_IMAGE (and fails every
// Deployment without it); it is generated without its defaulting webhook (hack/tools/build-sample.sh),
// since the benchmark registers no webhook.
func (s *subject) env() []string {
	env := []string{"KUBECONFIG=" + s.kubeconfig}
	if s.Kind == kindSample {
		return append(env, "MEMCACHED_IMAGE="+memcachedImage)
	}
	return append(env, "WATCH_NAMESPACE=", "RELATED_IMAGE_MEMCACHED="+memcachedImage, "RELATED_IMAGE_CERT_RELOADER="+certReloaderImage)
}

// stop sends SIGTERM and waits for the process to exit (SIGKILL after 30 s).
func (s *subject) stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if s.cmd.Process.Signal(syscall.Signal(0)) != nil {
			s.cmd = nil
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = s.cmd.Process.Kill()
	s.cmd = nil
}

// metrics scrapes the subject's /metrics.
func (s *subject) metrics() (map[string]*dto.MetricFamily, error) {
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", s.metricsPort))
	if err != nil {
		return nil, fmt.Errorf("failed to scrape metrics: %w", err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mf, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("failed to parse metrics: %w", err)
	}
	return mf, nil
}

// metricValue returns the sum over the series of family name whose labels include want (a gauge's
// or counter's value, a histogram's sample sum and count).
func metricValue(mf map[string]*dto.MetricFamily, name string, want map[string]string) (value, count float64) {
	f := mf[name]
	if f == nil {
		return 0, 0
	}
series:
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if have[k] != v {
				continue series
			}
		}
		switch {
		case m.Gauge != nil:
			value += m.Gauge.GetValue()
		case m.Counter != nil:
			value += m.Counter.GetValue()
		case m.Histogram != nil:
			value += m.Histogram.GetSampleSum()
			count += float64(m.Histogram.GetSampleCount())
		case m.Untyped != nil:
			value += m.Untyped.GetValue()
		}
	}
	return value, count
}

// memory is the operator's memory at one moment, in MiB.
type memory struct {
	// RSSMiB is the resident set size (process_resident_memory_bytes) and HeapMiB the Go heap in
	// use (go_memstats_heap_inuse_bytes, live objects and garbage not yet collected).
	RSSMiB  float64 `json:"rssMiB"`
	HeapMiB float64 `json:"heapInUseMiB"`
	// RSSAnonMiB and RSSFileMiB split the resident memory (/proc/PID/status RssAnon and RssFile,
	// read right after the RSS sample, so their sum can differ from it slightly; RssShmem, none
	// for these processes, is left out): anonymous memory (Go's heap, stacks, runtime) and pages
	// of mapped files (the binary's code and data as far as they were touched). Zero when /proc
	// could not be read.
	RSSAnonMiB float64 `json:"rssAnonMiB,omitempty"`
	RSSFileMiB float64 `json:"rssFileMiB,omitempty"`
	// HeapSysMiB is the heap's memory obtained from the OS (go_memstats_heap_sys_bytes) and
	// NextGCMiB the heap size that triggers the next GC (go_memstats_next_gc_bytes): together with
	// heap in use they say how much of the RSS is GC headroom rather than live objects.
	HeapSysMiB float64 `json:"heapSysMiB,omitempty"`
	NextGCMiB  float64 `json:"nextGCMiB,omitempty"`
}

// sampleMemory returns the lowest RSS and Go heap in use of n samples one second apart: heap in
// use includes garbage until the next GC, so the lowest sample is the closest to the live heap.
// The RSS split and the heap's other figures are those of the sample with the lowest RSS.
func (s *subject) sampleMemory(n int) (memory, error) {
	var m memory
	for i := 0; i < n; i++ {
		if i > 0 {
			time.Sleep(time.Second)
		}
		mf, err := s.metrics()
		if err != nil {
			return m, err
		}
		rss, _ := metricValue(mf, "process_resident_memory_bytes", nil)
		heap, _ := metricValue(mf, "go_memstats_heap_inuse_bytes", nil)
		if i == 0 || rss/(1<<20) < m.RSSMiB {
			m.RSSMiB = rss / (1 << 20)
			sys, _ := metricValue(mf, "go_memstats_heap_sys_bytes", nil)
			next, _ := metricValue(mf, "go_memstats_next_gc_bytes", nil)
			m.HeapSysMiB, m.NextGCMiB = sys/(1<<20), next/(1<<20)
			m.RSSAnonMiB, m.RSSFileMiB = s.rssSplit()
		}
		if i == 0 || heap/(1<<20) < m.HeapMiB {
			m.HeapMiB = heap / (1 << 20)
		}
	}
	return m, nil
}

// rssSplit returns the subject's anonymous and file-backed RSS in MiB from /proc (procfs), zeros
// when the process cannot be read: the split is a detail of the report, not a reason to fail it.
func (s *subject) rssSplit() (anon, file float64) {
	if s.cmd == nil || s.cmd.Process == nil {
		return 0, 0
	}
	p, err := procfs.NewProc(s.cmd.Process.Pid)
	if err != nil {
		return 0, 0
	}
	st, err := p.NewStatus()
	if err != nil {
		return 0, 0
	}
	return float64(st.RssAnon) / (1 << 20), float64(st.RssFile) / (1 << 20)
}

// reconcileStats are the memcached controller's cumulative reconcile figures.
type reconcileStats struct {
	Reconciles, ReconcileSeconds, QueueSeconds, QueueCount, Depth float64
}

// reconcileStatsNow scrapes controller-runtime's reconcile and workqueue metrics.
func (s *subject) reconcileStatsNow() (reconcileStats, error) {
	mf, err := s.metrics()
	if err != nil {
		return reconcileStats{}, err
	}
	var r reconcileStats
	r.Reconciles, _ = metricValue(mf, "controller_runtime_reconcile_total", map[string]string{"controller": "memcached"})
	r.ReconcileSeconds, _ = metricValue(mf, "controller_runtime_reconcile_time_seconds", map[string]string{"controller": "memcached"})
	r.QueueSeconds, r.QueueCount = metricValue(mf, "workqueue_queue_duration_seconds", map[string]string{"name": "memcached"})
	r.Depth, _ = metricValue(mf, "workqueue_depth", map[string]string{"name": "memcached"})
	return r, nil
}

// heapProfile saves the subject's heap profile in dir when it serves Go's profiles (a
// --pprof-bind-address flag among its Args), and returns the file's path ("" when it does not).
func (s *subject) heapProfile(dir string) (string, error) {
	var addr string
	for _, a := range s.Args {
		if v, ok := strings.CutPrefix(a, "--pprof-bind-address="); ok {
			addr = v
		}
	}
	if addr == "" || addr == "0" {
		return "", nil
	}
	resp, err := http.Get("http://" + addr + "/debug/pprof/heap?gc=1")
	if err != nil {
		return "", fmt.Errorf("failed to get the heap profile: %w", err)
	}
	defer resp.Body.Close()
	path := filepath.Join(dir, time.Now().UTC().Format("20060102T150405Z")+"-"+s.Name+"-heap.pprof")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if _, err := io.Copy(f, resp.Body); err != nil {
		return "", fmt.Errorf("failed to save the heap profile: %w", err)
	}
	return path, nil
}

// username is the audit user name of the subject's ServiceAccount.
func (s *subject) username() string {
	return "system:serviceaccount:" + identityNamespace + ":" + s.Name
}

// String names the subject with its flags.
func (s *subject) String() string {
	return strings.TrimSpace(s.Name + " " + strings.Join(slices.Concat(s.Env, s.Args), " "))
}

// available returns mc's Available condition when the subject's kind counts mc as Available, else
// nil. This project's operator: Available True and observed at mc's current generation. The
// sample: Available True; it sets no observedGeneration on its conditions (always 0), so a
// generation check would never pass (it reports Available as soon as its Deployment has the right
// replica count, ready or not: the report counts those as Available before pods ready).
func (s *subject) available(mc *cachev1alpha1.Memcached) *metav1.Condition {
	c := meta.FindStatusCondition(mc.Status.Conditions, cachev1alpha1.ConditionAvailable)
	if c == nil || c.Status != metav1.ConditionTrue {
		return nil
	}
	if s.Kind != kindSample && c.ObservedGeneration != mc.Generation {
		return nil
	}
	return c
}

// sampleContainerPort is the spec.containerPort the sample's own example Memcached sets
// (config/samples): without it every Deployment it builds is invalid (containerPort: Required value).
const sampleContainerPort = 11211

// newInstance returns the Memcached key with spec.size size, as the subject's kind takes it. This
// project's type for the operator, with the features of variant v; for the sample an object with
// spec.size and spec.containerPort alone whatever v is, so none of this project's fields (which
// the sample's schema would prune, with a warning each) is sent.
func (s *subject) newInstance(key client.ObjectKey, size int, v variant) client.Object {
	if s.Kind == kindSample {
		u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"size": int64(size), "containerPort": int64(sampleContainerPort)}}}
		u.SetGroupVersionKind(cachev1alpha1.GroupVersion.WithKind("Memcached"))
		u.SetNamespace(key.Namespace)
		u.SetName(key.Name)
		return u
	}
	mc := &cachev1alpha1.Memcached{
		ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace},
		Spec:       cachev1alpha1.MemcachedSpec{Size: int32(size)},
	}
	v.apply(mc)
	return mc
}
