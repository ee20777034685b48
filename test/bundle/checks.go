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

package bundle

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/operator-framework/api/pkg/manifests"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/api/pkg/validation"
	"github.com/operator-framework/api/pkg/validation/errors"
	validator "github.com/operator-framework/api/pkg/validation/interfaces"
)

// Validators are operator-framework/api's validators this project holds its bundle to: the default
// bundle validators plus good practices, OperatorHub v2, standard capabilities and categories, and
// deprecated APIs. Errors and warnings both fail the project's checks.
var Validators = append(validator.Validators{
	validation.GoodPracticesValidator,
	validation.OperatorHubV2Validator,
	validation.StandardCapabilitiesValidator,
	validation.StandardCategoriesValidator,
	validation.AlphaDeprecatedAPIsValidator,
}, validation.DefaultBundleValidators...)

// Validate loads the bundle in dir and runs Validators on it. It returns every error and warning as
// "<level>: <message>", or an error when the bundle cannot be loaded at all.
func Validate(dir string, k8sVersion string) ([]string, error) {
	b, err := manifests.GetBundleFromDir(dir)
	if err != nil {
		return nil, fmt.Errorf("failed to load bundle %s: %w", dir, err)
	}
	objs := b.ObjectsToValidate()
	objs = append(objs, map[string]string{"k8s-version": k8sVersion})
	var out []string
	for _, res := range Validators.Validate(objs...) {
		for _, e := range res.Errors {
			out = append(out, describe(e))
		}
		for _, w := range res.Warnings {
			out = append(out, describe(w))
		}
	}
	return out, nil
}

func describe(e errors.Error) string {
	return fmt.Sprintf("%s: %s", e.Level, e.Error())
}

// ClusterScopedRulesInPermissions returns one message per rule of the CSV's namespaced
// `permissions` that names a cluster-scoped resource. OLM turns `permissions` into Roles in the
// target namespaces, where such a rule grants nothing, so the feature silently fails in
// OwnNamespace/SingleNamespace/MultiNamespace modes (elastic/cloud-on-k8s#9654). clusterScoped is
// the set of "resource.group" names ("nodes" for the core group).
func ClusterScopedRulesInPermissions(b *manifests.Bundle, clusterScoped map[string]bool) []string {
	var out []string
	for i, perm := range b.CSV.Spec.InstallStrategy.StrategySpec.Permissions {
		for j, rule := range perm.Rules {
			for _, g := range rule.APIGroups {
				for _, r := range rule.Resources {
					name := strings.SplitN(r, "/", 2)[0]
					if g != "" {
						name += "." + g
					}
					if clusterScoped[name] {
						out = append(out, fmt.Sprintf("spec.install.spec.permissions[%d].rules[%d] grants %s, which is cluster-scoped: move it to clusterPermissions", i, j, name))
					}
				}
			}
		}
	}
	return out
}

// WildcardRules returns one message per CSV rule (permissions or clusterPermissions) that uses "*"
// in apiGroups, resources or verbs (no wildcards; elastic/cloud-on-k8s#9654).
func WildcardRules(b *manifests.Bundle) []string {
	var out []string
	spec := b.CSV.Spec.InstallStrategy.StrategySpec
	check := func(field string, perms []operatorsv1alpha1.StrategyDeploymentPermissions) {
		for i, p := range perms {
			for j, rule := range p.Rules {
				if slices.Contains(rule.APIGroups, "*") || slices.Contains(rule.Resources, "*") || slices.Contains(rule.Verbs, "*") {
					out = append(out, fmt.Sprintf("spec.install.spec.%s[%d].rules[%d] uses a wildcard", field, i, j))
				}
			}
		}
	}
	check("permissions", spec.Permissions)
	check("clusterPermissions", spec.ClusterPermissions)
	return out
}

// ReadResourceList reads "resource.group" names, one per line, skipping blank lines and # comments.
func ReadResourceList(r io.Reader) (map[string]bool, error) {
	out := map[string]bool{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out[line] = true
	}
	return out, sc.Err()
}
