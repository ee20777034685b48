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
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// TestDocsShowTheOLMv1Samples: docs/olm.md shows each file of config/samples/olmv1 verbatim as a
// YAML block, so the YAML a user copies is the YAML test/olmv1real applies on the real node.
func TestDocsShowTheOLMv1Samples(t *testing.T) {
	doc, err := os.ReadFile("docs/olm.md")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("config/samples/olmv1/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples in config/samples/olmv1 (%v)", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), "```yaml\n"+string(data)+"```\n") {
			t.Errorf("docs/olm.md does not show %s verbatim in a ```yaml block: copy it there", f)
		}
	}
}

// markdownLink is an inline link's target; anchor ids are GitHub's: the heading lowercased, every
// character but letters, digits, spaces, '-' and '_' dropped, spaces made '-' (a repeated heading
// gets -1, -2, ...).
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// codeSpan is an inline code span.
var codeSpan = regexp.MustCompile("`[^`]*`")

// headingAnchors returns the anchors of the headings of a Markdown file (outside code fences).
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fence := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "```") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(l, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}

// Every relative link of the README, the CHANGELOG and docs/ names a file of the repository, and
// its #anchor a heading of that file.
func TestRelativeLinksResolve(t *testing.T) {
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append(files, "README.md", "CHANGELOG.md") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// Links in code (fenced blocks, `spans`) are text, not links.
		var prose strings.Builder
		fence := false
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "```") {
				fence = !fence
			}
			if !fence {
				prose.WriteString(codeSpan.ReplaceAllString(l, "") + "\n")
			}
		}
		for _, m := range markdownLink.FindAllStringSubmatch(prose.String(), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			file := f
			if path != "" {
				file = filepath.Join(filepath.Dir(f), path)
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s: link %s: no file %s", f, target, file)
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(file, ".md") {
				continue
			}
			text, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if !headingAnchors(string(text))[anchor] {
				t.Errorf("%s: link %s: %s has no heading #%s", f, target, file, anchor)
			}
		}
	}
}
