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

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"sigs.k8s.io/yaml"
)

// CheckDockerfile statically checks a Dockerfile under root that cannot be built here (no Docker
// engine): it must parse (buildkit's parser), and every local source of COPY/ADD (not --from a
// stage) must exist relative to root. When annotationsFile is set (bundle.Dockerfile), the
// Dockerfile's LABELs must equal the bundle's metadata/annotations.yaml annotations, key for key.
// It returns one message per problem, naming the file.
func CheckDockerfile(root, dockerfile, annotationsFile string) ([]string, error) {
	f, err := os.Open(filepath.Join(root, dockerfile))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	res, err := parser.Parse(f)
	if err != nil {
		return []string{fmt.Sprintf("%s: does not parse: %v", dockerfile, err)}, nil
	}
	stages, _, err := instructions.Parse(res.AST, nil)
	if err != nil {
		return []string{fmt.Sprintf("%s: does not parse: %v", dockerfile, err)}, nil
	}
	var problems []string
	labels := map[string]string{}
	for _, st := range stages {
		for _, cmd := range st.Commands {
			switch c := cmd.(type) {
			case *instructions.LabelCommand:
				for _, kv := range c.Labels {
					labels[kv.Key] = kv.Value
				}
			case *instructions.CopyCommand:
				if c.From == "" {
					problems = append(problems, missingSources(root, dockerfile, "COPY", c.SourcePaths)...)
				}
			case *instructions.AddCommand:
				problems = append(problems, missingSources(root, dockerfile, "ADD", c.SourcePaths)...)
			}
		}
	}
	if annotationsFile == "" {
		return problems, nil
	}
	raw, err := os.ReadFile(filepath.Join(root, annotationsFile))
	if err != nil {
		return nil, err
	}
	var meta struct {
		Annotations map[string]string `json:"annotations"`
	}
	if err := yaml.Unmarshal(raw, &meta); err != nil {
		return nil, fmt.Errorf("%s: %w", annotationsFile, err)
	}
	keys := map[string]bool{}
	for k := range labels {
		keys[k] = true
	}
	for k := range meta.Annotations {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		l, lok := labels[k]
		a, aok := meta.Annotations[k]
		switch {
		case !lok:
			problems = append(problems, fmt.Sprintf("%s: no LABEL %s (%s has %q)", dockerfile, k, annotationsFile, a))
		case !aok:
			problems = append(problems, fmt.Sprintf("%s: LABEL %s is not in %s", dockerfile, k, annotationsFile))
		case l != a:
			problems = append(problems, fmt.Sprintf("%s: LABEL %s=%q but %s has %q", dockerfile, k, l, annotationsFile, a))
		}
	}
	return problems, nil
}

func missingSources(root, dockerfile, verb string, srcs []string) []string {
	var out []string
	for _, s := range srcs {
		if strings.Contains(s, "://") {
			continue
		}
		matches, _ := filepath.Glob(filepath.Join(root, s))
		if len(matches) == 0 {
			out = append(out, fmt.Sprintf("%s: %s source %s does not exist", dockerfile, verb, s))
		}
	}
	return out
}
