//go:build e2e

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

// Package e2e tests the memcached-operator end to end: the real manager binary runs as a child
// process against a real local control plane (hack/cluster/cluster-up.sh: etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler and kwok with fake nodes), and the tests act as a user
// would, through kubectl or the API, and assert what the user sees.
//
// Run it with `make test-e2e`, or by hand with the cluster up:
//
//	KUBECONFIG=$PWD/.cluster/kubeconfig KUBECTL=$PWD/bin/kubectl MANAGER_BIN=$PWD/bin/manager \
//	  go test -tags e2e ./test/e2e/ -v -count=1 -timeout 20m
//
// Environment: KUBECONFIG, KUBECTL and MANAGER_BIN (required); MEMCACHED_IMAGE (the operand image
// given to the manager as RELATED_IMAGE_MEMCACHED, default docker.io/library/memcached:1.6.46-alpine);
// E2E_ARTIFACTS (directory for the operator log, default a new temporary directory).
package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/test/utils"
)

const (
	// defaultMemcachedImage is RELATED_IMAGE_MEMCACHED when MEMCACHED_IMAGE is not set (the
	// Makefile's default).
	defaultMemcachedImage = "docker.io/library/memcached:1.6.46-alpine"
	// crdName is the Memcached CustomResourceDefinition.
	crdName = "memcacheds.cache.example.com"
	// metricsReaderRole is the ClusterRole of config/rbac/metrics_reader_role.yaml that grants
	// GET /metrics.
	metricsReaderRole = "metrics-reader"
	// operatorReadyTimeout bounds the wait for the manager's /readyz after it starts.
	operatorReadyTimeout = 60 * time.Second
	// operatorStopTimeout bounds the wait for the manager to exit after SIGTERM.
	operatorStopTimeout = 30 * time.Second
)

// suite holds what TestMain sets up for every test.
var suite struct {
	// repoRoot is the repository's root directory (config/ lives there).
	repoRoot string
	// kubeconfig and managerBin are absolute paths from KUBECONFIG and MANAGER_BIN.
	kubeconfig, managerBin string
	// kubectl runs KUBECTL against the cluster of kubeconfig.
	kubectl utils.Kubectl
	// memcachedImage is the operand image the manager was given (RELATED_IMAGE_MEMCACHED).
	memcachedImage string
	// cfg is the admin REST config of the cluster.
	cfg *rest.Config
	// k8s is an uncached client with watch support that knows the core and Memcached types.
	k8s client.WithWatch
	// op is the running manager.
	op *operator
}

// operator is the manager binary running as a child process of the test binary.
type operator struct {
	cmd *exec.Cmd
	// logPath is the file that receives the manager's stdout and stderr.
	logPath string
	// metricsURL is the HTTPS /metrics URL of the manager (secure serving, authn/authz filter).
	metricsURL string
	// probeURL is the base URL of the manager's health probes (/healthz, /readyz).
	probeURL string
	// exited is closed when the process has exited; exitErr is then what Wait returned.
	exited  chan struct{}
	exitErr error
}

// TestMain checks the environment, installs the CRD and the metrics-reader ClusterRole, starts the
// manager, runs the tests and stops the manager. The cluster itself must already be up.
func TestMain(m *testing.M) {
	os.Exit(runSuite(m))
}

// runSuite is TestMain's body; it returns the process exit code so deferred cleanup runs.
func runSuite(m *testing.M) int {
	if err := setUp(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: setup failed: %v\n", err)
		if suite.op != nil {
			suite.op.dumpLogTail(os.Stderr, 40)
			_ = suite.op.stop()
		}
		return 1
	}
	code := m.Run()
	if code != 0 {
		suite.op.dumpLogTail(os.Stderr, 40)
	}
	if err := suite.op.stop(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: stopping the operator: %v\n", err)
		code = 1
	}
	fmt.Printf("e2e: operator log: %s\n", suite.op.logPath)
	return code
}

