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

package resources

import (
	"maps"
	"slices"
	"testing"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"

	"github.com/example/memcached-operator/controllers/internal/fixture"
)

// What the spec adds to an object's labels and annotations is applied, changed and removed, while
// what others put there stays, and an object of an instance that adds nothing carries no record.
func TestAddedMetadata(t *testing.T) {
	ours := map[string]string{LabelName: AppName, LabelInstance: "c"}
	ourAnnotations := map[string]string{SecretHashAnnotation: "h1"}
	tests := map[string]struct {
		// live is the object as it is (labels, annotations), before: nil means built from was.
		was, now                    added
		liveLabels, liveAnnotations map[string]string
		wantLabels, wantAnnotations map[string]string
		wantMatchBefore             bool
	}{
		"nothing added: no record": {
			now:        added{},
			liveLabels: ours, liveAnnotations: ourAnnotations,
			wantLabels: ours, wantAnnotations: ourAnnotations, wantMatchBefore: true,
		},
		"a label and an annotation added": {
			was:             added{},
			now:             added{labels: map[string]string{"team": "a"}, annotations: map[string]string{"mesh": "on"}},
			wantLabels:      with(ours, "team", "a"),
			wantAnnotations: with(with(ourAnnotations, "mesh", "on"), AddedMetadataAnnotation, `{"labels":["team"],"annotations":["mesh"]}`),
		},
		"a value changed": {
			was:             added{labels: map[string]string{"team": "a"}},
			now:             added{labels: map[string]string{"team": "b"}},
			wantLabels:      with(ours, "team", "b"),
			wantAnnotations: with(ourAnnotations, AddedMetadataAnnotation, `{"labels":["team"]}`),
		},
		"one removed, others' kept": {
			was:             added{labels: map[string]string{"team": "a", "cost": "x"}, annotations: map[string]string{"mesh": "on"}},
			now:             added{labels: map[string]string{"cost": "x"}},
			liveLabels:      map[string]string{"other": "keep"},
			liveAnnotations: map[string]string{"kubectl.kubernetes.io/restartedAt": "t"},
			wantLabels:      with(with(ours, "cost", "x"), "other", "keep"),
			wantAnnotations: with(with(ourAnnotations, "kubectl.kubernetes.io/restartedAt", "t"), AddedMetadataAnnotation, `{"labels":["cost"]}`),
		},
		"all removed: the record goes too": {
			was:             added{annotations: map[string]string{"mesh": "on"}},
			now:             added{},
			wantLabels:      ours,
			wantAnnotations: ourAnnotations,
		},
	}
	// build is what a builder makes: withAdded, then the operator's own annotation (SetSecretHash).
	build := func(a added) (map[string]string, map[string]string) {
		labels, annotations := withAdded(ours, a)
		return labels, MergeLabels(annotations, ourAnnotations)
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			liveLabels, liveAnnotations := build(tc.was)
			maps.Copy(liveLabels, tc.liveLabels)
			if len(tc.liveAnnotations) > 0 {
				maps.Copy(liveAnnotations, tc.liveAnnotations)
			}
			desiredLabels, desiredAnnotations := build(tc.now)
			fixture.Expect(t, "matches before the update", addedMatches(liveLabels, liveAnnotations, desiredLabels, desiredAnnotations), tc.wantMatchBefore)
			updateAdded(&liveLabels, &liveAnnotations, desiredLabels, desiredAnnotations)
			fixture.Expect(t, "labels", liveLabels, tc.wantLabels)
			fixture.Expect(t, "annotations", liveAnnotations, tc.wantAnnotations)
			if !addedMatches(liveLabels, liveAnnotations, desiredLabels, desiredAnnotations) {
				t.Error("does not match after the update: every reconcile would write")
			}
		})
	}
}

// The labels the operator puts on every object are exactly those the API refuses in
// spec.podMetadata.labels and spec.monitoring.labels (and the manager's cache keeps).
func TestObjectLabelsAreTheReservedOnes(t *testing.T) {
	got := slices.Sorted(maps.Keys(ObjectLabels(fixture.Defaulted("c"))))
	fixture.Expect(t, "ObjectLabels' keys", got, slices.Sorted(slices.Values(cachev1alpha1.ReservedLabels)))
}

// with returns a copy of m with k set to v.
func with(m map[string]string, k, v string) map[string]string {
	out := maps.Clone(m)
	if out == nil {
		out = map[string]string{}
	}
	out[k] = v
	return out
}
