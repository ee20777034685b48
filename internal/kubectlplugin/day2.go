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

package kubectlplugin

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/internal/memcachedauth"
)

// RestartAnnotation is the pod annotation `kubectl memcached restart` sets, the one `kubectl
// rollout restart` sets on a Deployment's pod template: a new value is a new pod template.
const RestartAnnotation = "kubectl.kubernetes.io/restartedAt"

// Restart asks for a paced restart of the servers of Memcached ns/name: it sets RestartAnnotation
// to now in spec.podMetadata.annotations (a merge patch of that key alone), the operator carries it
// into the pod template, and the servers are replaced as for any template change: one at a time,
// each new server ready before an old one goes (Ephemeral: surge 1, none unavailable; Stable: the
// highest ordinal first), within the PodDisruptionBudget. Each replaced server starts empty. It
// returns the Memcached's generation after the patch.
//
// Refused for an instance with warm restarts: the operator applies a pod annotation in place there
// (memcached keeps running with its items), so a restart would do nothing, and a replacement would
// empty the server, which is what warm restarts exist to avoid.
func Restart(ctx context.Context, c Clients, ns, name string, now time.Time, w io.Writer) (int64, error) {
	mc := &cachev1alpha1.Memcached{}
	if err := c.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, mc); err != nil {
		return 0, fmt.Errorf("failed to get Memcached %s/%s: %w", ns, name, err)
	}
	if mc.WarmRestarts() {
		return 0, fmt.Errorf("memcached %s/%s keeps its items through planned changes (spec.warmRestart): "+
			"a restart would empty its servers; to replace one server, delete its pod", ns, name)
	}
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"podMetadata": map[string]any{
		"annotations": map[string]string{RestartAnnotation: now.UTC().Format(time.RFC3339)}}}})
	if err != nil {
		return 0, fmt.Errorf("failed to build the patch: %w", err)
	}
	if err := c.Client.Patch(ctx, mc, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return 0, fmt.Errorf("failed to patch Memcached %s/%s: %w", ns, name, err)
	}
	fmt.Fprintf(w, "memcached %s/%s: restart requested (generation %d); the servers are replaced one at a time, each starting empty\n",
		ns, name, mc.Generation)
	return mc.Generation, nil
}

// WaitReady waits until the operator has acted on generation of Memcached ns/name
// (status.observedGeneration) and its Ready condition is True, printing the progress message
// when it changes.
func WaitReady(ctx context.Context, c Clients, ns, name string, generation int64, w io.Writer) error {
	last := ""
	return wait.PollUntilContextCancel(ctx, time.Second, true, func(ctx context.Context) (bool, error) {
		mc := &cachev1alpha1.Memcached{}
		if err := c.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, mc); err != nil {
			return false, fmt.Errorf("failed to get Memcached %s/%s: %w", ns, name, err)
		}
		ready := meta.FindStatusCondition(mc.Status.Conditions, cachev1alpha1.ConditionReady)
		if ready != nil && ready.Message != last {
			last = ready.Message
			fmt.Fprintf(w, "  %s: %s\n", ready.Reason, ready.Message)
		}
		return mc.Status.ObservedGeneration >= generation && ready != nil && ready.Status == metav1.ConditionTrue &&
			ready.ObservedGeneration >= generation, nil
	})
}

