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
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// badLogLine matches manager log lines that must never appear: an error-level line (zap's JSON
// "level":"error", or a klog E-line from client-go), a panic, or an RBAC denial.
var badLogLine = regexp.MustCompile(`(?i)"level":"(error|dpanic|panic|fatal)"|^E\d{4} |panic|forbidden`)

// benignLogLine matches lines badLogLine would flag that are expected: creating an object in a
// namespace that is being deleted is refused with "Forbidden" by the NamespaceLifecycle admission.
var benignLogLine = regexp.MustCompile(`because it is being terminated`)

// managerSelector selects the operator's pods (config/manager labels).
var managerSelector = client.MatchingLabels{"control-plane": "controller-manager", "app.kubernetes.io/name": "memcached-operator"}

// logLine is one line of a manager pod's log.
type logLine struct {
	pod, text string
}

// managerLogs follows the log of every manager pod that appears (`kubectl logs -f`), from its
// first line, so the log of a pod the suite kills is kept too. Each pod's log is also written to
// <dir>/manager-<pod>.log.
type managerLogs struct {
	ns, dir string
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	mu       sync.Mutex
	lines    []logLine
	followed map[string]bool
}

// followManagerLogs starts following the manager pods of namespace ns.
func followManagerLogs(ns, dir string) *managerLogs {
	ctx, cancel := context.WithCancel(context.Background())
	l := &managerLogs{ns: ns, dir: dir, cancel: cancel, followed: map[string]bool{}}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		for {
			pods := &corev1.PodList{}
			if err := suite.k8s.List(ctx, pods, client.InNamespace(ns), managerSelector); err == nil {
				for _, p := range pods.Items {
					l.mu.Lock()
					seen := l.followed[p.Name]
					l.followed[p.Name] = true
					l.mu.Unlock()
					if !seen {
						l.wg.Add(1)
						go l.follow(ctx, p.Name)
					}
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(500 * time.Millisecond):
			}
		}
	}()
	return l
}

// follow streams pod's manager log until the container ends or ctx is cancelled. Until the first
// line arrives (the container may still be starting) it retries while the pod exists.
func (l *managerLogs) follow(ctx context.Context, pod string) {
	defer l.wg.Done()
	f, err := os.Create(filepath.Join(l.dir, "manager-"+pod+".log"))
	if err != nil {
		l.add(pod, fmt.Sprintf("cannot write the log file: %v", err))
		return
	}
	defer f.Close()
	for {
		got := 0
		cmd := exec.CommandContext(ctx, suite.kubectl, "logs", "-f", "-n", l.ns, pod, "-c", "manager")
		cmd.Env = append(os.Environ(), "KUBECONFIG="+suite.kubeconfig)
		out, err := cmd.StdoutPipe()
		if err == nil {
			err = cmd.Start()
		}
		if err == nil {
			sc := bufio.NewScanner(out)
			sc.Buffer(make([]byte, 1<<20), 1<<24)
			for sc.Scan() {
				got++
				l.add(pod, sc.Text())
				fmt.Fprintln(f, sc.Text())
			}
			_ = cmd.Wait()
		}
		if got > 0 || ctx.Err() != nil {
			return
		}
		if err := suite.k8s.Get(ctx, client.ObjectKey{Namespace: l.ns, Name: pod}, &corev1.Pod{}); err != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func (l *managerLogs) add(pod, text string) {
	l.mu.Lock()
	l.lines = append(l.lines, logLine{pod: pod, text: text})
	l.mu.Unlock()
}

// mark returns the number of lines seen so far: an offset for since.
func (l *managerLogs) mark() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.lines)
}

// since returns the lines seen after offset that match re and not except (nil: nothing excepted).
func (l *managerLogs) since(offset int, re, except *regexp.Regexp) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, ln := range l.lines[offset:] {
		if re.MatchString(ln.text) && (except == nil || !except.MatchString(ln.text)) {
			out = append(out, ln.pod+": "+ln.text)
		}
	}
	return out
}

// pods returns the names of the manager pods whose log has been followed.
func (l *managerLogs) pods() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for p := range l.followed {
		out = append(out, p)
	}
	return out
}

// stop ends every kubectl logs and waits for the followers.
func (l *managerLogs) stop() {
	l.cancel()
	l.wg.Wait()
}

// expectCleanManagerLog registers a check, run when t ends, that no manager pod logged a line
// matching badLogLine during the test. It waits a moment first: log lines reach the followers
// asynchronously.
func expectCleanManagerLog(t *testing.T) {
	t.Helper()
	offset := suite.logs.mark()
	t.Cleanup(func() {
		time.Sleep(time.Second)
		t.Logf("checked %d manager log line(s) of pods %v", suite.logs.mark()-offset, suite.logs.pods())
		if bad := suite.logs.since(offset, badLogLine, benignLogLine); len(bad) > 0 {
			t.Errorf("the manager logged %d line(s) matching %q:\n%s", len(bad), badLogLine, strings.Join(bad, "\n"))
		}
	})
}
