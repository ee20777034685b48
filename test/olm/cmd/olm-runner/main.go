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

// Command olm-runner runs the operator of an OLM-created Deployment as a local process, exactly as
// its pod would run (see package runner), until it receives SIGTERM or SIGINT. `make demo-olm`
// uses it; the OLM tests use the package directly.
//
//	olm-runner -namespace NS -deployment NAME -binaries v0.1.0=bin/manager-v0.1.0,v0.2.0=bin/manager -workdir DIR
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/example/memcached-operator/test/olm/runner"
)

func main() {
	ns := flag.String("namespace", "", "namespace of the operator Deployment")
	name := flag.String("deployment", "memcached-operator-controller-manager", "name of the operator Deployment")
	bins := flag.String("binaries", os.Getenv("OLM_BINARIES"), "image tag=binary pairs, comma-separated")
	workdir := flag.String("workdir", "", "directory for the kubeconfig, service account files and operator.log")
	flag.Parse()
	if *ns == "" || *workdir == "" {
		fmt.Fprintln(os.Stderr, "olm-runner: -namespace and -workdir are required")
		os.Exit(2)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	if err != nil {
		fmt.Fprintf(os.Stderr, "olm-runner: %v\n", err)
		os.Exit(1)
	}
	binaries := map[string]string{}
	for _, kv := range strings.Split(*bins, ",") {
		if tag, path, ok := strings.Cut(strings.TrimSpace(kv), "="); ok {
			binaries[tag] = path
		}
	}
	r := &runner.Runner{
		Config: cfg, Namespace: *ns, Name: *name, Container: "manager", WorkDir: *workdir,
		Binary: func(image string) (string, error) {
			if b, ok := binaries[runner.ImageVersion(image)]; ok {
				return b, nil
			}
			return "", fmt.Errorf("no local binary for image %s", image)
		},
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := r.Run(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "olm-runner: %v\n", err)
		os.Exit(1)
	}
}
