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

package controllers

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"

	"github.com/example/memcached-operator/controllers/resources"
)

// The Secrets that spec.tls and spec.auth name, read uncached when a reconcile needs them; their
// data is checked and hashed by resources.SecretDataHash (secret_data.go).

// secretsHash reads the Secrets mc's pods use and returns the keyed hashes of the data of the keys
// they use (resources.SecretHashes), empty when they use none. It returns a *resources.SecretError when a Secret is missing or
// a key is absent or unusable (resources.SecretDataHash), and an error wrapping the API failure
// otherwise.
//
// Secrets are read with reader, the uncached API reader: the manager caches only the Secrets'
// metadata (cache.ManagerOptions, SetupWithManager), so their data is held in memory only during
// this call, and only for the Secrets an instance names.
func secretsHash(ctx context.Context, reader client.Reader, mc *cachev1alpha1.Memcached) (resources.SecretHashes, error) {
	names := resources.ReferencedSecrets(mc)
	if len(names) == 0 {
		return resources.SecretHashes{}, nil
	}
	secrets := map[string]*corev1.Secret{}
	for _, name := range names {
		s := &corev1.Secret{}
		key := types.NamespacedName{Namespace: mc.Namespace, Name: name}
		if err := reader.Get(ctx, key, s); err != nil {
			if apierrors.IsNotFound(err) {
				return resources.SecretHashes{}, &resources.SecretError{Reason: cachev1alpha1.ReasonSecretNotFound,
					Message: fmt.Sprintf("Secret %s not found (%s)", name, resources.UsedFor(mc, name))}
			}
			return resources.SecretHashes{}, fmt.Errorf("failed to get Secret %s: %w", key, err)
		}
		secrets[name] = s
	}
	return resources.SecretDataHash(mc, secrets)
}
