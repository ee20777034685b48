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

package v1alpha1

import "strconv"

// PauseAnnotation set to a true value ("true", "1") on a Memcached stops its reconciliation
// (operator-lib predicate.NewPause); the objects it owns are left as they are, and the instance
// never holds an operator upgrade (the OperatorCondition Upgradeable).
const PauseAnnotation = "cache.example.com/paused"

// Paused reports whether mc carries PauseAnnotation with a true value (strconv.ParseBool).
func (mc *Memcached) Paused() bool {
	v, ok := mc.Annotations[PauseAnnotation]
	if !ok {
		return false
	}
	b, err := strconv.ParseBool(v)
	return err == nil && b
}
