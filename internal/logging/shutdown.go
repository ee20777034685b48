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

// Package logging adapts the operator's logr logger to the manager's lifecycle.
package logging

import (
	"context"
	"errors"

	"github.com/go-logr/logr"
)

// QuietOnShutdown returns l, except that once stopping is done an error that is (or wraps)
// context.Canceled is logged as an info message at verbosity 1 under the key "error" instead
// of as an error.
//
// Why: when the manager stops (SIGTERM on a rollout, a drain, a killed pod), it cancels the
// context of every reconcile in flight. client-go then logs the interrupted request itself,
// at error level, with the reconcile's logger ("Unexpected error when reading response body"
// in k8s.io/client-go/rest.(*Request).transformResponse), before our Reconcile sees the error
// and drops it. Such a line is not a fault, and an error line on every routine rollout teaches
// users to ignore error lines. The same error while the manager runs is still an error.
// No logr or controller-runtime option filters by error value, hence this small sink wrapper.
//
// The same holds for the Lease a stopping leader gives back: the manager releases it on stop
// (LeaderElectionReleaseOnCancel), client-go's elector then reports "leader election lost", and
// controller-runtime's stop procedure logs that at error level as "error received after stop
// sequence was engaged" whenever the process outlives it (on the real node, a manager pod deleted
// with a 1 s grace period printed it). The elector's error is a plain errors.New, so it is
// recognised by message and only in that stop-procedure line; a Lease lost while running still
// stops the manager with an error that main logs.
func QuietOnShutdown(l logr.Logger, stopping context.Context) logr.Logger {
	if l.GetSink() == nil {
		return l
	}
	return l.WithSink(&quietSink{sink: l.GetSink(), stopping: stopping})
}

// quietSink is the logr.LogSink behind QuietOnShutdown; it forwards everything else to sink.
type quietSink struct {
	sink     logr.LogSink
	stopping context.Context
}

var (
	_ logr.LogSink          = (*quietSink)(nil)
	_ logr.CallDepthLogSink = (*quietSink)(nil)
)

// Init tells the underlying sink about the one extra frame this wrapper adds, so the caller
// it reports (zap's file:line) is the code that logged.
func (s *quietSink) Init(info logr.RuntimeInfo) {
	info.CallDepth++
	s.sink.Init(info)
}

func (s *quietSink) Enabled(level int) bool { return s.sink.Enabled(level) }

func (s *quietSink) Info(level int, msg string, kv ...any) { s.sink.Info(level, msg, kv...) }

func (s *quietSink) Error(err error, msg string, kv ...any) {
	if s.stopping.Err() != nil && (errors.Is(err, context.Canceled) || releasedLease(err, msg)) {
		if s.sink.Enabled(1) {
			s.sink.Info(1, msg, append([]any{"error", err.Error(), "stopping", true}, kv...)...)
		}
		return
	}
	s.sink.Error(err, msg, kv...)
}

func (s *quietSink) WithValues(kv ...any) logr.LogSink {
	return &quietSink{sink: s.sink.WithValues(kv...), stopping: s.stopping}
}

func (s *quietSink) WithName(name string) logr.LogSink {
	return &quietSink{sink: s.sink.WithName(name), stopping: s.stopping}
}

// WithCallDepth passes logr's call-depth adjustments (WithCallDepth, WithCallStackHelper) on.
func (s *quietSink) WithCallDepth(depth int) logr.LogSink {
	inner := s.sink
	if cd, ok := inner.(logr.CallDepthLogSink); ok {
		inner = cd.WithCallDepth(depth)
	}
	return &quietSink{sink: inner, stopping: s.stopping}
}

// releasedLease reports whether msg and err are controller-runtime's line for the Lease the
// manager released on stop (see QuietOnShutdown).
func releasedLease(err error, msg string) bool {
	return msg == "error received after stop sequence was engaged" && err != nil && err.Error() == "leader election lost"
}
