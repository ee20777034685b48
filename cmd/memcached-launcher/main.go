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

// Command memcached-launcher runs memcached with warm restarts (internal/warmstart): PID 1 of the
// memcached container, it turns the kubelet's SIGTERM into memcached's saving stop and starts
// memcached warm only over a save it saw complete. It ships in the operator's image, a static
// binary of its own (see cmd/cert-reloader for why not a command of the manager); the memcached
// image has nothing but memcached, so an init container copies it into the pod:
//
//	memcached-launcher install DIR
//	memcached-launcher run --memory-file PATH [--memcached memcached] [--warm-start-window 30s]
//	    [--args-file FILE] [--reload-file FILE] [--reload-interval 5s] [-- MEMCACHED-ARGS...]
//
// install copies this executable to DIR/memcached-launcher (mode 0555, through a temporary file
// and a rename: the operator's image is distroless, with no cp). run takes memcached's arguments
// after "--" and, with --args-file, from a file holding a JSON array of strings (a pod annotation
// projected by a downwardAPI volume), read at each start and every --reload-interval: when it
// changes, run stops memcached with a save, as on SIGTERM, and exits 0 so that the kubelet
// restarts the container with the new arguments, warm. run exits with memcached's status (128+N
// when signal N ended it), 1 when memcached could not run (a missing or invalid --args-file
// included), 2 on bad usage.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/go-logr/logr"

	"github.com/example/memcached-operator/internal/warmstart"
)

// name is the launcher's file name in the directory install writes.
const name = "memcached-launcher"

const usage = `usage:
  memcached-launcher install DIR
  memcached-launcher run --memory-file PATH [flags] [--args-file FILE] [-- MEMCACHED-ARGS...]`

func main() {
	log := logr.FromSlogHandler(slog.NewJSONHandler(os.Stderr, nil)).WithName(name)
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	switch os.Args[1] {
	case "install":
		if len(os.Args) != 3 {
			fmt.Fprintln(os.Stderr, usage)
			os.Exit(2)
		}
		if err := install(os.Args[2]); err != nil {
			log.Error(err, "Launcher not installed")
			os.Exit(1)
		}
		log.Info("Launcher installed", "path", filepath.Join(os.Args[2], name))
	case "run":
		cfg, err := parseRun(os.Args[2:])
		if err != nil {
			log.Error(err, "memcached not started")
			os.Exit(2)
		}
		// As PID 1 the process gets no default signal handling: every signal memcached must hear
		// of comes through here. Buffered, so none is lost while memcached starts.
		sigs := make(chan os.Signal, 8)
		signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGUSR1)
		cfg.Signals = sigs
		code, err := warmstart.Run(cfg, log)
		if err != nil {
			log.Error(err, "memcached launcher failed")
		}
		os.Exit(code)
	default:
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
}

// parseRun returns the configuration of `run`: its flags, then memcached's arguments after "--"
// (--args-file's are read by warmstart.Run).
func parseRun(args []string) (warmstart.Config, error) {
	var cfg warmstart.Config
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&cfg.MemoryFile, "memory-file", "", "memcached's memory file (-e), on a memory-backed filesystem (required).")
	fs.StringVar(&cfg.Memcached, "memcached", "memcached", "The memcached program: a path, or a name looked up on PATH.")
	fs.DurationVar(&cfg.WarmStartWindow, "warm-start-window", 30*time.Second, "A warm start that exits on its own sooner is taken for a bad save: memcached is started cold once more.")
	fs.StringVar(&cfg.ReloadFile, "reload-file", "", "A file memcached re-reads on SIGHUP (its -Y auth file): SIGHUP is sent when its content changes.")
	fs.StringVar(&cfg.ArgsFile, "args-file", "", "A file holding memcached's arguments as a JSON array of strings (after those after --), read at each start: "+
		"missing or invalid, run exits 1. When it changes to other valid arguments while memcached runs, memcached is stopped with a save, as on SIGTERM, and run exits 0.")
	fs.DurationVar(&cfg.ReloadInterval, "reload-interval", 5*time.Second, "How often --reload-file and --args-file are read.")
	if err := fs.Parse(args); err != nil {
		return cfg, fmt.Errorf("failed to parse the arguments of run: %w", err)
	}
	if cfg.MemoryFile == "" {
		return cfg, errors.New("failed to parse the arguments of run: --memory-file is required")
	}
	cfg.Args = fs.Args()
	return cfg, nil
}

// install copies the running executable to dir/name, mode 0555, through a temporary file in dir
// renamed over it, so the destination is never a partial file.
func install(dir string) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("failed to find the launcher's executable: %w", err)
	}
	src, err := os.Open(self)
	if err != nil {
		return fmt.Errorf("failed to open %s: %w", self, err)
	}
	defer src.Close() //nolint:errcheck // read-only
	tmp, err := os.CreateTemp(dir, "."+name+"-*")
	if err != nil {
		return fmt.Errorf("failed to create a file in %s: %w", dir, err)
	}
	defer os.Remove(tmp.Name()) //nolint:errcheck // gone after the rename
	_, err = io.Copy(tmp, src)
	if err == nil {
		err = tmp.Chmod(0o555)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("failed to copy %s to %s: %w", self, tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("failed to install %s: %w", filepath.Join(dir, name), err)
	}
	return nil
}
