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

package utils

import (
	"io"
	"testing"
)

// TestProgress: progress lines, however the writes split them, update the figures and are not
// kept; every other line is.
func TestProgress(t *testing.T) {
	tests := map[string]struct {
		writes                []string
		rounds, lists, onList int
		other                 string
	}{
		"nothing": {},
		"watch rounds": {
			writes: []string{"round 1\n", "round 2\nround 3\n"},
			rounds: 3, lists: 1, onList: 3,
		},
		"rehash rounds over two lists": {
			writes: []string{"round 1 list 1\nround 2 list 1\n", "round 3 list 2\n", "round 4 list 2\n"},
			rounds: 4, lists: 2, onList: 2,
		},
		"a line split over writes": {
			writes: []string{"rou", "nd 7 li", "st 1\n"},
			rounds: 7, lists: 1, onList: 1,
		},
		"other lines kept, a partial one too": {
			writes: []string{"mcclient rehash: 1 error(s):\n", "round 1 list 1\n", "  get gs-1: timeout\nrounding"},
			rounds: 1, lists: 1, onList: 1,
			other: "mcclient rehash: 1 error(s):\n  get gs-1: timeout\nrounding",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p := &Progress{}
			for _, w := range tc.writes {
				if _, err := io.WriteString(p, w); err != nil {
					t.Fatal(err)
				}
			}
			rounds, lists, onList := p.Rounds()
			if rounds != tc.rounds || lists != tc.lists || onList != tc.onList {
				t.Errorf("Rounds() = %d, %d, %d; want %d, %d, %d", rounds, lists, onList, tc.rounds, tc.lists, tc.onList)
			}
			if got := p.String(); got != tc.other {
				t.Errorf("String() = %q, want %q", got, tc.other)
			}
		})
	}
}
