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

// Command memcached-scorecard-tests is memcached-operator's custom scorecard test program. Like
// operator-sdk's scorecard-test it reads the bundle under test from /bundle (where scorecard mounts
// it; -bundle overrides), runs the test named by its first argument and prints a scorecard
// v1alpha3 TestStatus as JSON on stdout. It exits 0 whether the test passes or fails: the result
// is in the JSON.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"

	scapiv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
	"github.com/operator-framework/api/pkg/manifests"

	"github.com/example/memcached-operator/test/scorecard"
)

func main() {
	bundleDir := flag.String("bundle", "/bundle", "directory of the bundle under test")
	flag.Parse()
	status := run(*bundleDir, flag.Args())
	out, err := json.MarshalIndent(status, "", "    ")
	if err != nil {
		fmt.Fprintf(os.Stderr, "failed to encode result: %v\n", err)
		os.Exit(1)
	}
	fmt.Println(string(out))
}

func run(bundleDir string, args []string) scapiv1alpha3.TestStatus {
	fail := func(name string, err string) scapiv1alpha3.TestStatus {
		return scapiv1alpha3.TestStatus{Results: []scapiv1alpha3.TestResult{{Name: name, State: scapiv1alpha3.FailState, Errors: []string{err}}}}
	}
	names := make([]string, 0, len(scorecard.Tests))
	for n := range scorecard.Tests {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(args) == 0 {
		return fail("", fmt.Sprintf("a test name is required; valid tests: %v", names))
	}
	test, ok := scorecard.Tests[args[0]]
	if !ok {
		return fail(args[0], fmt.Sprintf("unknown test %q; valid tests: %v", args[0], names))
	}
	bundle, err := manifests.GetBundleFromDir(bundleDir)
	if err != nil {
		return fail(args[0], fmt.Sprintf("failed to load bundle %s: %v", bundleDir, err))
	}
	return scapiv1alpha3.TestStatus{Results: []scapiv1alpha3.TestResult{test(bundle)}}
}
