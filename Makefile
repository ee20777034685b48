# memcached-operator Makefile (kubebuilder layout). `make help` lists the targets.
# This file holds what a user sets: the release (VERSION, IMAGE_TAG_BASE, IMG, IMG_DIGEST, the
# channels, the bundle and catalog image names), the operand image, the container tool and the local
# registry, and the version pin of every tool. hack/release/release.sh edits VERSION, IMG_DIGEST and
# IMAGE_TAG_BASE in this file and hack/ scripts read `VERSION ?= ` from it: keep those lines here.
# Every tool is pinned here and built from the Go module proxy into ./bin on first use; later runs
# skip tools already built at the pinned version (hack/tools/build-tool.sh).
#
# The targets live in make/*.mk, included at the end of this file in the order `make help` lists
# them; the settings of a single concern (NODE, BENCH_*, SCORECARD_IMG, REAL_IMG, OLM_REAL_*...)
# sit beside its targets there:
#   make/dev.mk      generate, manifests, api-docs, fmt, vet, test, bench, verify
#   make/e2e.mk      the kwok tier's suites and the scale benchmark: test-e2e, test-olm, bench-scale,
#                    bench-gate (`make help` lists them under Development)
#   make/build.mk    build, run, docker-build/push; install, deploy, build-installer (without OLM)
#   make/bundle.mk   OLM packaging: bundle, scorecard, catalog, release, promote, bundle/catalog images
#   make/images.mk   how images are built and pushed (container-build, container-push, buildah), the
#                    local registry and the local images
#   make/cluster.mk  the local cluster (NODE=kwok|real: cluster-up/down), OLM on it, the kwok demos
#   make/real.mk     the real-node tier: its images, deploy-real, the Prometheus Operator, test-real, test-olm-real, OLM v1, demos
#   make/tools.mk    the pinned tools built into ./bin (controller-gen, kustomize, kubectl, opm, ...)

# VERSION is the operator version of the bundle and the image tags.
VERSION ?= 0.3.1
# IMAGE_TAG_BASE is the image repository of the operator and its bundle/catalog images.
IMAGE_TAG_BASE ?= registry.example.com/memcached-operator
IMG ?= $(IMAGE_TAG_BASE):v$(VERSION)
# IMG_DIGEST pins the operator image of a release made by `make release` (sha256:...): the bundle
# then names BUNDLE_OPERATOR_IMG, IMAGE_TAG_BASE@IMG_DIGEST, instead of IMG (which docker-build and
# docker-push keep using as the tag they build and push). Empty for the releases up to 0.2.3 (by tag).
# The digest is that of the image the release pushed under IMG_DIGEST_BASE: a build under another
# IMAGE_TAG_BASE (your own registry, as the README's install shows) names IMG, its own tag.
IMG_DIGEST ?=
IMG_DIGEST_BASE ?= registry.example.com/memcached-operator
BUNDLE_OPERATOR_IMG ?= $(if $(and $(IMG_DIGEST),$(filter $(IMG_DIGEST_BASE),$(IMAGE_TAG_BASE))),$(IMAGE_TAG_BASE)@$(IMG_DIGEST),$(IMG))
# comma is a literal comma, for $(if ...) arguments.
comma := ,
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
MEMCACHED_IMAGE ?= docker.io/library/memcached:1.6.46-alpine
# The memcached that make test's real-binary tests run and the real tier's memcached image holds:
# Debian's package MEMCACHED_DEBIAN_VERSION from the suite MEMCACHED_DEBIAN_SUITE (sid's is built
# with TLS, SASL, extstore and the proxy), with its libraries and loader from the same suite,
# assembled once into MEMCACHED_DEBIAN_DIR by hack/images/debian-memcached.sh (make memcached-debian),
# which takes the suite's newer 1.6 build (and says to bump the pin) once sid has moved on. MEMCACHED_BINARY is its
# wrapper, which make test passes to the tests (test/utils.MemcachedBinary).
MEMCACHED_DEBIAN_SUITE ?= sid
MEMCACHED_DEBIAN_VERSION ?= 1.6.45-1
MEMCACHED_DEBIAN_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/memcached-operator/memcached/debian-$(MEMCACHED_DEBIAN_SUITE)-$(MEMCACHED_DEBIAN_VERSION)
MEMCACHED_BINARY ?= $(MEMCACHED_DEBIAN_DIR)/memcached
# The previous memcached, assembled the same way: warm restarts are proven across a version change
# (a save of 1.6.38 restored by 1.6.45) by make test (MEMCACHED_BINARY_PREVIOUS) and on the real
# tier (its image, MEMCACHED_PREVIOUS_IMAGE in images.env).
MEMCACHED_PREVIOUS_DEBIAN_SUITE ?= trixie
MEMCACHED_PREVIOUS_DEBIAN_VERSION ?= 1.6.38-1
MEMCACHED_PREVIOUS_DEBIAN_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/memcached-operator/memcached/debian-$(MEMCACHED_PREVIOUS_DEBIAN_SUITE)-$(MEMCACHED_PREVIOUS_DEBIAN_VERSION)
MEMCACHED_BINARY_PREVIOUS ?= $(MEMCACHED_PREVIOUS_DEBIAN_DIR)/memcached

