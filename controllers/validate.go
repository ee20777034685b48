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
	"errors"
	"strings"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// validateSpec returns why mc cannot be applied, naming each field, or nil: the API's rules
// (api/v1alpha1 validation.go), the CRD's Go twin (Validate) then what the schema cannot check
// (ValidateResources), joined into the one message the InvalidSpec condition carries.
func validateSpec(mc *cachev1alpha1.Memcached) error {
	var msgs []string
	for _, err := range mc.Validate() {
		msgs = append(msgs, err.Error())
	}
	if err := mc.ValidateResources(); err != nil {
		msgs = append(msgs, err.Error())
	}
	if err := mc.ValidateMetadata(); err != nil {
		msgs = append(msgs, err.Error())
	}
	if len(msgs) == 0 {
		return nil
	}
	return errors.New(strings.Join(msgs, "; "))
}
