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

// kubectl-memcached is the kubectl plugin of memcached-operator (docs/troubleshooting.md):
//
//	kubectl memcached status NAME [-n NAMESPACE]
//	kubectl memcached report NAME [-n NAMESPACE] [-o FILE]
//	kubectl memcached restart NAME [-n NAMESPACE] [--wait] [--timeout DURATION]
//	kubectl memcached flush NAME [-n NAMESPACE] [--interval DURATION]
//
// It acts with the caller's kubeconfig (--kubeconfig, $KUBECONFIG, --context). status and report
// write nothing to the cluster; restart patches the Memcached; flush talks to memcached through
// port-forwards.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/internal/kubectlplugin"
)

const usage = `kubectl memcached: what one Memcached is doing, for a person in trouble.

  kubectl memcached status NAME [-n NAMESPACE]   servers, conditions, last events
  kubectl memcached report NAME [-n NAMESPACE] [-o FILE]
        a diagnostics bundle (.tar.gz): the Memcached, the objects the operator owns for it,
        pods, events, the operator's log; never a Secret's data
  kubectl memcached restart NAME [-n NAMESPACE] [--wait] [--timeout 10m]
        replace the servers one at a time (each starts empty), as a template change does;
        --wait until the instance is Ready again
  kubectl memcached flush NAME [-n NAMESPACE] [--interval 30s]
        empty the servers one at a time: server i is flushed i*interval from now

Flags (anywhere after the command): -n/--namespace, --context, --kubeconfig, -o (report only;
default memcached-report-NAMESPACE-NAME.tar.gz), --wait and --timeout (restart), --interval (flush).
`

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

// run is main with its arguments and output.
func run(args []string, stdout io.Writer) error {
	if len(args) > 0 && (args[0] == "help" || args[0] == "-h" || args[0] == "--help") {
		_, err := fmt.Fprint(stdout, usage)
		return err
	}
	if len(args) == 0 || (args[0] != "status" && args[0] != "report" && args[0] != "restart" && args[0] != "flush") {
		fmt.Fprint(os.Stderr, usage)
		return fmt.Errorf("want a command: status, report, restart or flush")
	}
	cmd := args[0]
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	var namespace, kubeContext, kubeconfig, out string
	for _, n := range []string{"n", "namespace"} {
		fs.StringVar(&namespace, n, "", "the Memcached's namespace (default: the context's)")
	}
	fs.StringVar(&kubeContext, "context", "", "the kubeconfig context")
	fs.StringVar(&kubeconfig, "kubeconfig", "", "the kubeconfig file (default: $KUBECONFIG, ~/.kube/config)")
	fs.StringVar(&out, "o", "", "report: the file to write")
	waitReady := fs.Bool("wait", false, "restart: wait until the instance is Ready again")
	timeout := fs.Duration("timeout", 10*time.Minute, "restart --wait: how long to wait")
	interval := fs.Duration("interval", 30*time.Second, "flush: the time between two servers' flushes")
	// Flags may follow the name, as with kubectl: parse again after each positional argument.
	var names []string
	rest := args[1:]
	for {
		if err := fs.Parse(rest); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		names, rest = append(names, fs.Arg(0)), fs.Args()[1:]
	}
	if len(names) != 1 {
		return fmt.Errorf("%s takes one Memcached name, got %d", cmd, len(names))
	}
	name := names[0]

	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: kubeContext})
	cfg, err := cc.ClientConfig()
	if err != nil {
		return fmt.Errorf("failed to load the kubeconfig: %w", err)
	}
	if namespace == "" {
		if namespace, _, err = cc.Namespace(); err != nil {
			return fmt.Errorf("failed to read the context's namespace: %w", err)
		}
	}
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, cachev1alpha1.AddToScheme} {
		if err := add(scheme); err != nil {
			return fmt.Errorf("failed to build the scheme: %w", err)
		}
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return fmt.Errorf("failed to create a client: %w", err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("failed to create a clientset: %w", err)
	}
	clients := kubectlplugin.Clients{Client: c, Clientset: cs}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	switch cmd {
	case "status":
		return kubectlplugin.Status(ctx, clients, namespace, name, stdout, time.Now())
	case "flush":
		if *interval < time.Second {
			return fmt.Errorf("--interval %s: memcached's flush_all delay is in whole seconds, at least 1s", *interval)
		}
		return kubectlplugin.Flush(ctx, clients, cfg, namespace, name, *interval, stdout)
	case "restart":
		gen, err := kubectlplugin.Restart(ctx, clients, namespace, name, time.Now(), stdout)
		if err != nil || !*waitReady {
			return err
		}
		wctx, wcancel := context.WithTimeout(context.Background(), *timeout)
		defer wcancel()
		if err := kubectlplugin.WaitReady(wctx, clients, namespace, name, gen, stdout); err != nil {
			return fmt.Errorf("failed to wait for Memcached %s/%s to be Ready: %w", namespace, name, err)
		}
		fmt.Fprintf(stdout, "memcached %s/%s: restarted, Ready\n", namespace, name)
		return nil
	}
	if out == "" {
		out = fmt.Sprintf("memcached-report-%s-%s.tar.gz", namespace, name)
	}
	f, err := os.Create(out)
	if err != nil {
		return fmt.Errorf("failed to create %s: %w", out, err)
	}
	if err := kubectlplugin.Report(ctx, clients, namespace, name, f, time.Now()); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("failed to write %s: %w", out, err)
	}
	fmt.Fprintf(stdout, "wrote %s (no Secret data: the report reads no Secret)\n", out)
	return nil
}
