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

// Command manager runs the memcached-operator: a controller-runtime Manager with the Memcached
// controller, scoped to the namespaces in WATCH_NAMESPACE.
package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	operatorsv2 "github.com/operator-framework/api/pkg/operators/v2"
	"github.com/operator-framework/operator-lib/conditions"
	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers"
	"github.com/example/memcached-operator/controllers/cache"
	"github.com/example/memcached-operator/controllers/resources"
	"github.com/example/memcached-operator/controllers/upgradeable"
	"github.com/example/memcached-operator/internal/leaderready"
	"github.com/example/memcached-operator/internal/logging"
	"github.com/example/memcached-operator/internal/metricsauth"
	"github.com/example/memcached-operator/internal/metricscert"
	"github.com/example/memcached-operator/internal/platform"
)

const (
	// defaultMaxConcurrentReconciles is --max-concurrent-reconciles' default (see the flag).
	defaultMaxConcurrentReconciles = 4
	// leaderElectionID names the leader election Lease.
	leaderElectionID = "memcached-operator.cache.example.com"
	// inClusterNamespaceFile holds the pod's namespace, where the Lease is when
	// --leader-election-namespace is not set (as controller-runtime reads it).
	inClusterNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"
)

var (
	scheme   = runtime.NewScheme()
	setupLog = ctrl.Log.WithName("setup")
)

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(cachev1alpha1.AddToScheme(scheme))
	utilruntime.Must(monitoringv1.AddToScheme(scheme))
}

// defaultGCPercent is the garbage collector's target (GOGC: how far, in percent of the live heap,
// the heap may grow before the next collection) when the environment sets no GOGC; Go's own
// default is 100. The operator's live heap is small and most of its time is spent waiting on the
// API server, so collecting twice as often trades a little CPU for the headroom Go's default
// leaves (docs/performance.md, "Rules the measurements support", has the figures); Prometheus
// made the same trade for the same reason (GOGC=75 unless set:
// https://github.com/prometheus/prometheus/pull/14285). A GOGC in the
// environment (the Deployment's env, a Subscription's spec.config.env) wins.
const defaultGCPercent = 50

// applyGCPercent sets the garbage collector's target to defaultGCPercent unless lookupEnv finds a
// non-empty GOGC, which the Go runtime applied at start (an empty GOGC is unset for the runtime
// too: runtime package docs). It returns the target in effect as GOGC spells it: a percentage, or
// "off" when collection is disabled (GOGC=off). A GOGC the runtime cannot parse leaves Go's
// default, 100, which is what is returned.
func applyGCPercent(lookupEnv func(string) (string, bool)) string {
	if v, ok := lookupEnv("GOGC"); !ok || v == "" {
		debug.SetGCPercent(defaultGCPercent)
		return strconv.Itoa(defaultGCPercent)
	}
	// The runtime has no getter: SetGCPercent returns the previous target, which is put back.
	cur := debug.SetGCPercent(100)
	debug.SetGCPercent(cur)
	if cur < 0 {
		return "off"
	}
	return strconv.Itoa(cur)
}

