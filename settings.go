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
	"errors"
	"fmt"
	"math"
	"net"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/resources"
	"github.com/example/memcached-operator/internal/platform"
	"github.com/example/memcached-operator/internal/watchnamespace"
)

// The environment variables the operator reads at start (check).
const (
	// relatedImageEnv holds the default memcached image; OLM lists RELATED_IMAGE_* values of the
	// CSV's Deployment in spec.relatedImages, so disconnected mirrors know about it.
	relatedImageEnv = "RELATED_IMAGE_MEMCACHED"
	// relatedImageExporterEnv holds the default memcached_exporter image (spec.monitoring), listed
	// in spec.relatedImages the same way; resources.DefaultExporterImage when unset.
	relatedImageExporterEnv = "RELATED_IMAGE_MEMCACHED_EXPORTER"
	// relatedImageCertReloaderEnv holds the operator's own image, whose /cert-reloader runs as the
	// certificate reloader sidecar of pods with spec.tls (resources.Options.CertReloaderImage); the shipped
	// manifests set it to the manager container's image (config/manager), so OLM lists it in
	// spec.relatedImages as well.
	relatedImageCertReloaderEnv = "RELATED_IMAGE_CERT_RELOADER"
	// podUIDsEnv chooses who picks the memcached pods' UID (platform.UIDPolicy): auto (default),
	// fixed (11211) or platform (OpenShift's SecurityContextConstraints assign it).
	podUIDsEnv = "POD_UIDS"
	// operatorConditionEnv is set by OLM to the name of the operator's OperatorCondition.
	operatorConditionEnv = "OPERATOR_CONDITION_NAME"
)

// settings is everything the operator reads at start, from its flags and its environment, checked.
type settings struct {
	// metricsAddr is --metrics-bind-address: host:port, or "0" to disable the endpoint.
	metricsAddr string
	// metricsCertPath is --metrics-cert-path: the directory of the metrics serving certificate, ""
	// for a self-signed one; metricsCertName and metricsCertKey name its files there.
	metricsCertPath, metricsCertName, metricsCertKey string
	// probeAddr is --health-probe-bind-address: host:port, or "0" to disable the probes.
	probeAddr string
	// leaderElectionNamespace is --leader-election-namespace: a namespace name, or "" for the pod's.
	leaderElectionNamespace string
	// secureMetrics, leaderElect and enableHTTP2 are the boolean flags (parsed by the flag package).
	secureMetrics, leaderElect, enableHTTP2 bool
	// pprofAddr is --pprof-bind-address: host:port of Go's /debug/pprof, or "0" (the default) for none.
	pprofAddr string
	// maxConcurrentReconciles is --max-concurrent-reconciles: Memcacheds reconciled at once (≥ 1).
	maxConcurrentReconciles int
	// kubeAPIQPS and kubeAPIBurst are --kube-api-qps and --kube-api-burst: the client-side limit of
	// requests per second to the API server and its burst; 0 (the default) means no client-side
	// limit, the API server's priority and fairness alone (controller-runtime's default).
	kubeAPIQPS   float64
	kubeAPIBurst int

	// namespaces are the namespaces of WATCH_NAMESPACE, sorted and deduplicated; empty means all.
	namespaces []string
	// defaultImage is RELATED_IMAGE_MEMCACHED, a valid image reference.
	defaultImage string
	// defaultExporterImage is RELATED_IMAGE_MEMCACHED_EXPORTER, a valid image reference, or
	// resources.DefaultExporterImage when the variable is unset.
	defaultExporterImage string
	// certReloaderImage is RELATED_IMAGE_CERT_RELOADER, the operator's own image, a valid image
	// reference, or "" when the variable is unset (then spec.tls renewals roll the pods).
	certReloaderImage string
	// operatorConditionName is OPERATOR_CONDITION_NAME, set by OLM; "" means no OperatorCondition.
	operatorConditionName string
	// uidPolicy is POD_UIDS: auto (the default when unset), fixed or platform
	// (platform.UIDPolicy).
	uidPolicy platform.UIDPolicy
}

