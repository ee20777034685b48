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

package status

import (
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"

	"github.com/example/memcached-operator/controllers/internal/fixture"
	"github.com/example/memcached-operator/controllers/resources"
)

func TestInvalidReason(t *testing.T) {
	if got := invalidReason(&resources.SecretError{Reason: cachev1alpha1.ReasonSecretNotFound}); got != cachev1alpha1.ReasonSecretNotFound {
		t.Fatalf("got %s", got)
	}
	if got := invalidReason(errors.New("spec.size: bad")); got != cachev1alpha1.ReasonInvalidSpec {
		t.Fatalf("got %s", got)
	}
	st := ComputeStatus(fixture.Defaulted("a"), Observed{Invalid: &resources.SecretError{Reason: cachev1alpha1.ReasonSecretNotFound, Message: "Secret x not found"}}, metav1.Now())
	for _, c := range st.Conditions {
		if c.Type != cachev1alpha1.ConditionAvailable && c.Type != cachev1alpha1.ConditionProgressing && c.Type != cachev1alpha1.ConditionDegraded {
			continue
		}
		if c.Reason != cachev1alpha1.ReasonSecretNotFound || c.Message != "Secret x not found" {
			t.Errorf("%s: reason %s, message %q; want SecretNotFound naming the Secret", c.Type, c.Reason, c.Message)
		}
	}
}
