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

package scorecard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	scapiv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
	"sigs.k8s.io/yaml"
)

// PodBundleRoot is where scorecard test programs read the bundle (operator-sdk scorecard.PodBundleRoot).
const PodBundleRoot = "/bundle"

// RunLocal runs the scorecard tests of the bundle in bundleDir on this machine, without a cluster:
// for each test of the bundle's scorecard configuration (tests/scorecard/config.yaml) it runs the
// program named by the test's entrypoint from binDir exactly as the test pod would, with the bundle
// visible at /bundle, bind-mounted in a private mount namespace (`unshare --mount`, so it needs
// root). Built-in tests must use sdkImage, the image of the local scorecard-test's version. It
// prints each result to w like `operator-sdk scorecard -o text` and returns the names of the tests
// that did not pass; err is set when the configuration cannot be read.
func RunLocal(bundleDir, binDir, sdkImage string, w io.Writer) (failed []string, err error) {
	bundleDir, err = filepath.Abs(bundleDir)
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(filepath.Join(bundleDir, "tests", "scorecard", "config.yaml"))
	if err != nil {
		return nil, fmt.Errorf("failed to read the scorecard configuration: %w", err)
	}
	cfg := scapiv1alpha3.Configuration{}
	if err := yaml.UnmarshalStrict(raw, &cfg); err != nil {
		return nil, fmt.Errorf("failed to parse the scorecard configuration: %w", err)
	}
	if err := os.MkdirAll(PodBundleRoot, 0o755); err != nil {
		return nil, fmt.Errorf("failed to create %s (run as root): %w", PodBundleRoot, err)
	}
	total := 0
	for _, stage := range cfg.Stages {
		for _, test := range stage.Tests {
			total++
			status := runTest(bundleDir, binDir, sdkImage, test)
			printText(w, test, status)
			for _, r := range status.Results {
				if r.State != scapiv1alpha3.PassState {
					failed = append(failed, r.Name)
				}
			}
		}
	}
	if total == 0 {
		return nil, fmt.Errorf("the scorecard configuration has no tests")
	}
	return failed, nil
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
	script := `mount --bind "$1" ` + PodBundleRoot + ` && shift && exec "$@"`
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
func printText(w io.Writer, test scapiv1alpha3.TestConfiguration, status scapiv1alpha3.TestStatus) {
	fmt.Fprintln(w, strings.Repeat("-", 80))
	fmt.Fprintf(w, "Image:      %s\nEntrypoint: %v\nLabels:\n", test.Image, test.Entrypoint)
	keys := make([]string, 0, len(test.Labels))
	for k := range test.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "\t%q:%q\n", k, test.Labels[k])
	}
	fmt.Fprintln(w, "Results:")
	for _, r := range status.Results {
		fmt.Fprintf(w, "\tName: %s\n\tState: %s\n", r.Name, r.State)
		if len(r.Suggestions) > 0 {
			fmt.Fprintln(w, "\n\tSuggestions:")
			for _, s := range r.Suggestions {
				fmt.Fprintf(w, "\t\t%s\n", s)
			}
		}
		if len(r.Errors) > 0 {
			fmt.Fprintln(w, "\n\tErrors:")
			for _, e := range r.Errors {
				fmt.Fprintf(w, "\t\t%s\n", e)
			}
		}
		if r.Log != "" {
			fmt.Fprintln(w, "\n\tLog:")
			for _, l := range strings.Split(strings.TrimSpace(r.Log), "\n") {
				fmt.Fprintf(w, "\t\t%s\n", l)
			}
		}
		fmt.Fprintln(w)
	}
}