// check validates s, whose flag fields are already set, and fills in its environment fields from
// getenv. It reports every bad setting at once, each error naming the flag or variable and
// saying why, so the operator stops before its first API call or write.
func (s *settings) check(getenv func(string) string) error {
	var errs []error
	for _, f := range []struct{ name, addr string }{{"--metrics-bind-address", s.metricsAddr}, {"--health-probe-bind-address", s.probeAddr}, {"--pprof-bind-address", s.pprofAddr}} {
		if err := checkBindAddress(f.addr); err != nil {
			errs = append(errs, fmt.Errorf("flag %s=%q: %w", f.name, f.addr, err))
		}
	}
	if s.metricsCertPath != "" && (s.metricsCertName == "" || s.metricsCertKey == "") {
		errs = append(errs, fmt.Errorf("flags --metrics-cert-name=%q and --metrics-cert-key=%q must name the files in --metrics-cert-path", s.metricsCertName, s.metricsCertKey))
	}
	if s.maxConcurrentReconciles < 1 {
		errs = append(errs, fmt.Errorf("flag --max-concurrent-reconciles=%d must be at least 1", s.maxConcurrentReconciles))
	}
	if q := s.kubeAPIQPS; math.IsNaN(q) || q > math.MaxFloat32 {
		// rest.Config.QPS is a float32: NaN would pass the checks below, and anything larger
		// becomes +Inf there, a limit in name only.
		errs = append(errs, fmt.Errorf("flag --kube-api-qps=%g is not a number of requests per second up to %g", q, math.MaxFloat32))
	} else if s.kubeAPIQPS < 0 || s.kubeAPIBurst < 0 || (s.kubeAPIQPS > 0) != (s.kubeAPIBurst > 0) {
		errs = append(errs, fmt.Errorf("flags --kube-api-qps=%g and --kube-api-burst=%d must both be 0 (no client-side limit) or both positive", s.kubeAPIQPS, s.kubeAPIBurst))
	}
	if ns := s.leaderElectionNamespace; ns != "" {
		if msgs := validation.IsDNS1123Label(ns); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("flag --leader-election-namespace=%q is not a namespace name: %s", ns, strings.Join(msgs, "; ")))
		}
	}

	namespaces, err := watchnamespace.Parse(getenv(watchnamespace.EnvVar))
	if err != nil {
		errs = append(errs, err)
	}
	s.namespaces = namespaces

	s.defaultImage = getenv(relatedImageEnv)
	if s.defaultImage == "" {
		errs = append(errs, fmt.Errorf("environment variable %s must be set to the default memcached image", relatedImageEnv))
	} else if err := checkImage(relatedImageEnv, s.defaultImage, "docker.io/library/memcached:1.6.38"); err != nil {
		errs = append(errs, err)
	}

	s.defaultExporterImage = getenv(relatedImageExporterEnv)
	if s.defaultExporterImage == "" {
		// Optional: operators started without it (make run, older deployments) use the public image.
		s.defaultExporterImage = resources.DefaultExporterImage
	} else if err := checkImage(relatedImageExporterEnv, s.defaultExporterImage, resources.DefaultExporterImage); err != nil {
		errs = append(errs, err)
	}

	// Optional: an operator started without it (make run, a Deployment of an older release) runs no
	// reloader.
	s.certReloaderImage = getenv(relatedImageCertReloaderEnv)
	if s.certReloaderImage != "" {
		if err := checkImage(relatedImageCertReloaderEnv, s.certReloaderImage, "registry.example.com/memcached-operator:v0.2.3"); err != nil {
			errs = append(errs, err)
		}
	}

	s.operatorConditionName = getenv(operatorConditionEnv)
	if name := s.operatorConditionName; name != "" {
		if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("environment variable %s=%q is not an object name: %s", operatorConditionEnv, name, strings.Join(msgs, "; ")))
		}
	}

	switch p := platform.UIDPolicy(getenv(podUIDsEnv)); p {
	case "":
		s.uidPolicy = platform.UIDsAuto
	case platform.UIDsAuto, platform.UIDsFixed, platform.UIDsPlatform:
		s.uidPolicy = p
	default:
		errs = append(errs, fmt.Errorf("environment variable %s=%q must be %s, %s or %s", podUIDsEnv, p, platform.UIDsAuto, platform.UIDsFixed, platform.UIDsPlatform))
	}

	// Read by Go's net/http for the operator's own connections (client-go's, to the API server,
	// unless NO_PROXY covers it): an invalid proxy would fail every request, so the operator stops
	// here instead. The message never carries the value, which may hold a user and password.
	for _, name := range proxyEnvVars {
		if v := getenv(name); v != "" {
			if err := checkProxyURL(v); err != nil {
				errs = append(errs, fmt.Errorf("environment variable %s (value not shown: it may hold credentials): %w", name, err))
			}
		}
	}
	return errors.Join(errs...)
}

// checkImage checks the image reference img of environment variable env with the API's rule for
// spec.image (cachev1alpha1.ValidateImageReference): the default image goes into the same field.
// example is a valid reference for the message.
func checkImage(env, img, example string) error {
	errs := cachev1alpha1.ValidateImageReference(field.NewPath(env), img)
	switch {
	case len(errs) == 0:
		return nil
	case errs[0].Type == field.ErrorTypeTooLong:
		return fmt.Errorf("environment variable %s is %d characters long, more than %d", env, utf8.RuneCountInString(img), cachev1alpha1.MaxImageLength)
	default:
		return fmt.Errorf("environment variable %s=%q is not an image reference ([host[:port]/]path[:tag][@digest], e.g. %s)", env, img, example)
	}
}

// checkBindAddress accepts what controller-runtime accepts for its listeners: "0" (disabled) or
// host:port with a numeric port 0..65535 (an empty host listens on every address).
func checkBindAddress(addr string) error {
	if addr == "0" {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("not host:port or 0: %w", err)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("port %q is not a number between 0 and 65535", port)
	}
	return nil
}

// proxyEnvVars are the proxy variables Go's net/http reads (golang.org/x/net/http/httpproxy
// FromEnvironment: each upper-case name, else its lower-case one).
var proxyEnvVars = []string{"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy"}

// checkProxyURL accepts a proxy as Go's net/http reads it (golang.org/x/net/http/httpproxy): a
// URL with a scheme and a host, or host[:port], taken as http://host[:port]. Its errors never
// quote v nor url.Parse's error, which quotes v (a proxy URL may carry user:password@).
func checkProxyURL(v string) error {
	const want = "not a proxy URL ([scheme://][user:password@]host[:port])"
	if !strings.Contains(v, "://") {
		v = "http://" + v
	}
	u, err := url.Parse(v)
	if err != nil {
		return errors.New(want)
	}
	if u.Host == "" {
		return errors.New(want + ": no host")
	}
	return nil
}
