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

// Package warmstart is the memcached launcher (cmd/memcached-launcher): PID 1 of the memcached
// container when warm restarts are on, it runs memcached over a memory file so that a restart of
// the container in the same pod keeps every item, and never lets a bad save crash-loop the pod.
//
// memcached's restartable cache: started with -e FILE (FILE on a memory-backed filesystem, an
// emptyDir of medium Memory, which outlives the container), memcached keeps its item memory in
// that mmapped file. Stopped by SIGUSR1 it writes FILE.meta and exits 0; started again over the
// same FILE and settings (-m, -I, chunk sizes, -C, slab reassignment) it reads and deletes
// FILE.meta and restores every item. It starts cold when FILE.meta is missing, when the settings
// differ, or when the wall clock is not in a later second than the stop (it refuses a save from
// its own second or from the future). A FILE.meta it cannot parse aborts memcached (SIGABRT), a
// truncated one can corrupt its heap: a bad save would crash-loop the container.
//
// The stop path. The kubelet sends SIGTERM to the container's PID 1, and SIGTERM makes memcached
// exit without saving, so PID 1 must be something that turns SIGTERM into SIGUSR1: the launcher.
// It is memcached's parent in the same container, same non-root uid: it signals its own child,
// which needs no capability and no shared process namespace. A preStop hook cannot do it: the
// memcached image holds memcached alone (no shell, no kill), and the kubelet's SIGTERM follows the
// hook and still reaches memcached: memcached acts on the last stop signal it got, at its next
// event-loop turn (up to a second later), so a SIGTERM after the SIGUSR1 cancels the save. The
// launcher never passes SIGTERM on and sends SIGUSR1 once; memcached saves (it writes FILE.meta;
// the items already are in FILE) and exits 0, and the launcher exits with memcached's status. The
// pod's terminationGracePeriodSeconds must cover that second and the save; a SIGKILL at its end
// leaves no marker, so the next start is cold.
//
// The marker. A save is trusted only when the launcher saw it complete: memcached exited 0 after
// the launcher's SIGUSR1 and FILE.meta exists. Then, and only then, the launcher writes
// FILE.clean (MarkerSuffix) holding the stop time. At the next start a marker means warm: the
// launcher waits for the next wall-clock second, removes the marker before memcached starts (a
// crash from then on leaves none) and starts memcached over FILE. No marker means cold: FILE and
// FILE.meta are removed (a crash, an OOM kill, a SIGKILL or a SIGTERM that reached memcached
// directly left them, in an unknown state). A warm start that exits on its own within
// Config.WarmStartWindow is taken for a bad save: the launcher removes the files and starts
// memcached cold once more in the same container, so even a save that passed every check costs
// one cold start, never a crash loop.
//
// The arguments file. With Config.ArgsFile (--args-file) memcached's arguments come from a file
// holding a JSON array of strings, a pod annotation that a downwardAPI volume projects (the
// kubelet swaps it atomically, through a symlink, when the annotation changes: the launcher reads
// it by path each time). It is read at each start of memcached, its arguments after Config.Args;
// one that is missing, empty or not such an array is an error before anything starts (the save is
// kept). While memcached runs, the launcher reads it every ReloadInterval; when it holds other
// valid arguments than memcached runs with, the launcher stops memcached as on SIGTERM (a save
// and its marker) and exits 0, so the kubelet restarts the container and the next start reads
// the new arguments, warm. It exits rather than restart memcached itself so that the container's
// restart count tells the operator the change is applied. memcached restores the items only when
// its memory settings (-m, -I, chunk sizes, ...) are the same: the launcher records the arguments
// of a save beside it (FILE.args, ArgsSuffix) and logs at a warm start which of them changed. A
// changed file that is not valid is logged once for each content, and memcached keeps running.
//
// The launcher does not reap orphans: memcached starts no processes, and a reaper would race
// memcached's own exit status.
package warmstart

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
)

