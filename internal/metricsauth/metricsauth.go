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

// Package metricsauth is the authentication and authorization filter of the operator's HTTPS
// metrics endpoint: controller-runtime's filters.WithAuthenticationAndAuthorization (TokenReview,
// then a SubjectAccessReview for GET /metrics), with one correction. controller-runtime v0.25
// answers a bearer token that the API server does not authenticate (a wrong, expired or deleted
// ServiceAccount's token) with 500 "Authentication failed" and logs it as an error with a stack
// trace, because the delegating token authenticator reports a rejected token as an error. A
// scraper with a stale token then looks like a broken operator, and each scrape writes an error
// line. This filter reviews bearer tokens first and answers a rejected one 401 Unauthorized, logged
// at debug level only; every other request goes through controller-runtime's filter unchanged.
package metricsauth

import (
	"context"
	"crypto/sha256"
	"net/http"
	"strings"
	"time"

	"github.com/go-logr/logr"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/cache"
	authenticationv1client "k8s.io/client-go/kubernetes/typed/authentication/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

const (
	// cacheTTL is how long a TokenReview's answer is reused: controller-runtime's authenticator
	// caches for the same time.
	cacheTTL = time.Minute
	// maxCacheEntries bounds the cache; when it is full, the least recently used answer goes.
	maxCacheEntries = 1024
	// reviewTimeout bounds one TokenReview.
	reviewTimeout = 10 * time.Second
)

// TokenReviewer creates TokenReviews (authenticationv1client.TokenReviewInterface satisfies it).
type TokenReviewer interface {
	Create(ctx context.Context, review *authenticationv1.TokenReview, opts metav1.CreateOptions) (*authenticationv1.TokenReview, error)
}

// WithAuthenticationAndAuthorization is a metricsserver.Filter provider, used like
// controller-runtime's filters.WithAuthenticationAndAuthorization (see the package doc).
func WithAuthenticationAndAuthorization(config *rest.Config, httpClient *http.Client) (metricsserver.Filter, error) {
	inner, err := filters.WithAuthenticationAndAuthorization(config, httpClient)
	if err != nil {
		return nil, err
	}
	authn, err := authenticationv1client.NewForConfigAndClient(config, httpClient)
	if err != nil {
		return nil, err
	}
	return Filter(authn.TokenReviews(), inner), nil
}

// Filter returns a filter that answers 401 to a bearer token reviews does not authenticate and
// passes every other request to inner: requests without a bearer token, tokens the API server
// authenticates, and tokens whose review failed (inner reviews them again and answers 500 if the
// API server really fails).
func Filter(reviews TokenReviewer, inner metricsserver.Filter) metricsserver.Filter {
	c := newReviewCache(reviews, clock.RealClock{})
	return func(log logr.Logger, handler http.Handler) (http.Handler, error) {
		next, err := inner(log, handler)
		if err != nil {
			return nil, err
		}
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if token, ok := bearerToken(req); ok {
				authenticated, err := c.authenticated(req.Context(), token)
				if err == nil && !authenticated {
					log.V(4).Info("Unauthorized: the API server did not authenticate the bearer token", "path", req.URL.Path)
					http.Error(w, "Unauthorized", http.StatusUnauthorized)
					return
				}
			}
			next.ServeHTTP(w, req)
		}), nil
	}
}

// bearerToken returns the token of an "Authorization: Bearer <token>" header (the scheme is case
// insensitive), as the API server's bearer token authenticator reads it.
func bearerToken(req *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(req.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// reviewCache reviews tokens and remembers the answers for cacheTTL, keyed by the token's SHA-256,
// in apimachinery's bounded LRU cache with expiry (at most maxCacheEntries answers).
type reviewCache struct {
	reviews TokenReviewer
	answers *cache.LRUExpireCache
}

// newReviewCache returns a reviewCache whose entries expire by clock.
func newReviewCache(reviews TokenReviewer, clock cache.Clock) *reviewCache {
	return &reviewCache{reviews: reviews, answers: cache.NewLRUExpireCacheWithClock(maxCacheEntries, clock)}
}

// authenticated reports whether the API server authenticates token (TokenReview with the API
// server's default audiences, as controller-runtime's authenticator sends it). A failed review is
// returned as an error and not cached.
func (c *reviewCache) authenticated(ctx context.Context, token string) (bool, error) {
	key := sha256.Sum256([]byte(token))
	if answer, ok := c.answers.Get(key); ok {
		return answer.(bool), nil
	}
	ctx, cancel := context.WithTimeout(ctx, reviewTimeout)
	defer cancel()
	review, err := c.reviews.Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
	if err != nil {
		return false, err
	}
	c.answers.Add(key, review.Status.Authenticated, cacheTTL)
	return review.Status.Authenticated, nil
}
