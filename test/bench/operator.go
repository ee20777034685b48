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
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// subject is an operator binary under test, run as a local process with its own identity.
type subject struct {
	// Name names the subject in the report, its namespaces (s-<name>-<i>) and its ServiceAccount.
	Name string `json:"name"`
	// Binary is the manager binary; Args are extra flags for it.
	Binary string   `json:"binary"`
	Args   []string `json:"args,omitempty"`

	kubeconfig, logPath    string
	metricsPort, probePort int
	cmd                    *exec.Cmd
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
	s.cmd = exec.Command(s.Binary, args...)
	s.cmd.Env = append(os.Environ(), "KUBECONFIG="+s.kubeconfig, "WATCH_NAMESPACE=",
		"RELATED_IMAGE_MEMCACHED=docker.io/library/memcached:1.6.38-alpine")
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
	RSSMiB  float64 `json:"rssMiB"`
	HeapMiB float64 `json:"heapInUseMiB"`
}

// sampleMemory returns the lowest RSS and Go heap in use of n samples one second apart: heap in
// use includes garbage until the next GC, so the lowest sample is the closest to the live heap.
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
		}
		if i == 0 || heap/(1<<20) < m.HeapMiB {
			m.HeapMiB = heap / (1 << 20)
		}
	}
	return m, nil
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
	return strings.TrimSpace(s.Name + " " + strings.Join(s.Args, " "))
}
