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
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// identityNamespace holds the ServiceAccounts the subjects run as: the audit policy records every
// write of that namespace's ServiceAccounts, so each subject's writes are its own.
const identityNamespace = "bench-system"

// auditPolicy records, at Metadata level (no bodies), the requests of the subjects' ServiceAccounts,
// and nothing else: the log stays small however many pods the control plane itself updates.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
  userGroups: ["system:serviceaccounts:` + identityNamespace + `"]
  verbs: ["create", "update", "patch", "delete", "deletecollection", "get", "list", "watch"]
- level: None
`

// clusterUp starts a fresh kwok cluster in dir with the control plane's client limits raised and
// the audit policy above, by hack/cluster/cluster-down.sh --purge then hack/cluster/cluster-up.sh. The ports come
// from the environment (ETCD_PORT, APISERVER_PORT, ...), which make bench-scale sets.
func clusterUp(root, dir string, nodes, maxPods int, qps, burst string) error {
	if err := clusterDown(root, dir, true); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("failed to create %s: %w", dir, err)
	}
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o644); err != nil {
		return fmt.Errorf("failed to write the audit policy: %w", err)
	}
	env := []string{"CLUSTER_DIR=" + dir, "AUDIT_POLICY=" + policy,
		fmt.Sprintf("NODES=%d", nodes), fmt.Sprintf("NODE_MAX_PODS=%d", maxPods)}
	if qps != "" {
		env = append(env, "KUBE_API_QPS="+qps, "KUBE_API_BURST="+burst)
	}
	return script(root, env, "hack/cluster/cluster-up.sh")
}

// clusterDown stops the cluster of dir (and deletes its state when purge is set).
func clusterDown(root, dir string, purge bool) error {
	args := []string{"hack/cluster/cluster-down.sh"}
	if purge {
		args = append(args, "--purge")
	}
	return script(root, []string{"CLUSTER_DIR=" + dir}, args...)
}

// script runs a repository script with extra environment, its output going to ours.
func script(root string, env []string, args ...string) error {
	cmd := exec.Command(filepath.Join(root, args[0]), args[1:]...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("failed to run %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// installCRD applies the Memcached CRD of path (a file or a directory), replacing whatever
// Memcached CRD is installed (kubectl's field manager owns every field of either), and waits until
// it is established.
func installCRD(ctx context.Context, root, kubeconfig, path string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(root, "bin", "kubectl"), "--kubeconfig", kubeconfig,
		"apply", "--server-side", "--force-conflicts", "-f", path)
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("failed to apply the CRD %s: %w", path, err)
	}
	// kubectl wait fails at once while the new CRD has no status yet: try again for a while.
	var err error
	for try := 0; try < 50; try++ {
		cmd = exec.CommandContext(ctx, filepath.Join(root, "bin", "kubectl"), "--kubeconfig", kubeconfig,
			"wait", "--for=condition=Established", "--timeout=60s", "crd/memcacheds.cache.example.com")
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		if err = cmd.Run(); err == nil {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("failed to wait for the CRD: %w", err)
}

// subjectIdentity creates the ServiceAccount name in identityNamespace bound to the subject's
// ClusterRole (the file rolePath: config/rbac/role.yaml for this operator, the sample's own for the
// sample, so each subject has exactly its operator's permissions), and writes a kubeconfig with a
// token of it to dir/name.kubeconfig, whose path it returns.
func subjectIdentity(ctx context.Context, kubeconfig, dir, name, rolePath string, c client.Client) (string, error) {
	raw, err := os.ReadFile(rolePath)
	if err != nil {
		return "", fmt.Errorf("failed to read the subject's ClusterRole: %w", err)
	}
	role := &rbacv1.ClusterRole{}
	if err := yaml.Unmarshal(raw, role); err != nil {
		return "", fmt.Errorf("failed to parse the subject's ClusterRole %s: %w", rolePath, err)
	}
	role.Name = "bench-" + name
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: identityNamespace}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: identityNamespace}},
		role,
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "bench-" + name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: identityNamespace}},
		},
	}
	for _, o := range objs {
		if err := c.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			return "", fmt.Errorf("failed to create %T %s: %w", o, o.GetName(), err)
		}
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return "", fmt.Errorf("failed to load %s: %w", kubeconfig, err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return "", fmt.Errorf("failed to create a clientset: %w", err)
	}
	var tok *authenticationv1.TokenRequest
	for try := 0; ; try++ { // the ServiceAccount may take a moment to be served
		tok, err = cs.CoreV1().ServiceAccounts(identityNamespace).CreateToken(ctx, name,
			&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](24 * 3600)}}, metav1.CreateOptions{})
		if err == nil || try > 20 {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	if err != nil {
		return "", fmt.Errorf("failed to request a token for ServiceAccount %s: %w", name, err)
	}
	kc, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		return "", fmt.Errorf("failed to load %s: %w", kubeconfig, err)
	}
	ctxName := kc.CurrentContext
	cluster := kc.Contexts[ctxName].Cluster
	out := clientcmdapi.NewConfig()
	out.Clusters["local"] = kc.Clusters[cluster]
	out.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: tok.Status.Token}
	out.Contexts["local"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: name}
	out.CurrentContext = "local"
	path := filepath.Join(dir, name+".kubeconfig")
	if err := clientcmd.WriteToFile(*out, path); err != nil {
		return "", fmt.Errorf("failed to write %s: %w", path, err)
	}
	return path, nil
}

// auditEvent is the part of an audit.k8s.io/v1 Event the benchmark reads.
type auditEvent struct {
	Verb  string `json:"verb"`
	Stage string `json:"stage"`
	User  struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		Namespace   string `json:"namespace"`
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		APIGroup    string `json:"apiGroup"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

