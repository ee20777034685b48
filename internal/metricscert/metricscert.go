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

// Package metricscert chooses the certificate of the operator's HTTPS metrics endpoint: the one
// mounted from a Secret (cert-manager's Certificate of config/certmanager, or OpenShift's
// service-ca serving certificate), which Prometheus verifies, as soon as it is present, and a
// self-signed one until then.
//
// Own code around controller-runtime's certwatcher because controller-runtime's metrics server
// looks for the files once, when it starts: without them it serves a self-signed certificate
// until the process ends. The shipped Deployment mounts the Secret as optional (an OLM install on
// a cluster without service-ca has none), and cert-manager and service-ca write it asynchronously,
// so the pod may start before it exists; Prometheus would then fail every scrape until the
// operator restarted. A Source looks for the files at each TLS handshake until they appear, then
// hands over to a certwatcher, which follows renewals.
package metricscert

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"sync"

	"github.com/go-logr/logr"
	certutil "k8s.io/client-go/util/cert"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
)

// Source is the metrics endpoint's certificate: GetCertificate serves the key pair at CertPath
// and KeyPath once both files exist, a self-signed one before.
type Source struct {
	ctx               context.Context
	log               logr.Logger
	certPath, keyPath string
	selfSigned        tls.Certificate

	mu      sync.Mutex
	watcher *certwatcher.CertWatcher
}

// New returns a Source for the key pair at certPath and keyPath. The certwatcher it starts when
// the files appear stops with ctx. It fails only when no self-signed certificate can be made.
func New(ctx context.Context, log logr.Logger, certPath, keyPath string) (*Source, error) {
	// What controller-runtime's metrics server serves without a certificate: for localhost and
	// 127.0.0.1, signed by a CA made for it alone, so no client verifies it.
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey("localhost", []net.IP{net.IPv4(127, 0, 0, 1)}, nil)
	if err != nil {
		return nil, fmt.Errorf("failed to generate self-signed metrics certificate: %w", err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("failed to load self-signed metrics certificate: %w", err)
	}
	return &Source{ctx: ctx, log: log, certPath: certPath, keyPath: keyPath, selfSigned: pair}, nil
}

// Mounted reports whether the Source serves the mounted certificate: both files exist and the
// first of them loaded. It is what GetCertificate checks, without a handshake.
func (s *Source) Mounted() (bool, error) {
	w, err := s.mounted()
	return w != nil, err
}

// GetCertificate is a tls.Config's GetCertificate: the mounted certificate when its files exist
// (an error if they do not hold a key pair: the handshake fails rather than fall back to a
// certificate no client verifies), else the self-signed one.
func (s *Source) GetCertificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	w, err := s.mounted()
	if err != nil {
		return nil, err
	}
	if w == nil {
		return &s.selfSigned, nil
	}
	return w.GetCertificate(hello)
}

// mounted returns the certwatcher of the mounted key pair, starting it the first time both files
// exist; nil while either is missing.
func (s *Source) mounted() (*certwatcher.CertWatcher, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.watcher != nil {
		return s.watcher, nil
	}
	for _, p := range []string{s.certPath, s.keyPath} {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		} else if err != nil {
			return nil, fmt.Errorf("failed to read metrics certificate file %s: %w", p, err)
		}
	}
	w, err := certwatcher.New(s.certPath, s.keyPath)
	if err != nil {
		return nil, fmt.Errorf("failed to load metrics certificate %s: %w", s.certPath, err)
	}
	go func() {
		if err := w.Start(s.ctx); err != nil {
			s.log.Error(err, "Metrics certificate watcher stopped", "cert", s.certPath)
		}
	}()
	s.log.Info("Serving metrics with the mounted certificate", "cert", s.certPath)
	s.watcher = w
	return w, nil
}
