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
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestRSSSplitReadsProc: the split is read from the subject's /proc status (here this test's own
// process, whose heap and binary are resident), and is zero for a subject that is not running.
func TestRSSSplitReadsProc(t *testing.T) {
	s := &subject{cmd: &exec.Cmd{Process: &os.Process{Pid: os.Getpid()}}}
	anon, file := s.rssSplit()
	if anon <= 0 || file <= 0 {
		t.Errorf("rssSplit of a running process = %.1f / %.1f MiB, want both positive", anon, file)
	}
	if anon, file := (&subject{}).rssSplit(); anon != 0 || file != 0 {
		t.Errorf("rssSplit of a subject not started = %.1f / %.1f, want 0 / 0", anon, file)
	}
}

// TestMarkdownMemoryRows: the report gives the RSS split, heap sys and next GC at idle and N ("–"
// when the split was not read), and says which subjects started with the unrelated Deployments.
func TestMarkdownMemoryRows(t *testing.T) {
	res := &result{N: 500, Subjects: []*subjectResult{
		{Subject: &subject{Name: "a"}, Memory: map[string]memory{
			"idle": {RSSMiB: 48, HeapMiB: 6.5, RSSAnonMiB: 10.2, RSSFileMiB: 39, HeapSysMiB: 11.1, NextGCMiB: 7.2},
			"n":    {RSSMiB: 72.2, HeapMiB: 24.1},
		}},
		{Subject: &subject{Name: "b"}, Memory: map[string]memory{}, UnrelatedAtStart: true},
	}}
	md := markdown(res)
	for _, want := range []string{
		"| RSS anon / file; heap sys / next GC (MiB): idle | 10.2 / 39.0; 11.1 / 7.2 | – |",
		"| RSS anon / file; heap sys / next GC (MiB): n | – | – |",
		"| unrelated Deployments present from the start (in idle and N) | no | yes |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

// A phase that did not run shows "–" in the report, not a zero that reads as a measurement.
func TestMarkdownSkippedPhases(t *testing.T) {
	subject := func() *subjectResult {
		return &subjectResult{Subject: &subject{Name: "a"}, Memory: map[string]memory{}, RestartSeconds: 0.8}
	}
	for _, tc := range []struct {
		phases []string
		want   []string
	}{
		{[]string{"converge"}, []string{
			"| writes in the steady state | – |",
			"| restart: all reconciled (s) / writes | – |",
		}},
		{[]string{"converge", "steady", "restart"}, []string{
			"| writes in the steady state | 0 |",
			"| restart: all reconciled (s) / writes | 0.8 / 0 |",
		}},
	} {
		md := markdown(&result{N: 500, Phases: tc.phases, Subjects: []*subjectResult{subject()}})
		for _, want := range tc.want {
			if !strings.Contains(md, want) {
				t.Errorf("phases %v: report lacks %q:\n%s", tc.phases, want, md)
			}
		}
	}
}
