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

package leaderready

import (
	"context"
	"errors"
	"slices"
	"testing"
)

func TestLeaseNamespace(t *testing.T) {
	for name, c := range map[string]struct {
		watched []string
		allowed []string
		want    string
	}{
		"all namespaces, allowed in own":          {nil, []string{"op"}, "op"},
		"own namespace (OwnNamespace)":            {[]string{"op"}, []string{"op"}, "op"},
		"OLM v0 SingleNamespace: both granted":    {[]string{"app"}, []string{"op", "app"}, "op"},
		"OLM v1 SingleNamespace: the watched one": {[]string{"app"}, []string{"app"}, "app"},
		"several watched, refused in own":         {[]string{"a", "b"}, []string{"a", "b"}, "op"},
		"refused everywhere":                      {[]string{"app"}, nil, "op"},
	} {
		may := func(_ context.Context, ns string) (bool, error) { return slices.Contains(c.allowed, ns), nil }
		got, err := LeaseNamespace(context.Background(), "op", c.watched, may)
		if err != nil || got != c.want {
			t.Errorf("%s: LeaseNamespace = %q, %v; want %q", name, got, err, c.want)
		}
	}
	boom := func(context.Context, string) (bool, error) { return false, errors.New("boom") }
	if _, err := LeaseNamespace(context.Background(), "op", []string{"app"}, boom); err == nil {
		t.Error("an error of the access review is not returned")
	}
}
