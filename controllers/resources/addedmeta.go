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
	"encoding/json"
	"maps"
	"slices"
)

// AddedMetadataAnnotation records, on an object (or pod template) the operator builds, which of
// its labels and annotations came from the spec (spec.podMetadata, spec.service.annotations,
// spec.monitoring.labels): the operator keeps labels and annotations that others
// put on its objects (kubectl rollout restart's, a cloud controller's), so without a record it
// could not tell a key removed from the spec from one someone else added. Its value is JSON,
// {"labels":[...],"annotations":[...]} with sorted keys; it is present only while the spec adds
// something, so an object of an instance that adds nothing is as before this field existed (no
// rollout on an operator upgrade).
const AddedMetadataAnnotation = "cache.example.com/added-metadata"

// addedKeys is the value of AddedMetadataAnnotation.
type addedKeys struct {
	Labels      []string `json:"labels,omitempty"`
	Annotations []string `json:"annotations,omitempty"`
}

// added is what the spec adds to one object: labels and annotations.
type added struct{ labels, annotations map[string]string }

// withAdded returns the labels and annotations of a desired object: ours, the spec's a added
// (ours win; the API refuses the reserved keys anyway), and, when a adds anything, the record of
// its keys. The operator's own annotations (SetSecretHash's) are set on the result after.
func withAdded(ours map[string]string, a added) (labels, annotations map[string]string) {
	labels = MergeLabels(a.labels, ours)
	if len(a.labels) == 0 && len(a.annotations) == 0 {
		return labels, nil
	}
	annotations = maps.Clone(a.annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	rec, _ := json.Marshal(addedKeys{Labels: slices.Sorted(maps.Keys(a.labels)), Annotations: slices.Sorted(maps.Keys(a.annotations))}) // a struct of strings always marshals
	annotations[AddedMetadataAnnotation] = string(rec)
	return labels, annotations
}

// recordOf returns the keys annotations' AddedMetadataAnnotation records (none when it is missing
// or unreadable: then nothing is removed, which loses nothing).
func recordOf(annotations map[string]string) addedKeys {
	var rec addedKeys
	if v, ok := annotations[AddedMetadataAnnotation]; ok {
		_ = json.Unmarshal([]byte(v), &rec) // an unreadable record removes nothing
	}
	return rec
}

// AddedKeys returns the label and annotation keys that annotations' AddedMetadataAnnotation records
// as the spec's, and that annotation's own key among the annotation keys when it is there: what a
// cache of the object must keep of its labels and annotations for addedMatches and updateAdded.
func AddedKeys(annotations map[string]string) (labels, annotationKeys []string) {
	if _, ok := annotations[AddedMetadataAnnotation]; !ok {
		return nil, nil
	}
	rec := recordOf(annotations)
	return rec.Labels, append(rec.Annotations, AddedMetadataAnnotation)
}

// addedMatches reports whether live's labels and annotations are what desired's withAdded made
// them: every desired entry present with its value, the record equal, and no key the live record
// lists and the desired one does not left behind.
func addedMatches(liveLabels, liveAnnotations, desiredLabels, desiredAnnotations map[string]string) bool {
	if !labelsContain(liveLabels, desiredLabels) || liveAnnotations[AddedMetadataAnnotation] != desiredAnnotations[AddedMetadataAnnotation] {
		return false
	}
	for k, v := range desiredAnnotations {
		if lv, ok := liveAnnotations[k]; !ok || lv != v {
			return false
		}
	}
	return !stillPresent(liveLabels, liveAnnotations, dropped(liveAnnotations, desiredAnnotations))
}

// dropped returns the keys live's record lists and desired's does not: removed from the spec.
func dropped(liveAnnotations, desiredAnnotations map[string]string) addedKeys {
	was, now := recordOf(liveAnnotations), recordOf(desiredAnnotations)
	return addedKeys{
		Labels:      slices.DeleteFunc(was.Labels, func(k string) bool { return slices.Contains(now.Labels, k) }),
		Annotations: slices.DeleteFunc(was.Annotations, func(k string) bool { return slices.Contains(now.Annotations, k) }),
	}
}

// stillPresent reports whether any key of d is still in labels or annotations.
func stillPresent(labels, annotations map[string]string, d addedKeys) bool {
	for _, k := range d.Labels {
		if _, ok := labels[k]; ok {
			return true
		}
	}
	for _, k := range d.Annotations {
		if _, ok := annotations[k]; ok {
			return true
		}
	}
	return false
}

// updateAdded makes live's labels and annotations what addedMatches compares: the keys dropped
// from the spec removed (ours are never in a record), desired's entries set, the record replaced
// (removed when desired has none). Labels and annotations others added stay.
func updateAdded(liveLabels, liveAnnotations *map[string]string, desiredLabels, desiredAnnotations map[string]string) {
	d := dropped(*liveAnnotations, desiredAnnotations)
	labels, annotations := maps.Clone(*liveLabels), maps.Clone(*liveAnnotations)
	for _, k := range d.Labels {
		delete(labels, k)
	}
	for _, k := range d.Annotations {
		delete(annotations, k)
	}
	delete(annotations, AddedMetadataAnnotation)
	labels = MergeLabels(labels, desiredLabels)
	if len(desiredAnnotations) > 0 {
		annotations = MergeLabels(annotations, desiredAnnotations)
	}
	if len(annotations) == 0 {
		annotations = nil
	}
	*liveLabels, *liveAnnotations = labels, annotations
}
