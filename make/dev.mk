# make/dev.mk, included by the Makefile (its header lists every part).
# Development: code generation (manifests, generate, api-docs), fmt, vet, make test (unit,
# envtest, bundle and catalog checks) and make verify. The manager binary is built in make/build.mk.

##@ Development

.PHONY: manifests
manifests: controller-gen ## Generate the CRD and the manager ClusterRole from the API markers.
	$(CONTROLLER_GEN) rbac:roleName=manager-role crd paths="./api/..." paths="./controllers/..." output:crd:artifacts:config=config/crd/bases

.PHONY: generate
generate: controller-gen ## Generate DeepCopy methods (zz_generated.deepcopy.go).
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./api/..." paths="./internal/podview/..."

.PHONY: api-docs
api-docs: crd-ref-docs ## Generate docs/api-reference.md from the Go types in api/ (crd-ref-docs, hack/api-docs/config.yaml).
	$(CRD_REF_DOCS) --source-path=./api --config=hack/api-docs/config.yaml --renderer=markdown --max-depth=20 \
		--log-level=WARN --output-path=docs/api-reference.md

.PHONY: fmt
fmt: ## Run gofmt on every Go file, the e2e and OLM suites (build tags) included.
	gofmt -l -w $$(git ls-files --cached --others --exclude-standard '*.go')

.PHONY: vet
vet: ## Run go vet, with the e2e, olm and real build tags too.
	go vet ./...
	go vet -tags e2e,olm,real ./test/...

# The parts of make test that need root, since they bind-mount the bundle at /bundle in a private
# mount namespace (unshare --mount): `make scorecard` and TestScorecard (test/bundle). A contributor
# who is not root passes make test without them, told what was skipped; CI runs as root and runs all.
ROOT_ONLY_TESTS = make scorecard (the bundle's scorecard tests, run locally) and TestScorecard (test/bundle)
IS_ROOT := $(if $(filter 0,$(shell id -u)),1)

.PHONY: test
test: manifests generate fmt vet envtest-assets scorecard-tools operator-sdk memcached-debian helm kustomize actionlint ## Run unit, envtest, alert-rule (promtool), dashboard and bundle tests, then the bundle freshness check, scorecard (as root; skipped otherwise) and catalog validation.
	$(if $(IS_ROOT),,@echo ">> not root: skipping $(ROOT_ONLY_TESTS); they need a private mount namespace (unshare --mount). CI runs them as root.")
	KUBEBUILDER_ASSETS="$(LOCALBIN)" go test ./... -coverprofile cover.out
	$(MAKE) --no-print-directory dashboards-check
	$(MAKE) --no-print-directory bundle-check
	$(if $(IS_ROOT),$(MAKE) --no-print-directory scorecard,@echo ">> skipped (not root): make scorecard. CI runs it as root.")
	$(MAKE) --no-print-directory catalog-validate
	$(if $(IS_ROOT),,@echo ">> make test passed without the root-only parts: $(ROOT_ONLY_TESTS). CI runs them as root.")

.PHONY: dashboards-check
dashboards-check: ## Parse every PromQL query of the Grafana dashboards in config/grafana with Prometheus' parser and check the series exist (hack/dashboards, a module of its own).
	cd hack/dashboards && go test ./...

.PHONY: bench
bench: envtest-assets ## Run the Go benchmarks of the builders, the status computation and the cache.
	KUBEBUILDER_ASSETS="$(LOCALBIN)" go test ./controllers/... -run '^$$' -bench . -benchmem

.PHONY: verify
verify: manifests generate api-docs helm-chart fmt ## Fail when generated files (the API reference included) or formatting differ from what is committed.
	@# createdAt is the time `make bundle` ran: not a difference of content.
	@git diff --exit-code -I '^    createdAt: ' -- . ':(exclude)cover.out' || { echo "generated files or formatting differ from the commit: run 'make generate manifests api-docs helm-chart fmt' (and 'make bundle' for bundle/) and commit"; exit 1; }