# CONTAINER_TOOL builds and pushes the images (hack/images/container-tool.sh, which prints its choice once,
# when a target first needs it): docker when a Docker engine answers (`docker info`), else podman
# when installed, else buildah. docker and podman build from the public base images; buildah from
# local equivalents of them (hack/images/local-images.sh, `make local-images`) kept in the local registry.
# Recipes that run make or hack/ scripts again pass it on, so the choice is made once.
CONTAINER_TOOL ?= $(eval CONTAINER_TOOL := $(shell hack/images/container-tool.sh))$(CONTAINER_TOOL)
# The local registry (hack/images/registry.sh): plain HTTP on loopback, images kept in REGISTRY_DIR.
REGISTRY_PORT ?= 5000
LOCAL_REGISTRY ?= 127.0.0.1:$(REGISTRY_PORT)
REGISTRY_DIR ?= $(shell pwd)/.registry
# buildah's storage (vfs driver), shared by hack/images/local-images.sh and the buildah builds.
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
# kubebuilder's helm/v2-alpha plugin generates the Helm chart (dist/chart) from config/default's
# kustomize output (make helm-chart); helm lints and renders it (make test) and the real tier
# installs and upgrades it.
KUBEBUILDER_VERSION ?= v4.16.0
HELM_VERSION ?= v4.3.2
# krew (and its validate-krew-manifest) install the kubectl plugin from the release's krew manifest
# and archive in make release-artifacts-check.
KREW_VERSION ?= v0.4.3
# actionlint lints the release workflow (.github/workflows) in make test.
ACTIONLINT_VERSION ?= v1.7.12
GRPC_HEALTH_PROBE_VERSION ?= v0.4.53
# memcached_exporter (spec.monitoring's sidecar): the local image is built from this release's Go
# module (hack/tools/memcached-exporter, whose go.mod must require it); users get the public
# quay.io/prometheus/memcached-exporter of the same tag (RELATED_IMAGE_MEMCACHED_EXPORTER).
MEMCACHED_EXPORTER_VERSION ?= v0.16.0
# prometheus-operator and its prometheus-config-reloader, built from this release's Go module
# (hack/tools/prometheus-operator, whose go.mod must require it: v0.85.0 is the newest the proxy
# serves) for the real-node tier's Prometheus (hack/monitoring/prometheus-operator-up.sh).
PROMETHEUS_OPERATOR_VERSION ?= v0.85.0

SHELL = /usr/bin/env bash -o pipefail
.SHELLFLAGS = -ec

LOCALBIN ?= $(shell pwd)/bin
export LOCALBIN

export KUBE_VERSION ETCD_VERSION COREDNS_VERSION CRICTL_VERSION KWOK_VERSION OPERATOR_SDK_VERSION OPM_VERSION OLM_VERSION GRPC_HEALTH_PROBE_VERSION OPERATOR_CONTROLLER_VERSION CERT_MANAGER_VERSION PROMETHEUS_OPERATOR_VERSION
export REGISTRY_PORT REGISTRY_DIR BUILDAH_DIR GOLANG_VERSION
export MEMCACHED_DEBIAN_SUITE MEMCACHED_DEBIAN_VERSION MEMCACHED_DEBIAN_DIR MEMCACHED_BINARY
export MEMCACHED_PREVIOUS_DEBIAN_SUITE MEMCACHED_PREVIOUS_DEBIAN_VERSION MEMCACHED_PREVIOUS_DEBIAN_DIR MEMCACHED_BINARY_PREVIOUS

.PHONY: all
all: build

##@ General

.PHONY: help
help: ## Display this help.
	@awk 'BEGIN {FS = ":.*##"; printf "\nUsage:\n  make \033[36m<target>\033[0m\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) } ' $(MAKEFILE_LIST)

# Each part adds its `##@` section(s) to `make help`, in this order.
include make/dev.mk
include make/e2e.mk
include make/build.mk
include make/bundle.mk
include make/images.mk
include make/cluster.mk
include make/real.mk
include make/tools.mk