func main() {
	gogc := applyGCPercent(os.LookupEnv)
	var s settings
	flag.StringVar(&s.metricsAddr, "metrics-bind-address", ":8443",
		"Address the metrics endpoint binds to: :8443 serves HTTPS, e.g. 127.0.0.1:8080 with --metrics-secure=false for a local run; 0 disables it.")
	flag.BoolVar(&s.secureMetrics, "metrics-secure", true,
		"Serve metrics over HTTPS, allowing only callers whose token may 'get' the /metrics non-resource URL (TokenReview + SubjectAccessReview). Set false only for plain HTTP on loopback.")
	flag.StringVar(&s.metricsCertPath, "metrics-cert-path", "",
		"Directory of the metrics endpoint's serving certificate (a Secret volume: cert-manager's or OpenShift service-ca's), served as soon as its files exist; until then, or when empty, a self-signed certificate no client can verify.")
	flag.StringVar(&s.metricsCertName, "metrics-cert-name", "tls.crt", "File name of the metrics serving certificate in --metrics-cert-path.")
	flag.StringVar(&s.metricsCertKey, "metrics-cert-key", "tls.key", "File name of the metrics serving certificate's key in --metrics-cert-path.")
	flag.BoolVar(&s.enableHTTP2, "enable-http2", false, "Allow HTTP/2 on the metrics server (off: CVE-2023-44487, CVE-2023-39325).")
	flag.StringVar(&s.probeAddr, "health-probe-bind-address", ":8081", "Address of the /healthz and /readyz endpoints; 0 disables them.")
	flag.BoolVar(&s.leaderElect, "leader-elect", false, "Elect a leader with a Lease so only one replica reconciles.")
	flag.StringVar(&s.leaderElectionNamespace, "leader-election-namespace", "",
		"Namespace of the leader election Lease; defaults to the pod's namespace (required when running outside a cluster with --leader-elect).")
	flag.StringVar(&s.pprofAddr, "pprof-bind-address", "0",
		"Address of Go's /debug/pprof profiles, e.g. 127.0.0.1:6060 (no authentication: loopback only); 0 disables them.")
	// 4: fewer leave instances waiting in the queue, more start reconciles before a burst of pod
	// changes has landed (more status patches per instance, no sooner Available): the API server,
	// not the queue, is the limit (docs/performance.md).
	flag.IntVar(&s.maxConcurrentReconciles, "max-concurrent-reconciles", defaultMaxConcurrentReconciles,
		"Memcacheds reconciled at once (each reconcile waits on a few API round trips).")
	// 0, no client-side limit: one would make the operator, not the cluster, the bottleneck of a
	// converge; the API server's priority and fairness protects the cluster (docs/performance.md).
	flag.Float64Var(&s.kubeAPIQPS, "kube-api-qps", 0,
		"Client-side limit of requests per second to the API server; 0 means none: the API server's priority and fairness protects it (controller-runtime's default).")
	flag.IntVar(&s.kubeAPIBurst, "kube-api-burst", 0, "Burst above --kube-api-qps; 0 with --kube-api-qps=0.")
	opts := zap.Options{Development: false}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()
	// Cancelled when SIGTERM or SIGINT arrives; the manager stops with it.
	stopping := ctrl.SetupSignalHandler()
	ctrl.SetLogger(logging.QuietOnShutdown(zap.New(zap.UseFlagOptions(&opts)), stopping))

	if err := s.check(os.Getenv); err != nil {
		setupLog.Error(err, "Invalid configuration: the operator did not start and changed nothing")
		os.Exit(1)
	}
	setupLog.Info("Garbage collector target", "GOGC", gogc)
	if err := run(stopping, s); err != nil {
		setupLog.Error(err, "Operator stopped")
		os.Exit(1)
	}
}

// metricsOptions returns the options of the manager's metrics server for settings s: bound to
// --metrics-bind-address, over HTTPS behind controller-runtime's TokenReview + SubjectAccessReview
// filter when --metrics-secure (answering 401, not 500, to a token the API server rejects),
// HTTP/1.1 only unless --enable-http2, with the certificate getCertificate returns when it is not
// nil (metricsCertificate), else controller-runtime's self-signed one.
//
// Responses are never compressed (promhttp's DisableCompression), whatever the scraper accepts: a
// gzip writer holds a compressor of 0.8 MiB, which promhttp keeps in a sync.Pool until two garbage
// collections pass without a scrape. An idle operator collects every 2 minutes (the Go runtime's
// forced collection), so with Prometheus' usual 30 s interval it would hold one for good, to save
// a few hundred KB of cluster traffic per scrape (docs/performance.md).
func metricsOptions(s settings, getCertificate func(*tls.ClientHelloInfo) (*tls.Certificate, error)) metricsserver.Options {
	opts := metricsserver.Options{
		BindAddress:   s.metricsAddr,
		SecureServing: s.secureMetrics,
		HandlerOpts:   []func(*promhttp.HandlerOpts){func(o *promhttp.HandlerOpts) { o.DisableCompression = true }},
	}
	if !s.enableHTTP2 {
		opts.TLSOpts = append(opts.TLSOpts, func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} })
	}
	if getCertificate != nil {
		opts.TLSOpts = append(opts.TLSOpts, func(c *tls.Config) { c.GetCertificate = getCertificate })
	}
	if s.secureMetrics {
		opts.FilterProvider = metricsauth.WithAuthenticationAndAuthorization
	}
	return opts
}

