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
	"github.com/example/memcached-operator/controllers/status"
)

// maxEventNoteBytes is the longest note an events.k8s.io/v1 Event may carry: the API server refuses
// a longer one (NoteLengthLimit, 1 KiB, in k8s.io/kubernetes pkg/apis/events/validation), and the
// recorder then drops the event with only a log line.
const maxEventNoteBytes = 1024

// eventNote returns msg when it fits in an Event's note, else its longest prefix that ends on a
// character boundary and, with "…" appended, fits in maxEventNoteBytes bytes: a condition's message
// may be up to 32 KiB, and an event about it must still be emitted.
func eventNote(msg string) string {
	if len(msg) <= maxEventNoteBytes {
		return msg
	}
	const ellipsis = "…"
	return status.Truncate(msg, maxEventNoteBytes-len(ellipsis)) + ellipsis
}
