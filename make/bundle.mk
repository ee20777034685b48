# make/bundle.mk, included by the Makefile (its header lists every part).
# OLM packaging: bundle/ (generate, validate, check), the scorecard, the catalog template and
# catalog/ (catalog, render, validate, release, promote) and the bundle, catalog and scorecard
# images.

# The catalog's source (an opm basic template) and the public repository its bundle entries name,
# each pinned by digest; hack/release/catalog-render.sh renders catalog/ from it.
CATALOG_TEMPLATE ?= catalog-template/memcached-operator.yaml
CATALOG_BUNDLE_REPO ?= registry.example.com/memcached-operator-bundle
CATALOG_RENDER = OPM=$(OPM) CATALOG_TOOL=$(CATALOG_TOOL) VERSION=$(VERSION) CATALOG_TEMPLATE=$(CATALOG_TEMPLATE) CATALOG_BUNDLE_REPO=$(CATALOG_BUNDLE_REPO) hack/release/catalog-render.sh

# The OpenShift releases the bundle supports (com.redhat.openshift.versions, Red Hat's convention:
# "v4.17" is 4.17 and every later release): 4.17 is the first on Kubernetes 1.30, the CSV's
# minKubeVersion (TestOpenShiftVersionsMatchMinKubeVersion in test/bundle checks the pair).
OPENSHIFT_VERSIONS ?= v4.17

##@ OLM packaging

.PHONY: check-channels
check-channels: ## Fail unless DEFAULT_CHANNEL is set and is one of CHANNELS, all from candidate/fast/stable.
	@hack/release/check-channels.sh "$(CHANNELS)" "$(DEFAULT_CHANNEL)"

.PHONY: bundle
bundle: check-channels manifests kustomize operator-sdk ## Generate bundle/ for VERSION and CHANNELS (operator image BUNDLE_OPERATOR_IMG), then validate it (operatorframework suite).
	$(OPERATOR_SDK) generate kustomize manifests -q
	cd config/manager && $(KUSTOMIZE) edit set image controller=$(BUNDLE_OPERATOR_IMG)
	$(KUSTOMIZE) build config/manifests | $(OPERATOR_SDK) generate bundle $(BUNDLE_GEN_FLAGS)
	@# operator-sdk leaves the CSV's containerImage annotation as the base has it: stamp the operator image.
	sed -i 's|^    containerImage: .*|    containerImage: $(BUNDLE_OPERATOR_IMG)|' bundle/manifests/memcached-operator.clusterserviceversion.yaml
	@# operator-sdk knows no OpenShift annotation: add it to the metadata and the image's labels.
	sed -i '/com.redhat.openshift.versions/d; /# OpenShift releases supported/d' bundle/metadata/annotations.yaml bundle.Dockerfile
	printf '\n  # OpenShift releases supported (this one and later).\n  com.redhat.openshift.versions: "%s"\n' '$(OPENSHIFT_VERSIONS)' >>bundle/metadata/annotations.yaml
	sed -i 's|^# Labels for testing.|# OpenShift releases supported (this one and later).\nLABEL com.redhat.openshift.versions=$(OPENSHIFT_VERSIONS)\n\n&|' bundle.Dockerfile
	$(MAKE) bundle-validate

.PHONY: bundle-validate
bundle-validate: operator-sdk ## Validate bundle/ with operator-sdk (operatorframework suite, and operatorhubv2, good-practices, alpha-deprecated-apis at minKubeVersion and KUBE_VERSION): no errors, no warnings.
	KUBE_VERSION=$(KUBE_VERSION) hack/release/bundle-validate.sh $(OPERATOR_SDK) bundle

.PHONY: bundle-check
bundle-check: kustomize operator-sdk controller-gen catalog-tool ## Fail when bundle/ is stale (regenerated in a temporary copy and diffed, createdAt ignored) or carries a released version's name with other content.
	hack/release/bundle-check.sh
	$(CATALOG_TOOL) check-version -dir catalog/memcached-operator -version $(VERSION) -bundle-dir bundle

.PHONY: scorecard
scorecard: scorecard-tools ## Run the bundle's scorecard tests locally, without a cluster (needs root: private mount namespace).
	@test -n "$(IS_ROOT)" || { echo "make scorecard needs root: it bind-mounts the bundle at /bundle in a private mount namespace (unshare --mount); make test skips it when not root, CI runs it as root" >&2; exit 1; }
	go run ./test/scorecard/cmd/scorecard-local -bundle bundle -bin $(LOCALBIN) \
		-scorecard-image quay.io/operator-framework/scorecard-test:$(OPERATOR_SDK_VERSION)

.PHONY: scorecard-tools
scorecard-tools: ## Build operator-sdk's scorecard-test and our memcached-scorecard-tests into ./bin.
	@hack/olm/build-olm-tools.sh scorecard-test
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
release: catalog-tool opm ## Cut release VERSION: bump, images pushed and pinned by digest, bundle/, head of candidate in the catalog template and catalog/, hack/release/releases (hack/release/release.sh). Commit the result.
	REGISTRY_DIR="$(REGISTRY_DIR)" REGISTRY_PORT="$(REGISTRY_PORT)" LOCAL_IMAGE_TAG_BASE="$(LOCAL_IMAGE_TAG_BASE)" MAKE="$(MAKE)" \
		CONTAINER_TOOL="$(CONTAINER_TOOL)" hack/release/release.sh $(VERSION)

# Where make community-submission writes, and the reviewers its ci.yaml names (GitHub users,
# comma-separated).
COMMUNITY_DIR ?= dist/community-operators
COMMUNITY_REVIEWERS ?=

.PHONY: community-submission
community-submission: operator-sdk ## Write the OperatorHub community submission of release VERSION into COMMUNITY_DIR (operators/memcached-operator/{ci.yaml,VERSION/}) and validate it (hack/release/community.sh; docs/releasing.md).
	OPERATOR_SDK=$(OPERATOR_SDK) KUBE_VERSION=$(KUBE_VERSION) HEAD_VERSION=$(VERSION) COMMUNITY_REVIEWERS="$(COMMUNITY_REVIEWERS)" \
		hack/release/community.sh $(VERSION) $(COMMUNITY_DIR)

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
