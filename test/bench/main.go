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

// Command bench is the scale benchmark of the memcached-operator (make bench-scale): on a fresh
// kwok cluster whose control plane has its client limits raised, it measures the raw-client floor
// (the Deployments, Services and PodDisruptionBudgets of N instances created directly by W
// workers, until every pod is ready), then for each subject (an operator binary) the time until N
// Memcacheds are all Available with their pods ready, the subject's API writes by verb and
// resource (from the API server's audit log, attributed to the subject's own ServiceAccount), its
// 409 conflicts and events, its writes in a steady state and on a restart, and its RSS and Go heap
// at idle, at N instances, with unrelated Secrets (which the operator watches as metadata only)
// and with unrelated Deployments and pods around. It writes a Markdown
// table and JSON to the results directory and prints the table.
//
// Usage (make bench-scale sets the flags from BENCH_* variables):
//
//	go run ./test/bench -n 500 -subject 'new=bin/manager' -subject 'old=bin/manager-old'
//
// Each subject runs alone on the cluster: its namespaces are deleted (and gone) before the next
// subject starts, so every subject meets the same cluster, except for the unrelated Deployments:
// the first subject to reach that phase creates them and they stay (deleting 3000 Deployments and
// their pods takes minutes) unless -unrelated-each is set; the report says which subjects started
// with them. Not a test: nothing fails on a figure.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/resources"
	"github.com/example/memcached-operator/test/utils"
)

// subjectFlags is the subjects in the order their flags came (-subject and -sample share it).
type subjectFlags []*subject

// subjectFlag collects NAME=[VAR=VALUE ...] BINARY [FLAGS...] values of one flag into subjects of one kind.
type subjectFlag struct {
	list *subjectFlags
	kind string
}

func (f subjectFlag) String() string {
	if f.list == nil {
		return ""
	}
	return fmt.Sprint(*f.list)
}

func (f subjectFlag) Set(v string) error {
	s, err := newSubject(f.kind, v)
	if err != nil {
		return err
	}
	*f.list = append(*f.list, s)
	return nil
}

// config is the benchmark's settings.
type config struct {
	root, clusterDir, resultsDir string
	n, size, namespaces, workers int
	unrelated                    int
	unrelatedSecrets             int
	settle                       time.Duration
	steady, timeout              time.Duration
	phases                       map[string]bool
	qps, burst                   string
	nodes, maxPods               int
	keep                         bool
	// repeat is how many times the subjects run, interleaved, each right after its floor.
	repeat int
	// profile is how long kube-apiserver's CPU profile is taken from the first create of each
	// floor and converge (0: none).
	profile       time.Duration
	unrelatedEach bool
	metricsPort   int
	// gate fails the run on the scale properties that do not depend on the machine's speed
	// (gateViolations).
	gate bool
	// mix is the instance variants this operator's subjects get, taking the namespaces in turn
	// (namespaceVariant); the sample's instances are always plain (its schema has spec.size alone).
	mix []variant
}

// allPhases are the benchmark's phases in the order they run.
var allPhases = []string{"floor", "converge", "steady", "latency", "restart", "secrets", "unrelated"}

// ranPhases returns the phases of allPhases that -phases selected, in that order.
func (c config) ranPhases() []string {
	var out []string
	for _, p := range allPhases {
		if c.phases[p] {
			out = append(out, p)
		}
	}
	return out
}