// The files beside the memory file.
const (
	// MetaSuffix names memcached's save of the memory file's metadata (FILE.meta).
	MetaSuffix = ".meta"
	// MarkerSuffix names the launcher's marker (FILE.clean) of a save it saw complete; it holds
	// the stop time (RFC 3339 with nanoseconds).
	MarkerSuffix = ".clean"
	// ArgsSuffix names the launcher's record (FILE.args) of the arguments memcached ran with when
	// it saved (a JSON array), written before the marker; only read to log what changed.
	ArgsSuffix = ".args"
)

// secondMargin is how far into the next wall-clock second after the save a warm start waits,
// so that memcached's own clock reading (gettimeofday, whole seconds) is past the save's.
const secondMargin = 20 * time.Millisecond

// maxWait bounds the wait for the next second: a save time further ahead means the clock went
// back, memcached would refuse the save anyway, and the launcher starts cold at once.
const maxWait = 2 * time.Second

// Config is what the launcher runs and how.
type Config struct {
	// MemoryFile is memcached's -e file, on a memory-backed filesystem.
	MemoryFile string
	// Memcached is the memcached program: a path, or a name looked up on PATH.
	Memcached string
	// Args are memcached's arguments; the launcher adds -e MemoryFile, so they must not set it.
	Args []string
	// ArgsFile, when set, is a file holding more of memcached's arguments, a JSON array of
	// strings, read at each start of memcached (after Args, under the same rules), and every
	// ReloadInterval while it runs: when it holds other valid arguments, the launcher stops
	// memcached with a save, as on SIGTERM, and returns 0, for a restart with them.
	ArgsFile string
	// WarmStartWindow is how long a warm start must run before an exit of memcached on its own
	// stops counting as a bad save (default 30s).
	WarmStartWindow time.Duration
	// ReloadFile, when set, is a file memcached re-reads on SIGHUP (its -Y auth file): the
	// launcher reads it every ReloadInterval (default 5s) and sends SIGHUP when its content
	// changed, so a rotated password reaches memcached without a restart. ArgsFile is read as
	// often.
	ReloadFile     string
	ReloadInterval time.Duration
	// Signals are the signals the launcher received: SIGTERM, SIGINT and SIGUSR1 stop memcached
	// gracefully (SIGUSR1, once); SIGHUP is forwarded. nil: none.
	Signals <-chan os.Signal
	// Stdout and Stderr receive memcached's; nil: the launcher's own.
	Stdout, Stderr io.Writer
}

