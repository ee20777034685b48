# memcached-operator Makefile (kubebuilder layout). `make help` lists the targets.
# Every tool is pinned here and built from the Go module proxy into ./bin on first use; later runs
# skip tools already built at the pinned version (hack/build-tool.sh).

# VERSION is the operator version of the bundle and the image tags.
VERSION ?= 0.2.3
# IMAGE_TAG_BASE is the image repository of the operator and its bundle/catalog images.
IMAGE_TAG_BASE ?= registry.example.com/memcached-operator
IMG ?= $(IMAGE_TAG_BASE):v$(VERSION)
# IMG_DIGEST pins the operator image of a release made by `make release` (sha256:...): the bundle
# then names BUNDLE_OPERATOR_IMG, IMAGE_TAG_BASE@IMG_DIGEST, instead of IMG (which docker-build and
# docker-push keep using as the tag they build and push). Empty for the releases up to 0.2.3 (by tag).
IMG_DIGEST ?=
BUNDLE_OPERATOR_IMG ?= $(if $(IMG_DIGEST),$(IMAGE_TAG_BASE)@$(IMG_DIGEST),$(IMG))
# CHANNELS are the OLM channels the bundle of VERSION may be published in, written into its
# metadata/annotations.yaml (comma-separated, from candidate, fast, stable); DEFAULT_CHANNEL is the
# package's default channel and must be one of them. The catalog, not the bundle, decides which
# channel holds a release: `make catalog` adds it to RELEASE_CHANNEL only, `make promote` moves it on.
CHANNELS ?= candidate,fast,stable
RELEASE_CHANNEL ?= candidate
DEFAULT_CHANNEL ?= stable
BUNDLE_METADATA_OPTS ?= --channels=$(CHANNELS) --default-channel=$(DEFAULT_CHANNEL)
BUNDLE_GEN_FLAGS ?= -q --overwrite --version $(VERSION) $(BUNDLE_METADATA_OPTS)
BUNDLE_IMG ?= $(IMAGE_TAG_BASE)-bundle:v$(VERSION)
CATALOG_IMG ?= $(IMAGE_TAG_BASE)-catalog:latest
# MEMCACHED_IMAGE is the default operand image (RELATED_IMAGE_MEMCACHED) for `make run` and `make demo`.
MEMCACHED_IMAGE ?= docker.io/library/memcached:1.6.38-alpine

# CONTAINER_TOOL builds and pushes the images (hack/container-tool.sh, which prints its choice once,
# when a target first needs it): docker when a Docker engine answers (`docker info`), else podman
# when installed, else buildah. docker and podman build from the public base images; buildah from
# local equivalents of them (hack/local-images.sh, `make local-images`) kept in the local registry.
# Recipes that run make or hack/ scripts again pass it on, so the choice is made once.
CONTAINER_TOOL ?= $(eval CONTAINER_TOOL := $(shell hack/container-tool.sh))$(CONTAINER_TOOL)
# The local registry (hack/registry.sh): plain HTTP on loopback, images kept in REGISTRY_DIR.
REGISTRY_PORT ?= 5000
LOCAL_REGISTRY ?= 127.0.0.1:$(REGISTRY_PORT)
REGISTRY_DIR ?= $(shell pwd)/.registry
# buildah's storage (vfs driver), shared by hack/local-images.sh and the buildah builds.
BUILDAH_DIR ?= $(shell pwd)/.buildah
# LOCAL_IMAGE_TAG_BASE is IMAGE_TAG_BASE for `make images-local`.
LOCAL_IMAGE_TAG_BASE ?= $(LOCAL_REGISTRY)/memcached-operator
# Base images of the Dockerfiles (build args): the public ones with docker, the local equivalents
# with buildah. GOLANG_VERSION is the builder's Go (the host's Go for the local builder).
GOLANG_VERSION ?= 1.26
BUILDER_IMAGE ?= $(if $(filter buildah,$(CONTAINER_TOOL)),$(LOCAL_REGISTRY)/local/golang:$(GOLANG_VERSION),docker.io/library/golang:$(GOLANG_VERSION))
BASE_IMAGE ?= $(if $(filter buildah,$(CONTAINER_TOOL)),$(LOCAL_REGISTRY)/local/static:nonroot,gcr.io/distroless/static:nonroot)
OPM_IMAGE ?= $(if $(filter buildah,$(CONTAINER_TOOL)),$(LOCAL_REGISTRY)/local/opm:$(OPM_VERSION),quay.io/operator-framework/opm:$(OPM_VERSION))

# Tool versions the project is built and tested with (make test, make test-olm and CI use exactly these).
CONTROLLER_TOOLS_VERSION ?= v0.23.0
KUSTOMIZE_VERSION ?= v5.8.2
KUBE_VERSION ?= v1.37.2
ETCD_VERSION ?= v3.7.3
COREDNS_VERSION ?= v1.15.0
CRICTL_VERSION ?= v1.37.0
KWOK_VERSION ?= v0.8.0
OPERATOR_SDK_VERSION ?= v1.42.3
OPM_VERSION ?= v1.74.0
OLM_VERSION ?= v0.46.0
# OLM v1 (operator-controller, which contains catalogd) and the cert-manager its standard install
# needs; v1.11.5 is the newest cert-manager whose commands the Go proxy serves (hack/tools/cert-manager).
OPERATOR_CONTROLLER_VERSION ?= v1.2.0
CERT_MANAGER_VERSION ?= v1.11.5
# crd-ref-docs writes docs/api-reference.md from the Go types (make api-docs).
CRD_REF_DOCS_VERSION ?= v0.3.0
GRPC_HEALTH_PROBE_VERSION ?= v0.4.53
# memcached_exporter (spec.monitoring's sidecar): the local image is built from this release's Go
# module (hack/tools/memcached-exporter, whose go.mod must require it); users get the public
# quay.io/prometheus/memcached-exporter of the same tag (RELATED_IMAGE_MEMCACHED_EXPORTER).
MEMCACHED_EXPORTER_VERSION ?= v0.16.0

SHELL = /usr/bin/env bash -o pipefail
.SHELLFLAGS = -ec

LOCALBIN ?= $(shell pwd)/bin
export LOCALBIN
CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen
KUSTOMIZE ?= $(LOCALBIN)/kustomize
CRD_REF_DOCS ?= $(LOCALBIN)/crd-ref-docs
KUBECTL ?= $(LOCALBIN)/kubectl
# NODE picks the local cluster's tier (hack/cluster-up.sh): kwok (simulated pods, the scale tier)
# or real (a real node: kubelet, containerd, kube-proxy, CoreDNS, the local registry; needs root).
# Each tier keeps its state directory and kubeconfig: KWOK_CLUSTER_DIR and REAL_CLUSTER_DIR.
# CLUSTER_DIR follows NODE and is not exported: hack/ scripts derive the same default from NODE, so a
# `$(MAKE) ... NODE=real` inside another recipe never inherits the kwok tier's directory.
NODE ?= kwok
KWOK_CLUSTER_DIR ?= $(shell pwd)/.cluster
REAL_CLUSTER_DIR ?= $(shell pwd)/.cluster-real
CLUSTER_DIR ?= $(if $(filter real,$(NODE)),$(REAL_CLUSTER_DIR),$(KWOK_CLUSTER_DIR))
export NODE
LOCAL_KUBECONFIG ?= $(CLUSTER_DIR)/kubeconfig

