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

// Package runner runs the operator of an OLM-created Deployment as a local process, exactly as the
// Deployment's pod would run it. On the local kwok cluster OLM's Deployment gets a simulated pod
// that runs nothing; the runner gives it a real process instead:
//
//   - the container's command and args, with the binary taken from a local build of the container
//     image's version and every ":port" bind address moved to 127.0.0.1 on a free port;
//   - the container's env, resolved as the kubelet would: literal values and downward-API fieldRefs
//     (metadata.annotations['olm.targetNamespaces'] → WATCH_NAMESPACE, metadata.namespace, ...),
//     including OPERATOR_CONDITION_NAME that OLM injects;
//   - the Deployment's ServiceAccount credentials: a token from the TokenRequest API in a kubeconfig,
//     and the pod's service account directory (token, namespace, ca.crt) bind-mounted at
//     /var/run/secrets/kubernetes.io/serviceaccount in a private mount namespace (root needed), so
//     leader election and operator-lib find the operator's namespace. The process has exactly the
//     RBAC OLM granted to that ServiceAccount, no more.
//
// The runner follows the Deployment: it restarts the process when OLM changes the pod template
// (an upgrade) and stops it while the Deployment does not exist.
package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
)

// serviceAccountDir is where a pod sees its ServiceAccount credentials.
const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// Runner follows one Deployment and runs its operator container locally.
type Runner struct {
	// Config is an admin connection to the cluster (the runner reads the Deployment and requests
	// tokens with it; the operator never gets it).
	Config *rest.Config
	// Namespace and Name identify the Deployment.
	Namespace, Name string
	// Container is the container to run (default: the first).
	Container string
	// Binary maps the container image to a local binary built from that version; an error means
	// the image cannot be run here.
	Binary func(image string) (string, error)
	// WorkDir holds the kubeconfig, service account files and the process log (Log()).
	WorkDir string

	mu      sync.Mutex
	cmd     *exec.Cmd
	done    chan struct{}
	current string // signature of the pod template the process runs
	image   string
	addrs   map[string]string // flag name -> 127.0.0.1:port
	starts  int
}

// Log returns the path of the operator's log (stdout and stderr of every start, appended).
func (r *Runner) Log() string { return filepath.Join(r.WorkDir, "operator.log") }

// Image returns the image whose binary runs now ("" when none runs).
func (r *Runner) Image() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd == nil {
		return ""
	}
	return r.image
}

// Starts returns how many times the process was started.
func (r *Runner) Starts() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.starts
}

// Addr returns the loopback address given to a bind-address flag of the current process, e.g.
// Addr("metrics-bind-address"), or "".
func (r *Runner) Addr(flag string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.addrs[flag]
}