// Run starts memcached over cfg.MemoryFile, warm when the last stop was a save the launcher saw
// complete, cold otherwise, and returns memcached's exit status (128+signal number when a signal
// ended it) once memcached has exited for good: after a stop signal, on its own, or after a warm
// start that failed and the cold start that followed, or with a save after cfg.ArgsFile changed.
// The error is for what kept memcached from running at all (not found, bad arguments, files that
// cannot be removed), or a marker that cannot be written.
func Run(cfg Config, log logr.Logger) (int, error) {
	if cfg.MemoryFile == "" {
		return 1, errors.New("failed to start memcached: no memory file")
	}
	if err := checkArgs(cfg.Args); err != nil {
		return 1, fmt.Errorf("failed to start memcached: %w", err)
	}
	// Read before the save is touched: a bad file keeps it for the start that reads a good one.
	fileArgs, err := readArgsFile(cfg.ArgsFile)
	if err != nil {
		return 1, err
	}
	if cfg.WarmStartWindow <= 0 {
		cfg.WarmStartWindow = 30 * time.Second
	}
	if cfg.ReloadInterval <= 0 {
		cfg.ReloadInterval = 5 * time.Second
	}
	bin, err := exec.LookPath(cfg.Memcached)
	if err != nil {
		return 1, fmt.Errorf("failed to find memcached: %w", err)
	}
	log = log.WithValues("memoryFile", cfg.MemoryFile)
	marker := cfg.MemoryFile + MarkerSuffix

	warm := false
	savedAt, reason := readSave(cfg.MemoryFile)
	if reason == "" {
		logChangedArgs(cfg.MemoryFile, append(slices.Clone(cfg.Args), fileArgs...), log)
		wait := time.Until(savedAt.Truncate(time.Second).Add(time.Second + secondMargin))
		if wait > maxWait {
			reason = "the clock is behind the save's time"
		} else {
			log.Info("Starting warm", "savedAt", savedAt.Format(time.RFC3339Nano), "wait", max(wait, 0).String())
			if stopped := sleep(wait, cfg.Signals); stopped != nil {
				// memcached never ran: the save and its marker stay good for the next start.
				log.Info("Stopped before memcached started; the save is kept", "signal", stopped.String())
				return 0, nil
			}
			if err := os.Remove(marker); err != nil {
				return 1, fmt.Errorf("failed to remove the marker %s: %w", marker, err)
			}
			warm = true
		}
	}
	if !warm {
		log.Info("Starting cold", "reason", reason)
		if err := removeSave(cfg.MemoryFile); err != nil {
			return 1, err
		}
	}

	for first := true; ; first = false {
		if !first {
			if fileArgs, err = readArgsFile(cfg.ArgsFile); err != nil {
				return 1, err
			}
		}
		args := append(slices.Clone(cfg.Args), fileArgs...)
		code, requested, ran, err := runOnce(bin, cfg, args, fileArgs, warm, log)
		if err != nil {
			return 1, err
		}
		switch {
		case requested:
			_, metaErr := os.Stat(cfg.MemoryFile + MetaSuffix)
			if code != 0 || metaErr != nil {
				log.Info("memcached stopped without a complete save; the next start is cold", "exitCode", code)
				return code, nil
			}
			if b, err := json.Marshal(args); err == nil {
				// Only for the log of what changed at the next start: no reason to lose the save.
				if err := writeDurably(cfg.MemoryFile+ArgsSuffix, append(b, '\n'), "the arguments' record"); err != nil {
					log.Error(err, "Failed to record memcached's arguments beside the save")
				}
			}
			now := time.Now()
			if err := writeDurably(marker, []byte(now.UTC().Format(time.RFC3339Nano)+"\n"), "the marker"); err != nil {
				return 1, err
			}
			log.Info("memcached saved its cache", "savedAt", now.Format(time.RFC3339Nano), "exitCode", code)
			return code, nil
		case warm && ran < cfg.WarmStartWindow:
			log.Error(fmt.Errorf("memcached exited with status %d %s after a warm start", code, ran.Round(time.Millisecond)),
				"Warm start failed; starting cold", "exitCode", code)
			if err := removeSave(cfg.MemoryFile); err != nil {
				return 1, err
			}
			warm = false
		case code != 0:
			log.Error(fmt.Errorf("memcached exited with status %d", code), "memcached exited on its own; the next start is cold",
				"exitCode", code, "ranFor", ran.Round(time.Millisecond).String())
			return code, nil
		default:
			log.Info("memcached exited on its own; the next start is cold", "exitCode", code, "ranFor", ran.Round(time.Millisecond).String())
			return code, nil
		}
	}
}

// readSave returns the stop time of the save over memoryFile when the launcher saw it complete
// and its files are there, else why the start is cold.
func readSave(memoryFile string) (time.Time, string) {
	b, err := os.ReadFile(memoryFile + MarkerSuffix)
	if errors.Is(err, os.ErrNotExist) {
		return time.Time{}, "no graceful save: first start, or the last stop was not graceful"
	}
	if err != nil {
		return time.Time{}, fmt.Sprintf("unreadable marker: %v", err)
	}
	savedAt, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(b)))
	if err != nil {
		return time.Time{}, fmt.Sprintf("unreadable marker: %v", err)
	}
	for _, f := range []string{memoryFile, memoryFile + MetaSuffix} {
		if _, err := os.Stat(f); err != nil {
			return time.Time{}, fmt.Sprintf("the save is incomplete: %v", err)
		}
	}
	return savedAt, ""
}