// writes counts one identity's API writes in a window of the audit log.
type writes struct {
	// ByVerbResource counts writes by "verb resource[/subresource]", e.g. "patch memcacheds/status".
	ByVerbResource map[string]int `json:"byVerbResource"`
	// Total counts every write, events included; Events counts those to events (any group).
	Total, Events int
	// Conflicts counts writes answered 409 Conflict (not AlreadyExists on create: those are 409
	// too, and counted as well: any 409 is a wasted round trip).
	Conflicts int
	// ByNamespace counts the writes (Total) and the events among them (Events) by the namespace
	// they were made in: the benchmark gives each instance variant namespaces of its own
	// (namespaceVariant). Cluster-scoped writes are under "".
	ByNamespace map[string]namespaceWrites `json:"byNamespace,omitempty"`
	// Reads counts gets, lists and watches by "verb resource" (not in Total): a watch when it
	// starts (its response completes only when it ends), the others when they complete.
	Reads map[string]int `json:"reads,omitempty"`
}

// namespaceWrites counts the writes of one namespace, events included (Total), and the events.
type namespaceWrites struct {
	Total  int `json:"total"`
	Events int `json:"events"`
}

// readVerbs are the verbs counted in writes.Reads.
var readVerbs = map[string]bool{"get": true, "list": true, "watch": true}

// auditLog reads the API server's audit log by byte offsets: the log is written synchronously
// (--audit-log-mode=blocking) and never rotated, so the writes of a window are the lines between
// the file's size at its start and at its end.
type auditLog struct{ path string }

// offset returns the current size of the log.
func (a auditLog) offset() int64 {
	fi, err := os.Stat(a.path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// count returns the writes of username between the offsets from and to.
func (a auditLog) count(username string, from, to int64) (writes, error) {
	w := writes{ByVerbResource: map[string]int{}, ByNamespace: map[string]namespaceWrites{}}
	f, err := os.Open(a.path)
	if err != nil {
		return w, fmt.Errorf("failed to open the audit log: %w", err)
	}
	defer f.Close()
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return w, fmt.Errorf("failed to seek the audit log: %w", err)
	}
	sc := bufio.NewScanner(io.LimitReader(f, to-from))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e auditEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			continue // a torn last line
		}
		if e.User.Username != username || e.ObjectRef == nil {
			continue
		}
		res := e.ObjectRef.Resource
		if e.ObjectRef.Subresource != "" {
			res += "/" + e.ObjectRef.Subresource
		}
		if readVerbs[e.Verb] {
			if e.Stage == "ResponseStarted" && e.Verb == "watch" || e.Stage == "ResponseComplete" && e.Verb != "watch" {
				if w.Reads == nil {
					w.Reads = map[string]int{}
				}
				w.Reads[e.Verb+" "+res]++
			}
			continue
		}
		if e.Stage != "ResponseComplete" {
			continue
		}
		w.ByVerbResource[e.Verb+" "+res]++
		w.Total++
		ns := w.ByNamespace[e.ObjectRef.Namespace]
		ns.Total++
		if e.ObjectRef.Resource == "events" {
			w.Events++
			ns.Events++
		}
		w.ByNamespace[e.ObjectRef.Namespace] = ns
		if e.ResponseStatus != nil && e.ResponseStatus.Code == 409 {
			w.Conflicts++
		}
	}
	return w, sc.Err()
}
