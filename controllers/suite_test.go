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

package controllers

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"go.uber.org/zap/zapcore"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/internal/watchnamespace"

	"github.com/example/memcached-operator/controllers/cache"
	"github.com/example/memcached-operator/controllers/resources"
)

// The envtest suite runs the reconciler in a real Manager against a real kube-apiserver and etcd
// (KUBEBUILDER_ASSETS, built by `make envtest-assets`; `make test` sets it). There is no
// kube-controller-manager: Deployments get no status and no pods unless a test writes them, and
// nothing is garbage-collected. The Manager runs as the operator's ServiceAccount with only the
// shipped manager ClusterRole (asShippedManager), so every test also proves that RBAC suffices;
// the tests themselves use an admin client (k8sClient).

const (
	// testImage is the operator default image (RELATED_IMAGE_MEMCACHED) in the suite.
	testImage = "registry.example.com/memcached:1.6.38"
	// watchedNamespaces is the WATCH_NAMESPACE of the suite's manager; tests use these namespaces,
	// and t-unwatched (not in the list) to prove that the manager leaves other namespaces alone.
	watchedNamespaces = "t-create, t-status,t-drift,t-foreign,t-admission,t-quiet,t-two,t-optional,t-scale,t-pause,t-terminating,t-cost,t-recreate,t-upgrade,t-netpol,t-netpol-foreign,t-shutdown,t-secrets,t-restart,t-metrics,t-stable,t-stable-move," +
		"t-monitoring,t-crashloop,t-stsfail,t-avail-event,t-hold,t-relabel,t-upgradeable-fail,t-oldevent,t-serving,t-added-metadata"
	// testExporterImage is the operator's default exporter image (RELATED_IMAGE_MEMCACHED_EXPORTER).
	testExporterImage = "registry.example.com/memcached-exporter:v0.16.0"
)

var (
	testEnv   *envtest.Environment
	cfg       *rest.Config
	k8sClient client.Client // uncached, talks to the API server directly
	testCtx   context.Context
)

func TestMain(m *testing.M) {
	os.Exit(runSuite(m))
}

func runSuite(m *testing.M) int {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		fmt.Fprintln(os.Stderr, "KUBEBUILDER_ASSETS is not set: run `make test`, which builds kube-apiserver and etcd into ./bin and sets it")
		return 1
	}
	ctrl.SetLogger(zap.New(zap.UseDevMode(true), zap.WriteTo(os.Stderr), zap.Level(zapLevel())))

	testEnv = &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
	}
	var err error
	if cfg, err = testEnv.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "failed to start envtest: %v\n", err)
		_ = testEnv.Stop() // Start may fail after starting etcd and kube-apiserver (e.g. a CRD is rejected)
		return 1
	}
	defer func() { _ = testEnv.Stop() }()

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(cachev1alpha1.AddToScheme(scheme))
	utilruntime.Must(monitoringv1.AddToScheme(scheme))
	if k8sClient, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		fmt.Fprintf(os.Stderr, "failed to create client: %v\n", err)
		return 1
	}

	namespaces, err := watchnamespace.Parse(watchedNamespaces)
	if err != nil {
		fmt.Fprintf(os.Stderr, "bad watchedNamespaces: %v\n", err)
		return 1
	}
	for _, ns := range append(namespaces, "t-unwatched") {
		if err := k8sClient.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			fmt.Fprintf(os.Stderr, "failed to create namespace %s: %v\n", ns, err)
			return 1
		}
	}

	// The manager runs as the shipped RBAC allows, no more: a permission the reconciler needs and
	// config/rbac/role.yaml lacks fails the tests that reach it with "forbidden".
	managerCfg, err := asShippedManager(context.Background(), k8sClient, cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "failed to run the manager with the shipped RBAC: %v\n", err)
		return 1
	}
	mgr, err := ctrl.NewManager(managerCfg, ctrl.Options{
		Scheme:  scheme,
		Metrics: metricsserver.Options{BindAddress: "0"},
		Cache:   cache.ManagerOptions(namespaces),
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "failed to create manager: %v\n", err)
		return 1
	}
	if err := (&MemcachedReconciler{
		Client:    countingClient{Client: mgr.GetClient()},
		APIReader: mgr.GetAPIReader(),
		Scheme:    mgr.GetScheme(),
		Recorder:  mgr.GetEventRecorder("memcached-operator"),
		Options:   resources.Options{DefaultImage: testImage, DefaultExporterImage: testExporterImage},
		// The ServiceMonitor CRD is installed mid-suite (TestServiceMonitorFollowsItsCRD).
		ServiceMonitorPollInterval: 200 * time.Millisecond,
		// As the manager runs by default (main.go): instances are reconciled concurrently.
		MaxConcurrentReconciles: 4,
		Namespaces:              namespaces,
	}).SetupWithManager(mgr); err != nil {
		fmt.Fprintf(os.Stderr, "failed to set up controller: %v\n", err)
		return 1
	}

	// As main.go does: the per-instance gauges come from the manager's cache.
	if err := metrics.Registry.Register(&InstanceCollector{Reader: mgr.GetCache(), Elected: mgr.Elected()}); err != nil {
		fmt.Fprintf(os.Stderr, "failed to register the instance metrics: %v\n", err)
		return 1
	}

	ctx, cancel := context.WithCancel(ctrl.SetupSignalHandler())
	testCtx = ctx
	// Register the controller's informers before the manager starts, so WaitForCacheSync covers
	// them all and a short test run does not stop the manager while they are still syncing.
	for _, obj := range []client.Object{&cachev1alpha1.Memcached{}, &appsv1.Deployment{}, &corev1.Service{}, &policyv1.PodDisruptionBudget{}, &networkingv1.NetworkPolicy{}, cache.SecretMetadata()} {
		if _, err := mgr.GetCache().GetInformer(ctx, obj); err != nil {
			fmt.Fprintf(os.Stderr, "failed to get informer for %T: %v\n", obj, err)
			cancel()
			return 1
		}
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		fmt.Fprintln(os.Stderr, "cache did not sync")
		cancel()
		return 1
	}

	code := m.Run()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			fmt.Fprintf(os.Stderr, "manager stopped with error: %v\n", err)
		}
	case <-time.After(30 * time.Second):
		fmt.Fprintln(os.Stderr, "manager did not stop within 30s")
	}
	return code
}

