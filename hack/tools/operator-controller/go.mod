// Tools module that builds OLM v1 (operator-controller and catalogd) at a pinned version. The
// proxy refuses the module's version list: the version is exact.
//
// NOT RESOLVED (2026-12-02): `go mod tidy` fails, so go.sum is absent and nothing builds yet.
// cmd/operator-controller imports internal/operator-controller/controllers, which imports
// pkg.package-operator.run/boxcutter v0.14.0 (ownerhandling, probing, validation, ...), the
// version operator-controller v1.11.0's go.mod pins; the proxy answers 403 Forbidden for
// https://proxy.golang.org/pkg.package-operator.run/boxcutter/@v/v0.14.0.zip. Every other module
// of the graph downloaded. cmd/catalogd alone may not need boxcutter (not tried: tidy is per
// module).
module github.com/example/memcached-operator/hack/tools/operator-controller

go 1.26.3

require github.com/operator-framework/operator-controller v1.11.0
