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

// Command yaml-lint parses every .yaml/.yml file under the given directories, document by
// document, and prints "<file>: <error>" for each file that is not valid YAML. It exits 1 when one
// is found. `make bundle-validate` runs it before operator-sdk, whose loader reports a CSV with a
// syntax error only as "no CSV found" (operator-framework/operator-lifecycle-manager#2227).
package main

import (
	"fmt"
	"os"

	"github.com/example/memcached-operator/test/bundle"
)

func main() {
	bad := 0
	for _, dir := range os.Args[1:] {
		errs, err := bundle.LintYAML(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for _, e := range errs {
			fmt.Fprintln(os.Stderr, e)
			bad++
		}
	}
	if bad > 0 {
		os.Exit(1)
	}
}