// Run follows the Deployment until ctx ends, then stops the process. It polls the Deployment
// every 250 ms: a changed pod template (or a new Deployment UID) restarts the process, a missing
// Deployment stops it. Errors starting the process are returned.
func (r *Runner) Run(ctx context.Context) error {
	cs, err := kubernetes.NewForConfig(r.Config)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(r.WorkDir, 0o755); err != nil {
		return err
	}
	defer r.stop()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		dep, err := cs.AppsV1().Deployments(r.Namespace).Get(ctx, r.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			r.stop()
		case err != nil:
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("failed to get Deployment %s/%s: %w", r.Namespace, r.Name, err)
		case dep.DeletionTimestamp == nil:
			sig := signature(dep)
			r.mu.Lock()
			same := sig == r.current && r.cmd != nil
			r.mu.Unlock()
			if !same {
				r.stop()
				if err := r.start(ctx, cs, dep, sig); err != nil {
					return err
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// signature identifies what the pod would run: the Deployment's UID and its pod template.
func signature(dep *appsv1.Deployment) string {
	raw, _ := json.Marshal(dep.Spec.Template)
	sum := sha256.Sum256(append([]byte(dep.UID), raw...))
	return hex.EncodeToString(sum[:8])
}

var bindFlag = regexp.MustCompile(`^--?([a-z-]*bind-address)=(.*)$`)

// start resolves the pod template and starts the process.
func (r *Runner) start(ctx context.Context, cs kubernetes.Interface, dep *appsv1.Deployment, sig string) error {
	tmpl := dep.Spec.Template
	var c *corev1.Container
	for i := range tmpl.Spec.Containers {
		if r.Container == "" || tmpl.Spec.Containers[i].Name == r.Container {
			c = &tmpl.Spec.Containers[i]
			break
		}
	}
	if c == nil {
		return fmt.Errorf("Deployment %s/%s has no container %q", dep.Namespace, dep.Name, r.Container)
	}
	bin, err := r.Binary(c.Image)
	if err != nil {
		return err
	}
	podName := dep.Name + "-local"
	env, err := resolveEnv(c.Env, dep.Namespace, podName, &tmpl)
	if err != nil {
		return fmt.Errorf("Deployment %s/%s: %w", dep.Namespace, dep.Name, err)
	}

	args := append([]string(nil), c.Command[1:]...)
	args = append(args, c.Args...)
	addrs := map[string]string{}
	for i, a := range args {
		m := bindFlag.FindStringSubmatch(a)
		if m == nil || m[2] == "0" {
			continue
		}
		if _, port, err := net.SplitHostPort(m[2]); err == nil && port != "" {
			free, err := freePort()
			if err != nil {
				return err
			}
			addrs[m[1]] = fmt.Sprintf("127.0.0.1:%d", free)
			args[i] = fmt.Sprintf("--%s=%s", m[1], addrs[m[1]])
		}
	}

	sa := tmpl.Spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	tr, err := cs.CoreV1().ServiceAccounts(dep.Namespace).CreateToken(ctx, sa, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)},
	}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("failed to request a token for ServiceAccount %s/%s: %w", dep.Namespace, sa, err)
	}
	saDir := filepath.Join(r.WorkDir, "serviceaccount")
	if err := os.MkdirAll(saDir, 0o755); err != nil {
		return err
	}
	ca := r.Config.CAData
	if len(ca) == 0 && r.Config.CAFile != "" {
		if ca, err = os.ReadFile(r.Config.CAFile); err != nil {
			return err
		}
	}
	for name, data := range map[string][]byte{"token": []byte(tr.Status.Token), "namespace": []byte(dep.Namespace), "ca.crt": ca} {
		if err := os.WriteFile(filepath.Join(saDir, name), data, 0o600); err != nil {
			return err
		}
	}
	kubeconfig := filepath.Join(r.WorkDir, "kubeconfig")
	kc := clientcmdapi.NewConfig()
	kc.Clusters["cluster"] = &clientcmdapi.Cluster{Server: r.Config.Host, CertificateAuthorityData: ca}
	kc.AuthInfos["sa"] = &clientcmdapi.AuthInfo{TokenFile: filepath.Join(saDir, "token")}
	kc.Contexts["sa"] = &clientcmdapi.Context{Cluster: "cluster", AuthInfo: "sa", Namespace: dep.Namespace}
	kc.CurrentContext = "sa"
	if err := clientcmd.WriteToFile(*kc, kubeconfig); err != nil {
		return err
	}
	if err := os.MkdirAll(serviceAccountDir, 0o755); err != nil {
		return fmt.Errorf("failed to create %s (the runner needs root): %w", serviceAccountDir, err)
	}

	logf, err := os.OpenFile(r.Log(), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	fmt.Fprintf(logf, "=== runner: %s starting %s (%s) as ServiceAccount %s/%s, args %q\n",
		time.Now().Format(time.RFC3339), c.Image, bin, dep.Namespace, sa, args)
	script := `mount --bind "$1" ` + serviceAccountDir + ` && shift && exec "$@"`
	cmd := exec.Command("unshare", append([]string{"--mount", "--propagation", "private", "--", "sh", "-c", script, "sh", saDir, bin}, args...)...)
	cmd.Env = append([]string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + r.WorkDir, "KUBECONFIG=" + kubeconfig}, env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Its own process group (stop signals the group: unshare and the operator), and stopped by the
	// kernel if the runner dies without stopping it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("failed to start %s: %w", bin, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); logf.Close(); close(done) }()

	r.mu.Lock()
	r.cmd, r.done, r.current, r.image, r.addrs = cmd, done, sig, c.Image, addrs
	r.starts++
	r.mu.Unlock()
	return nil
}

// stop ends the running process (SIGTERM, then SIGKILL after 10 s), if any.
func (r *Runner) stop() {
	r.mu.Lock()
	cmd, done := r.cmd, r.done
	r.cmd, r.current, r.addrs = nil, "", nil
	r.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// fieldPathAnnotation matches metadata.annotations['key'].
var fieldPathAnnotation = regexp.MustCompile(`^metadata\.annotations\['(.+)'\]$`)

// resolveEnv turns container env into NAME=value pairs as the kubelet would for a pod of the
// template named podName in namespace: literal values and downward-API fieldRefs. Other sources
// (secrets, config maps, resource fields) are refused: the operator does not use them.
func resolveEnv(env []corev1.EnvVar, namespace, podName string, tmpl *corev1.PodTemplateSpec) ([]string, error) {
	var out []string
	for _, e := range env {
		switch {
		case e.ValueFrom == nil:
			out = append(out, e.Name+"="+e.Value)
		case e.ValueFrom.FieldRef != nil:
			path := e.ValueFrom.FieldRef.FieldPath
			var v string
			switch {
			case fieldPathAnnotation.MatchString(path):
				v = tmpl.Annotations[fieldPathAnnotation.FindStringSubmatch(path)[1]]
			case path == "metadata.namespace":
				v = namespace
			case path == "metadata.name":
				v = podName
			case path == "spec.serviceAccountName":
				v = tmpl.Spec.ServiceAccountName
			case path == "status.podIP" || path == "status.hostIP":
				v = "127.0.0.1"
			default:
				return nil, fmt.Errorf("env %s: fieldRef %q is not supported by the runner", e.Name, path)
			}
			out = append(out, e.Name+"="+v)
		default:
			return nil, fmt.Errorf("env %s: only values and fieldRefs are supported by the runner", e.Name)
		}
	}
	return out, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// ImageVersion returns what identifies a build in an image reference: its digest when it has one
// (a released CSV pins the operator by digest, e.g. "sha256:…"), else its tag (e.g. "v0.2.0"),
// "" for neither. OLM_BINARIES maps either to a local binary.
func ImageVersion(image string) string {
	if _, digest, ok := strings.Cut(image, "@"); ok {
		return digest
	}
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		return image[i+1:]
	}
	return ""
}
