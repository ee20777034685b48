# make/images.mk, included by the Makefile (its header lists every part).
# Images: how they are built and pushed with CONTAINER_TOOL (docker, podman or buildah, chosen
# in the Makefile), and the local registry and local images for a machine without a Docker engine.

# buildah (Debian's) as hack/images/local-images.sh runs it; `bud` with chroot isolation (no daemon, no OCI
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

##@ Local registry and images (no Docker engine needed)

.PHONY: registry-up
registry-up: ## Start the local registry: plain HTTP on LOCAL_REGISTRY (127.0.0.1:5000), images kept in REGISTRY_DIR.
	hack/images/registry.sh start

.PHONY: registry-down
registry-down: ## Stop the local registry (its images stay in REGISTRY_DIR).
	hack/images/registry.sh stop

.PHONY: local-images
local-images: registry-up ## Push local equivalents of the base images (static, golang, opm), memcached and pause to the local registry.
	hack/images/local-images.sh all

.PHONY: images-local
images-local: local-images ## Build the operator, bundle and catalog images with CONTAINER_TOOL and push them to the local registry (LOCAL_IMAGE_TAG_BASE).
	$(MAKE) --no-print-directory docker-build docker-push bundle-build bundle-push catalog-build catalog-push CONTAINER_TOOL=$(CONTAINER_TOOL) \
		IMAGE_TAG_BASE=$(LOCAL_IMAGE_TAG_BASE) IMG=$(LOCAL_IMAGE_TAG_BASE):v$(VERSION) \
		BUNDLE_IMG=$(LOCAL_IMAGE_TAG_BASE)-bundle:v$(VERSION) CATALOG_IMG=$(LOCAL_IMAGE_TAG_BASE)-catalog:v$(VERSION)
	hack/images/local-images.sh record OPERATOR_IMAGE $(LOCAL_IMAGE_TAG_BASE):v$(VERSION)
	hack/images/local-images.sh record BUNDLE_IMAGE $(LOCAL_IMAGE_TAG_BASE)-bundle:v$(VERSION)
	hack/images/local-images.sh record CATALOG_IMAGE $(LOCAL_IMAGE_TAG_BASE)-catalog:v$(VERSION)