func main() {
	var cfg config
	var subjects subjectFlags
	var phases string
	flag.StringVar(&cfg.root, "root", ".", "The repository root (hack/ scripts, config/, bin/).")
	flag.StringVar(&cfg.clusterDir, "cluster-dir", ".cluster-bench", "State directory of the benchmark's own cluster (deleted and recreated).")
	flag.StringVar(&cfg.resultsDir, "results", "test/bench/results", "Directory that receives <UTC time>.md/.json and latest.md/.json (the default is ignored by git: results are not kept in the tree; docs/performance.md quotes the latest).")
	flag.IntVar(&cfg.n, "n", 500, "Instances per subject (and for the floor).")
	flag.IntVar(&cfg.size, "size", 3, "spec.size of every instance.")
	flag.IntVar(&cfg.namespaces, "namespaces", 10, "Namespaces the instances are spread over.")
	flag.IntVar(&cfg.workers, "workers", 10, "Concurrent creators (floor objects, Memcacheds, unrelated Deployments).")
	flag.IntVar(&cfg.unrelated, "unrelated", 3000, "Unrelated Deployments (one pod each) created in the 'unrelated' phase.")
	flag.IntVar(&cfg.unrelatedSecrets, "unrelated-secrets", 3000,
		"Unrelated Secrets (4 KiB of data each, repeated in a kubectl last-applied annotation) created in the 'secrets' phase.")
	flag.DurationVar(&cfg.settle, "settle", 130*time.Second,
		"In the 'secrets' phase, how long after a restart the 'settled' memory is sampled (the Go runtime forces a GC every 2 minutes).")
	flag.DurationVar(&cfg.steady, "steady", 60*time.Second, "Length of the steady-state window.")
	flag.DurationVar(&cfg.timeout, "timeout", 20*time.Minute, "Longest wait for any convergence.")
	flag.StringVar(&phases, "phases", strings.Join(allPhases, ","), "Phases to run (converge is needed by the later subject phases).")
	flag.StringVar(&cfg.qps, "control-plane-qps", "1000", "kube-controller-manager and kube-scheduler --kube-api-qps (empty: their defaults).")
	flag.StringVar(&cfg.burst, "control-plane-burst", "2000", "kube-controller-manager and kube-scheduler --kube-api-burst.")
	flag.IntVar(&cfg.nodes, "nodes", 10, "Fake nodes.")
	flag.IntVar(&cfg.maxPods, "node-max-pods", 1000, "Pods per fake node.")
	flag.BoolVar(&cfg.keep, "keep", false, "Leave the cluster up at the end.")
	flag.IntVar(&cfg.repeat, "repeat", 1,
		"Run the subjects this many times, interleaved (A B A B ...), each right after its own floor, and add a table of each subject's medians (one run's CPU seconds move by about 20 percent with the control plane's timing).")
	flag.DurationVar(&cfg.profile, "apiserver-profile", 0,
		"Take kube-apiserver's CPU profile for this long from the first create of each floor and converge, and attribute its CPU to what it served (watches, creates, patches, ...); 0: none. Make it longer than the slowest converge.")
	flag.BoolVar(&cfg.unrelatedEach, "unrelated-each", false,
		"Delete the unrelated Deployments (and their namespaces) after each subject's 'unrelated' phase, so the next subject starts without them (a subject that caches every Deployment, as the sample does, otherwise carries them in its idle and N figures).")
	flag.BoolVar(&cfg.gate, "gate", false,
		"Fail (exit 1) when an operator subject breaks a property that does not depend on the machine's speed: writes and events per instance, conflicts, steady-state and restart writes, status following a pod change (CI runs a short benchmark with it).")
	mix := flag.String("mix", string(variantPlain),
		"Instance variants of this operator's subjects, comma-separated, taking the namespaces in turn: plain, stable (spec.serverIdentity Stable), tls (spec.tls with a self-signed certificate), monitoring (spec.monitoring.enabled). The gate (-gate) checks each variant's writes and events on its own.")
	flag.IntVar(&cfg.metricsPort, "metrics-port", 28090, "The subjects' plain-HTTP metrics port on 127.0.0.1 (probes on the next one).")
	flag.Var(subjectFlag{&subjects, kindOperator}, "subject", "NAME=[VAR=VALUE ...] BINARY [FLAGS...]: a build of this operator to measure (repeatable).")
	flag.Var(subjectFlag{&subjects, kindSample}, "sample",
		"NAME=[VAR=VALUE ...] BINARY [FLAGS...]: the operator-sdk Memcached sample to measure (hack/tools/build-sample.sh builds bin/sample-manager; its CRD and ClusterRole from -sample-dir; repeatable). Subjects run in the order of their flags.")
	attributeOnly := flag.Bool("attribute", false, "Attribute the kube-apiserver CPU profiles named as arguments (saved by -apiserver-profile) and exit, without running anything.")
	var sampleDir string
	flag.StringVar(&sampleDir, "sample-dir", defaultSampleDir,
		"The sample's project as hack/tools/build-sample.sh generated it (config/crd/bases, config/rbac/role.yaml), relative to -root unless absolute.")
	flag.Parse()
	if *attributeOnly {
		if err := printAttribution(flag.Args()); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	var err error
	if cfg.mix, err = parseMix(*mix); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	if cfg.namespaces < len(cfg.mix) {
		fmt.Fprintf(os.Stderr, "bench: -namespaces %d is fewer than the %d variants of -mix: each variant needs namespaces of its own\n", cfg.namespaces, len(cfg.mix))
		os.Exit(2)
	}
	if err := subjects.setFiles(sampleDir); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	cfg.phases = map[string]bool{}
	for _, p := range strings.Split(phases, ",") {
		cfg.phases[strings.TrimSpace(p)] = true
	}
	ctrllog.SetLogger(logr.Discard())
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	if err := run(ctx, cfg, subjects); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// result is what the benchmark reports.
type result struct {
	Date      string `json:"date"`
	Machine   string `json:"machine"`
	N         int    `json:"n"`
	Size      int    `json:"size"`
	Namespace int    `json:"namespaces"`
	Workers   int    `json:"workers"`
	QPS       string `json:"controlPlaneQPS"`
	// Phases are the phases that ran (-phases), in a fixed order; the report shows "–" for the
	// figures of a phase that did not.
	Phases []string `json:"phases"`
	// Mix is the instance variants of this operator's subjects (-mix).
	Mix      []variant        `json:"mix"`
	Subjects []*subjectResult `json:"subjects"`
	Wall     string           `json:"wallTime"`
}

// subjectResult is one operator's figures.
type subjectResult struct {
	Subject *subject `json:"subject"`
	// Run is which of the -repeat runs this is (from 1).
	Run int `json:"run"`
	// ConvergeSeconds: first Memcached created → every instance Available with its pods ready.
	ConvergeSeconds float64 `json:"convergeSeconds"`
	// PodsReadySeconds: first Memcached created → every instance's pods ready.
	PodsReadySeconds float64 `json:"podsReadySeconds"`
	// Floor is the subject's own floor (bench.floor), measured right before it.
	Floor *floorResult `json:"floor,omitempty"`
	// Profile is kube-apiserver's CPU profile from the first Memcached created (-apiserver-profile).
	Profile *apiserverProfile `json:"apiserverProfile,omitempty"`
	// Reads counts the subject's reads by "verb resource" from its start until it converged
	// (watches when they start, gets and lists when they complete).
	Reads map[string]int `json:"readsUntilConverged,omitempty"`
	// Ratio is ConvergeSeconds over the floor's seconds.
	Ratio float64 `json:"ratioToFloor,omitempty"`
	// FalseAvailable counts instances whose Available turned True before their last pod was ready.
	FalseAvailable int `json:"falseAvailable"`
	// ReconcileMeanMs and QueueWaitMeanMs are the mean reconcile time and time in the work queue
	// over the converge phase; Reconciles their count.
	ReconcileMeanMs float64 `json:"reconcileMeanMs"`
	QueueWaitMeanMs float64 `json:"queueWaitMeanMs"`
	Reconciles      float64 `json:"reconciles"`
	Converge        writes  `json:"convergeWrites"`
	// Variants splits Converge by instance variant (this operator's subjects only).
	Variants []variantResult `json:"convergeByVariant,omitempty"`
	// ConvergeCPU is the CPU time of each process from the first create until every instance was
	// Available (and 3 s more, as for the writes).
	ConvergeCPU cpuSeconds `json:"convergeCPUSeconds"`
	Steady      writes     `json:"steadyWrites"`
	// LatencyP50Ms and LatencyP99Ms: a pod of an instance deleted → its name gone from the
	// instance's status.nodes, over LatencySamples instances (one pod each, one after the other).
	LatencyP50Ms   float64 `json:"statusLatencyP50Ms"`
	LatencyP99Ms   float64 `json:"statusLatencyP99Ms"`
	LatencySamples int     `json:"statusLatencySamples"`
	// PodReplaced counts the writes while those pods were replaced and their instances Available again.
	PodReplaced writes `json:"podReplacedWrites"`
	// RestartSeconds: process start → every instance reconciled (reconciles ≥ N, queue empty).
	RestartSeconds float64           `json:"restartSeconds"`
	Restart        writes            `json:"restartWrites"`
	Memory         map[string]memory `json:"memory"`
	Load           map[string]string `json:"load"`
	// UnrelatedAtStart is set when the unrelated Deployments (created by an earlier subject's
	// 'unrelated' phase, without -unrelated-each) existed when this subject started: its idle and
	// N memory then include whatever of them it caches.
	UnrelatedAtStart bool `json:"unrelatedAtStart,omitempty"`
}

func run(ctx context.Context, cfg config, subjects subjectFlags) error {
	start := time.Now()
	root, err := filepath.Abs(cfg.root)
	if err != nil {
		return err
	}
	cfg.root = root
	if !filepath.IsAbs(cfg.clusterDir) {
		cfg.clusterDir = filepath.Join(root, cfg.clusterDir)
	}
	if !filepath.IsAbs(cfg.resultsDir) {
		cfg.resultsDir = filepath.Join(root, cfg.resultsDir)
	}
	if err := os.MkdirAll(cfg.resultsDir, 0o755); err != nil {
		return err
	}
	for i, s := range subjects {
		if !filepath.IsAbs(s.Binary) {
			s.Binary = filepath.Join(root, s.Binary)
		}
		for _, p := range []*string{&s.CRD, &s.Role} {
			if !filepath.IsAbs(*p) {
				*p = filepath.Join(root, *p)
			}
			if _, err := os.Stat(*p); err != nil {
				return fmt.Errorf("failed to find the files of subject %s (make sample-manager generates the sample's): %w", s.Name, err)
			}
		}
		s.metricsPort, s.probePort = cfg.metricsPort+2*i, cfg.metricsPort+2*i+1
		s.logPath = filepath.Join(cfg.clusterDir, "logs", "subject-"+s.Name+".log")
		s.binPath = filepath.Join(cfg.clusterDir, "subjects", s.Name)
	}

	step("starting a fresh cluster in %s (control plane qps %q burst %q, %d nodes)", cfg.clusterDir, cfg.qps, cfg.burst, cfg.nodes)
	if err := clusterUp(root, cfg.clusterDir, cfg.nodes, cfg.maxPods, cfg.qps, cfg.burst); err != nil {
		return err
	}
	if !cfg.keep {
		defer func() { _ = clusterDown(root, cfg.clusterDir, false) }()
	}
	kubeconfig := filepath.Join(cfg.clusterDir, "kubeconfig")
	// This project's CRD, for the benchmark's own cache; each subject's own is applied before it starts.
	if err := installCRD(ctx, root, kubeconfig, filepath.Join(root, "config", "crd", "bases")); err != nil {
		return err
	}
	c, err := utils.NewClient(kubeconfig, 1000, cachev1alpha1.AddToScheme)
	if err != nil {
		return err
	}
	restCfg, err := clientConfig(kubeconfig)
	if err != nil {
		return err
	}
	b := &bench{cfg: cfg, c: c, restCfg: restCfg, audit: auditLog{path: filepath.Join(cfg.clusterDir, "logs", "audit.log")}}
	// Stopped before the cluster (deferred after clusterDown), so its watches do not log the API
	// server going away.
	cacheCtx, stopCache := context.WithCancel(ctx)
	defer stopCache()
	if err := b.startCache(cacheCtx, kubeconfig); err != nil {
		return err
	}

	res := &result{Date: time.Now().UTC().Format(time.RFC3339), Machine: machine(), N: cfg.n, Size: cfg.size,
		Namespace: cfg.namespaces, Workers: cfg.workers, QPS: cfg.qps, Phases: cfg.ranPhases(), Mix: cfg.mix}
	runs := max(cfg.repeat, 1)
	for k := range runs {
		for i, s := range subjects {
			sr, err := b.runSubject(ctx, s, k == runs-1 && i == len(subjects)-1)
			if err != nil {
				return err
			}
			sr.Run = k + 1
			res.Subjects = append(res.Subjects, sr)
		}
	}
	res.Wall = time.Since(start).Round(time.Second).String()
	if err := writeResults(cfg.resultsDir, res); err != nil {
		return err
	}
	if cfg.gate {
		if v := gateViolations(res); len(v) > 0 {
			return fmt.Errorf("the scale properties do not hold:\n  %s", strings.Join(v, "\n  "))
		}
		step("gate: every scale property holds (instance variants %v)", cfg.mix)
	}
	return nil
}

// runSubject runs subject s once, right after its floor (when the floor phase runs), on a
// cluster where s's CRD and identity are in place. Unless last, s's namespaces are gone at the end.
func (b *bench) runSubject(ctx context.Context, s *subject, last bool) (*subjectResult, error) {
	// Subjects of different kinds share the CRD's name (cache.example.com's memcacheds) with other
	// schemas: the one about to run gets its own (the previous subject's instances are gone).
	kubeconfig := filepath.Join(b.cfg.clusterDir, "kubeconfig")
	if err := installCRD(ctx, b.cfg.root, kubeconfig, s.CRD); err != nil {
		return nil, fmt.Errorf("subject %s: %w", s.Name, err)
	}
	var err error
	if s.kubeconfig, err = subjectIdentity(ctx, kubeconfig, b.cfg.clusterDir, s.Name, s.Role, b.c); err != nil {
		return nil, err
	}
	var floor *floorResult
	if b.cfg.phases["floor"] {
		if floor, err = b.floor(ctx, s); err != nil {
			return nil, fmt.Errorf("floor of %s: %w", s.Name, err)
		}
	}
	sr, err := b.subject(ctx, s, last)
	s.stop()
	if err != nil {
		return nil, fmt.Errorf("subject %s: %w", s.Name, err)
	}
	if floor != nil && floor.Seconds > 0 {
		sr.Floor = floor
		sr.Ratio = sr.ConvergeSeconds / floor.Seconds
	}
	return sr, nil
}

// bench holds what the phases share.
type bench struct {
	cfg     config
	c       client.Client
	restCfg *rest.Config
	cache   cache.Cache
	audit   auditLog
	// unrelatedCreated is set once the unrelated Deployments exist.
	unrelatedCreated bool
	// tlsCert and tlsKey are the TLS variant's certificate and key (createVariantSecrets).
	tlsCert, tlsKey []byte
}

// sampleAppName is the app.kubernetes.io/name label of the operator-sdk sample's pods (its
// labelsForMemcached: the same for every instance, no instance label).
const sampleAppName = "memcached-operator"

// podInstanceField indexes the benchmark's cached pods by the instance they belong to (podInstance).
const podInstanceField = "bench.instance"

// podInstance returns the name of the instance pod belongs to, "" when it cannot tell: the value of
// its app.kubernetes.io/instance label (this operator's pods and the floor's), else the name of the
// Deployment that owns it through a ReplicaSet (the sample's pods carry no instance label, and the
// sample names each Deployment after its Memcached): the controlling ReplicaSet's name minus the
// "-<pod-template-hash>" the Deployment controller appends to it.
func podInstance(pod *corev1.Pod) string {
	if v := pod.Labels[resources.LabelInstance]; v != "" {
		return v
	}
	hash := pod.Labels[appsv1.DefaultDeploymentUniqueLabelKey]
	ref := metav1.GetControllerOf(pod)
	if hash == "" || ref == nil || ref.Kind != "ReplicaSet" {
		return ""
	}
	if name, ok := strings.CutSuffix(ref.Name, "-"+hash); ok && name != "" {
		return name
	}
	return ""
}

// startCache starts the informers the benchmark judges convergence from: Memcacheds, memcached
// pods (floor and subjects: this operator's and the sample's app name), indexed by instance, and
// Deployments.
func (b *bench) startCache(ctx context.Context, kubeconfig string) error {
	restCfg, err := clientConfig(kubeconfig)
	if err != nil {
		return err
	}
	podSel, err := metav1.LabelSelectorAsSelector(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: resources.LabelName, Operator: metav1.LabelSelectorOpIn, Values: []string{resources.AppName, sampleAppName}}}})
	if err != nil {
		return err
	}
	b.cache, err = cache.New(restCfg, cache.Options{Scheme: b.c.Scheme(), ByObject: map[client.Object]cache.ByObject{&corev1.Pod{}: {Label: podSel}}})
	if err != nil {
		return fmt.Errorf("failed to create the benchmark's cache: %w", err)
	}
	if err := b.cache.IndexField(ctx, &corev1.Pod{}, podInstanceField, func(o client.Object) []string {
		if v := podInstance(o.(*corev1.Pod)); v != "" {
			return []string{v}
		}
		return nil
	}); err != nil {
		return fmt.Errorf("failed to index pods by instance: %w", err)
	}
	go func() { _ = b.cache.Start(ctx) }()
	for _, o := range []client.Object{&corev1.Pod{}, &cachev1alpha1.Memcached{}, &appsv1.Deployment{}} {
		if _, err := b.cache.GetInformer(ctx, o); err != nil {
			return fmt.Errorf("failed to start an informer: %w", err)
		}
	}
	if !b.cache.WaitForCacheSync(ctx) {
		return fmt.Errorf("the benchmark's cache did not sync")
	}
	return nil
}

