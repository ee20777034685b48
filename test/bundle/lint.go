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

// Package bundle checks an OLM bundle directory beyond what operator-sdk prints: YAML syntax per
// file, and operator-framework/api's validators run as a Go test.
package bundle

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// LintYAML parses every .yaml and .yml file under dir, document by document, and returns one error
// per invalid file, naming the file. A missing dir is not an error (a bundle may have no tests/).
func LintYAML(dir string) ([]error, error) {
	var errs []error
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path == dir {
				return filepath.SkipDir
			}
			return err
		}
		if d.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		dec := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
		for i := 0; ; i++ {
			var doc any
			if err := dec.Decode(&doc); err != nil {
				if !errors.Is(err, io.EOF) {
					errs = append(errs, fmt.Errorf("%s: document %d is not valid YAML: %w", path, i+1, err))
				}
				break
			}
			if _, ok := doc.(map[string]any); doc != nil && !ok {
				errs = append(errs, fmt.Errorf("%s: document %d is not a YAML mapping (a stray line?)", path, i+1))
				break
			}
		}
		return nil
	})
	return errs, err
}
