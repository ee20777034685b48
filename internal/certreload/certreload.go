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

// Package certreload is the memcached pods' certificate reloader: a sidecar that sends memcached's
// refresh_certs command when the kubelet has updated the TLS Secret mounted in the pod, so a
// certificate renewal reaches the running servers without a restart (and every key survives).
//
// memcached (1.5.13 and later, built with TLS) reloads ssl_chain_cert, ssl_key and ssl_ca_cert on
// refresh_certs and answers "OK", or an error and keeps serving with what it had. The command goes
// to memcached's plain-text listener on the pod's loopback address (-l notls:127.0.0.1:11212),
// which only the pod's own containers reach; with -Y (spec.auth) the connection first
// authenticates with the auth file's first entry, as any client must.
package certreload

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-logr/logr"

	"github.com/example/memcached-operator/internal/memcachedauth"
)

// The files of the mounted TLS directory, as the operator's pod template names them.
const (
	CertFile = "tls.crt"
	KeyFile  = "tls.key"
	CAFile   = "ca.crt"
)

// Config is what the reloader watches and whom it tells.
type Config struct {
	// Dir is the mounted TLS directory holding CertFile, KeyFile and, with a client CA, CAFile.
	Dir string
	// Address is memcached's plain-text loopback listener, e.g. 127.0.0.1:11212.
	Address string
	// AuthFile is memcached's -Y file when authentication is on, "" otherwise.
	AuthFile string
	// Interval is how often the files are read. The kubelet replaces a Secret volume's files at
	// once (it swaps the directory's ..data symlink), so reading every few seconds sees each update
	// whole; polling three small files costs nothing measurable, which is why no file-notification
	// library is used (inotify on a symlink swap reports the directory, not the files).
	Interval time.Duration
	// Timeout bounds one exchange with memcached (dial, authenticate, refresh).
	Timeout time.Duration
}

// Run reads the files every cfg.Interval and sends refresh_certs whenever their content differs
// from what memcached last loaded successfully (at the start: once, so a Secret updated between
// memcached's start and the reloader's is applied too). A certificate and key that do not form a
// key pair, or a CA file without a certificate, are not sent (memcached would load the certificate
// and then refuse the key, and be left with a certificate it cannot serve): the reloader logs it
// once and waits for the next update. A failed refresh is retried at every read and logged when
// its error differs from the last one, so a memcached that is not up yet, or refuses, costs one log
// line, not one per interval. It returns when ctx is done.
func Run(ctx context.Context, cfg Config, log logr.Logger) error {
	if cfg.Interval <= 0 {
		return errors.New("failed to start the certificate reloader: the interval must be positive")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	var loaded [sha256.Size]byte
	// reported starts apart from every sum (a failed read's included), so the first problem is
	// logged; once is the first refresh that memcached answered.
	reported := [sha256.Size]byte{1}
	var lastErr string
	once := false
	tick := time.NewTicker(cfg.Interval)
	defer tick.Stop()
	for {
		files, sum, err := read(cfg.Dir)
		switch {
		case err != nil:
			if sum != reported {
				log.Info("Not reloading: the mounted files are not a usable certificate", "dir", cfg.Dir, "reason", err.Error())
				reported = sum
			}
		case sum != loaded:
			if err := refresh(ctx, cfg); err != nil {
				switch {
				case err.Error() == lastErr:
				case !once:
					// At the pod's start memcached may not listen yet: not an error.
					log.Info("Waiting for memcached to take the certificate (retrying)", "address", cfg.Address, "reason", err.Error())
				default:
					log.Error(err, "Failed to reload the certificate; memcached keeps serving the one it has (retrying)", "address", cfg.Address)
				}
				lastErr = err.Error()
			} else {
				loaded, reported, lastErr, once = sum, sum, "", true
				log.Info("memcached reloaded its certificate", "subject", files.subject, "notAfter", files.notAfter.UTC().Format(time.RFC3339), "serial", files.serial)
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// certFiles describes the certificate read from the directory.
type certFiles struct {
	subject, serial string
	notAfter        time.Time
}

// read returns the leaf certificate of dir's files and the SHA-256 of their contents, with an error
// when they are not a usable key pair (and CA).
func read(dir string) (certFiles, [sha256.Size]byte, error) {
	var out certFiles
	h := sha256.New()
	data := map[string][]byte{}
	for _, name := range []string{CertFile, KeyFile, CAFile} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil && !(name == CAFile && errors.Is(err, os.ErrNotExist)) {
			var sum [sha256.Size]byte
			return out, sum, fmt.Errorf("failed to read %s: %w", name, err)
		}
		fmt.Fprintf(h, "%s %d\n", name, len(b))
		h.Write(b)
		data[name] = b
	}
	var sum [sha256.Size]byte
	copy(sum[:], h.Sum(nil))
	pair, err := tls.X509KeyPair(data[CertFile], data[KeyFile])
	if err != nil {
		return out, sum, fmt.Errorf("%s and %s are not a certificate and its key: %w", CertFile, KeyFile, err)
	}
	if ca, ok := data[CAFile]; ok && ca != nil && !x509.NewCertPool().AppendCertsFromPEM(ca) {
		return out, sum, fmt.Errorf("%s holds no PEM certificate", CAFile)
	}
	leaf := pair.Leaf
	if leaf == nil {
		if leaf, err = x509.ParseCertificate(pair.Certificate[0]); err != nil {
			return out, sum, fmt.Errorf("failed to parse %s: %w", CertFile, err)
		}
	}
	out = certFiles{subject: leaf.Subject.String(), serial: leaf.SerialNumber.String(), notAfter: leaf.NotAfter}
	return out, sum, nil
}

// refresh authenticates when cfg.AuthFile is set and sends refresh_certs, returning memcached's
// error when it does not answer OK.
func refresh(ctx context.Context, cfg Config) error {
	d := net.Dialer{Timeout: cfg.Timeout}
	conn, err := d.DialContext(ctx, "tcp", cfg.Address)
	if err != nil {
		return fmt.Errorf("failed to connect to memcached at %s: %w", cfg.Address, err)
	}
	defer conn.Close() //nolint:errcheck // read-only use after the reply
	if err := conn.SetDeadline(time.Now().Add(cfg.Timeout)); err != nil {
		return fmt.Errorf("failed to set a deadline: %w", err)
	}
	r := bufio.NewReader(conn)
	if cfg.AuthFile != "" {
		user, pass, err := memcachedauth.FirstCredential(cfg.AuthFile)
		if err != nil {
			return err
		}
		if err := memcachedauth.Authenticate(conn, r, user, pass); err != nil {
			return err
		}
	}
	if _, err := conn.Write([]byte("refresh_certs\r\n")); err != nil {
		return fmt.Errorf("failed to send refresh_certs: %w", err)
	}
	line, err := r.ReadString('\n')
	if err != nil {
		return fmt.Errorf("failed to read memcached's answer to refresh_certs: %w", err)
	}
	if line = strings.TrimSpace(line); line != "OK" {
		return fmt.Errorf("memcached refused refresh_certs: %s", line)
	}
	return nil
}
