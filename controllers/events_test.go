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

package controllers

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEventNote(t *testing.T) {
	tests := map[string]struct {
		msg      string
		want     string // "" means: a truncation of msg, checked below
		wantSize int
	}{
		"short message unchanged":     {msg: "Deployment memcached-sample created", want: "Deployment memcached-sample created"},
		"exactly the limit unchanged": {msg: strings.Repeat("a", maxEventNoteBytes), want: strings.Repeat("a", maxEventNoteBytes)},
		"one byte over is cut":        {msg: strings.Repeat("a", maxEventNoteBytes+1), wantSize: maxEventNoteBytes},
		"long ASCII is cut":           {msg: strings.Repeat("x", 5000), wantSize: maxEventNoteBytes},
		// 3-byte runes: the cut must not split one; 1021 bytes is not a multiple of 3.
		"multi-byte runes stay whole": {msg: strings.Repeat("€", 1000), wantSize: 1020 + len("…")},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := eventNote(tc.msg)
			if tc.want != "" {
				if got != tc.want {
					t.Fatalf("eventNote changed a message that fits: got %d bytes", len(got))
				}
				return
			}
			if len(got) > maxEventNoteBytes || len(got) != tc.wantSize {
				t.Fatalf("got %d bytes, want %d (limit %d)", len(got), tc.wantSize, maxEventNoteBytes)
			}
			if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") {
				t.Fatalf("truncated note is not valid UTF-8 ending in an ellipsis: %q", got[len(got)-8:])
			}
			if !strings.HasPrefix(tc.msg, strings.TrimSuffix(got, "…")) {
				t.Fatal("truncated note is not a prefix of the message")
			}
		})
	}
}