// setUp fills suite: environment, client, CRD and ClusterRole, and a ready manager.
func setUp() error {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		return err
	}
	suite.repoRoot = root
	if suite.kubeconfig, err = requiredFile("KUBECONFIG", false); err != nil {
		return err
	}
	kubectlPath, err := requiredFile("KUBECTL", true)
	if err != nil {
		return err
	}
	suite.kubectl = utils.Kubectl{Path: kubectlPath, Kubeconfig: suite.kubeconfig}
	if suite.managerBin, err = requiredFile("MANAGER_BIN", true); err != nil {
		return err
	}
	suite.memcachedImage = os.Getenv("MEMCACHED_IMAGE")
	if suite.memcachedImage == "" {
		suite.memcachedImage = defaultMemcachedImage
	}

	cfg, err := clientcmd.BuildConfigFromFlags("", suite.kubeconfig)
	if err != nil {
		return fmt.Errorf("failed to load KUBECONFIG %s: %w", suite.kubeconfig, err)
	}
	// The tests poll at short intervals; the client-go default of 5 QPS would throttle them.
	cfg.QPS, cfg.Burst = 200, 400
	cfg.Timeout = 30 * time.Second
	suite.cfg = cfg
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(cachev1alpha1.AddToScheme(scheme))
	if suite.k8s, err = client.NewWithWatch(cfg, client.Options{Scheme: scheme}); err != nil {
		return fmt.Errorf("failed to create client: %w", err)
	}

	start := time.Now()
	for _, args := range [][]string{
		{"get", "--raw", "/readyz"},
		{"apply", "--server-side", "--force-conflicts", "-f", filepath.Join(root, "config", "crd", "bases")},
		{"apply", "--server-side", "-f", filepath.Join(root, "config", "rbac", "metrics_reader_role.yaml")},
		{"wait", "--for=condition=Established", "crd/" + crdName, "--timeout=60s"},
	} {
		if out, errOut, err := suite.kubectl.Run(context.Background(), "", args...); err != nil {
			return fmt.Errorf("kubectl %s: %w\n%s%s", strings.Join(args, " "), err, out, errOut)
		}
	}
	fmt.Printf("e2e: CRD %s established and ClusterRole %s applied in %v\n", crdName, metricsReaderRole, time.Since(start).Round(time.Millisecond))

	start = time.Now()
	if suite.op, err = startOperator(); err != nil {
		return err
	}
	if err := suite.op.waitReady(operatorReadyTimeout); err != nil {
		return err
	}
	fmt.Printf("e2e: operator pid %d ready in %v (metrics %s, log %s)\n",
		suite.op.cmd.Process.Pid, time.Since(start).Round(time.Millisecond), suite.op.metricsURL, suite.op.logPath)
	return nil
}

// requiredFile returns the absolute path named by the environment variable env, or an error that
// says how to set it. A relative path is taken from the working directory, then from the
// repository root (make runs from there, go test from the package directory). When executable
// is true a bare command name is looked up in PATH and the file must be executable.
func requiredFile(env string, executable bool) (string, error) {
	v := os.Getenv(env)
	if v == "" {
		return "", fmt.Errorf("%s is not set: run `make test-e2e`, or set KUBECONFIG, KUBECTL and MANAGER_BIN (see the package doc of test/e2e)", env)
	}
	candidates := []string{v}
	if !filepath.IsAbs(v) {
		candidates = append(candidates, filepath.Join(suite.repoRoot, v))
	}
	if executable && !strings.ContainsRune(v, filepath.Separator) {
		if p, err := exec.LookPath(v); err == nil {
			candidates = append([]string{p}, candidates...)
		}
	}
	for _, c := range candidates {
		fi, err := os.Stat(c)
		if err != nil || fi.IsDir() {
			continue
		}
		if executable && fi.Mode()&0o111 == 0 {
			return "", fmt.Errorf("%s=%s is not executable", env, c)
		}
		return filepath.Abs(c)
	}
	return "", fmt.Errorf("%s=%s does not exist (build it with `make build` / start the cluster with hack/cluster/cluster-up.sh)", env, v)
}