// sleep waits d, or returns the stop signal (SIGTERM, SIGINT, SIGUSR1) that came first.
func sleep(d time.Duration, signals <-chan os.Signal) os.Signal {
	timer := time.NewTimer(max(d, 0))
	defer timer.Stop()
	for {
		select {
		case <-timer.C:
			return nil
		case sig := <-signals:
			if sig != syscall.SIGHUP {
				return sig
			}
		}
	}
}

// runOnce runs memcached with args over cfg.MemoryFile until it exits and returns its exit
// status, whether a stop was requested (the launcher sent SIGUSR1) and how long it ran. fileArgs
// are the part of args read from cfg.ArgsFile: other valid arguments there stop memcached.
func runOnce(bin string, cfg Config, args, fileArgs []string, warm bool, log logr.Logger) (int, bool, time.Duration, error) {
	cmd := exec.Command(bin, append(slices.Clone(args), "-e", cfg.MemoryFile)...)
	cmd.Stdout, cmd.Stderr = cfg.Stdout, cfg.Stderr
	if cmd.Stdout == nil {
		cmd.Stdout = os.Stdout
	}
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	reloadSum := fileSum(cfg.ReloadFile)
	// The args file's content last seen (an unreadable file counts as its error's text); none
	// yet, so the first read compares the file with fileArgs, read before memcached started.
	argsSeen := []byte("\x00not read yet")
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 1, false, 0, fmt.Errorf("failed to start memcached: %w", err)
	}
	log.Info("Started memcached", "pid", cmd.Process.Pid, "warm", warm, "args", args)
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	var reload <-chan time.Time
	if cfg.ReloadFile != "" || cfg.ArgsFile != "" {
		t := time.NewTicker(cfg.ReloadInterval)
		defer t.Stop()
		reload = t.C
	}
	send := func(sig os.Signal) {
		if err := cmd.Process.Signal(sig); err != nil {
			log.Error(err, "Failed to signal memcached", "signal", sig.String())
		}
	}
	requested := false
	for {
		select {
		case <-exited:
			ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
			code := ws.ExitStatus()
			if ws.Signaled() {
				code = 128 + int(ws.Signal())
			}
			return code, requested, time.Since(start), nil
		case sig := <-cfg.Signals:
			switch {
			case sig == syscall.SIGHUP:
				log.Info("Forwarding SIGHUP")
				send(sig)
			case requested:
				log.Info("Already stopping memcached", "signal", sig.String())
			default:
				requested = true
				log.Info("Stopping memcached with a save (SIGUSR1)", "signal", sig.String())
				send(syscall.SIGUSR1)
			}
		case <-reload:
			if sum := fileSum(cfg.ReloadFile); sum != reloadSum && sum != ([sha256.Size]byte{}) {
				reloadSum = sum
				log.Info("The reload file changed; sending SIGHUP", "file", cfg.ReloadFile)
				send(syscall.SIGHUP)
			}
			if cfg.ArgsFile == "" || requested {
				continue
			}
			content := argsFileContent(cfg.ArgsFile)
			if bytes.Equal(content, argsSeen) {
				continue
			}
			argsSeen = content
			newArgs, err := readArgsFile(cfg.ArgsFile)
			switch {
			case err != nil:
				log.Error(err, "The arguments file changed to invalid arguments; memcached keeps running with its own", "file", cfg.ArgsFile, "args", fileArgs)
			case !slices.Equal(newArgs, fileArgs):
				requested = true
				log.Info("Arguments changed; restarting memcached with its items", "file", cfg.ArgsFile, "oldArgs", fileArgs, "newArgs", newArgs)
				send(syscall.SIGUSR1)
			}
		}
	}
}

// fileSum returns the SHA-256 of path's content, zero when it cannot be read (a Secret volume
// between two updates): no reload is sent for it.
func fileSum(path string) [sha256.Size]byte {
	if path == "" {
		return [sha256.Size]byte{}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return [sha256.Size]byte{}
	}
	return sha256.Sum256(b)
}

// checkArgs refuses memcached arguments that set the memory file: the launcher sets -e.
func checkArgs(args []string) error {
	for _, a := range args {
		if a == "-e" || (strings.HasPrefix(a, "-e") && !strings.HasPrefix(a, "--")) || strings.HasPrefix(a, "--memory-file") {
			return fmt.Errorf("its arguments set the memory file (%s); the launcher sets -e", a)
		}
	}
	return nil
}

