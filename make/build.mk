# make/build.mk, included by the Makefile (its header lists every part).
# Build and Deployment: the manager binary (build, run), the operator image (docker-build,
# docker-push; the container helpers are in make/images.mk) and installing without OLM (install,
# deploy, build-installer, undeploy).

##@ Build

.PHONY: build
# Built as the Dockerfile builds the image's (CGO_ENABLED=0, statically linked), so the tests and
# make bench-scale run the binary that ships (with cgo it would also map libc).
build: manifests generate fmt vet ## Build the manager binary into bin/manager (static, as in the image).
	CGO_ENABLED=0 go build -o $(LOCALBIN)/manager .

.PHONY: plugin
plugin: ## Build the kubectl plugin into bin/kubectl-memcached (kubectl memcached status|report; docs/troubleshooting.md).
	CGO_ENABLED=0 go build -o $(LOCALBIN)/kubectl-memcached ./cmd/kubectl-memcached

.PHONY: release-artifacts
# RELEASE_ARTIFACTS is where make release-artifacts writes (not committed: dist/ holds only the chart).
RELEASE_ARTIFACTS ?= $(shell pwd)/dist/release
release-artifacts: kustomize helm ## Write the files a release publishes beside its images into RELEASE_ARTIFACTS: install.yaml, the CRD, the Helm chart package, the kubectl plugin's archives, its krew manifest, SHA256SUMS (hack/release/artifacts.sh).
	VERSION=$(VERSION) KUSTOMIZE=$(KUSTOMIZE) HELM=$(HELM) hack/release/artifacts.sh "$(RELEASE_ARTIFACTS)"

.PHONY: release-artifacts-check
release-artifacts-check: kustomize helm krew ## Write the release artifacts twice and check them as a user would: identical checksums (reproducible), sha256sum -c, the krew manifest validated and the plugin installed from it by krew, the chart package linted.
	KREW=$(KREW) HELM=$(HELM) VERSION=$(VERSION) KUSTOMIZE=$(KUSTOMIZE) hack/release/artifacts-check.sh

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
# The image is set in a temporary copy of config/, so the tree stays as committed
# (hack/release/install-yaml.sh, also the input of the Helm chart and the release's install.yaml).
build-installer: manifests kustomize ## Write dist/install.yaml: the CRD, RBAC and the operator Deployment (image IMG) of config/default, for kubectl apply -f.
	mkdir -p dist
	KUSTOMIZE=$(KUSTOMIZE) hack/release/install-yaml.sh config $(IMG) > dist/install.yaml.tmp && mv dist/install.yaml.tmp dist/install.yaml
	@echo "wrote dist/install.yaml (operator image $(IMG)): kubectl apply --server-side -f dist/install.yaml"

.PHONY: helm-chart
helm-chart: manifests kustomize kubebuilder ## Write the Helm chart dist/chart from config/default (kubebuilder's helm/v2-alpha plugin, hack/helm/chart.sh); version VERSION, operator image IMAGE_TAG_BASE:vVERSION.
	@VERSION=$(VERSION) IMG=$(IMAGE_TAG_BASE):v$(VERSION) KUBEBUILDER=$(KUBEBUILDER) KUSTOMIZE=$(KUSTOMIZE) hack/helm/chart.sh

.PHONY: undeploy
undeploy: kustomize kubectl ## Remove the operator deployed by `make deploy`.
	$(KUSTOMIZE) build config/default | $(KUBECTL) delete --ignore-not-found -f -