// metricsCertificate returns the GetCertificate of the metrics endpoint for settings s: the key
// pair mounted in --metrics-cert-path once it exists (metricscert.Source), nil (controller-runtime's
// self-signed certificate) without --metrics-cert-path or without HTTPS.
func metricsCertificate(ctx context.Context, s settings) (func(*tls.ClientHelloInfo) (*tls.Certificate, error), error) {
	if !s.secureMetrics || s.metricsCertPath == "" {
		return nil, nil
	}
	certPath, keyPath := filepath.Join(s.metricsCertPath, s.metricsCertName), filepath.Join(s.metricsCertPath, s.metricsCertKey)
	src, err := metricscert.New(ctx, ctrl.Log.WithName("metrics-certificate"), certPath, keyPath)
	if err != nil {
		return nil, err
	}
	if mounted, err := src.Mounted(); err != nil {
		return nil, err
	} else if !mounted {
		setupLog.Info("No metrics certificate mounted yet: serving a self-signed one until it appears", "cert", certPath)
	}
	return src.GetCertificate, nil
}

// leaseNamespace is the leader-election Lease's namespace: --leader-election-namespace when set;
// otherwise, in a pod, leaderready.LeaseNamespace of the pod's namespace and the watched ones (OLM
// v1's SingleNamespace grants the Lease rules in the watched namespace only); "" outside a pod or
// without leader election (controller-runtime's default).
func leaseNamespace(ctx context.Context, cfg *rest.Config, s settings) (string, error) {
	if !s.leaderElect || s.leaderElectionNamespace != "" {
		return s.leaderElectionNamespace, nil
	}
	b, err := os.ReadFile(inClusterNamespaceFile)
	if err != nil {
		return "", nil
	}
	own := strings.TrimSpace(string(b))
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return "", fmt.Errorf("failed to create a clientset for the Lease's namespace: %w", err)
	}
	ns, err := leaderready.LeaseNamespace(ctx, own, s.namespaces, leaderready.SelfSubjectAccessReview(cs))
	if err != nil {
		return "", err
	}
	if ns != own {
		setupLog.Info("Leader election in the watched namespace: Leases may not be created in the operator's own", "leaseNamespace", ns, "ownNamespace", own)
	}
	return ns, nil
}