// readArgsFile returns the memcached arguments in path, a JSON array of strings that checkArgs
// accepts; nil for no path.
func readArgsFile(path string) ([]string, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("failed to read memcached's arguments: %w", err)
	}
	args, err := parseArgs(b)
	if err == nil {
		err = checkArgs(args)
	}
	if err != nil {
		return nil, fmt.Errorf("failed to read memcached's arguments from %s: %w", path, err)
	}
	return args, nil
}

// parseArgs decodes a JSON array of strings; an empty file, null, or an element that is not a
// string is an error.
func parseArgs(b []byte) ([]string, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil, errors.New("the file is empty, not a JSON array of strings")
	}
	var raw []json.RawMessage
	if b[0] != '[' || json.Unmarshal(b, &raw) != nil {
		return nil, errors.New("not a JSON array of strings")
	}
	args := make([]string, len(raw))
	for i, r := range raw {
		if len(r) == 0 || r[0] != '"' || json.Unmarshal(r, &args[i]) != nil {
			return nil, fmt.Errorf("element %d (%s) is not a string", i, r)
		}
	}
	return args, nil
}

// argsFileContent returns path's content, or for a file that cannot be read the error's text
// (prefixed by a NUL, which a JSON text never holds), to tell one content from another.
func argsFileContent(path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		return []byte("\x00" + err.Error())
	}
	return b
}

// logChangedArgs logs, before a warm start with args, the options that differ from those
// recorded with the save (ArgsSuffix); nothing when there is no record or nothing changed.
func logChangedArgs(memoryFile string, args []string, log logr.Logger) {
	b, err := os.ReadFile(memoryFile + ArgsSuffix)
	if err != nil {
		return
	}
	saved, err := parseArgs(b)
	if err != nil || slices.Equal(saved, args) {
		return
	}
	was, now := options(saved), options(args)
	var removed, added []string
	for _, o := range was {
		if !slices.Contains(now, o) {
			removed = append(removed, o)
		}
	}
	for _, o := range now {
		if !slices.Contains(was, o) {
			added = append(added, o)
		}
	}
	log.Info("memcached's arguments differ from the saved run's; it restores the items only if its memory settings (-m, -I, chunk sizes, ...) are the same",
		"removed", removed, "added", added)
}

// options groups args into options, each with its value when the next argument is not an option
// ("-t 4", "-M", "--threads=4"): good enough to show what changed.
func options(args []string) []string {
	var opts []string
	for i := 0; i < len(args); i++ {
		o := args[i]
		if strings.HasPrefix(o, "-") && len(o) == 2 && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			i++
			o += " " + args[i]
		}
		opts = append(opts, o)
	}
	return opts
}

// removeSave removes the memory file, its metadata, the marker and the arguments' record (what is
// missing is fine), so memcached starts over a new, empty file and the old file's memory is freed.
func removeSave(memoryFile string) error {
	for _, f := range []string{memoryFile + MarkerSuffix, memoryFile + MarkerSuffix + ".tmp", memoryFile + ArgsSuffix, memoryFile + ArgsSuffix + ".tmp", memoryFile + MetaSuffix, memoryFile} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("failed to remove %s: %w", f, err)
		}
	}
	return nil
}

// writeDurably writes b to path (what names it in errors) durably and atomically: a temporary
// file, synced, renamed over path, and the directory synced.
func writeDurably(path string, b []byte, what string) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("failed to create %s %s: %w", what, tmp, err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("failed to write %s %s: %w", what, tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("failed to rename %s to %s: %w", what, path, err)
	}
	dir, err := os.Open(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("failed to open the directory of %s: %w", what, err)
	}
	defer dir.Close() //nolint:errcheck // read-only
	if err := dir.Sync(); err != nil {
		return fmt.Errorf("failed to sync the directory of %s: %w", what, err)
	}
	return nil
}