// instance names the instance i of a namespace prefix.
func (b *bench) instance(prefix string, i int) client.ObjectKey {
	return client.ObjectKey{Namespace: fmt.Sprintf("%s-%d", prefix, i%b.cfg.namespaces), Name: fmt.Sprintf("mc-%d", i)}
}

// createNamespaces creates prefix-0 … prefix-(namespaces-1) and waits for their default
// ServiceAccounts (a namespace refuses pods until it exists).
func (b *bench) createNamespaces(ctx context.Context, prefix string, n int) error {
	for i := 0; i < n; i++ {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", prefix, i)}}
		if err := b.c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("failed to create namespace %s: %w", ns.Name, err)
		}
	}
	for i := 0; i < n; i++ {
		key := client.ObjectKey{Namespace: fmt.Sprintf("%s-%d", prefix, i), Name: "default"}
		if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			return b.c.Get(ctx, key, &corev1.ServiceAccount{}) == nil, nil
		}); err != nil {
			return fmt.Errorf("namespace %s has no default ServiceAccount: %w", key.Namespace, err)
		}
	}
	return nil
}

// deleteNamespaces deletes prefix-0 … prefix-(n-1) and waits until they are gone.
func (b *bench) deleteNamespaces(ctx context.Context, prefix string, n int) error {
	for i := 0; i < n; i++ {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", prefix, i)}}
		if err := b.c.Delete(ctx, ns); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("failed to delete namespace %s: %w", ns.Name, err)
		}
	}
	for i := 0; i < n; i++ {
		key := client.ObjectKey{Name: fmt.Sprintf("%s-%d", prefix, i)}
		if err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, b.cfg.timeout, true, func(ctx context.Context) (bool, error) {
			return apierrors.IsNotFound(b.c.Get(ctx, key, &corev1.Namespace{})), nil
		}); err != nil {
			return fmt.Errorf("namespace %s is not gone: %w", key.Name, err)
		}
	}
	return nil
}

