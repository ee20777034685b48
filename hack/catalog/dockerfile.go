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
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/buildkit/frontend/dockerfile/shell"
	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
	"sigs.k8s.io/yaml"
)

// CheckDockerfile statically checks a Dockerfile under root, the build context: it must parse
// (buildkit's parser); every FROM must name an image with the default build args (a base image
// taken as an ARG keeps the public image as its default); and every local source of COPY/ADD (not
// --from a stage) must exist relative to root with none of its files hidden by an ignore file a
// builder may apply to this Dockerfile (ignoreFiles). When annotationsFile is set
// (bundle.Dockerfile), the Dockerfile's LABELs must equal the bundle's metadata/annotations.yaml
// annotations, key for key. It returns one message per problem, naming the file.
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
	stages, metaArgs, err := instructions.Parse(res.AST, nil)
	if err != nil {
		return []string{fmt.Sprintf("%s: does not parse: %v", dockerfile, err)}, nil
	}
	ignores, err := loadIgnoreFiles(root, dockerfile)
	if err != nil {
		return nil, err
	}
	problems := emptyBaseImages(dockerfile, stages, metaArgs)
	sources := func(verb string, srcs []string) []string {
		return checkSources(root, dockerfile, verb, srcs, ignores)
	}
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
					problems = append(problems, sources("COPY", c.SourcePaths)...)
				}
			case *instructions.AddCommand:
				problems = append(problems, sources("ADD", c.SourcePaths)...)
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

// emptyBaseImages reports every FROM whose image name is empty once the build args take their
// defaults: `docker build` without --build-arg must work as it does with the public images.
func emptyBaseImages(dockerfile string, stages []instructions.Stage, metaArgs []instructions.ArgCommand) []string {
	var env []string
	for _, a := range metaArgs {
		for _, kv := range a.Args {
			if kv.Value != nil {
				env = append(env, kv.Key+"="+*kv.Value)
			}
		}
	}
	lex := shell.NewLex('\\')
	var out []string
	for _, st := range stages {
		name, _, err := lex.ProcessWord(st.BaseName, shell.EnvsFromSlice(env))
		switch {
		case err != nil:
			out = append(out, fmt.Sprintf("%s: FROM %s: %v", dockerfile, st.BaseName, err))
		case strings.TrimSpace(name) == "":
			out = append(out, fmt.Sprintf("%s: FROM %s names no image with the default build args (give the ARG a default)", dockerfile, st.BaseName))
		}
	}
	return out
}

// ignoreFile is one parsed ignore file: its path relative to the build context and its patterns.
type ignoreFile struct {
	path    string
	matcher *patternmatcher.PatternMatcher
}

// loadIgnoreFiles parses every ignore file a builder may apply to dockerfile's build context root.
// BuildKit and buildah use <Dockerfile>.dockerignore next to the Dockerfile when it exists, before
// the context's .dockerignore; buildah also reads <Dockerfile>.containerignore and .containerignore;
// Docker's legacy builder knows only .dockerignore. The check cannot know the builder, so every one
// of them that exists must leave every COPY/ADD source whole.
func loadIgnoreFiles(root, dockerfile string) ([]ignoreFile, error) {
	var out []ignoreFile
	for _, name := range []string{
		dockerfile + ".dockerignore", dockerfile + ".containerignore", ".dockerignore", ".containerignore",
	} {
		f, err := os.Open(filepath.Join(root, name))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		patterns, err := ignorefile.ReadAll(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		pm, err := patternmatcher.New(patterns)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, ignoreFile{path: filepath.ToSlash(name), matcher: pm})
	}
	return out, nil
}

// checkSources reports COPY/ADD sources that do not exist under root, and sources some of whose
// files an ignore file hides from the build context: all of them makes the build fail ("no items
// matching glob"), some of them silently leaves them out of the image.
func checkSources(root, dockerfile, verb string, srcs []string, ignores []ignoreFile) []string {
	var out []string
	for _, s := range srcs {
		if strings.Contains(s, "://") {
			continue
		}
		matches, _ := filepath.Glob(filepath.Join(root, s))
		if len(matches) == 0 {
			out = append(out, fmt.Sprintf("%s: %s source %s does not exist", dockerfile, verb, s))
			continue
		}
		var files []string
		for _, m := range matches {
			_ = filepath.WalkDir(m, func(path string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if d.IsDir() && !isEmptyDir(path) {
					return nil
				}
				rel, _ := filepath.Rel(root, path)
				files = append(files, filepath.ToSlash(rel))
				return nil
			})
		}
		for _, ig := range ignores {
			var hidden []string
			for _, f := range files {
				if excluded, err := ig.matcher.MatchesOrParentMatches(f); err != nil {
					out = append(out, fmt.Sprintf("%s: %s: %v", dockerfile, ig.path, err))
					break
				} else if excluded {
					hidden = append(hidden, f)
				}
			}
			switch {
			case len(hidden) == 0:
			case len(hidden) == len(files):
				out = append(out, fmt.Sprintf("%s: %s source %s is hidden by %s (the build finds nothing to copy)", dockerfile, verb, s, ig.path))
			default:
				out = append(out, fmt.Sprintf("%s: %s source %s: %d of its %d files are hidden by %s and would be missing from the image, e.g. %s",
					dockerfile, verb, s, len(hidden), len(files), ig.path, hidden[0]))
			}
		}
	}
	return out
}

func isEmptyDir(path string) bool {
	entries, err := os.ReadDir(path)
	return err == nil && len(entries) == 0
}
