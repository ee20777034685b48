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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// OperatorGroupResult is what hack/olm/operator-group.sh did for one namespace.
type OperatorGroupResult struct {
	// Name of the OperatorGroup the namespace now uses.
	Name string
	// Created is true when the script created it, false when it reused the one already there.
	Created bool
	// Message is what the script said on stderr (which group, which install mode, or why it refused).
	Message string
}

// OperatorGroup gives namespace ns the OperatorGroup an install targeting targets (nil: all
// namespaces) needs, through hack/olm/operator-group.sh of the repository at repoRoot: the same rules
// as `make demo-olm` and `make demo-olm-real` (reuse the one group that fits, else create one; OLM
// resolves nothing in a namespace with two). kubeconfig and kubectl name the cluster and the
// binary. It returns an error holding the script's message when the script refuses.
func OperatorGroup(repoRoot, kubeconfig, kubectl, ns string, targets []string) (OperatorGroupResult, error) {
	cmd := exec.Command(filepath.Join(repoRoot, "hack", "olm", "operator-group.sh"), ns, strings.Join(targets, ","))
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "KUBECTL="+kubectl)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	res := OperatorGroupResult{
		Name:    strings.TrimSpace(out.String()),
		Message: strings.TrimSpace(errOut.String()),
	}
	if err != nil {
		return res, fmt.Errorf("failed to give namespace %s an OperatorGroup for %v: %w: %s", ns, targets, err, res.Message)
	}
	res.Created = strings.Contains(res.Message, "created OperatorGroup")
	return res, nil
}
