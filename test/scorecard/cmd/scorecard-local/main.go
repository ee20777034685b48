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

// Command scorecard-local runs a bundle's scorecard tests on this machine, without a cluster (see
// scorecard.RunLocal): `make scorecard`. It exits 1 when a test fails or cannot run.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/example/memcached-operator/test/scorecard"
)

func main() {
	bundleDir := flag.String("bundle", "bundle", "bundle directory")
	binDir := flag.String("bin", "bin", "directory holding the test programs named by the entrypoints")
	sdkImage := flag.String("scorecard-image", "quay.io/operator-framework/scorecard-test:v1.42.3",
		"the only image allowed for operator-sdk's built-in tests: its tag must be the version bin/scorecard-test was built at")
	flag.Parse()
	failed, err := scorecard.RunLocal(*bundleDir, *binDir, *sdkImage, os.Stdout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "scorecard: %v\n", err)
		os.Exit(1)
	}
	if len(failed) > 0 {
		fmt.Fprintf(os.Stderr, "scorecard: %d tests did not pass: %v\n", len(failed), failed)
		os.Exit(1)
	}
	fmt.Println("All scorecard tests passed.")
}