// Flush empties the servers of Memcached ns/name gradually: the i-th ready server (by pod name)
// is sent `flush_all <i*interval seconds>`, so memcached itself invalidates one server's items
// every interval, starting now, and the misses clients see (and the load they put on the database
// behind the cache) come one server's share at a time instead of all at once. Each server is
// reached through a port-forward to its pod (the caller needs pods/portforward), authenticated
// with the first entry of spec.auth's Secret when the instance has auth (the caller needs get on
// that Secret). Instances with spec.tls are refused: the plugin does not speak TLS yet.
func Flush(ctx context.Context, c Clients, cfg *rest.Config, ns, name string, interval time.Duration, w io.Writer) error {
	in, err := read(ctx, c, ns, name)
	if err != nil {
		return err
	}
	mc := in.mc
	if mc.Spec.TLS != nil {
		return fmt.Errorf("memcached %s/%s serves TLS (spec.tls), which kubectl memcached flush does not speak yet", ns, name)
	}
	var user, password string
	if mc.Spec.Auth != nil {
		secret := &corev1.Secret{}
		if err := c.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: mc.Spec.Auth.SecretName}, secret); err != nil {
			return fmt.Errorf("failed to get the auth Secret %s/%s (spec.auth): %w", ns, mc.Spec.Auth.SecretName, err)
		}
		key := mc.Spec.Auth.Key
		if key == "" {
			key = "authfile"
		}
		if user, password, err = memcachedauth.ParseFirstCredential(secret.Data[key]); err != nil {
			return fmt.Errorf("failed to read key %s of Secret %s/%s: %w", key, ns, mc.Spec.Auth.SecretName, err)
		}
	}
	var pods []corev1.Pod
	for _, p := range in.pods {
		if p.DeletionTimestamp == nil && podReady(&p) {
			pods = append(pods, p)
		}
	}
	if len(pods) == 0 {
		return fmt.Errorf("memcached %s/%s has no ready server", ns, name)
	}
	for i, p := range pods {
		delay := time.Duration(i) * interval
		if err := flushPod(ctx, c, cfg, p, int(delay.Seconds()), user, password); err != nil {
			return fmt.Errorf("failed to flush server %s (the servers before it are flushed or will be): %w", p.Name, err)
		}
		when := "now"
		if delay > 0 {
			when = "in " + delay.String()
		}
		fmt.Fprintf(w, "  %s: flushed %s\n", p.Name, when)
	}
	return nil
}

// flushPod sends `flush_all <delay>` to pod p's memcached through a port-forward, authenticating
// first when user is not empty, and checks that memcached answers OK.
func flushPod(ctx context.Context, c Clients, cfg *rest.Config, p corev1.Pod, delay int, user, password string) error {
	conn, stop, err := forward(ctx, c, cfg, p)
	if err != nil {
		return err
	}
	defer stop()
	defer func() { _ = conn.Close() }()
	if deadline, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(deadline)
	}
	r := bufio.NewReader(conn)
	if user != "" {
		if err := memcachedauth.Authenticate(conn, r, user, password); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprintf(conn, "flush_all %d\r\n", delay); err != nil {
		return fmt.Errorf("failed to send flush_all: %w", err)
	}
	line, err := r.ReadString('\n')
	if err != nil {
		return fmt.Errorf("failed to read memcached's answer to flush_all: %w", err)
	}
	if line = strings.TrimSpace(line); line != "OK" {
		return fmt.Errorf("memcached answered flush_all with %q", line)
	}
	return nil
}

// forward opens a port-forward to p's memcached port on a free local port, as kubectl
// port-forward does (websocket, falling back to SPDY on API servers that lack it), and returns a
// connection through it and the function that ends the forward.
func forward(ctx context.Context, c Clients, cfg *rest.Config, p corev1.Pod) (net.Conn, func(), error) {
	req := c.Clientset.CoreV1().RESTClient().Post().Resource("pods").Namespace(p.Namespace).Name(p.Name).SubResource("portforward")
	transport, upgrader, err := spdy.RoundTripperFor(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to build the port-forward transport: %w", err)
	}
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: transport}, http.MethodPost, req.URL())
	if ws, err := portforward.NewSPDYOverWebsocketDialer(req.URL(), cfg); err == nil {
		dialer = portforward.NewFallbackDialer(ws, dialer, func(err error) bool {
			return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
		})
	}
	stopCh, readyCh := make(chan struct{}), make(chan struct{})
	var errOut strings.Builder
	fw, err := portforward.NewOnAddresses(dialer, []string{"127.0.0.1"}, []string{fmt.Sprintf("0:%d", cachev1alpha1.DefaultPort)}, stopCh, readyCh, io.Discard, &errOut)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to set up the port-forward to pod %s: %w", p.Name, err)
	}
	done := make(chan error, 1)
	go func() { done <- fw.ForwardPorts() }()
	stop := func() { close(stopCh) }
	select {
	case <-readyCh:
	case err := <-done:
		return nil, nil, fmt.Errorf("failed to port-forward to pod %s: %w %s", p.Name, err, errOut.String())
	case <-ctx.Done():
		stop()
		return nil, nil, fmt.Errorf("failed to port-forward to pod %s: %w", p.Name, ctx.Err())
	}
	ports, err := fw.GetPorts()
	if err != nil || len(ports) != 1 {
		stop()
		return nil, nil, fmt.Errorf("failed to read the port-forward's local port: %v", err)
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", fmt.Sprintf("127.0.0.1:%d", ports[0].Local))
	if err != nil {
		stop()
		return nil, nil, fmt.Errorf("failed to connect through the port-forward to pod %s: %w", p.Name, err)
	}
	return conn, stop, nil
}