// run starts the manager with settings s (checked by settings.check) and blocks until ctx is
// cancelled and the manager has stopped.
func run(ctx context.Context, s settings) error {
	if len(s.namespaces) == 0 {
		setupLog.Info("Watching all namespaces")
	} else {
		setupLog.Info("Watching namespaces", "namespaces", s.namespaces)
	}

	getCertificate, err := metricsCertificate(ctx, s)
	if err != nil {
		return err
	}
	metricsOpts := metricsOptions(s, getCertificate)

	cfg := ctrl.GetConfigOrDie()
	if s.kubeAPIQPS > 0 {
		cfg.QPS, cfg.Burst = float32(s.kubeAPIQPS), s.kubeAPIBurst
	}
	leaseNS, err := leaseNamespace(ctx, cfg, s)
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metricsOpts,
		HealthProbeBindAddress:  s.probeAddr,
		PprofBindAddress:        s.pprofAddr,
		LeaderElection:          s.leaderElect,
		LeaderElectionID:        leaderElectionID,
		LeaderElectionNamespace: leaseNS,
		// Safe because the process exits as soon as the manager stops: a replacement (an upgrade
		// or a rescheduled pod) takes over at once instead of waiting for the lease to expire.
		LeaderElectionReleaseOnCancel: true,
		Cache:                         cache.ManagerOptions(s.namespaces),
	})
	if err != nil {
		return fmt.Errorf("failed to create manager: %w", err)
	}

	if err := setupUpgradeable(mgr, cfg, s.operatorConditionName); err != nil {
		return err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return fmt.Errorf("failed to create discovery client: %w", err)
	}
	platformUIDs, err := platform.ResolveUIDPolicy(dc, s.uidPolicy)
	if err != nil {
		return err
	}
	setupLog.Info("Pod UIDs", podUIDsEnv, s.uidPolicy, "platformAssignsUIDs", platformUIDs)

	if err := (&controllers.MemcachedReconciler{
		Client:    mgr.GetClient(),
		APIReader: mgr.GetAPIReader(),
		Scheme:    mgr.GetScheme(),
		Recorder:  mgr.GetEventRecorder("memcached-operator"),
		Options:   builderOptions(s, platformUIDs),

		MaxConcurrentReconciles: s.maxConcurrentReconciles,
		Namespaces:              s.namespaces,
	}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("failed to set up Memcached controller: %w", err)
	}
	if err := metrics.Registry.Register(&controllers.InstanceCollector{Reader: mgr.GetCache(), Elected: mgr.Elected()}); err != nil {
		return fmt.Errorf("failed to register the instance metrics: %w", err)
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return fmt.Errorf("failed to add health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return fmt.Errorf("failed to add ready check: %w", err)
	}
	if s.leaderElect {
		// Ready means able to do the work: leading, or standing by behind a leader that renews the
		// Lease; a replica refused the Lease fails readiness (leaderready). healthz stays a ping: a
		// restart would not get the Lease either.
		ns := leaseNS
		if ns == "" {
			b, err := os.ReadFile(inClusterNamespaceFile)
			if err != nil {
				return fmt.Errorf("failed to read the operator's namespace for the leader election Lease: %w", err)
			}
			ns = strings.TrimSpace(string(b))
		}
		check := &leaderready.Check{Elected: mgr.Elected(), Reader: mgr.GetAPIReader(),
			Lease: types.NamespacedName{Namespace: ns, Name: leaderElectionID}, Start: time.Now()}
		if err := mgr.AddReadyzCheck("leader-election", check.Check); err != nil {
			return fmt.Errorf("failed to add the leader election ready check: %w", err)
		}
	}

	setupLog.Info("Starting manager", "defaultImage", s.defaultImage, "defaultExporterImage", s.defaultExporterImage)
	return mgr.Start(ctx)
}

// builderOptions returns the builders' operator-wide inputs for settings s. The operator's proxy
// variables (HTTP_PROXY, HTTPS_PROXY, NO_PROXY) are not among them: memcached and its sidecars make
// no outbound connection (the exporter and the certificate reloader talk to memcached on loopback),
// and a proxy URL may carry credentials that would then be readable in every pod spec.
func builderOptions(s settings, platformAssignsUIDs bool) resources.Options {
	return resources.Options{
		DefaultImage:         s.defaultImage,
		DefaultExporterImage: s.defaultExporterImage,
		PlatformAssignsUIDs:  platformAssignsUIDs,
		CertReloaderImage:    s.certReloaderImage,
	}
}

// setupUpgradeable registers the Upgradeable controller when OLM gave the operator an
// OperatorCondition (OPERATOR_CONDITION_NAME set), and does nothing otherwise (local runs, OLM v1).
func setupUpgradeable(mgr ctrl.Manager, cfg *rest.Config, operatorConditionName string) error {
	if operatorConditionName == "" {
		setupLog.Info("OPERATOR_CONDITION_NAME is not set: not reporting the Upgradeable OperatorCondition")
		return nil
	}
	s := runtime.NewScheme()
	utilruntime.Must(operatorsv2.AddToScheme(s))
	// An uncached client: the OperatorCondition lives in the operator's namespace, which the
	// manager's cache may not watch.
	c, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		return fmt.Errorf("failed to create OperatorCondition client: %w", err)
	}
	cond, err := conditions.InClusterFactory{Client: c}.NewCondition(operatorsv2.ConditionType(operatorsv2.Upgradeable))
	if err != nil {
		return fmt.Errorf("failed to find the OperatorCondition named by %s: %w", operatorConditionEnv, err)
	}
	if err := (&upgradeable.Reconciler{Reader: mgr.GetCache(), Condition: cond, ConditionName: operatorConditionName}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("failed to set up Upgradeable controller: %w", err)
	}
	return nil
}
