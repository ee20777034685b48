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

package logging

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.uber.org/zap/zapcore"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// The line the real-node suite found when it killed the manager mid-reconcile: client-go logs
// the interrupted request at error level with the reconcile's logger.
func TestQuietOnShutdown(t *testing.T) {
	cancelled := fmt.Errorf("failed to patch status: %w", context.Canceled)
	// controller-runtime's stop procedure (pkg/manager/internal.go, engageStopProcedure) logs
	// client-go's elector error when a leader with ReleaseOnCancel gives its Lease back.
	lost := errors.New("leader election lost")
	const afterStop = "error received after stop sequence was engaged"
	tests := map[string]struct {
		stopping  bool
		err       error
		msg       string // default: client-go's "Unexpected error when reading response body"
		verbosity int
		wantLevel string // "" means nothing logged
	}{
		"lease released while stopping: info at V(1)":   {stopping: true, err: lost, msg: afterStop, verbosity: 1, wantLevel: "debug"},
		"lease released while stopping, default":        {stopping: true, err: lost, msg: afterStop, verbosity: 0, wantLevel: ""},
		"lease lost while running: still an error":      {stopping: false, err: lost, msg: afterStop, verbosity: 0, wantLevel: "error"},
		"lease lost in another line: still an error":    {stopping: true, err: lost, msg: "Operator stopped", verbosity: 0, wantLevel: "error"},
		"other error after the stop: still an error":    {stopping: true, err: errors.New("leader election lost: timeout"), msg: afterStop, verbosity: 0, wantLevel: "error"},
		"cancelled while stopping: info at V(1)":        {stopping: true, err: cancelled, verbosity: 1, wantLevel: "debug"},
		"cancelled while stopping, default verbosity":   {stopping: true, err: cancelled, verbosity: 0, wantLevel: ""},
		"cancelled while running: still an error":       {stopping: false, err: cancelled, verbosity: 0, wantLevel: "error"},
		"other error while stopping: still an error":    {stopping: true, err: errors.New("connection reset by peer"), verbosity: 0, wantLevel: "error"},
		"deadline exceeded while stopping: still error": {stopping: true, err: context.DeadlineExceeded, verbosity: 0, wantLevel: "error"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			base := zap.New(zap.WriteTo(&out), zap.Level(zapcore.Level(-tc.verbosity)))
			stopping, stop := context.WithCancel(context.Background())
			defer stop()
			if tc.stopping {
				stop()
			}
			log := QuietOnShutdown(base, stopping).WithName("memcached").WithValues("namespace", "ns")
			msg := tc.msg
			if msg == "" {
				msg = "Unexpected error when reading response body"
			}
			log.Error(tc.err, msg)

			if tc.wantLevel == "" {
				if out.Len() != 0 {
					t.Fatalf("want nothing logged, got %s", out.String())
				}
				return
			}
			var line map[string]any
			if err := json.Unmarshal(out.Bytes(), &line); err != nil {
				t.Fatalf("want one JSON line, got %q: %v", out.String(), err)
			}
			if line["level"] != tc.wantLevel {
				t.Errorf("level = %v, want %s (line %s)", line["level"], tc.wantLevel, out.String())
			}
			if line["namespace"] != "ns" || line["logger"] != "memcached" {
				t.Errorf("names and values lost: %s", out.String())
			}
			if !strings.Contains(fmt.Sprint(line["error"]), tc.err.Error()) {
				t.Errorf("error %q not logged: %s", tc.err, out.String())
			}
			if caller := fmt.Sprint(line["caller"]); caller != "<nil>" && !strings.HasPrefix(caller, "logging/shutdown_test.go") {
				t.Errorf("caller = %s, want the line that logged (shutdown_test.go)", caller)
			}
		})
	}
}
