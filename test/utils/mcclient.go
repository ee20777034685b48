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

package utils

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// MCClient is the real-node tier's memcached client (test/real/cmd/mcclient) in a pod of its own,
// driven through `kubectl exec`, as the OLM suites use it.
type MCClient struct {
	Kubectl, Kubeconfig string
	Namespace, Pod      string
	Image, Binary       string
}

func (m MCClient) exec(stdin bool, args ...string) *exec.Cmd {
	base := []string{"exec"}
	if stdin {
		base = append(base, "-i")
	}
	base = append(base, "-n", m.Namespace, m.Pod, "-c", m.Pod, "--", m.Binary)
	cmd := exec.Command(m.Kubectl, append(base, args...)...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+m.Kubeconfig)
	return cmd
}

// Start creates the client pod (ClientPod: idle, restricted profile) and waits until it is Ready.
func (m MCClient) Start(t testing.TB, c client.Client) {
	t.Helper()
	pod := ClientPod(m.Namespace, m.Pod, m.Image, m.Binary)
	if err := c.Create(context.Background(), pod); err != nil {
		t.Fatalf("failed to create client pod %s/%s: %v", m.Namespace, m.Pod, err)
	}
	if err := waitFor(2*time.Minute, func() error {
		p := &corev1.Pod{}
		if err := c.Get(context.Background(), client.ObjectKeyFromObject(pod), p); err != nil {
			return err
		}
		if !PodRunningReady(p) {
			return fmt.Errorf("client pod %s/%s not Ready (phase %s)", m.Namespace, m.Pod, p.Status.Phase)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// Run runs `mcclient args...` in the pod and decodes its JSON report into report.
func (m MCClient) Run(t testing.TB, report any, args ...string) {
	t.Helper()
	m.RunInput(t, "", report, args...)
}

// RunInput is Run with input as mcclient's standard input (-credentials-stdin reads it).
func (m MCClient) RunInput(t testing.TB, input string, report any, args ...string) {
	t.Helper()
	cmd := m.exec(input != "", args...)
	if input != "" {
		cmd.Stdin = strings.NewReader(input)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	timer := time.AfterFunc(time.Minute, func() { _ = cmd.Process.Kill() })
	err := cmd.Run()
	timer.Stop()
	if derr := json.Unmarshal(out.Bytes(), report); derr != nil || err != nil {
		t.Fatalf("mcclient %s: %v / %v\nstdout: %.2000s\nstderr: %.2000s", strings.Join(args, " "), err, derr, out.String(), errOut.String())
	}
}

// Watcher is a long-running mcclient command (`mcclient watch ...`) fed through `kubectl exec -i`:
// it runs until its stdin closes, then prints its report.
type Watcher struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bytes.Buffer
	err   *Progress
}

// Progress is the stderr of a long-running mcclient command started with -progress: it keeps
// every line but the progress lines ("round N" after each round of watch, "round N list L" of
// rehash, L the server lists it was given), of which it holds the latest figures, so a test waits
// for rounds instead of sleeping. Safe for the writer and readers at once.
type Progress struct {
	mu                    sync.Mutex
	partial               []byte
	rounds, lists, onList int
	other                 bytes.Buffer
}

// Write implements io.Writer.
func (p *Progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.partial = append(p.partial, b...)
	for {
		i := bytes.IndexByte(p.partial, '\n')
		if i < 0 {
			return len(b), nil
		}
		line := string(p.partial[:i])
		p.partial = p.partial[i+1:]
		var rounds, lists int
		if n, _ := fmt.Sscanf(line, "round %d list %d", &rounds, &lists); n >= 1 && strings.HasPrefix(line, "round ") {
			if n == 1 {
				lists = 1 // watch: one list for good
			}
			if lists != p.lists {
				p.lists, p.onList = lists, 0
			}
			p.rounds = rounds
			p.onList++
			continue
		}
		p.other.WriteString(line + "\n")
	}
}

// Rounds returns the rounds done, the server lists received and the rounds done over the latest.
func (p *Progress) Rounds() (rounds, lists, onList int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rounds, p.lists, p.onList
}

// String returns what was written but the progress lines.
func (p *Progress) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.other.String() + string(p.partial)
}

// Watch starts `mcclient args...` (a watch) in the pod; it is killed when t ends if still running.
func (m MCClient) Watch(t testing.TB, args ...string) *Watcher {
	t.Helper()
	w := &Watcher{cmd: m.exec(true, args...), out: &bytes.Buffer{}, err: &Progress{}}
	w.cmd.Stdout, w.cmd.Stderr = w.out, w.err
	var err error
	if w.stdin, err = w.cmd.StdinPipe(); err != nil {
		t.Fatalf("failed to open the stdin of kubectl exec: %v", err)
	}
	if err := w.cmd.Start(); err != nil {
		t.Fatalf("failed to start kubectl exec mcclient: %v", err)
	}
	t.Cleanup(func() {
		if w.cmd.ProcessState == nil {
			_ = w.cmd.Process.Kill()
			_ = w.cmd.Wait()
		}
	})
	return w
}

// WaitRounds waits up to timeout until the watch (started with -progress) has done n rounds.
func (w *Watcher) WaitRounds(t testing.TB, n int, timeout time.Duration) {
	t.Helper()
	if err := waitFor(timeout, func() error {
		if rounds, _, _ := w.err.Rounds(); rounds < n {
			return fmt.Errorf("%d of %d rounds (is -progress set?); stderr: %.2000s", rounds, n, w.err.String())
		}
		return nil
	}); err != nil {
		t.Fatalf("mcclient watch: %v", err)
	}
}

// Stop closes the watch's stdin (mcclient then ends its last round and prints its report), waits
// at most 30 s for it and decodes the report into report.
func (w *Watcher) Stop(t testing.TB, report any) {
	t.Helper()
	_ = w.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- w.cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		_ = w.cmd.Process.Kill()
		t.Fatalf("mcclient did not stop 30 s after its stdin closed; stderr: %.2000s", w.err.String())
	}
	if derr := json.Unmarshal(w.out.Bytes(), report); derr != nil {
		t.Fatalf("mcclient watch: %v / %v\nstdout: %.2000s\nstderr: %.2000s", err, derr, w.out.String(), w.err.String())
	}
}

// WaitAvailable waits (up to timeout) until Memcached key is Available at its generation with exactly
// size Ready pods and as many servers in status.serverList, and returns it and its pods sorted by name.
func WaitAvailable(t testing.TB, c client.Client, key client.ObjectKey, size int, timeout time.Duration) (*cachev1alpha1.Memcached, []corev1.Pod) {
	t.Helper()
	var mc *cachev1alpha1.Memcached
	var pods []corev1.Pod
	if err := waitFor(timeout, func() error {
		mc = &cachev1alpha1.Memcached{}
		if err := c.Get(context.Background(), key, mc); err != nil {
			return err
		}
		cond := meta.FindStatusCondition(mc.Status.Conditions, cachev1alpha1.ConditionAvailable)
		if cond == nil || cond.Status != metav1.ConditionTrue || cond.ObservedGeneration != mc.Generation {
			return fmt.Errorf("not Available at generation %d: %+v", mc.Generation, mc.Status.Conditions)
		}
		var err error
		if pods, err = InstancePods(context.Background(), c, key); err != nil {
			return err
		}
		slices.SortFunc(pods, func(a, b corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
		if len(pods) != size {
			return fmt.Errorf("%d pods, want %d", len(pods), size)
		}
		for i := range pods {
			if !PodRunningReady(&pods[i]) || pods[i].DeletionTimestamp != nil {
				return fmt.Errorf("pod %s not Ready", pods[i].Name)
			}
		}
		if len(mc.Status.ServerList) != size {
			return fmt.Errorf("serverList %v", mc.Status.ServerList)
		}
		return nil
	}); err != nil {
		t.Fatalf("Memcached %s: %v", key, err)
	}
	return mc, pods
}