OPERATOR_SDK ?= $(LOCALBIN)/operator-sdk
OPM ?= $(LOCALBIN)/opm
CATALOG_TOOL ?= $(LOCALBIN)/catalog-tool
# The catalog's source (an opm basic template) and the public repository its bundle entries name,
# each pinned by digest; hack/catalog-render.sh renders catalog/ from it.
CATALOG_TEMPLATE ?= catalog-template/memcached-operator.yaml
CATALOG_BUNDLE_REPO ?= registry.example.com/memcached-operator-bundle
CATALOG_RENDER = OPM=$(OPM) CATALOG_TOOL=$(CATALOG_TOOL) VERSION=$(VERSION) CATALOG_TEMPLATE=$(CATALOG_TEMPLATE) CATALOG_BUNDLE_REPO=$(CATALOG_BUNDLE_REPO) hack/catalog-render.sh

export KUBE_VERSION ETCD_VERSION COREDNS_VERSION CRICTL_VERSION KWOK_VERSION OPERATOR_SDK_VERSION OPM_VERSION OLM_VERSION GRPC_HEALTH_PROBE_VERSION OPERATOR_CONTROLLER_VERSION CERT_MANAGER_VERSION
export REGISTRY_PORT REGISTRY_DIR BUILDAH_DIR GOLANG_VERSION

# buildah (Debian's) as hack/local-images.sh runs it; `bud` with chroot isolation (no daemon, no OCI
# runtime) and timestamp 0 (the same sources give the same digest).
BUILDAH ?= buildah --root $(BUILDAH_DIR)/storage --runroot $(BUILDAH_DIR)/run --storage-driver vfs
BUILDAH_BUD_FLAGS ?= --isolation chroot --timestamp 0
# tls-flag IMAGES: --tls-verify=false when one of IMAGES is in a registry on loopback (plain HTTP).
tls-flag = $(if $(strip $(foreach i,$(1),$(filter 127.0.0.1 127.0.0.1:% localhost localhost:%,$(firstword $(subst /, ,$(i)))))),--tls-verify=false)
# container-build DOCKERFILE IMAGE BUILD-FLAGS: build IMAGE from DOCKERFILE, the repository as context
# (each Dockerfile's own <Dockerfile>.dockerignore selects what it sees).
# podman (buildah's library) takes --tls-verify like buildah; docker has no such flag (it treats
# 127.0.0.0/8 registries as insecure itself).
container-build = $(if $(filter buildah,$(CONTAINER_TOOL)),$(BUILDAH) bud $(BUILDAH_BUD_FLAGS),$(CONTAINER_TOOL) build) \
	$(if $(filter buildah podman,$(CONTAINER_TOOL)),$(call tls-flag,$(BUILDER_IMAGE) $(BASE_IMAGE) $(OPM_IMAGE))) -f $(1) -t $(2) $(3) .
