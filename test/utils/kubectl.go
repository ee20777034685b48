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

package utils

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// DefaultKubectlTimeout bounds one kubectl invocation whose context has no deadline.
const DefaultKubectlTimeout = 60 * time.Second

// Kubectl runs a kubectl binary against one cluster, as a user of the suite's cluster would.
type Kubectl struct {
	// Path is the kubectl binary (the Makefile's KUBECTL, bin/kubectl).
	Path string
	// Kubeconfig is passed as KUBECONFIG.
	Kubeconfig string
	// Timeout bounds a call whose context has no deadline; zero means DefaultKubectlTimeout.
	Timeout time.Duration
}

// Run runs kubectl with args, stdin (when not empty) as its standard input, and returns its
// standard output and standard error. The error is exec's: an *exec.ExitError when kubectl exits
// non-zero, or the context's when it was cancelled or timed out.
func (k Kubectl) Run(ctx context.Context, stdin string, args ...string) (stdout, stderr string, err error) {
	if _, ok := ctx.Deadline(); !ok {
		timeout := k.Timeout
		if timeout == 0 {
			timeout = DefaultKubectlTimeout
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, k.Path, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+k.Kubeconfig)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// Must runs kubectl with args (stdin as Run) until t ends at the latest, fails t with kubectl's
// output when it exits non-zero, and returns its standard output.
func (k Kubectl) Must(t testing.TB, stdin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, errOut, err := k.Run(ctx, stdin, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// ServiceAccountToken creates ServiceAccount ns/name unless it exists and returns a one-hour token
// of it from the TokenRequest API (what `kubectl create token` asks for). It fails t on any error.
func ServiceAccountToken(t testing.TB, c client.Client, ns, name string) string {
	t.Helper()
	ctx := context.Background()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if err := c.Create(ctx, sa); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("failed to create ServiceAccount %s/%s: %v", ns, name, err)
	}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}
	if err := c.SubResource("token").Create(ctx, sa, tr); err != nil {
		t.Fatalf("failed to request a token of ServiceAccount %s/%s: %v", ns, name, err)
	}
	if tr.Status.Token == "" {
		t.Fatalf("the TokenRequest for ServiceAccount %s/%s returned no token", ns, name)
	}
	return tr.Status.Token
}
