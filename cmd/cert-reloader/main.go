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

// Command cert-reloader is the certificate reloader sidecar of memcached pods with spec.tls
// (controllers/resources' certReloaderContainers, internal/certreload): it ships in the operator's
// image beside the manager. It is a binary of its own, not a command of the manager, because the
// manager's Kubernetes libraries cost every memcached pod their initialisation: measured idle, the
// manager binary running the reloader holds 51 MiB resident (8 MiB anonymous, 43 MiB of the
// binary's pages), this one 4.4 MiB (0.9 MiB anonymous).
package main

import (
	"context"
	"flag"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/go-logr/logr"

	"github.com/example/memcached-operator/internal/certreload"
)

func main() {
	var cfg certreload.Config
	flag.StringVar(&cfg.Dir, "dir", "/etc/memcached/tls", "Directory of the mounted TLS Secret: tls.crt, tls.key and, with a client CA, ca.crt.")
	flag.StringVar(&cfg.Address, "address", "127.0.0.1:11212", "memcached's plain-text loopback listener that receives refresh_certs.")
	flag.StringVar(&cfg.AuthFile, "auth-file", "", "memcached's -Y auth file, when authentication is on: its first entry authenticates the connection.")
	flag.DurationVar(&cfg.Interval, "interval", 5*time.Second, "How often the files are read.")
	flag.DurationVar(&cfg.Timeout, "timeout", 5*time.Second, "Bound of one exchange with memcached.")
	flag.Parse()
	log := logr.FromSlogHandler(slog.NewJSONHandler(os.Stderr, nil)).WithName("cert-reloader")

	// As PID 1 of its container the process gets no default signal handling.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	log.Info("Watching the TLS files", "dir", cfg.Dir, "address", cfg.Address, "interval", cfg.Interval.String())
	if err := certreload.Run(ctx, cfg, log); err != nil {
		log.Error(err, "Certificate reloader stopped")
		os.Exit(1)
	}
}
