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
	"flag"
	"fmt"
	"os"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/example/memcached-operator/internal/certreload"
)

// reloadCertsCommand is the manager binary's command that runs the certificate reloader sidecar
// of memcached pods with spec.tls (controllers/resources' certReloaderContainers).
const reloadCertsCommand = "reload-certs"

// reloadCerts runs the certificate reloader with the command line args until SIGTERM, and returns
// the process's exit code: 2 for bad flags, 1 when it cannot run, 0 when stopped.
func reloadCerts(args []string) int {
	fs := flag.NewFlagSet(reloadCertsCommand, flag.ContinueOnError)
	var cfg certreload.Config
	fs.StringVar(&cfg.Dir, "dir", "/etc/memcached/tls", "Directory of the mounted TLS Secret: tls.crt, tls.key and, with a client CA, ca.crt.")
	fs.StringVar(&cfg.Address, "address", "127.0.0.1:11212", "memcached's plain-text loopback listener that receives refresh_certs.")
	fs.StringVar(&cfg.AuthFile, "auth-file", "", "memcached's -Y auth file, when authentication is on: its first entry authenticates the connection.")
	fs.DurationVar(&cfg.Interval, "interval", 5*time.Second, "How often the files are read.")
	fs.DurationVar(&cfg.Timeout, "timeout", 5*time.Second, "Bound of one exchange with memcached.")
	opts := zap.Options{}
	opts.BindFlags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	log := zap.New(zap.UseFlagOptions(&opts)).WithName("cert-reloader")
	log.Info("Watching the TLS files", "dir", cfg.Dir, "address", cfg.Address, "interval", cfg.Interval)
	if err := certreload.Run(ctrl.SetupSignalHandler(), cfg, log); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