// freeLoopbackAddr returns 127.0.0.1:<port> with a port that was free a moment ago.
func freeLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// startOperator starts MANAGER_BIN with secure metrics and health probes on free loopback ports,
// watching all namespaces, its output in a log file under E2E_ARTIFACTS (or a temporary directory).
func startOperator() (*operator, error) {
	dir := os.Getenv("E2E_ARTIFACTS")
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "memcached-operator-e2e-"); err != nil {
			return nil, err
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	logPath, err := filepath.Abs(filepath.Join(dir, "operator.log"))
	if err != nil {
		return nil, err
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	metricsAddr, err := freeLoopbackAddr()
	if err != nil {
		return nil, err
	}
	probeAddr, err := freeLoopbackAddr()
	if err != nil {
		return nil, err
	}
	fmt.Printf("e2e: operator log: %s\n", logPath)

	cmd := exec.Command(suite.managerBin,
		"--metrics-bind-address="+metricsAddr,
		"--health-probe-bind-address="+probeAddr)
	cmd.Env = append(os.Environ(),
		"KUBECONFIG="+suite.kubeconfig,
		"WATCH_NAMESPACE=",
		"RELATED_IMAGE_MEMCACHED="+suite.memcachedImage,
	)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// If the test binary dies (a -timeout panic), the kernel stops the operator too: nothing else
	// records its PID.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("failed to start %s: %w", suite.managerBin, err)
	}
	op := &operator{
		cmd:        cmd,
		logPath:    logPath,
		metricsURL: "https://" + metricsAddr + "/metrics",
		probeURL:   "http://" + probeAddr,
		exited:     make(chan struct{}),
	}
	go func() {
		op.exitErr = cmd.Wait()
		logFile.Close()
		close(op.exited)
	}()
	return op, nil
}

// running reports whether the manager process has not exited.
func (o *operator) running() bool {
	select {
	case <-o.exited:
		return false
	default:
		return true
	}
}

// waitReady polls the manager's /readyz until it answers 200, the process exits, or timeout.
func (o *operator) waitReady(timeout time.Duration) error {
	c := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{Proxy: nil}}
	deadline := time.Now().Add(timeout)
	for {
		if !o.running() {
			return fmt.Errorf("operator exited before it was ready: %v (log %s)", o.exitErr, o.logPath)
		}
		resp, err := c.Get(o.probeURL + "/readyz")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("operator not ready after %v (last error %v; log %s)", timeout, err, o.logPath)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// stop sends SIGTERM to the manager (this PID only) and waits for it to exit; after
// operatorStopTimeout it sends SIGKILL to the same PID. It returns an error when the manager had
// already died, or did not stop cleanly.
func (o *operator) stop() error {
	if o == nil || o.cmd.Process == nil {
		return nil
	}
	if !o.running() {
		return fmt.Errorf("operator (pid %d) had already exited: %v", o.cmd.Process.Pid, o.exitErr)
	}
	start := time.Now()
	if err := o.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return fmt.Errorf("failed to send SIGTERM to pid %d: %w", o.cmd.Process.Pid, err)
	}
	select {
	case <-o.exited:
	case <-time.After(operatorStopTimeout):
		_ = o.cmd.Process.Kill()
		<-o.exited
		return fmt.Errorf("operator (pid %d) did not stop within %v of SIGTERM; killed", o.cmd.Process.Pid, operatorStopTimeout)
	}
	fmt.Printf("e2e: operator (pid %d) stopped %v after SIGTERM (exit: %v)\n", o.cmd.Process.Pid, time.Since(start).Round(time.Millisecond), o.exitErr)
	var ee *exec.ExitError
	if o.exitErr != nil && !errors.As(o.exitErr, &ee) {
		return o.exitErr
	}
	if o.exitErr != nil {
		return fmt.Errorf("operator exited with %v after SIGTERM", o.exitErr)
	}
	return nil
}

// dumpLogTail writes the last n lines of the manager's log to w.
func (o *operator) dumpLogTail(w io.Writer, n int) {
	if o == nil {
		return
	}
	data, err := os.ReadFile(o.logPath)
	if err != nil {
		return
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	fmt.Fprintf(w, "---- last %d lines of %s ----\n%s\n----\n", len(lines), o.logPath, strings.Join(lines, "\n"))
}