// managerNamespace and managerServiceAccount are the operator's ServiceAccount as config/default
// names it; the suite's manager impersonates it (managerUser).
const (
	managerNamespace      = "memcached-operator-system"
	managerServiceAccount = "memcached-operator-controller-manager"
	managerUser           = "system:serviceaccount:" + managerNamespace + ":" + managerServiceAccount
)

// asShippedManager grants managerUser the manager ClusterRole the operator ships
// (config/rbac/role.yaml, which make manifests generates from the +kubebuilder:rbac markers), bound
// cluster-wide as config/default binds it, and returns a copy of cfg that impersonates that user.
// Leader election's rules are not granted: the suite's manager does not elect.
func asShippedManager(ctx context.Context, c client.Client, cfg *rest.Config) (*rest.Config, error) {
	data, err := os.ReadFile(filepath.Join("..", "config", "rbac", "role.yaml"))
	if err != nil {
		return nil, fmt.Errorf("failed to read the manager role: %w", err)
	}
	role := &rbacv1.ClusterRole{}
	if err := yaml.UnmarshalStrict(data, role); err != nil {
		return nil, fmt.Errorf("failed to decode config/rbac/role.yaml: %w", err)
	}
	role.Name = "envtest-manager-role"
	if err := c.Create(ctx, role); err != nil {
		return nil, fmt.Errorf("failed to create ClusterRole %s: %w", role.Name, err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "envtest-manager-rolebinding"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: managerNamespace, Name: managerServiceAccount}},
	}
	if err := c.Create(ctx, binding); err != nil {
		return nil, fmt.Errorf("failed to create ClusterRoleBinding %s: %w", binding.Name, err)
	}
	out := rest.CopyConfig(cfg)
	out.Impersonate = rest.ImpersonationConfig{UserName: managerUser,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + managerNamespace, "system:authenticated"}}
	return out, nil
}

// zapLevel returns the suite's log level: quiet unless TEST_VERBOSE is set.
func zapLevel() zapcore.Level {
	if os.Getenv("TEST_VERBOSE") != "" {
		return zapcore.DebugLevel
	}
	return zapcore.ErrorLevel
}

// writes counts the reconciler's API writes per namespace and kind of write ("create", "update",
// "patch", "delete", "status-patch", "status-update", "conflict" for 409 responses), so tests
// can assert what converging an instance costs.
var writes = struct {
	sync.Mutex
	byNS map[string]map[string]int
}{byNS: map[string]map[string]int{}}

func recordWrite(ns, verb string, err error) {
	writes.Lock()
	defer writes.Unlock()
	if writes.byNS[ns] == nil {
		writes.byNS[ns] = map[string]int{}
	}
	writes.byNS[ns][verb]++
	if apierrors.IsConflict(err) {
		writes.byNS[ns]["conflict"]++
	}
}

// writesIn returns a copy of the write counts of a namespace.
func writesIn(ns string) map[string]int {
	writes.Lock()
	defer writes.Unlock()
	out := map[string]int{}
	for k, v := range writes.byNS[ns] {
		out[k] = v
	}
	return out
}

// settledWritesIn waits until the operator's writes in ns have stopped changing for quiet (the
// reconciles that earlier writes trigger have run, however loaded the machine is), then returns
// them as writesIn does. A fixed sleep instead made the counts depend on the machine's load: a
// late reconcile of one phase was counted in the next.
func settledWritesIn(g Gomega, ns string, quiet time.Duration) map[string]int {
	last, since := writesIn(ns), time.Now()
	g.Eventually(func() bool {
		if now := writesIn(ns); !maps.Equal(now, last) {
			last, since = now, time.Now()
		}
		return time.Since(since) >= quiet
	}, timeout, interval).Should(BeTrue(), "the operator's writes in %s never settled for %s", ns, quiet)
	return last
}

// countingClient is the manager's client with its writes counted (recordWrite).
type countingClient struct{ client.Client }

func (c countingClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	err := c.Client.Create(ctx, obj, opts...)
	recordWrite(obj.GetNamespace(), "create", err)
	return err
}

func (c countingClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	err := c.Client.Update(ctx, obj, opts...)
	recordWrite(obj.GetNamespace(), "update", err)
	return err
}

func (c countingClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	err := c.Client.Patch(ctx, obj, patch, opts...)
	recordWrite(obj.GetNamespace(), "patch", err)
	return err
}

func (c countingClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	err := c.Client.Delete(ctx, obj, opts...)
	recordWrite(obj.GetNamespace(), "delete", err)
	return err
}

func (c countingClient) Status() client.SubResourceWriter { return countingStatus{c.Client.Status()} }

type countingStatus struct{ client.SubResourceWriter }

func (s countingStatus) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	err := s.SubResourceWriter.Patch(ctx, obj, patch, opts...)
	recordWrite(obj.GetNamespace(), "status-patch", err)
	return err
}

func (s countingStatus) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	err := s.SubResourceWriter.Update(ctx, obj, opts...)
	recordWrite(obj.GetNamespace(), "status-update", err)
	return err
}