# container-push IMAGE
container-push = $(if $(filter buildah,$(CONTAINER_TOOL)),$(BUILDAH) push $(call tls-flag,$(1)) $(1) docker://$(1),$(CONTAINER_TOOL) push $(if $(filter podman,$(CONTAINER_TOOL)),$(call tls-flag,$(1))) $(1))
# With buildah, the manager build's RUN steps get the host's Go module and build caches (fast,
# and offline once the modules are cached) and its module proxy; buildah 1.28 does not set
# TARGETOS/TARGETARCH itself.
BUILDAH_GO_FLAGS = -v $(shell go env GOMODCACHE):/go/pkg/mod -v $(shell go env GOCACHE):/root/.cache/go-build \
	--build-arg GOPROXY='$(shell go env GOPROXY)' --build-arg TARGETOS=linux --build-arg TARGETARCH=$(shell go env GOARCH)
# need-registry IMAGES: with buildah, fail with a hint when the local registry holding IMAGES is down.
need-registry = $(if $(and $(filter buildah,$(CONTAINER_TOOL)),$(findstring $(LOCAL_REGISTRY)/,$(1))),@curl -fsS -o /dev/null --max-time 2 http://$(LOCAL_REGISTRY)/v2/ || { echo "no registry answers on $(LOCAL_REGISTRY): run 'make local-images' (it starts the registry and pushes the local base images)" >&2; exit 1; })

.PHONY: all
all: build

##@ General

.PHONY: help
help: ## Display this help.
	@awk 'BEGIN {FS = ":.*##"; printf "\nUsage:\n  make \033[36m<target>\033[0m\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) } ' $(MAKEFILE_LIST)

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
test: manifests generate fmt vet envtest-assets scorecard-tools ## Run unit, envtest, alert-rule (promtool), dashboard and bundle tests, then the bundle freshness check, scorecard (as root; skipped otherwise) and catalog validation.
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
verify: manifests generate api-docs fmt ## Fail when generated files (the API reference included) or formatting differ from what is committed.
	@# createdAt is the time `make bundle` ran: not a difference of content.
	@git diff --exit-code -I '^    createdAt: ' -- . ':(exclude)cover.out' || { echo "generated files or formatting differ from the commit: run 'make generate manifests api-docs fmt' (and 'make bundle' for bundle/) and commit"; exit 1; }

# The kwok tier's OLM runs bin/manager (the working tree) for the catalog's VERSION: catalog-serve.sh
# serves that version's bundle rendered from bundle/ (the working tree's CSV and RBAC), not the
# committed release, so the code runs under the permissions it is generated with.
OLM_HEAD_BUNDLE ?= $(CURDIR)/bundle

.PHONY: test-olm
test-olm: cluster-up build ## Prove under real OLM on the kwok cluster: every install mode with OLM's RBAC (metrics auth, namespace deletion) and the channel policy (upgrades and OperatorGroup reuse: test-olm-real).
	CLUSTER_DIR="$(CLUSTER_DIR)" hack/olm-up.sh
	CLUSTER_DIR="$(CLUSTER_DIR)" CATALOG_HEAD_BUNDLE="$(OLM_HEAD_BUNDLE)" hack/catalog-serve.sh start
	KUBECONFIG="$(LOCAL_KUBECONFIG)" CATALOG_HEAD_BUNDLE="$(OLM_HEAD_BUNDLE)" OLM_HEAD_VERSION=$(VERSION) OLM_BINARIES="v$(VERSION)=$(LOCALBIN)/manager" \
		go test -tags olm ./test/olm/ -v -count=1 -timeout 30m

.PHONY: test-e2e
test-e2e: cluster-up build ## Run the end-to-end tests on the local kwok cluster (starts it if needed).
	KUBECONFIG="$(LOCAL_KUBECONFIG)" KUBECTL="$(KUBECTL)" MANAGER_BIN="$(LOCALBIN)/manager" MEMCACHED_IMAGE="$(MEMCACHED_IMAGE)" \
		go test -tags e2e ./test/e2e/ -v -count=1 -timeout 20m

# Scale benchmark (make bench-scale): its own kwok cluster in BENCH_CLUSTER_DIR on ports of its own,
# so it runs beside the kwok and real tiers; fresh at each run, stopped at the end.
BENCH_N ?= 500
BENCH_PHASES ?= floor,converge,steady,latency,restart,secrets,unrelated
BENCH_SUBJECTS ?= operator=bin/manager
# BENCH_SAMPLE=NAME: the operator-sdk Memcached sample runs first, as the subject NAME, with its own
# CRD and ClusterRole. hack/build-sample.sh generates it with the pinned operator-sdk (init, then
# create api with the deploy-image plugin) into SAMPLE_DIR (not committed) and builds bin/sample-manager.
BENCH_SAMPLE ?=
# BENCH_SAMPLE_SAMEDEPS=NAME: the same sample built with this project's versions of controller-runtime
# and the k8s.io modules (bin/sample-manager-samedeps), run after BENCH_SAMPLE as the subject NAME.
BENCH_SAMPLE_SAMEDEPS ?=
SAMPLE_DIR ?= $(LOCALBIN)/sample/memcached-operator
BENCH_CLUSTER_DIR ?= $(shell pwd)/.cluster-bench
BENCH_ARGS ?=
# BENCH_RESULTS receives each run's <UTC time>.{md,json} and latest.*; ignored by git (docs/performance.md
# holds the latest figures).
BENCH_RESULTS ?= $(CURDIR)/test/bench/results
BENCH_PORTS ?= ETCD_PORT=24379 ETCD_PEER_PORT=24380 APISERVER_PORT=28443 KCM_PORT=22257 SCHEDULER_PORT=22259 KWOK_PORT=22247

.PHONY: bench-scale
bench-scale: build kubectl $(if $(BENCH_SAMPLE)$(BENCH_SAMPLE_SAMEDEPS),sample-manager) ## Scale benchmark on a fresh kwok cluster: BENCH_N instances vs the raw-client floor; writes, memory, restart; results in BENCH_RESULTS (test/bench/results, ignored by git).
	$(BENCH_PORTS) go run ./test/bench -n $(BENCH_N) -phases $(BENCH_PHASES) -cluster-dir "$(BENCH_CLUSTER_DIR)" -results "$(BENCH_RESULTS)" \
		$(if $(BENCH_SAMPLE),-sample $(BENCH_SAMPLE)=$(LOCALBIN)/sample-manager) \
		$(if $(BENCH_SAMPLE_SAMEDEPS),-sample $(BENCH_SAMPLE_SAMEDEPS)=$(LOCALBIN)/sample-manager-samedeps) \
		$(if $(BENCH_SAMPLE)$(BENCH_SAMPLE_SAMEDEPS),-sample-dir "$(SAMPLE_DIR)") $(foreach s,$(BENCH_SUBJECTS),-subject $(s)) $(BENCH_ARGS)

# bench-gate: the scale properties that do not depend on the machine's speed, as a CI gate (test/bench
# -gate: writes per instance within owned objects + spec.size + 1, events within owned + 1, no conflict, no write in the
# steady state or on a restart, the status following a pod change), on a short run.
BENCH_GATE_N ?= 50
.PHONY: bench-gate
bench-gate: ## Short scale run (BENCH_GATE_N instances) that fails when a speed-independent scale property breaks (CI).
	$(MAKE) --no-print-directory bench-scale BENCH_N=$(BENCH_GATE_N) BENCH_PHASES=converge,steady,latency,restart \
		BENCH_ARGS="-gate -steady 20s -timeout 5m"

.PHONY: sample-manager
sample-manager: operator-sdk ## Generate the operator-sdk Memcached sample with operator-sdk (OPERATOR_SDK_VERSION) into SAMPLE_DIR and build its manager into bin/sample-manager (and bin/sample-manager-samedeps, with this project's library versions).
	OPERATOR_SDK="$(OPERATOR_SDK)" SAMPLE_DIR="$(SAMPLE_DIR)" hack/build-sample.sh

##@ Build

.PHONY: build
# Built as the Dockerfile builds the image's (CGO_ENABLED=0, statically linked), so the tests and
# make bench-scale run the binary that ships (with cgo it would also map libc).
build: manifests generate fmt vet ## Build the manager binary into bin/manager (static, as in the image).
	CGO_ENABLED=0 go build -o $(LOCALBIN)/manager .

.PHONY: run
run: manifests generate fmt vet ## Run the operator from your host against the current KUBECONFIG (plain-HTTP metrics on loopback).
	RELATED_IMAGE_MEMCACHED="$(MEMCACHED_IMAGE)" go run . --metrics-bind-address=127.0.0.1:8080 --metrics-secure=false --health-probe-bind-address=127.0.0.1:8081

.PHONY: docker-build
docker-build: ## Build the operator image IMG with CONTAINER_TOOL (docker, else podman, else buildah from the local base images).
	$(call need-registry,$(BUILDER_IMAGE) $(BASE_IMAGE))
	$(call container-build,Dockerfile,$(IMG),--build-arg BUILDER_IMAGE=$(BUILDER_IMAGE) --build-arg BASE_IMAGE=$(BASE_IMAGE) $(if $(filter buildah,$(CONTAINER_TOOL)),$(BUILDAH_GO_FLAGS)))

.PHONY: docker-push
docker-push: ## Push the operator image IMG with CONTAINER_TOOL.
	$(call container-push,$(IMG))

##@ Deployment

.PHONY: install
install: manifests kustomize kubectl ## Install the CRD into the cluster of KUBECONFIG.
	$(KUSTOMIZE) build config/crd | $(KUBECTL) apply --server-side --force-conflicts -f -

.PHONY: uninstall
uninstall: manifests kustomize kubectl ## Remove the CRD (and every Memcached) from the cluster of KUBECONFIG.
	$(KUSTOMIZE) build config/crd | $(KUBECTL) delete --ignore-not-found -f -

.PHONY: deploy
deploy: manifests kustomize kubectl ## Deploy the operator (image IMG) to the cluster of KUBECONFIG.
	cd config/manager && $(KUSTOMIZE) edit set image controller=$(IMG)
	$(KUSTOMIZE) build config/default | $(KUBECTL) apply --server-side -f -

.PHONY: build-installer
# kubebuilder's convention: one manifest for `kubectl apply -f` without OLM. dist/ is not committed
# (.gitignore): the file names the operator image IMG, which each user builds and pushes (nothing is
# published), so a committed copy would name an image that does not exist.
# The image is set in a temporary copy of config/, so the tree stays as committed.
build-installer: manifests kustomize ## Write dist/install.yaml: the CRD, RBAC and the operator Deployment (image IMG) of config/default, for kubectl apply -f.
	mkdir -p dist
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && cp -r config "$$tmp/" && \
		(cd "$$tmp/config/manager" && $(KUSTOMIZE) edit set image controller=$(IMG)) && \
		$(KUSTOMIZE) build "$$tmp/config/default" > dist/install.yaml.tmp && mv dist/install.yaml.tmp dist/install.yaml
	@echo "wrote dist/install.yaml (operator image $(IMG)): kubectl apply --server-side -f dist/install.yaml"

.PHONY: undeploy
undeploy: kustomize kubectl ## Remove the operator deployed by `make deploy`.
	$(KUSTOMIZE) build config/default | $(KUBECTL) delete --ignore-not-found -f -

##@ OLM packaging

.PHONY: check-channels
check-channels: ## Fail unless DEFAULT_CHANNEL is set and is one of CHANNELS, all from candidate/fast/stable.
	@hack/check-channels.sh "$(CHANNELS)" "$(DEFAULT_CHANNEL)"

.PHONY: bundle
bundle: check-channels manifests kustomize operator-sdk ## Generate bundle/ for VERSION and CHANNELS (operator image BUNDLE_OPERATOR_IMG), then validate it (operatorframework suite).
	$(OPERATOR_SDK) generate kustomize manifests -q
	cd config/manager && $(KUSTOMIZE) edit set image controller=$(BUNDLE_OPERATOR_IMG)
	$(KUSTOMIZE) build config/manifests | $(OPERATOR_SDK) generate bundle $(BUNDLE_GEN_FLAGS)
	@# operator-sdk leaves the CSV's containerImage annotation as the base has it: stamp the operator image.
	sed -i 's|^    containerImage: .*|    containerImage: $(BUNDLE_OPERATOR_IMG)|' bundle/manifests/memcached-operator.clusterserviceversion.yaml
	$(MAKE) bundle-validate

.PHONY: bundle-validate
bundle-validate: operator-sdk ## Validate bundle/ with operator-sdk (operatorframework suite, and operatorhubv2, good-practices, alpha-deprecated-apis at minKubeVersion and KUBE_VERSION): no errors, no warnings.
	KUBE_VERSION=$(KUBE_VERSION) hack/bundle-validate.sh $(OPERATOR_SDK) bundle

.PHONY: bundle-check
bundle-check: kustomize operator-sdk controller-gen ## Fail when bundle/ is stale: regenerate it in a temporary copy and diff (createdAt ignored).
	hack/bundle-check.sh

.PHONY: scorecard
scorecard: scorecard-tools ## Run the bundle's scorecard tests locally, without a cluster (needs root: private mount namespace).
	@test -n "$(IS_ROOT)" || { echo "make scorecard needs root: it bind-mounts the bundle at /bundle in a private mount namespace (unshare --mount); make test skips it when not root, CI runs it as root" >&2; exit 1; }
	go run ./test/scorecard/cmd/scorecard-local -bundle bundle -bin $(LOCALBIN) \
		-scorecard-image quay.io/operator-framework/scorecard-test:$(OPERATOR_SDK_VERSION)

.PHONY: scorecard-tools
scorecard-tools: ## Build operator-sdk's scorecard-test and our memcached-scorecard-tests into ./bin.
	@hack/build-olm-tools.sh scorecard-test
	go build -o $(LOCALBIN)/memcached-scorecard-tests ./test/scorecard/cmd/memcached-scorecard-tests

# SCORECARD_IMG is the custom scorecard test image (scorecard.Dockerfile: our tests of
# test/scorecard/cmd/memcached-scorecard-tests). Its default is the name config/scorecard, and so
# the bundle's tests/scorecard/config.yaml, gives it; `make scorecard-config` writes that
# configuration with the SCORECARD_IMG you push (docs/olm.md, "Scorecard in a release pipeline").
SCORECARD_IMG ?= $(IMAGE_TAG_BASE)-scorecard-tests:v0.1.0
SCORECARD_CONFIG ?= dist/scorecard/config.yaml

.PHONY: scorecard-build
scorecard-build: ## Build the custom scorecard test image SCORECARD_IMG (scorecard.Dockerfile) with CONTAINER_TOOL.
	$(call need-registry,$(BUILDER_IMAGE) $(BASE_IMAGE))
	$(call container-build,scorecard.Dockerfile,$(SCORECARD_IMG),--build-arg BUILDER_IMAGE=$(BUILDER_IMAGE) --build-arg BASE_IMAGE=$(BASE_IMAGE) $(if $(filter buildah,$(CONTAINER_TOOL)),$(BUILDAH_GO_FLAGS)))

.PHONY: scorecard-push
scorecard-push: ## Push the custom scorecard test image SCORECARD_IMG with CONTAINER_TOOL.
	$(call container-push,$(SCORECARD_IMG))

.PHONY: scorecard-config
scorecard-config: kustomize ## Write SCORECARD_CONFIG (dist/scorecard/config.yaml): the bundle's scorecard configuration (config/scorecard) naming SCORECARD_IMG, for operator-sdk scorecard --config.
	mkdir -p $(dir $(SCORECARD_CONFIG))
	$(KUSTOMIZE) build config/scorecard | sed 's#registry.example.com/memcached-operator-scorecard-tests:v0.1.0$$#$(SCORECARD_IMG)#' > $(SCORECARD_CONFIG).tmp
	grep -q 'image: $(SCORECARD_IMG)$$' $(SCORECARD_CONFIG).tmp || { echo "config/scorecard names no registry.example.com/memcached-operator-scorecard-tests:v0.1.0 to replace" >&2; exit 1; }
	mv $(SCORECARD_CONFIG).tmp $(SCORECARD_CONFIG)
	@echo "wrote $(SCORECARD_CONFIG) (custom tests from $(SCORECARD_IMG)): operator-sdk scorecard bundle --config $(SCORECARD_CONFIG)"

.PHONY: catalog
catalog: check-channels opm catalog-tool ## Release bundle/ (VERSION) into the catalog template as the new head of RELEASE_CHANNEL (candidate), pinned by BUNDLE_DIGEST (default: the digest of its reproducible bundle image, built now), render catalog/ from the template, then validate. Needs the local registry.
	digest="$(BUNDLE_DIGEST)"; [ -n "$$digest" ] || digest=$$(CONTAINER_TOOL="$(CONTAINER_TOOL)" $(CATALOG_RENDER) build $(VERSION)); \
	$(CATALOG_TOOL) add -template $(CATALOG_TEMPLATE) -version $(VERSION) -image $(CATALOG_BUNDLE_REPO)@$$digest \
		-channels $(RELEASE_CHANNEL) -default-channel $(DEFAULT_CHANNEL)
	CONTAINER_TOOL="$(CONTAINER_TOOL)" $(CATALOG_RENDER) render
	test -f catalog.Dockerfile || $(OPM) generate dockerfile catalog -i quay.io/operator-framework/opm:$(OPM_VERSION) -b quay.io/operator-framework/opm:$(OPM_VERSION)
	$(MAKE) --no-print-directory catalog-validate

.PHONY: catalog-render
catalog-render: opm catalog-tool ## Render catalog/ from the catalog template with opm alpha render-template: every release's bundle image built reproducibly from its commit into the local registry (digests checked against the template).
	CONTAINER_TOOL="$(CONTAINER_TOOL)" $(CATALOG_RENDER) render

.PHONY: catalog-check-render
catalog-check-render: opm catalog-tool ## Fail when catalog/ is not what the catalog template renders to (make catalog-render in a temporary directory, then diff). Needs the local registry.
	CONTAINER_TOOL="$(CONTAINER_TOOL)" $(CATALOG_RENDER) check

.PHONY: release
release: catalog-tool opm ## Cut release VERSION: bump, images pushed and pinned by digest, bundle/, head of candidate in the catalog template and catalog/, hack/releases (hack/release.sh). Commit the result.
	REGISTRY_DIR="$(REGISTRY_DIR)" REGISTRY_PORT="$(REGISTRY_PORT)" LOCAL_IMAGE_TAG_BASE="$(LOCAL_IMAGE_TAG_BASE)" MAKE="$(MAKE)" \
		CONTAINER_TOOL="$(CONTAINER_TOOL)" hack/release.sh $(VERSION)

.PHONY: promote
promote: catalog-tool opm ## Promote the release VERSION to CHANNEL (fast from candidate, stable from fast) in the catalog template as that channel's new head, write catalog/'s channels from it, then validate (opm + our graph check).
	@test -n "$(CHANNEL)" || { echo "CHANNEL is empty: make promote VERSION=x.y.z CHANNEL=fast|stable" >&2; exit 1; }
	$(CATALOG_TOOL) promote -template $(CATALOG_TEMPLATE) -dir catalog/memcached-operator -version $(VERSION) -channel $(CHANNEL)
	$(OPM) validate catalog
	$(CATALOG_TOOL) check catalog/memcached-operator

.PHONY: catalog-validate
catalog-validate: opm catalog-tool ## Validate catalog/ (opm + our graph check), CHANGELOG.md (a section per release), the disconnected annotation (digests) and the Dockerfiles statically.
	$(OPM) validate catalog
	$(CATALOG_TOOL) check catalog/memcached-operator
	$(CATALOG_TOOL) check-changelog -dir catalog/memcached-operator -changelog CHANGELOG.md
	$(CATALOG_TOOL) check-disconnected -bundle-dir bundle
	$(CATALOG_TOOL) check-dockerfiles -root .
	cd hack/catalog && go test -count=1 ./...

.PHONY: catalog-build
catalog-build: ## Build the catalog image CATALOG_IMG (catalog/ as committed) with CONTAINER_TOOL.
	$(call need-registry,$(OPM_IMAGE))
	$(call container-build,catalog.Dockerfile,$(CATALOG_IMG),--build-arg OPM_IMAGE=$(OPM_IMAGE))

.PHONY: catalog-push
catalog-push: ## Push the catalog image CATALOG_IMG with CONTAINER_TOOL.
	$(call container-push,$(CATALOG_IMG))

.PHONY: bundle-build
bundle-build: ## Build the bundle image BUNDLE_IMG (bundle/ as committed) with CONTAINER_TOOL.
	$(call container-build,bundle.Dockerfile,$(BUNDLE_IMG),)

.PHONY: bundle-push
bundle-push: ## Push the bundle image BUNDLE_IMG with CONTAINER_TOOL.
	$(call container-push,$(BUNDLE_IMG))

##@ Local registry and images (no Docker engine needed)

.PHONY: registry-up
registry-up: ## Start the local registry: plain HTTP on LOCAL_REGISTRY (127.0.0.1:5000), images kept in REGISTRY_DIR.
	hack/registry.sh start

.PHONY: registry-down
registry-down: ## Stop the local registry (its images stay in REGISTRY_DIR).
	hack/registry.sh stop

.PHONY: local-images
local-images: registry-up ## Push local equivalents of the base images (static, golang, opm), memcached and pause to the local registry.
	hack/local-images.sh all

.PHONY: images-local
images-local: local-images ## Build the operator, bundle and catalog images with CONTAINER_TOOL and push them to the local registry (LOCAL_IMAGE_TAG_BASE).
	$(MAKE) --no-print-directory docker-build docker-push bundle-build bundle-push catalog-build catalog-push CONTAINER_TOOL=$(CONTAINER_TOOL) \
		IMAGE_TAG_BASE=$(LOCAL_IMAGE_TAG_BASE) IMG=$(LOCAL_IMAGE_TAG_BASE):v$(VERSION) \
		BUNDLE_IMG=$(LOCAL_IMAGE_TAG_BASE)-bundle:v$(VERSION) CATALOG_IMG=$(LOCAL_IMAGE_TAG_BASE)-catalog:v$(VERSION)
	hack/local-images.sh record OPERATOR_IMAGE $(LOCAL_IMAGE_TAG_BASE):v$(VERSION)
	hack/local-images.sh record BUNDLE_IMAGE $(LOCAL_IMAGE_TAG_BASE)-bundle:v$(VERSION)
	hack/local-images.sh record CATALOG_IMAGE $(LOCAL_IMAGE_TAG_BASE)-catalog:v$(VERSION)

##@ Local cluster and demo

.PHONY: cluster-up
cluster-up: ## Build (first run) and start the local cluster: NODE=kwok (default, .cluster/kubeconfig) or NODE=real (.cluster-real/kubeconfig).
	CLUSTER_DIR="$(CLUSTER_DIR)" hack/cluster-up.sh

.PHONY: cluster-down
cluster-down: ## Stop the local cluster of NODE and what runs on it, undoing a real node's host changes (keeps its state; PURGE=1 deletes it).
	CLUSTER_DIR="$(CLUSTER_DIR)" hack/cluster-down.sh

.PHONY: demo
demo: build kubectl ## Start the local cluster and the operator, create the sample and scale it 3 -> 5.
	CLUSTER_DIR="$(CLUSTER_DIR)" MEMCACHED_IMAGE="$(MEMCACHED_IMAGE)" KUBECTL="$(KUBECTL)" hack/demo.sh up

.PHONY: test-snippets
test-snippets: kubectl ## Apply the snippets marked in README.md and docs/ (hack/snippets.sh) to the kwok cluster: run after make demo (the operator running) and make olm-up (OLM's kinds, for the dry-run blocks).
	KUBECONFIG="$(LOCAL_KUBECONFIG)" KUBECTL="$(KUBECTL)" hack/snippets.sh run

.PHONY: olm-up
olm-up: cluster-up ## Install OLM into the local cluster (CRDs, base objects; olm and catalog operators as local processes).
	CLUSTER_DIR="$(CLUSTER_DIR)" hack/olm-up.sh

.PHONY: olm-down
olm-down: ## Stop the local OLM operators (PURGE=1 also removes OLM's CRDs and namespaces).
	CLUSTER_DIR="$(CLUSTER_DIR)" hack/olm-down.sh $(if $(filter 1,$(PURGE)),--purge)

.PHONY: catalog-serve
catalog-serve: opm catalog-tool ## Serve catalog/ with opm (port 50051) and create the CatalogSource memcached-catalog in olm.
	CLUSTER_DIR="$(CLUSTER_DIR)" hack/catalog-serve.sh start

.PHONY: demo-olm
demo-olm: build kubectl ## The OLM story on the local cluster: install OLM, catalog, subscribe, sample, scale, upgrade 0.1.0 -> VERSION.
	hack/build-release.sh 0.1.0
	CLUSTER_DIR="$(CLUSTER_DIR)" CATALOG_HEAD_BUNDLE="$(OLM_HEAD_BUNDLE)" OLM_HEAD_VERSION=$(VERSION) OLM_BINARIES="v0.1.0=$(LOCALBIN)/manager-v0.1.0,v$(VERSION)=$(LOCALBIN)/manager" KUBECTL="$(KUBECTL)" hack/demo-olm.sh

.PHONY: demo-down
demo-down: ## Stop the demo operator and the local cluster.
	CLUSTER_DIR="$(CLUSTER_DIR)" KUBECTL="$(KUBECTL)" hack/demo.sh down

##@ Real-node tier (needs root)

# The real-node cluster's kubeconfig (hack/cluster-up.sh NODE=real; REAL_CLUSTER_DIR above).
REAL_KUBECONFIG ?= $(REAL_CLUSTER_DIR)/kubeconfig
# REAL_IMG is the operator image built from the Dockerfile, pushed to the local registry and
# deployed (by digest) on the real node; MCCLIENT_IMG the test client (test/real/cmd/mcclient).
REAL_IMG ?= $(LOCAL_REGISTRY)/memcached-operator:v$(VERSION)
MCCLIENT_IMG ?= mcclient:test
# MEMCACHED_EXPORTER_IMG is the exporter sidecar built from its Go module (MEMCACHED_EXPORTER_IMAGE
# in images.env, by digest; test/real sets it as spec.monitoring.image).
MEMCACHED_EXPORTER_IMG ?= memcached-exporter:$(MEMCACHED_EXPORTER_VERSION)

.PHONY: real-images
real-images: ## Push what the real node runs to the local registry: memcached, the exporter, the operator image REAL_IMG, the test client.
	hack/local-images.sh static builder memcached
	hack/local-images.sh gobin $(MCCLIENT_IMG) ./test/real/cmd/mcclient
	@grep -q "github.com/prometheus/memcached_exporter $(MEMCACHED_EXPORTER_VERSION)$$" hack/tools/memcached-exporter/go.mod || \
		{ echo "hack/tools/memcached-exporter/go.mod does not require memcached_exporter $(MEMCACHED_EXPORTER_VERSION)" >&2; exit 1; }
	GOBIN_LDFLAGS="-X github.com/prometheus/common/version.Version=$(MEMCACHED_EXPORTER_VERSION:v%=%)" \
		hack/local-images.sh gobin $(MEMCACHED_EXPORTER_IMG) github.com/prometheus/memcached_exporter/cmd/memcached_exporter hack/tools/memcached-exporter
	$(MAKE) --no-print-directory docker-build docker-push IMG=$(REAL_IMG)

.PHONY: deploy-real
deploy-real: kustomize kubectl controller-gen ## Install dist/install.yaml (make build-installer IMG=REAL_IMG by digest) on the real node, with the local memcached image by digest.
	KUBECONFIG="$(REAL_KUBECONFIG)" CLUSTER_DIR="$(REAL_CLUSTER_DIR)" KUBECTL="$(KUBECTL)" KUSTOMIZE="$(KUSTOMIZE)" MAKE="$(MAKE)" IMG="$(REAL_IMG)" hack/deploy-real.sh apply

.PHONY: undeploy-real
undeploy-real: kustomize kubectl ## Remove what deploy-real applied (operator, CRD and every Memcached).
	KUBECONFIG="$(REAL_KUBECONFIG)" CLUSTER_DIR="$(REAL_CLUSTER_DIR)" KUBECTL="$(KUBECTL)" KUSTOMIZE="$(KUSTOMIZE)" hack/deploy-real.sh delete

.PHONY: test-real
test-real: kubectl kustomize ## Prove the operator on real pods: starts the real node, pushes the images, deploys, runs test/real.
	$(MAKE) --no-print-directory cluster-up NODE=real CLUSTER_DIR=$(REAL_CLUSTER_DIR)
	$(MAKE) --no-print-directory real-images
	$(MAKE) --no-print-directory deploy-real
	set -a; . "$(REGISTRY_DIR)/images.env"; . "$(REAL_CLUSTER_DIR)/deploy/images.env"; set +a; \
	KUBECONFIG="$(REAL_KUBECONFIG)" KUBECTL="$(KUBECTL)" REAL_ARTIFACTS="$(REAL_CLUSTER_DIR)/test-real" \
		go test -tags real ./test/real/ -v -count=1 -timeout 30m

.PHONY: demo-real
demo-real: kubectl kustomize ## The real-node story in one command: node, images, operator pod, sample, traffic, scale, rollout.
	REAL_IMG="$(REAL_IMG)" MCCLIENT_IMG="$(MCCLIENT_IMG)" KUBECTL="$(KUBECTL)" CLUSTER_DIR="$(REAL_CLUSTER_DIR)" hack/demo-real.sh

# test-olm-real: operator-sdk runs the bundle of OLM_REAL_PREVIOUS (default: the newest release in
# catalog/ before VERSION), then upgrades to VERSION. operator-sdk v1.42.3 reads its index image over
# HTTPS only, so it gets the registry's HTTPS address (hack/registry.sh start-tls), LOCAL_REGISTRY_TLS.
OLM_REAL_PREVIOUS ?= $(shell ls catalog/memcached-operator/bundles | sed -n 's/^memcached-operator\.v\(.*\)\.yaml$$/\1/p' | sort -V | grep -vx '$(VERSION)' | tail -n1)
# OLM_REAL_OLDEST is the first release in catalog/: the channel-bump test installs it from a catalog
# image whose channels end there, then pushes the full catalog image over the polled tag.
OLM_REAL_OLDEST ?= $(shell ls catalog/memcached-operator/bundles | sed -n 's/^memcached-operator\.v\(.*\)\.yaml$$/\1/p' | sort -V | head -n1)
# The catalog images hack/olm-real-images.sh pushes (catalog/ with local image names) and the tag the
# test's CatalogSource polls.
OLM_REAL_CATALOG ?= $(LOCAL_REGISTRY)/memcached-operator-catalog
REGISTRY_TLS_PORT ?= 5443
LOCAL_REGISTRY_TLS ?= 127.0.0.1:$(REGISTRY_TLS_PORT)
export REGISTRY_TLS_PORT
# version-key VERSION: the images.env key suffix of a release (0.2.1 -> V0_2_1).
version-key = V$(subst .,_,$(1))

.PHONY: olm-up-real
olm-up-real: ## Install OLM into the real-node cluster as pods (make olm-up NODE=real).
	$(MAKE) --no-print-directory olm-up NODE=real CLUSTER_DIR=$(REAL_CLUSTER_DIR)

.PHONY: olm-real-images
olm-real-images: opm ## Push the operator and bundle images of every release in catalog/ (local names, images by digest in the CSV), the local catalog images and the images operator-sdk's registry pods use.
	hack/local-images.sh memcached opm-index ubi
	OPM="$(OPM)" OPM_VERSION=$(OPM_VERSION) hack/olm-real-images.sh

.PHONY: test-olm-real
test-olm-real: kubectl kustomize operator-sdk ## Prove OLM in the real-node cluster (test/olmreal): our catalog image in every install mode, a channel-bump upgrade, operator-sdk run bundle / bundle-upgrade / cleanup, scorecard as pods.
	$(MAKE) --no-print-directory cluster-up NODE=real CLUSTER_DIR=$(REAL_CLUSTER_DIR)
	@# An operator deployed by make deploy-real/demo-real watches every namespace: remove it (test/olmreal refuses to run beside it).
	test ! -f "$(REAL_CLUSTER_DIR)/deploy/kustomization.yaml" || $(MAKE) --no-print-directory undeploy-real
	CLUSTER_DIR="$(REAL_CLUSTER_DIR)" KUBECTL="$(KUBECTL)" hack/demo-olm-real.sh down
	hack/registry.sh start-tls
	$(MAKE) --no-print-directory olm-real-images
	hack/local-images.sh gobin $(MCCLIENT_IMG) ./test/real/cmd/mcclient
	hack/scorecard-real.sh images
	hack/scorecard-real.sh config "$(REAL_CLUSTER_DIR)/scorecard/config.yaml"
	NODE=real CLUSTER_DIR="$(REAL_CLUSTER_DIR)" hack/olm-up.sh
	set -a; . "$(REGISTRY_DIR)/images.env"; set +a; \
	KUBECONFIG="$(REAL_KUBECONFIG)" KUBECTL="$(KUBECTL)" OPERATOR_SDK="$(OPERATOR_SDK)" \
	BUNDLE_DIR="$(CURDIR)/bundle" SCORECARD_CONFIG="$(REAL_CLUSTER_DIR)/scorecard/config.yaml" \
	BUNDLE_PREVIOUS=$(LOCAL_REGISTRY_TLS)/memcached-operator-bundle:v$(OLM_REAL_PREVIOUS) \
	BUNDLE_HEAD=$(LOCAL_REGISTRY_TLS)/memcached-operator-bundle:v$(VERSION) \
	BUNDLE_PREVIOUS_HTTP=$(LOCAL_REGISTRY)/memcached-operator-bundle:v$(OLM_REAL_PREVIOUS) \
	INDEX_IMAGE=$(LOCAL_REGISTRY_TLS)/local/opm-index:$(OPM_VERSION) INDEX_IMAGE_HTTP=$(LOCAL_REGISTRY)/local/opm-index:$(OPM_VERSION) \
	DECOMPRESSION_IMAGE=$(LOCAL_REGISTRY)/ubi9/ubi:9.8 SSL_CERT_FILE="$(REGISTRY_DIR)/tls/ca-bundle.crt" \
	OPERATOR_IMAGE_PREVIOUS=$$OPERATOR_IMAGE_$(call version-key,$(OLM_REAL_PREVIOUS)) OPERATOR_IMAGE_HEAD=$$OPERATOR_IMAGE_$(call version-key,$(VERSION)) \
	VERSION_OLDEST=$(OLM_REAL_OLDEST) OPERATOR_IMAGE_OLDEST=$$OPERATOR_IMAGE_$(call version-key,$(OLM_REAL_OLDEST)) \
	CATALOG_IMAGE_HEAD=$(OLM_REAL_CATALOG):olm-real CATALOG_IMAGE_OLDEST=$(OLM_REAL_CATALOG):olm-real-v$(OLM_REAL_OLDEST) \
	CATALOG_IMAGE_POLLED=$(OLM_REAL_CATALOG):olmreal-test \
	OLMREAL_ARTIFACTS="$(REAL_CLUSTER_DIR)/test-olm-real" \
		go test -tags real ./test/olmreal/ -v -count=1 -timeout 30m

.PHONY: demo-olm-real
demo-olm-real: kubectl kustomize operator-sdk opm ## The OLM story on the real node, every step timed: run bundle / bundle-upgrade / cleanup, our catalog image, a channel-bump upgrade, scorecard.
	CLUSTER_DIR="$(REAL_CLUSTER_DIR)" KUBECTL="$(KUBECTL)" OPERATOR_SDK="$(OPERATOR_SDK)" MCCLIENT_IMG="$(MCCLIENT_IMG)" hack/demo-olm-real.sh up

# OLM v1 on the real node (hack/olmv1-up.sh): operator-controller and catalogd at
# OPERATOR_CONTROLLER_VERSION, cert-manager at CERT_MANAGER_VERSION, as pods, from their release
# manifests with local images. test/olmv1real applies config/samples/olmv1 (the YAML docs/olm.md
# shows) and pushes the catalog images of hack/olm-real-images.sh over the tag its ClusterCatalog polls.
OLMV1_ENV = KUBECONFIG="$(REAL_KUBECONFIG)" KUBECTL="$(KUBECTL)" CLUSTER_DIR="$(REAL_CLUSTER_DIR)" \
	OPERATOR_CONTROLLER_VERSION=$(OPERATOR_CONTROLLER_VERSION) CERT_MANAGER_VERSION=$(CERT_MANAGER_VERSION)

.PHONY: olmv1-up
olmv1-up: kubectl kustomize ## Install OLM v1 (operator-controller, catalogd) and cert-manager into the real-node cluster as pods (NODE=real; the node must be up).
	@test "$(NODE)" = real || { echo "olmv1-up: OLM v1 runs on the real node: make olmv1-up NODE=real" >&2; exit 2; }
	$(OLMV1_ENV) hack/olmv1-up.sh

.PHONY: olmv1-down
olmv1-down: kubectl ## Delete every ClusterExtension and ClusterCatalog (NODE=real); PURGE=1 also removes OLM v1 and cert-manager.
	@test "$(NODE)" = real || { echo "olmv1-down: OLM v1 runs on the real node: make olmv1-down NODE=real" >&2; exit 2; }
	$(OLMV1_ENV) hack/olmv1-down.sh $(if $(filter 1,$(PURGE)),--purge)

.PHONY: test-olmv1-real
test-olmv1-real: kubectl kustomize opm ## Prove OLM v1 on the real node (test/olmv1real): ClusterCatalog, ClusterExtension install, deprecation, version pin, CRD upgrade safety, upgrade, uninstall, SingleNamespace.
	$(MAKE) --no-print-directory cluster-up NODE=real CLUSTER_DIR=$(REAL_CLUSTER_DIR)
	test ! -f "$(REAL_CLUSTER_DIR)/deploy/kustomization.yaml" || $(MAKE) --no-print-directory undeploy-real
	@# What the OLM v0 stories leave (their namespaces, the Memcached CRD OLM v0 installed) would clash with the v1 install.
	CLUSTER_DIR="$(REAL_CLUSTER_DIR)" KUBECTL="$(KUBECTL)" hack/demo-olm-real.sh down
	$(MAKE) --no-print-directory olm-real-images
	hack/local-images.sh gobin $(MCCLIENT_IMG) ./test/real/cmd/mcclient
	$(OLMV1_ENV) hack/olmv1-up.sh
	$(OLMV1_ENV) hack/olmv1-down.sh
	set -a; . "$(REGISTRY_DIR)/images.env"; set +a; $(OLMV1_ENV) SAMPLES_DIR="$(CURDIR)/config/samples/olmv1" \
	CATALOG_IMAGE_HEAD=$$OLM_REAL_CATALOG_IMAGE CATALOG_IMAGE_OLDEST=$$OLM_REAL_CATALOG_IMAGE_OLDEST \
	VERSION_HEAD=$(VERSION) VERSION_OLDEST=$(OLM_REAL_OLDEST) \
	OPERATOR_IMAGE_HEAD=$$OPERATOR_IMAGE_$(call version-key,$(VERSION)) OPERATOR_IMAGE_OLDEST=$$OPERATOR_IMAGE_$(call version-key,$(OLM_REAL_OLDEST)) \
		go test -tags real ./test/olmv1real/ -v -count=1 -timeout 20m

.PHONY: demo-olmv1-real
demo-olmv1-real: kubectl kustomize opm ## The OLM v1 story on the real node, every step timed: OLM v1 and cert-manager as pods, our ClusterCatalog, a ClusterExtension, a Memcached Available (down: make demo-olmv1-real-down).
	$(MAKE) --no-print-directory cluster-up NODE=real CLUSTER_DIR=$(REAL_CLUSTER_DIR)
	$(MAKE) --no-print-directory olm-real-images
	$(OLMV1_ENV) hack/demo-olmv1-real.sh up

.PHONY: demo-olmv1-real-down
demo-olmv1-real-down: kubectl ## Remove what demo-olmv1-real created (its namespace, the ClusterExtension, the ClusterCatalog).
	$(OLMV1_ENV) hack/demo-olmv1-real.sh down

.PHONY: scorecard-real
scorecard-real: kubectl kustomize operator-sdk ## Run operator-sdk scorecard on bundle/ in the real-node cluster, its tests as pods from local images (config/scorecard-local).
	$(MAKE) --no-print-directory cluster-up NODE=real CLUSTER_DIR=$(REAL_CLUSTER_DIR)
	KUBECONFIG="$(REAL_KUBECONFIG)" hack/scorecard-real.sh run bundle

##@ Tools

.PHONY: controller-gen
controller-gen: ## Build controller-gen into ./bin.
	@hack/build-tool.sh controller-gen $(CONTROLLER_TOOLS_VERSION) -- \
		bash -c 'GOBIN=$$(dirname "$$OUT") go install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_TOOLS_VERSION)'

.PHONY: kustomize
kustomize: ## Build kustomize into ./bin.
	@hack/build-tool.sh kustomize $(KUSTOMIZE_VERSION) -- \
		bash -c 'GOBIN=$$(dirname "$$OUT") go install sigs.k8s.io/kustomize/kustomize/v5@$(KUSTOMIZE_VERSION)'

.PHONY: crd-ref-docs
crd-ref-docs: ## Build crd-ref-docs into ./bin.
	@hack/build-tool.sh crd-ref-docs $(CRD_REF_DOCS_VERSION) -- \
		bash -c 'GOBIN=$$(dirname "$$OUT") go install github.com/elastic/crd-ref-docs@$(CRD_REF_DOCS_VERSION)'

.PHONY: kubectl
kubectl: ## Build kubectl into ./bin.
	@hack/build-kube.sh kubectl

.PHONY: envtest-assets
envtest-assets: ## Build kube-apiserver, etcd and kubectl into ./bin for envtest (KUBEBUILDER_ASSETS).
	@hack/build-kube.sh etcd kube-apiserver kubectl

.PHONY: operator-sdk
operator-sdk: ## Build operator-sdk into ./bin.
	@hack/build-olm-tools.sh operator-sdk

.PHONY: opm
opm: ## Build opm into ./bin (statically linked).
	@hack/build-olm-tools.sh opm

.PHONY: olmv1-tools
olmv1-tools: ## Build OLM v1 (operator-controller, catalogd) and cert-manager (controller, cainjector, webhook) into ./bin at their pinned versions.
	@hack/build-olmv1-tools.sh operator-controller catalogd cert-manager-controller cert-manager-cainjector cert-manager-webhook

.PHONY: grpc-health-probe
grpc-health-probe: ## Build grpc_health_probe into ./bin (for the local opm image).
	@hack/build-olm-tools.sh grpc-health-probe

.PHONY: catalog-tool
catalog-tool: ## Build the project's catalog tool (hack/catalog) into ./bin.
	cd hack/catalog && go build -o $(CATALOG_TOOL) .

.PHONY: cluster-tools
cluster-tools: ## Build every binary of the local cluster into ./bin.
	@hack/build-kube.sh etcd kube-apiserver kubectl kube-controller-manager kube-scheduler
	@hack/build-kwok.sh
	@$(if $(filter real,$(NODE)),hack/build-kube.sh kubelet kube-proxy coredns crictl)
