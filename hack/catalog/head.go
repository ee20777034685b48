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
	"slices"
	"strings"

	"github.com/distribution/reference"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
)

// WithHead puts head, the bundle the working tree builds (bundle/, as the Makefile's VERSION),
// into cfg for the OLM tests, so that they install and upgrade to the current code under its own
// CSV. When cfg has a bundle of that name (the head builds as a release, before the next
// version), head replaces it, keeping its image. Otherwise (the head builds as the next version)
// head is added as a release would be and promoted, as the new head of every channel whose head
// is older (AddRelease), its image the repository of those heads' images tagged v<version>; channels
// whose head is newer (a later release a test cut into a copy) are left alone, and when every
// channel's head is newer head is left out. It returns what it did, for the log.
func WithHead(cfg *declcfg.DeclarativeConfig, head declcfg.Bundle) (string, error) {
	hi, err := describeBundle(head)
	if err != nil {
		return "", fmt.Errorf("bundle %s: %w", head.Name, err)
	}
	if i := slices.IndexFunc(cfg.Bundles, func(b declcfg.Bundle) bool { return b.Name == head.Name }); i >= 0 {
		head.Image = cfg.Bundles[i].Image
		cfg.Bundles[i] = head
		return fmt.Sprintf("%s replaced by the working tree's bundle", head.Name), nil
	}
	pi := slices.IndexFunc(cfg.Packages, func(p declcfg.Package) bool { return p.Name == head.Package })
	if pi < 0 {
		return "", fmt.Errorf("the catalog has no package %q", head.Package)
	}
	var channels []string
	repo := ""
	for _, ch := range cfg.Channels {
		if ch.Package != head.Package {
			continue
		}
		heads := Heads(ch)
		if len(heads) != 1 {
			return "", fmt.Errorf("package %q, channel %q has %d heads %v", ch.Package, ch.Name, len(heads), heads)
		}
		bi := slices.IndexFunc(cfg.Bundles, func(b declcfg.Bundle) bool { return b.Name == heads[0] })
		if bi < 0 {
			return "", fmt.Errorf("package %q, channel %q: no bundle %s", ch.Package, ch.Name, heads[0])
		}
		info, err := describeBundle(cfg.Bundles[bi])
		if err != nil {
			return "", fmt.Errorf("bundle %s: %w", heads[0], err)
		}
		if !hi.version.GT(info.version) {
			continue
		}
		channels = append(channels, ch.Name)
		if repo, err = imageRepo(cfg.Bundles[bi].Image); err != nil {
			return "", err
		}
	}
	if len(channels) == 0 {
		return fmt.Sprintf("%s left out: every channel's head is newer", head.Name), nil
	}
	head.Image = repo + ":v" + hi.version.String()
	if err := AddRelease(cfg, head, channels, cfg.Packages[pi].DefaultChannel); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s (%s) added as the head of %s", head.Name, head.Image, strings.Join(channels, ", ")), nil
}

// imageRepo is image without its digest or tag (distribution/reference, as disconnected.go
// parses image references).
func imageRepo(image string) (string, error) {
	ref, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		return "", fmt.Errorf("bundle image %q: %w", image, err)
	}
	return ref.Name(), nil
}
