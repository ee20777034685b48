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

package metricsauth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-logr/logr"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
)

// fakeReviewer authenticates the tokens in valid, fails for "broken", and counts its calls.
type fakeReviewer struct {
	valid map[string]bool
	calls int
}

func (f *fakeReviewer) Create(_ context.Context, r *authenticationv1.TokenReview, _ metav1.CreateOptions) (*authenticationv1.TokenReview, error) {
	f.calls++
	if r.Spec.Token == "broken" {
		return nil, errors.New("connection refused")
	}
	out := r.DeepCopy()
	out.Status.Authenticated = f.valid[r.Spec.Token]
	if !out.Status.Authenticated {
		out.Status.Error = "invalid bearer token"
	}
	return out, nil
}

// innerFilter stands for controller-runtime's filter: it answers 299 so a test sees it was reached.
func innerFilter(_ logr.Logger, _ http.Handler) (http.Handler, error) {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(299) }), nil
}

func TestFilter(t *testing.T) {
	tests := map[string]struct {
		authorization string
		wantCode      int
		wantReviews   int
	}{
		"no header: controller-runtime decides (401, anonymous is off)": {authorization: "", wantCode: 299, wantReviews: 0},
		"another scheme: controller-runtime decides":                    {authorization: "Basic dXNlcjpwYXNz", wantCode: 299, wantReviews: 0},
		"empty bearer token: controller-runtime decides":                {authorization: "Bearer ", wantCode: 299, wantReviews: 0},
		"rejected token: 401":                                           {authorization: "Bearer not-a-token", wantCode: http.StatusUnauthorized, wantReviews: 1},
		"rejected token, lower-case scheme: 401":                        {authorization: "bearer not-a-token", wantCode: http.StatusUnauthorized, wantReviews: 1},
		"authenticated token: controller-runtime authorizes":            {authorization: "Bearer good", wantCode: 299, wantReviews: 1},
		"review failed: controller-runtime decides (500)":               {authorization: "Bearer broken", wantCode: 299, wantReviews: 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			reviewer := &fakeReviewer{valid: map[string]bool{"good": true}}
			h, err := Filter(reviewer, innerFilter)(logr.Discard(), nil)
			if err != nil {
				t.Fatal(err)
			}
			req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
			if tc.authorization != "" {
				req.Header.Set("Authorization", tc.authorization)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.wantCode {
				t.Errorf("status %d, want %d", rec.Code, tc.wantCode)
			}
			if reviewer.calls != tc.wantReviews {
				t.Errorf("%d TokenReviews, want %d", reviewer.calls, tc.wantReviews)
			}
		})
	}
}

func TestReviewCache(t *testing.T) {
	reviewer := &fakeReviewer{valid: map[string]bool{"good": true}}
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	c := newReviewCache(reviewer, clk)
	ctx := context.Background()
	for _, step := range []struct {
		token     string
		advance   time.Duration
		wantAuth  bool
		wantCalls int
	}{
		{token: "good", wantAuth: true, wantCalls: 1},
		{token: "good", advance: cacheTTL - time.Second, wantAuth: true, wantCalls: 1},
		{token: "bad", wantAuth: false, wantCalls: 2},
		{token: "bad", wantAuth: false, wantCalls: 2},
		{token: "good", advance: 2 * time.Second, wantAuth: true, wantCalls: 3}, // expired: reviewed again
		{token: "broken", wantAuth: false, wantCalls: 4},
		{token: "broken", wantAuth: false, wantCalls: 5}, // failures are not cached
	} {
		clk.Step(step.advance)
		got, err := c.authenticated(ctx, step.token)
		if (err != nil) != (step.token == "broken") {
			t.Errorf("%s: error %v", step.token, err)
		}
		if got != step.wantAuth || reviewer.calls != step.wantCalls {
			t.Errorf("%s after %v: authenticated %v with %d reviews, want %v with %d", step.token, step.advance, got, reviewer.calls, step.wantAuth, step.wantCalls)
		}
	}

	// A full cache never grows past its bound.
	for i := range maxCacheEntries + 10 {
		if _, err := c.authenticated(ctx, "t"+string(rune('a'+i%26))+time.Duration(i).String()); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(c.answers.Keys()); n > maxCacheEntries {
		t.Errorf("cache holds %d entries, bound %d", n, maxCacheEntries)
	}
}
