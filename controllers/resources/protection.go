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

package resources

import (
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// Protection is what guards an instance's servers from its clients: memcached's authentication and
// TLS as its command line sets them, and the NetworkPolicy. It is what a refused spec must never
// leave the running servers without (the reconciler stops them instead: fail closed).
type Protection struct {
	// Auth: every connection authenticates (-Y, spec.auth).
	Auth bool
	// TLS: clients speak TLS (-Z, spec.tls).
	TLS bool
	// ClientCerts is memcached's ssl_verify_mode: 0 no client certificate asked, 1 asked and
	// verified when given (spec.tls.clientCA Request), 2 required (Require).
	ClientCerts int
	// NetworkPolicy: only the peers of spec.networkPolicy reach the servers.
	NetworkPolicy bool
}

// WantedProtection is the protection mc's spec asks for, read from the same command line the pods
// get (secretArgs) so that it cannot disagree with what a pod would run.
func WantedProtection(mc *cachev1alpha1.Memcached) Protection {
	p := argsProtection(secretArgs(mc))
	p.NetworkPolicy = mc.Spec.NetworkPolicy.Enabled
	return p
}

// LiveProtection is the protection a live pod template gives, read from its memcached container's
// arguments; networkPolicy tells whether the instance's NetworkPolicy exists.
func LiveProtection(t *corev1.PodTemplateSpec, networkPolicy bool) Protection {
	var p Protection
	for _, c := range t.Spec.Containers {
		if c.Name == ContainerName {
			p = argsProtection(c.Args)
		}
	}
	p.NetworkPolicy = networkPolicy
	return p
}

// argsProtection reads memcached's arguments as memcached does: in order, a later -o
// ssl_verify_mode overriding an earlier one.
func argsProtection(args []string) Protection {
	var p Protection
	for i, a := range args {
		switch a {
		case "-Y":
			p.Auth = true
		case "-Z":
			p.TLS = true
		case "-o":
			if i+1 == len(args) {
				continue
			}
			for _, opt := range strings.Split(args[i+1], ",") {
				if v, ok := strings.CutPrefix(opt, "ssl_verify_mode="); ok {
					p.ClientCerts, _ = strconv.Atoi(v)
				}
			}
		}
	}
	return p
}

// Missing names what want asks for that have lacks, each with the field that asks for it, in a
// fixed order; nil when have is at least as protected.
func (want Protection) Missing(have Protection) []string {
	var out []string
	if want.Auth && !have.Auth {
		out = append(out, "authentication (spec.auth)")
	}
	if want.TLS && !have.TLS {
		out = append(out, "TLS (spec.tls)")
	}
	if want.ClientCerts > have.ClientCerts {
		out = append(out, "client certificate verification (spec.tls.clientCA)")
	}
	if want.NetworkPolicy && !have.NetworkPolicy {
		out = append(out, "the NetworkPolicy (spec.networkPolicy)")
	}
	return out
}
