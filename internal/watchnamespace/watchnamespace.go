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

// Package watchnamespace turns the WATCH_NAMESPACE environment variable, which OLM fills from the
// operator pod's olm.targetNamespaces annotation, into the namespaces the manager watches and caches.
package watchnamespace

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/cache"
)

// EnvVar is the environment variable holding the namespaces to watch.
const EnvVar = "WATCH_NAMESPACE"

// Parse reads a WATCH_NAMESPACE value: "" (or only separators and spaces) means all namespaces and
// returns nil; "a" one namespace; "a,b" several. Items are trimmed, empty items dropped and
// duplicates removed; the result is sorted. This is the OLM contract: olm.targetNamespaces is
// "" for AllNamespaces, "ns" for OwnNamespace/SingleNamespace and "a,b" for MultiNamespace
// (https://olm.operatorframework.io/docs/advanced-tasks/operator-scoping-with-operatorgroups/).
// It returns an error naming the first item that is not a valid namespace name (DNS-1123 label).
func Parse(value string) ([]string, error) {
	var out []string
	for _, item := range strings.Split(value, ",") {
		ns := strings.TrimSpace(item)
		if ns == "" {
			continue
		}
		if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
			return nil, fmt.Errorf("invalid namespace %q in %s=%q: %s", ns, EnvVar, value, strings.Join(errs, "; "))
		}
		out = append(out, ns)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// CacheConfig returns cache.Options.DefaultNamespaces for namespaces: nil (all namespaces) when
// namespaces is empty, else one entry per namespace.
func CacheConfig(namespaces []string) map[string]cache.Config {
	if len(namespaces) == 0 {
		return nil
	}
	m := make(map[string]cache.Config, len(namespaces))
	for _, ns := range namespaces {
		m[ns] = cache.Config{}
	}
	return m
}
