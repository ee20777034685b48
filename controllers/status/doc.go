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

// Package status computes a Memcached's status from what one reconcile observed (Observed):
// ComputeStatus counts the pods and lists the servers, and each condition has its own pure
// function beside its reasons (available.go, progressing.go, degraded.go). It reads no cluster and
// writes nothing; the reconciler writes the result in one status patch.
package status