// parallel runs do(i) for i in [0, n) on the configured number of workers and returns the first error.
func (b *bench) parallel(ctx context.Context, n int, do func(ctx context.Context, i int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	next := make(chan int)
	for w := 0; w < b.cfg.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := do(ctx, i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	return first
}

// podsReady reports whether the instance key has exactly size pods, all Running and Ready, and
// returns the latest time one of them turned Ready.
func (b *bench) podsReady(ctx context.Context, key client.ObjectKey) (bool, time.Time) {
	pods := &corev1.PodList{}
	if err := b.cache.List(ctx, pods, client.InNamespace(key.Namespace), client.MatchingFields{podInstanceField: key.Name}); err != nil {
		return false, time.Time{}
	}
	n := 0
	var last time.Time
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.DeletionTimestamp != nil {
			continue
		}
		if !utils.PodRunningReady(p) {
			return false, last
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.LastTransitionTime.After(last) {
				last = c.LastTransitionTime.Time
			}
		}
		n++
	}
	return n == b.cfg.size, last
}

// available returns the Available condition of the instance key when subject s counts it as
// Available (subject.available), else nil.
func (b *bench) available(ctx context.Context, key client.ObjectKey, s *subject) *metav1.Condition {
	mc := &cachev1alpha1.Memcached{}
	if err := b.cache.Get(ctx, key, mc); err != nil {
		return nil
	}
	return s.available(mc)
}

// convergence waits until every instance of prefix has its pods ready (and, for a subject s, is
// Available as s's kind reports it; s is nil for the floor), and returns the seconds from start
// until the last pods were ready and until the last instance was done, and how many instances
// turned Available before their last pod was ready. onReady, when set, is called once for each
// instance whose pods turned ready (a floor writes its status then).
func (b *bench) convergence(ctx context.Context, prefix string, start time.Time, s *subject, onReady func(i int)) (podsSec, doneSec float64, falseAvail int, err error) {
	needAvailable := s != nil
	podsAt := map[int]time.Time{}
	doneAt := map[int]time.Time{}
	deadline := start.Add(b.cfg.timeout)
	for len(doneAt) < b.cfg.n {
		now := time.Now()
		if now.After(deadline) {
			return 0, 0, 0, fmt.Errorf("%d of %d instances of %s done after %v", len(doneAt), b.cfg.n, prefix, b.cfg.timeout)
		}
		for i := 0; i < b.cfg.n; i++ {
			if _, ok := doneAt[i]; ok {
				continue
			}
			key := b.instance(prefix, i)
			if _, ok := podsAt[i]; !ok {
				if ok, _ := b.podsReady(ctx, key); ok {
					podsAt[i] = now
					if onReady != nil {
						onReady(i)
					}
				}
			}
			if _, ok := podsAt[i]; ok && (!needAvailable || b.available(ctx, key, s) != nil) {
				doneAt[i] = now
			}
		}
		select {
		case <-ctx.Done():
			return 0, 0, 0, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	var lastPods, lastDone time.Time
	for i := range doneAt {
		if podsAt[i].After(lastPods) {
			lastPods = podsAt[i]
		}
		if doneAt[i].After(lastDone) {
			lastDone = doneAt[i]
		}
		if needAvailable {
			// Both times are the API's, to the second: Available strictly before the last Ready is false.
			_, readyAt := b.podsReady(ctx, b.instance(prefix, i))
			if c := b.available(ctx, b.instance(prefix, i), s); c != nil && c.LastTransitionTime.Time.Before(readyAt.Truncate(time.Second)) {
				falseAvail++
			}
		}
	}
	return lastPods.Sub(start).Seconds(), lastDone.Sub(start).Seconds(), falseAvail, nil
}

// subject runs the phases of one operator.
// Unless last is set, the subject's namespaces are deleted (and gone) at the end, so the next
// subject meets the same cluster, but for the unrelated Deployments (created once, kept).
func (b *bench) subject(ctx context.Context, s *subject, last bool) (*subjectResult, error) {
	r := &subjectResult{Subject: s, Memory: map[string]memory{}, Load: map[string]string{}, UnrelatedAtStart: b.unrelatedCreated}
	prefix := "s-" + s.Name
	if err := b.createNamespaces(ctx, prefix, b.cfg.namespaces); err != nil {
		return nil, err
	}
	if err := b.createVariantSecrets(ctx, prefix); err != nil {
		return nil, err
	}
	step("%s: starting %s", s.Name, s)
	offStart := b.audit.offset()
	if err := s.start(ctx); err != nil {
		return nil, err
	}
	time.Sleep(2 * time.Second)
	var err error
	if r.Memory["idle"], err = s.sampleMemory(5); err != nil {
		return nil, err
	}
	if !b.cfg.phases["converge"] {
		return r, nil
	}

	step("%s: creating %d Memcacheds (size %d) by %d workers", s.Name, b.cfg.n, b.cfg.size, b.cfg.workers)
	load0 := loadavg()
	st0, err := s.reconcileStatsNow()
	if err != nil {
		return nil, err
	}
	off0 := b.audit.offset()
	cpu0, err := cpuNow(b.cfg.clusterDir, s)
	if err != nil {
		return nil, err
	}
	prof := b.startProfile(ctx, s.Name)
	start := time.Now()
	if err := b.parallel(ctx, b.cfg.n, func(ctx context.Context, i int) error {
		mc := s.newInstance(b.instance(prefix, i), b.cfg.size, b.instanceVariant(i))
		if err := b.c.Create(ctx, mc); err != nil {
			return fmt.Errorf("failed to create Memcached %s: %w", client.ObjectKeyFromObject(mc), err)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if r.PodsReadySeconds, r.ConvergeSeconds, r.FalseAvailable, err = b.convergence(ctx, prefix, start, s, nil); err != nil {
		return nil, err
	}
	// Writes that follow convergence (a last status patch, an event) belong to it.
	time.Sleep(3 * time.Second)
	off1 := b.audit.offset()
	if r.Converge, err = b.audit.count(s.username(), off0, off1); err != nil {
		return nil, err
	}
	if s.Kind == kindOperator {
		r.Variants = byVariant(r.Converge, b.cfg.mix, prefix, b.cfg.n, b.cfg.namespaces, b.cfg.size)
	}
	all, err := b.audit.count(s.username(), offStart, off1)
	if err != nil {
		return nil, err
	}
	r.Reads = all.Reads
	cpu1, err := cpuNow(b.cfg.clusterDir, s)
	if err != nil {
		return nil, err
	}
	r.ConvergeCPU = cpu1.since(cpu0)
	if r.Profile, err = prof.wait(); err != nil {
		return nil, err
	}
	st1, err := s.reconcileStatsNow()
	if err != nil {
		return nil, err
	}
	r.Reconciles = st1.Reconciles - st0.Reconciles
	if r.Reconciles > 0 {
		r.ReconcileMeanMs = 1000 * (st1.ReconcileSeconds - st0.ReconcileSeconds) / r.Reconciles
	}
	if q := st1.QueueCount - st0.QueueCount; q > 0 {
		r.QueueWaitMeanMs = 1000 * (st1.QueueSeconds - st0.QueueSeconds) / q
	}
	r.Load["converge"] = load0 + " → " + loadavg()
	step("%s: all Available with pods ready after %.1f s (pods %.1f s), %d writes (%d events, %d conflicts), false Available %d, load %s; CPU seconds: %s",
		s.Name, r.ConvergeSeconds, r.PodsReadySeconds, r.Converge.Total, r.Converge.Events, r.Converge.Conflicts, r.FalseAvailable, r.Load["converge"], r.ConvergeCPU)
	if r.Memory["n"], err = s.sampleMemory(5); err != nil {
		return nil, err
	}
	if path, err := s.heapProfile(b.cfg.resultsDir); err != nil {
		return nil, err
	} else if path != "" {
		step("%s: heap profile at %d instances in %s (go tool pprof -sample_index=inuse_space -top %s %s)", s.Name, b.cfg.n, path, s.Binary, path)
	}

	if b.cfg.phases["steady"] {
		step("%s: steady state for %v", s.Name, b.cfg.steady)
		off := b.audit.offset()
		time.Sleep(b.cfg.steady)
		if r.Steady, err = b.audit.count(s.username(), off, b.audit.offset()); err != nil {
			return nil, err
		}
		step("%s: %d writes in the steady state", s.Name, r.Steady.Total)
	}
	if b.cfg.phases["latency"] && s.Kind == kindSample {
		step("%s: no status latency: the sample's status has no pod names (status.nodes)", s.Name)
	} else if b.cfg.phases["latency"] {
		if err := b.latency(ctx, s, r, prefix); err != nil {
			return nil, err
		}
	}
	if b.cfg.phases["restart"] {
		if err := b.restart(ctx, s, r, "restarted at n"); err != nil {
			return nil, err
		}
	}
	if b.cfg.phases["secrets"] && b.cfg.unrelatedSecrets > 0 {
		if err := b.secretsPhase(ctx, s, r); err != nil {
			return nil, err
		}
	}
	if b.cfg.phases["unrelated"] && b.cfg.unrelated > 0 {
		if err := b.unrelatedPhase(ctx, s, r); err != nil {
			return nil, err
		}
	}
	s.stop()
	if !last {
		step("%s: deleting its namespaces", s.Name)
		if err := b.dropFinalizers(ctx, prefix); err != nil {
			return nil, err
		}
		if err := b.deleteNamespaces(ctx, prefix, b.cfg.namespaces); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// dropFinalizers removes the finalizers of the Memcacheds in the namespaces of prefix, once their
// subject is stopped: the sample puts one on each instance, which nobody would remove and which
// would keep the namespaces from going away. This operator puts none (a no-op for it).
func (b *bench) dropFinalizers(ctx context.Context, prefix string) error {
	for i := 0; i < b.cfg.namespaces; i++ {
		list := &cachev1alpha1.MemcachedList{}
		if err := b.c.List(ctx, list, client.InNamespace(fmt.Sprintf("%s-%d", prefix, i))); err != nil {
			return fmt.Errorf("failed to list Memcacheds of %s-%d: %w", prefix, i, err)
		}
		for j := range list.Items {
			mc := &list.Items[j]
			if len(mc.Finalizers) == 0 {
				continue
			}
			patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`))
			if err := b.c.Patch(ctx, mc, patch); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("failed to drop the finalizers of Memcached %s: %w", client.ObjectKeyFromObject(mc), err)
			}
		}
	}
	return nil
}

// latencyInstances returns the instances the latency phase replaces a pod of: the first 50 whose
// variant is not Stable. A Stable instance's StatefulSet brings the deleted pod back under its
// name, often before the operator's next status, so status.nodes need never drop the name: its
// status follows pod changes through the same watch, measured on the other variants.
func (b *bench) latencyInstances() []int {
	var out []int
	for i := 0; i < b.cfg.n && len(out) < 50; i++ {
		if b.instanceVariant(i) != variantStable {
			out = append(out, i)
		}
	}
	return out
}

// latency deletes one pod of each of latencyInstances, one after the other, and measures how
// long each instance's status.nodes takes to drop the pod (as a client watching it sees it), then
// waits until those instances are Available with their pods ready again and counts the writes.
func (b *bench) latency(ctx context.Context, s *subject, r *subjectResult, prefix string) error {
	instances := b.latencyInstances()
	k := len(instances)
	if k == 0 {
		step("%s: no status latency: every instance is a Stable one", s.Name)
		return nil
	}
	step("%s: status latency: deleting one pod of each of %d instances", s.Name, k)
	off := b.audit.offset()
	var lat []time.Duration
	for _, i := range instances {
		key := b.instance(prefix, i)
		pods := &corev1.PodList{}
		if err := b.cache.List(ctx, pods, client.InNamespace(key.Namespace), client.MatchingLabels{resources.LabelInstance: key.Name}); err != nil || len(pods.Items) == 0 {
			return fmt.Errorf("no pods of %s in the cache: %v", key, err)
		}
		victim := pods.Items[0].Name
		start := time.Now()
		if err := b.c.Delete(ctx, &pods.Items[0]); err != nil {
			return fmt.Errorf("failed to delete pod %s/%s: %w", key.Namespace, victim, err)
		}
		if err := wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			mc := &cachev1alpha1.Memcached{}
			if err := b.cache.Get(ctx, key, mc); err != nil {
				return false, nil
			}
			for _, n := range mc.Status.Nodes {
				if n == victim {
					return false, nil
				}
			}
			return true, nil
		}); err != nil {
			return fmt.Errorf("status of %s still lists deleted pod %s: %w", key, victim, err)
		}
		lat = append(lat, time.Since(start))
	}
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, b.cfg.timeout, true, func(ctx context.Context) (bool, error) {
		for _, i := range instances {
			key := b.instance(prefix, i)
			if ok, _ := b.podsReady(ctx, key); !ok || b.available(ctx, key, s) == nil {
				return false, nil
			}
		}
		return true, nil
	}); err != nil {
		return fmt.Errorf("instances not Available again after their pods were replaced: %w", err)
	}
	time.Sleep(2 * time.Second)
	w, err := b.audit.count(s.username(), off, b.audit.offset())
	if err != nil {
		return err
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	r.LatencySamples = k
	r.LatencyP50Ms = float64(lat[k/2].Microseconds()) / 1000
	r.LatencyP99Ms = float64(lat[(99*k+99)/100-1].Microseconds()) / 1000
	r.PodReplaced = w
	step("%s: status dropped a deleted pod after p50 %.0f ms, p99 %.0f ms; %d writes for %d pods replaced",
		s.Name, r.LatencyP50Ms, r.LatencyP99Ms, w.Total, k)
	return nil
}

// restart stops the subject, starts it again and measures the time until every instance was
// reconciled, the writes that took, and the memory after it (under memKey).
func (b *bench) restart(ctx context.Context, s *subject, r *subjectResult, memKey string) error {
	step("%s: restart with %d instances", s.Name, b.cfg.n)
	s.stop()
	off := b.audit.offset()
	start := time.Now()
	if err := s.start(ctx); err != nil {
		return err
	}
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, b.cfg.timeout, true, func(context.Context) (bool, error) {
		st, err := s.reconcileStatsNow()
		return err == nil && st.Reconciles >= float64(b.cfg.n) && st.Depth == 0, nil
	}); err != nil {
		return fmt.Errorf("not every instance reconciled after the restart: %w", err)
	}
	sec := time.Since(start).Seconds()
	time.Sleep(5 * time.Second)
	w, err := b.audit.count(s.username(), off, b.audit.offset())
	if err != nil {
		return err
	}
	if memKey == "restarted at n" {
		r.RestartSeconds, r.Restart = sec, w
	}
	step("%s: restarted, every instance reconciled %.1f s after start, %d writes", s.Name, sec, w.Total)
	m, err := s.sampleMemory(5)
	r.Memory[memKey] = m
	return err
}

// unrelatedPhase makes sure the unrelated Deployments (one pod each, not the operator's) exist with
// their pods ready, samples the running subject's memory, then restarts it and samples again.
func (b *bench) unrelatedPhase(ctx context.Context, s *subject, r *subjectResult) error {
	if !b.unrelatedCreated {
		if err := b.createUnrelated(ctx, s); err != nil {
			return err
		}
		b.unrelatedCreated = true
	}
	var err error
	if r.Memory["n + unrelated"], err = s.sampleMemory(5); err != nil {
		return err
	}
	if err := b.restart(ctx, s, r, "restarted at n + unrelated"); err != nil {
		return err
	}
	if !b.cfg.unrelatedEach {
		return nil
	}
	step("%s: deleting the unrelated Deployments and their namespaces (-unrelated-each)", s.Name)
	if err := b.deleteNamespaces(ctx, "unrelated", b.cfg.namespaces); err != nil {
		return err
	}
	b.unrelatedCreated = false
	return nil
}

// secretsPhase creates the unrelated Secrets (in the unrelated-* namespaces, which the subject
// watches: it watches every namespace), samples the running subject's memory once its watch has
// received them, then restarts it (its informers then list them all) and samples again, and
// deletes them, so the next subject's "n" is measured without them. The figure: the RSS
// with them grows by under 10 % against "n" and "restarted at n". A restart lists every Secret's
// metadata (annotations included) before the cache transform trims it: that garbage stays in the
// heap until the next GC, so the memory is sampled again cfg.settle after each restart, with and
// without the Secrets ("settled").
func (b *bench) secretsPhase(ctx context.Context, s *subject, r *subjectResult) error {
	settled := func(key string) error {
		step("%s: memory %v after the restart (%s)", s.Name, b.cfg.settle, key)
		time.Sleep(b.cfg.settle)
		m, err := s.sampleMemory(5)
		r.Memory[key] = m
		return err
	}
	if b.cfg.settle > 0 {
		if err := b.restart(ctx, s, r, "restarted at n, again"); err != nil {
			return err
		}
		if err := settled("restarted at n, settled"); err != nil {
			return err
		}
	}
	{
		step("%s: %d unrelated Secrets of 4 KiB", s.Name, b.cfg.unrelatedSecrets)
		if err := b.createNamespaces(ctx, "unrelated", b.cfg.namespaces); err != nil {
			return err
		}
		if err := b.parallel(ctx, b.cfg.unrelatedSecrets, func(ctx context.Context, i int) error {
			data := []byte(strings.Repeat(fmt.Sprintf("%015d\n", i), 256)) // 4 KiB
			sec := &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{
					Name: fmt.Sprintf("unrelated-%d", i), Namespace: fmt.Sprintf("unrelated-%d", i%b.cfg.namespaces),
					Labels: map[string]string{"app": "unrelated"},
					// What kubectl apply leaves: the whole object again, data included.
					Annotations: map[string]string{"kubectl.kubernetes.io/last-applied-configuration": fmt.Sprintf(`{"apiVersion":"v1","kind":"Secret","stringData":{"data":%q}}`, data)},
				},
				Data: map[string][]byte{"data": data},
			}
			if err := b.c.Create(ctx, sec); err != nil {
				return fmt.Errorf("failed to create Secret %s: %w", client.ObjectKeyFromObject(sec), err)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	time.Sleep(5 * time.Second) // the subject's watch receives them
	var err error
	if r.Memory["n + secrets"], err = s.sampleMemory(5); err != nil {
		return err
	}
	if err := b.restart(ctx, s, r, "restarted at n + secrets"); err != nil {
		return err
	}
	if b.cfg.settle > 0 {
		if err := settled("restarted at n + secrets, settled"); err != nil {
			return err
		}
	}
	step("%s: deleting the unrelated Secrets", s.Name)
	for i := 0; i < b.cfg.namespaces; i++ {
		ns := fmt.Sprintf("unrelated-%d", i)
		if err := b.c.DeleteAllOf(ctx, &corev1.Secret{}, client.InNamespace(ns), client.MatchingLabels{"app": "unrelated"}); err != nil {
			return fmt.Errorf("failed to delete the unrelated Secrets of %s: %w", ns, err)
		}
	}
	return wait.PollUntilContextTimeout(ctx, time.Second, b.cfg.timeout, true, func(ctx context.Context) (bool, error) {
		left := 0
		for i := 0; i < b.cfg.namespaces; i++ {
			l := &metav1.PartialObjectMetadataList{}
			l.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("SecretList"))
			if err := b.c.List(ctx, l, client.InNamespace(fmt.Sprintf("unrelated-%d", i)), client.MatchingLabels{"app": "unrelated"}); err != nil {
				return false, nil
			}
			left += len(l.Items)
		}
		return left == 0, nil
	})
}

// createUnrelated creates the unrelated Deployments (once per run; later subjects find them) and
// waits until their pods are ready.
func (b *bench) createUnrelated(ctx context.Context, s *subject) error {
	step("%s: %d unrelated Deployments with one pod each", s.Name, b.cfg.unrelated)
	if err := b.createNamespaces(ctx, "unrelated", b.cfg.namespaces); err != nil {
		return err
	}
	if err := b.parallel(ctx, b.cfg.unrelated, func(ctx context.Context, i int) error {
		labels := map[string]string{"app": "unrelated", "unrelated": fmt.Sprint(i)}
		d := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("web-%d", i), Namespace: fmt.Sprintf("unrelated-%d", i%b.cfg.namespaces), Labels: labels},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](1),
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "registry.k8s.io/pause:3.10"}}},
				},
			},
		}
		if err := b.c.Create(ctx, d); err != nil {
			return fmt.Errorf("failed to create Deployment %s: %w", client.ObjectKeyFromObject(d), err)
		}
		return nil
	}); err != nil {
		return err
	}
	if err := wait.PollUntilContextTimeout(ctx, time.Second, b.cfg.timeout, true, func(ctx context.Context) (bool, error) {
		ready := 0
		for i := 0; i < b.cfg.namespaces; i++ {
			deps := &appsv1.DeploymentList{}
			if err := b.cache.List(ctx, deps, client.InNamespace(fmt.Sprintf("unrelated-%d", i))); err != nil {
				return false, nil
			}
			for _, d := range deps.Items {
				ready += int(d.Status.ReadyReplicas)
			}
		}
		return ready >= b.cfg.unrelated, nil
	}); err != nil {
		return fmt.Errorf("the unrelated Deployments' pods are not ready: %w", err)
	}
	return nil
}

// clientConfig loads kubeconfig, allowing 1000 requests per second (burst 2000).
func clientConfig(kubeconfig string) (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("failed to load %s: %w", kubeconfig, err)
	}
	cfg.QPS, cfg.Burst = 1000, 2000
	return cfg, nil
}

// step prints a progress line with the time.
func step(format string, args ...any) {
	fmt.Printf("%s bench: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// loadavg returns the 1-minute load average.
func loadavg() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(raw))[0]
}

// machine describes the host: CPUs, memory, kernel.
func machine() string {
	mem := "?"
	if raw, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int
		if _, err := fmt.Sscanf(string(raw), "MemTotal: %d kB", &kb); err == nil {
			mem = fmt.Sprintf("%.0f GiB", float64(kb)/(1<<20))
		}
	}
	model := ""
	if raw, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(raw), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%d CPUs (%s), %s, %s/%s, shared with other jobs", runtime.NumCPU(), model, mem, runtime.GOOS, runtime.GOARCH)
}

// writeResults writes res as JSON and Markdown under dir (a timestamped pair and latest.*) and
// prints the Markdown.
func writeResults(dir string, res *result) error {
	js, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	md := markdown(res)
	stamp := time.Now().UTC().Format("20060102T150405Z")
	for name, data := range map[string][]byte{stamp + ".json": js, stamp + ".md": []byte(md), "latest.json": js, "latest.md": []byte(md)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("failed to write results: %w", err)
		}
	}
	fmt.Println()
	fmt.Print(md)
	fmt.Printf("\n(results in %s/%s.{md,json} and latest.*)\n", dir, stamp)
	return nil
}

// markdown renders res as a table: one row per figure, one column per subject.
func markdown(res *result) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Scale benchmark, %s: N=%d instances of size %d in %d namespaces, %d creating workers, control plane client QPS %s; %s. Wall time %s.\n\n",
		res.Date, res.N, res.Size, res.Namespace, res.Workers, orDefault(res.QPS), res.Machine, res.Wall)
	if slices.Contains(res.Phases, "floor") {
		sb.WriteString("Each subject's floor, measured right before it: a raw client creates the same Memcacheds and the objects that operator owns, and writes one status per instance once its pods are ready.\n\n")
	}
	if len(res.Subjects) == 0 {
		return sb.String()
	}
	sb.WriteString(medians(res))
	sb.WriteString("| figure |")
	for _, s := range res.Subjects {
		if s.Run > 1 || slices.ContainsFunc(res.Subjects, func(o *subjectResult) bool { return o.Run > 1 }) {
			fmt.Fprintf(&sb, " %s (run %d) |", s.Subject, s.Run)
			continue
		}
		fmt.Fprintf(&sb, " %s |", s.Subject)
	}
	sb.WriteString("\n|---|")
	for range res.Subjects {
		sb.WriteString("---|")
	}
	sb.WriteString("\n")
	row := func(name string, f func(s *subjectResult) string) {
		fmt.Fprintf(&sb, "| %s |", name)
		for _, s := range res.Subjects {
			fmt.Fprintf(&sb, " %s |", f(s))
		}
		sb.WriteString("\n")
	}
	n := float64(res.N)
	row("all Available with pods ready (s)", func(s *subjectResult) string { return fmt.Sprintf("**%.1f**", s.ConvergeSeconds) })
	row("floor (s), load", func(s *subjectResult) string {
		if s.Floor == nil {
			return "–"
		}
		return fmt.Sprintf("%.1f, %s", s.Floor.Seconds, s.Floor.Load)
	})
	row("its floor creates per instance", func(s *subjectResult) string {
		if s.Floor == nil {
			return "–"
		}
		return s.Floor.Objects
	})
	row("ratio to its floor", func(s *subjectResult) string {
		if s.Ratio == 0 {
			return "–"
		}
		return fmt.Sprintf("**%.2f×**", s.Ratio)
	})
	row("all pods ready (s)", func(s *subjectResult) string { return fmt.Sprintf("%.1f", s.PodsReadySeconds) })
	row("CPU seconds over converge", func(s *subjectResult) string { return s.ConvergeCPU.String() })
	row("floor's CPU seconds", func(s *subjectResult) string {
		if s.Floor == nil {
			return "–"
		}
		return s.Floor.CPU.String()
	})
	row("CPU seconds: the operator; control plane over its floor", func(s *subjectResult) string {
		if s.Floor == nil {
			return "–"
		}
		return fmt.Sprintf("%.1f; **%.1f** (%s)", s.ConvergeCPU[operatorCPU], s.ConvergeCPU.controlPlane()-s.Floor.CPU.controlPlane(), overFloor(s.ConvergeCPU, s.Floor.CPU))
	})
	row("kube-apiserver CPU profile: subject − its floor (s)", func(s *subjectResult) string {
		if s.Profile == nil || s.Floor == nil || s.Floor.Profile == nil {
			return "–"
		}
		return profileOverFloor(s.Profile, s.Floor.Profile)
	})
	row("reads from start to converged", func(s *subjectResult) string { return perInstance(s.Reads, 1) })
	row("Available before pods ready", func(s *subjectResult) string { return fmt.Sprint(s.FalseAvailable) })
	row("reconciles; mean reconcile / queue wait (ms)", func(s *subjectResult) string {
		return fmt.Sprintf("%.0f; %.1f / %.0f", s.Reconciles, s.ReconcileMeanMs, s.QueueWaitMeanMs)
	})
	row("writes per instance, events excluded", func(s *subjectResult) string {
		return fmt.Sprintf("**%.2f**", float64(s.Converge.Total-s.Converge.Events)/n)
	})
	row("events per instance", func(s *subjectResult) string { return fmt.Sprintf("%.2f", float64(s.Converge.Events)/n) })
	row("writes by verb and resource (per instance)", func(s *subjectResult) string { return perInstance(s.Converge.ByVerbResource, n) })
	row("by variant: writes per instance, events excluded; events per instance (owned objects)", func(s *subjectResult) string {
		var parts []string
		for _, v := range s.Variants {
			if v.Instances == 0 {
				continue
			}
			k := float64(v.Instances)
			parts = append(parts, fmt.Sprintf("%s ×%d: %.2f; %.2f (%d)", v.Variant, v.Instances, float64(v.Writes)/k, float64(v.Events)/k, v.Owned))
		}
		if len(parts) == 0 {
			return "–"
		}
		return strings.Join(parts, ", ")
	})
	row("409 conflicts", func(s *subjectResult) string {
		return fmt.Sprint(s.Converge.Conflicts + s.Steady.Conflicts + s.Restart.Conflicts)
	})
	row("writes in the steady state", func(s *subjectResult) string {
		if !slices.Contains(res.Phases, "steady") {
			return "–"
		}
		return fmt.Sprint(s.Steady.Total)
	})
	row("status drops a deleted pod: p50 / p99 (ms)", func(s *subjectResult) string {
		if s.LatencySamples == 0 {
			return "–"
		}
		return fmt.Sprintf("%.0f / %.0f", s.LatencyP50Ms, s.LatencyP99Ms)
	})
	row("writes per pod replaced (events)", func(s *subjectResult) string {
		if s.LatencySamples == 0 {
			return "–"
		}
		return fmt.Sprintf("%.2f (%.2f)", float64(s.PodReplaced.Total)/float64(s.LatencySamples), float64(s.PodReplaced.Events)/float64(s.LatencySamples))
	})
	row("restart: all reconciled (s) / writes", func(s *subjectResult) string {
		if !slices.Contains(res.Phases, "restart") {
			return "–"
		}
		return fmt.Sprintf("%.1f / %d", s.RestartSeconds, s.Restart.Total)
	})
	for _, k := range []string{"idle", "n", "restarted at n", "n + secrets", "restarted at n + secrets", "restarted at n, settled", "restarted at n + secrets, settled", "n + unrelated", "restarted at n + unrelated"} {
		row("RSS / heap in use (MiB): "+k, func(s *subjectResult) string {
			m, ok := s.Memory[k]
			if !ok {
				return "–"
			}
			return fmt.Sprintf("%.1f / %.1f", m.RSSMiB, m.HeapMiB)
		})
	}
	for _, k := range []string{"idle", "n"} {
		row("RSS anon / file; heap sys / next GC (MiB): "+k, func(s *subjectResult) string {
			m, ok := s.Memory[k]
			if !ok || m.RSSAnonMiB == 0 {
				return "–"
			}
			return fmt.Sprintf("%.1f / %.1f; %.1f / %.1f", m.RSSAnonMiB, m.RSSFileMiB, m.HeapSysMiB, m.NextGCMiB)
		})
	}
	row("RSS growth with the unrelated Secrets: running / restarted / restarted, settled (%)", func(s *subjectResult) string {
		var parts []string
		for _, p := range [][2]string{{"n", "n + secrets"}, {"restarted at n", "restarted at n + secrets"}, {"restarted at n, settled", "restarted at n + secrets, settled"}} {
			m0, ok0 := s.Memory[p[0]]
			m1, ok1 := s.Memory[p[1]]
			if !ok0 || !ok1 {
				parts = append(parts, "–")
				continue
			}
			parts = append(parts, fmt.Sprintf("%+.1f", 100*(m1.RSSMiB/m0.RSSMiB-1)))
		}
		return strings.Join(parts, " / ")
	})
	row("heap per instance (KiB)", func(s *subjectResult) string {
		idle, ok1 := s.Memory["idle"]
		at, ok2 := s.Memory["n"]
		if !ok1 || !ok2 {
			return "–"
		}
		return fmt.Sprintf("%.1f", (at.HeapMiB-idle.HeapMiB)*1024/n)
	})
	row("unrelated Deployments present from the start (in idle and N)", func(s *subjectResult) string {
		if s.UnrelatedAtStart {
			return "yes"
		}
		return "no"
	})
	row("load (1 min) over converge", func(s *subjectResult) string { return s.Load["converge"] })
	return sb.String()
}

// medians renders, when the subjects ran more than once (-repeat), a table of each subject's
// median over its runs of the figures that move with the machine's timing, and of its counts.
func medians(res *result) string {
	var names []string
	runs := map[string][]*subjectResult{}
	for _, s := range res.Subjects {
		if _, ok := runs[s.Subject.Name]; !ok {
			names = append(names, s.Subject.Name)
		}
		runs[s.Subject.Name] = append(runs[s.Subject.Name], s)
	}
	if len(runs[names[0]]) < 2 {
		return ""
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Medians over %d runs per subject (each run right after its own floor; min–max in brackets):\n\n| figure |", len(runs[names[0]]))
	for _, n := range names {
		fmt.Fprintf(&sb, " %s |", n)
	}
	sb.WriteString("\n|---|" + strings.Repeat("---|", len(names)) + "\n")
	n := float64(res.N)
	row := func(label, format string, f func(s *subjectResult) (float64, bool)) {
		fmt.Fprintf(&sb, "| %s |", label)
		for _, name := range names {
			var v []float64
			for _, s := range runs[name] {
				if x, ok := f(s); ok {
					v = append(v, x)
				}
			}
			if len(v) == 0 {
				sb.WriteString(" – |")
				continue
			}
			slices.Sort(v)
			fmt.Fprintf(&sb, " **"+format+"** ("+format+"–"+format+") |", median(v), v[0], v[len(v)-1])
		}
		sb.WriteString("\n")
	}
	withFloor := func(f func(s *subjectResult) float64) func(s *subjectResult) (float64, bool) {
		return func(s *subjectResult) (float64, bool) {
			if s.Floor == nil {
				return 0, false
			}
			return f(s), true
		}
	}
	always := func(f func(s *subjectResult) float64) func(s *subjectResult) (float64, bool) {
		return func(s *subjectResult) (float64, bool) { return f(s), true }
	}
	row("all Available with pods ready (s)", "%.1f", always(func(s *subjectResult) float64 { return s.ConvergeSeconds }))
	row("its floor (s)", "%.1f", withFloor(func(s *subjectResult) float64 { return s.Floor.Seconds }))
	row("ratio to its floor", "%.2f×", withFloor(func(s *subjectResult) float64 { return s.Ratio }))
	row("CPU seconds: the operator", "%.1f", always(func(s *subjectResult) float64 { return s.ConvergeCPU[operatorCPU] }))
	row("CPU seconds: control plane", "%.1f", always(func(s *subjectResult) float64 { return s.ConvergeCPU.controlPlane() }))
	row("CPU seconds: its floor's control plane", "%.1f", withFloor(func(s *subjectResult) float64 { return s.Floor.CPU.controlPlane() }))
	row("CPU seconds: control plane over its floor", "%.1f", withFloor(func(s *subjectResult) float64 {
		return s.ConvergeCPU.controlPlane() - s.Floor.CPU.controlPlane()
	}))
	row("CPU seconds: kube-apiserver over its floor", "%.1f", withFloor(func(s *subjectResult) float64 {
		return s.ConvergeCPU["kube-apiserver"] - s.Floor.CPU["kube-apiserver"]
	}))
	row("writes per instance, events excluded", "%.2f", always(func(s *subjectResult) float64 { return float64(s.Converge.Total-s.Converge.Events) / n }))
	row("events per instance", "%.2f", always(func(s *subjectResult) float64 { return float64(s.Converge.Events) / n }))
	row("409 conflicts", "%.0f", always(func(s *subjectResult) float64 {
		return float64(s.Converge.Conflicts + s.Steady.Conflicts + s.Restart.Conflicts)
	}))
	row("RSS at N (MiB)", "%.1f", func(s *subjectResult) (float64, bool) { m, ok := s.Memory["n"]; return m.RSSMiB, ok })
	row("RSS anonymous at N (MiB)", "%.1f", func(s *subjectResult) (float64, bool) {
		m, ok := s.Memory["n"]
		return m.RSSAnonMiB, ok && m.RSSAnonMiB > 0
	})
	row("RSS file-backed at N (MiB)", "%.1f", func(s *subjectResult) (float64, bool) {
		m, ok := s.Memory["n"]
		return m.RSSFileMiB, ok && m.RSSFileMiB > 0
	})
	sb.WriteString("\nEvery run:\n\n")
	return sb.String()
}

// median returns the median of sorted values.
func median(sorted []float64) float64 {
	m := len(sorted) / 2
	if len(sorted)%2 == 1 {
		return sorted[m]
	}
	return (sorted[m-1] + sorted[m]) / 2
}

// overFloor formats each control-plane component's CPU seconds in c minus floor's, largest first.
func overFloor(c, floor cpuSeconds) string {
	var parts []string
	for _, name := range c.components() {
		parts = append(parts, fmt.Sprintf("%s %+.1f", name, c[name]-floor[name]))
	}
	return strings.Join(parts, ", ")
}

// profileOverFloor formats the CPU seconds of each profile category in p minus floor's, the
// categories in p's order (largest first), with the totals first.
func profileOverFloor(p, floor *apiserverProfile) string {
	parts := []string{fmt.Sprintf("total %.1f − %.1f = %+.1f", p.CPU, floor.CPU, p.CPU-floor.CPU)}
	for _, k := range p.categoriesDesc() {
		parts = append(parts, fmt.Sprintf("%s %.1f − %.1f = %+.1f", k, p.ByCategory[k], floor.ByCategory[k], p.ByCategory[k]-floor.ByCategory[k]))
	}
	return strings.Join(parts, "; ")
}

// perInstance formats counts divided by n, sorted by key.
func perInstance(m map[string]int, n float64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %.2f", k, float64(m[k])/n))
	}
	return strings.Join(parts, ", ")
}

func orDefault(s string) string {
	if s == "" {
		return "default"
	}
	return s
}
