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

// Command scorecard-local runs a bundle's scorecard tests on this machine, without a cluster: for
// each test in the bundle's scorecard configuration (tests/scorecard/config.yaml) it runs the test
// program named by the test's entrypoint from -bin (operator-sdk's scorecard-test built from the
// same operator-sdk version as the images, and our memcached-scorecard-tests), exactly as the test
// pod would: with the bundle visible at /bundle, bind-mounted in a private mount namespace
// (`unshare --mount`, so it needs root, as in CI). It prints the results like
// `operator-sdk scorecard -o text` and exits 1 when a test fails or cannot run.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	scapiv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
	"sigs.k8s.io/yaml"
)

// podBundleRoot is where scorecard test programs read the bundle (operator-sdk scorecard.PodBundleRoot).
const podBundleRoot = "/bundle"

func main() {
	bundleDir := flag.String("bundle", "bundle", "bundle directory")
	binDir := flag.String("bin", "bin", "directory holding the test programs named by the entrypoints")
	sdkImage := flag.String("scorecard-image", "quay.io/operator-framework/scorecard-test:v1.42.3",
		"the only image allowed for operator-sdk's built-in tests: its tag must be the version bin/scorecard-test was built at")
	flag.Parse()
	if err := run(*bundleDir, *binDir, *sdkImage); err != nil {
		fmt.Fprintf(os.Stderr, "scorecard: %v\n", err)
		os.Exit(1)
	}
}

func run(bundleDir, binDir, sdkImage string) error {
	bundleDir, err := filepath.Abs(bundleDir)
	if err != nil {
		return err
	}
	raw, err := os.ReadFile(filepath.Join(bundleDir, "tests", "scorecard", "config.yaml"))
	if err != nil {
		return fmt.Errorf("failed to read the scorecard configuration: %w", err)
	}
	cfg := scapiv1alpha3.Configuration{}
	if err := yaml.UnmarshalStrict(raw, &cfg); err != nil {
		return fmt.Errorf("failed to parse the scorecard configuration: %w", err)
	}
	if err := os.MkdirAll(podBundleRoot, 0o755); err != nil {
		return fmt.Errorf("failed to create %s (run as root): %w", podBundleRoot, err)
	}

	failed := 0
	total := 0
	for _, stage := range cfg.Stages {
		for _, test := range stage.Tests {
			total++
			status := runTest(bundleDir, binDir, sdkImage, test)
			printText(test, status)
			for _, r := range status.Results {
				if r.State != scapiv1alpha3.PassState {
					failed++
				}
			}
		}
	}
	if total == 0 {
		return fmt.Errorf("the scorecard configuration has no tests")
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d scorecard tests failed", failed, total)
	}
	fmt.Printf("\nAll %d scorecard tests passed.\n", total)
	return nil
}

// runTest runs one test's entrypoint with the bundle at /bundle and returns its TestStatus; a test
// that cannot run becomes a failed result saying why.
func runTest(bundleDir, binDir, sdkImage string, test scapiv1alpha3.TestConfiguration) scapiv1alpha3.TestStatus {
	fail := func(format string, args ...any) scapiv1alpha3.TestStatus {
		return scapiv1alpha3.TestStatus{Results: []scapiv1alpha3.TestResult{{
			Name: strings.Join(test.Entrypoint, " "), State: scapiv1alpha3.ErrorState, Errors: []string{fmt.Sprintf(format, args...)},
		}}}
	}
	if len(test.Entrypoint) == 0 {
		return fail("test has no entrypoint")
	}
	if test.Entrypoint[0] == "scorecard-test" && test.Image != sdkImage {
		return fail("image %s is not %s, the version of the local scorecard-test", test.Image, sdkImage)
	}
	program := filepath.Join(binDir, filepath.Base(test.Entrypoint[0]))
	if _, err := os.Stat(program); err != nil {
		return fail("test program %s not found: %v", program, err)
	}
	program, _ = filepath.Abs(program)
	// A private mount namespace: the bind mount is invisible outside and gone when the test exits.
	script := `mount --bind "$1" ` + podBundleRoot + ` && shift && exec "$@"`
	args := append([]string{"--mount", "--propagation", "private", "--", "sh", "-c", script, "sh", bundleDir, program}, test.Entrypoint[1:]...)
	cmd := exec.Command("unshare", args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fail("%s failed: %v: %s", program, err, strings.TrimSpace(stderr.String()))
	}
	status := scapiv1alpha3.TestStatus{}
	if err := json.Unmarshal(stdout.Bytes(), &status); err != nil {
		return fail("%s printed no TestStatus JSON: %v: %s", program, err, stdout.String())
	}
	if len(status.Results) == 0 {
		return fail("%s returned no results", program)
	}
	return status
}

// printText prints one test like `operator-sdk scorecard -o text`.
func printText(test scapiv1alpha3.TestConfiguration, status scapiv1alpha3.TestStatus) {
	fmt.Println(strings.Repeat("-", 80))
	fmt.Printf("Image:      %s\nEntrypoint: %v\nLabels:\n", test.Image, test.Entrypoint)
	keys := make([]string, 0, len(test.Labels))
	for k := range test.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("\t%q:%q\n", k, test.Labels[k])
	}
	fmt.Println("Results:")
	for _, r := range status.Results {
		fmt.Printf("\tName: %s\n\tState: %s\n", r.Name, r.State)
		if len(r.Suggestions) > 0 {
			fmt.Println("\n\tSuggestions:")
			for _, s := range r.Suggestions {
				fmt.Printf("\t\t%s\n", s)
			}
		}
		if len(r.Errors) > 0 {
			fmt.Println("\n\tErrors:")
			for _, e := range r.Errors {
				fmt.Printf("\t\t%s\n", e)
			}
		}
		if r.Log != "" {
			fmt.Println("\n\tLog:")
			for _, l := range strings.Split(strings.TrimSpace(r.Log), "\n") {
				fmt.Printf("\t\t%s\n", l)
			}
		}
		fmt.Println()
	}
}
