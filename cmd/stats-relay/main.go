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

// Command stats-relay is the stats relay sidecar of memcached pods with spec.monitoring and
// spec.auth (controllers/resources' statsRelayContainers, internal/statsrelay): it lets the
// memcached_exporter sidecar, which cannot authenticate, read the pod's own memcached's
// statistics through a loopback port. It ships in the operator's image beside the manager and the
// cert-reloader, a binary of its own for the reason cmd/cert-reloader gives (the manager's
// Kubernetes libraries would cost every memcached pod their memory).
package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/go-logr/logr"

	"github.com/example/memcached-operator/internal/statsrelay"
)

func main() {
	log := logr.FromSlogHandler(slog.NewJSONHandler(os.Stderr, nil)).WithName("stats-relay")
	cfg, err := statsrelay.ParseFlags(os.Args[1:])
	if err != nil {
		log.Error(err, "Stats relay not started")
		os.Exit(2)
	}
	// As PID 1 of its container the process gets no default signal handling.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	log.Info("Relaying memcached's statistics", "listen", cfg.Listen, "memcached", cfg.Memcached)
	if err := statsrelay.Run(ctx, cfg, log); err != nil {
		log.Error(err, "Stats relay stopped")
		os.Exit(1)
	}
}
