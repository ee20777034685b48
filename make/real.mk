# make/real.mk, included by the Makefile (its header lists every part).
# The real-node tier (needs root): the images it runs, deploy-real, the Prometheus Operator, the
# suites (test-real, test-olm-real, test-olmv1-real), OLM v0 and v1 as pods, the demos, scorecard
# as pods. The node itself is started by make/cluster.mk (cluster-up NODE=real).

##@ Real-node tier (needs root)

# The real-node cluster's kubeconfig (hack/cluster/cluster-up.sh NODE=real; REAL_CLUSTER_DIR: make/cluster.mk).
REAL_KUBECONFIG ?= $(REAL_CLUSTER_DIR)/kubeconfig
# REAL_IMG is the operator image built from the Dockerfile, pushed to the local registry and
# deployed (by digest) on the real node; MCCLIENT_IMG the test client (test/real/cmd/mcclient).
REAL_IMG ?= $(LOCAL_REGISTRY)/memcached-operator:v$(VERSION)
MCCLIENT_IMG ?= mcclient:test
# MEMCACHED_EXPORTER_IMG is the exporter sidecar built from its Go module (MEMCACHED_EXPORTER_IMAGE
# in images.env, by digest; test/real sets it as spec.monitoring.image).
MEMCACHED_EXPORTER_IMG ?= memcached-exporter:$(MEMCACHED_EXPORTER_VERSION)

.PHONY: real-images
real-images: ## Push what the real node runs to the local registry: memcached, the exporter, the operator image REAL_IMG, the test clients (mcclient, pyclients).
	hack/images/local-images.sh static builder memcached memcached-previous pyclients
	hack/images/local-images.sh gobin $(MCCLIENT_IMG) ./test/real/cmd/mcclient
	@grep -q "github.com/prometheus/memcached_exporter $(MEMCACHED_EXPORTER_VERSION)$$" hack/tools/memcached-exporter/go.mod || \
		{ echo "hack/tools/memcached-exporter/go.mod does not require memcached_exporter $(MEMCACHED_EXPORTER_VERSION)" >&2; exit 1; }
	GOBIN_LDFLAGS="-X github.com/prometheus/common/version.Version=$(MEMCACHED_EXPORTER_VERSION:v%=%)" \
		hack/images/local-images.sh gobin $(MEMCACHED_EXPORTER_IMG) github.com/prometheus/memcached_exporter/cmd/memcached_exporter hack/tools/memcached-exporter
	$(MAKE) --no-print-directory docker-build docker-push IMG=$(REAL_IMG)

.PHONY: deploy-real
deploy-real: kustomize kubectl controller-gen ## Install dist/install.yaml (make build-installer IMG=REAL_IMG by digest) on the real node, with the local memcached image by digest.
	KUBECONFIG="$(REAL_KUBECONFIG)" CLUSTER_DIR="$(REAL_CLUSTER_DIR)" KUBECTL="$(KUBECTL)" KUSTOMIZE="$(KUSTOMIZE)" MAKE="$(MAKE)" IMG="$(REAL_IMG)" hack/cluster/deploy-real.sh apply

.PHONY: undeploy-real
undeploy-real: kustomize kubectl ## Remove what deploy-real applied (operator, CRD and every Memcached).
	KUBECONFIG="$(REAL_KUBECONFIG)" CLUSTER_DIR="$(REAL_CLUSTER_DIR)" KUBECTL="$(KUBECTL)" KUSTOMIZE="$(KUSTOMIZE)" hack/cluster/deploy-real.sh delete

# PROMETHEUS_OPERATOR_NAMESPACE is where hack/monitoring/prometheus-operator-up.sh runs the
# Prometheus Operator (test/real's TestPrometheusScrapesMemcached creates a Prometheus it reconciles).
PROMETHEUS_OPERATOR_NAMESPACE ?= prometheus-operator

.PHONY: prometheus-operator-up
prometheus-operator-up: kubectl kustomize ## Install the Prometheus Operator (PROMETHEUS_OPERATOR_VERSION, its CRDs, RBAC and Deployment from its module source; local images) into the real-node cluster.
	CLUSTER_DIR="$(REAL_CLUSTER_DIR)" PROMETHEUS_OPERATOR_NAMESPACE=$(PROMETHEUS_OPERATOR_NAMESPACE) hack/monitoring/prometheus-operator-up.sh

# REAL_RUN: a go test -run pattern for make test-real (empty: every test).
REAL_RUN ?=

.PHONY: test-real
test-real: kubectl kustomize ## Prove the operator on real pods: starts the real node, pushes the images, installs the Prometheus Operator, deploys, runs test/real.
	$(MAKE) --no-print-directory cluster-up NODE=real CLUSTER_DIR=$(REAL_CLUSTER_DIR)
	$(MAKE) --no-print-directory real-images
	$(MAKE) --no-print-directory prometheus-operator-up
	$(MAKE) --no-print-directory deploy-real
	set -a; . "$(REGISTRY_DIR)/images.env"; . "$(REAL_CLUSTER_DIR)/deploy/images.env"; set +a; \
	KUBECONFIG="$(REAL_KUBECONFIG)" KUBECTL="$(KUBECTL)" REAL_ARTIFACTS="$(REAL_CLUSTER_DIR)/test-real" \
	PROMETHEUS_OPERATOR_NAMESPACE=$(PROMETHEUS_OPERATOR_NAMESPACE) \
	CRICTL="$(LOCALBIN)/crictl" CRI_ENDPOINT="unix://$${NODE_STATE:-/run/memcached-node}/containerd.sock" \
		go test -tags real ./test/real/ -v -count=1 -timeout 30m $(if $(REAL_RUN),-run '$(REAL_RUN)')

.PHONY: demo-real
demo-real: kubectl kustomize ## The real-node story in one command: node, images, operator pod, sample, traffic, scale, rollout.
	REAL_IMG="$(REAL_IMG)" MCCLIENT_IMG="$(MCCLIENT_IMG)" KUBECTL="$(KUBECTL)" CLUSTER_DIR="$(REAL_CLUSTER_DIR)" hack/demo/demo.sh real up

# test-olm-real: operator-sdk runs the bundle of OLM_REAL_PREVIOUS (default: the newest release in
# catalog/ before VERSION), then upgrades to VERSION. operator-sdk v1.42.3 reads its index image over
# HTTPS only, so it gets the registry's HTTPS address (hack/images/registry.sh start-tls), LOCAL_REGISTRY_TLS.
OLM_REAL_PREVIOUS ?= $(shell ls catalog/memcached-operator/bundles | sed -n 's/^memcached-operator\.v\(.*\)\.yaml$$/\1/p' | sort -V | grep -vx '$(VERSION)' | tail -n1)
# OLM_REAL_OLDEST is the first release in catalog/: the channel-bump test installs it from a catalog
# image whose channels end there, then pushes the full catalog image over the polled tag.
OLM_REAL_OLDEST ?= $(shell ls catalog/memcached-operator/bundles | sed -n 's/^memcached-operator\.v\(.*\)\.yaml$$/\1/p' | sort -V | head -n1)
# The catalog images hack/olm/olm-real-images.sh pushes (catalog/ with local image names) and the tag the
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

# MIRROR_VERSION is the release hack/olm/mirror-images.sh mirrors for TestMirroredCatalog (test/olmreal,
# test/olmv1real): one of hack/release/releases whose images all have a local stand-in (the
# operator's, memcached's).
MIRROR_VERSION ?= 0.2.2

.PHONY: olm-real-images
olm-real-images: opm catalog-tool ## Push the operator and bundle images of every release in catalog/ (local names, images by digest in the CSV), the local catalog images, the images operator-sdk's registry pods use, and the mirror of the committed catalog's public images.
	hack/images/local-images.sh memcached opm-index ubi
	OPM="$(OPM)" OPM_VERSION=$(OPM_VERSION) hack/olm/olm-real-images.sh
	OPM="$(OPM)" CATALOG_IMG=$(CATALOG_IMG) hack/olm/mirror-images.sh $(MIRROR_VERSION)

# OLMREAL_RUN: a go test -run pattern for make test-olm-real (empty: every test).
OLMREAL_RUN ?=

.PHONY: test-olm-real
test-olm-real: kubectl kustomize operator-sdk ## Prove OLM in the real-node cluster (test/olmreal): our catalog image in every install mode, a channel-bump upgrade, operator-sdk run bundle / bundle-upgrade / cleanup, scorecard as pods.
	$(MAKE) --no-print-directory cluster-up NODE=real CLUSTER_DIR=$(REAL_CLUSTER_DIR)
	@# An operator deployed by make deploy-real/demo-real watches every namespace: remove it (test/olmreal refuses to run beside it).
	test ! -f "$(REAL_CLUSTER_DIR)/deploy/kustomization.yaml" || $(MAKE) --no-print-directory undeploy-real
	CLUSTER_DIR="$(REAL_CLUSTER_DIR)" KUBECTL="$(KUBECTL)" hack/demo/demo.sh real olm down
	hack/images/registry.sh start-tls
	$(MAKE) --no-print-directory olm-real-images
	hack/images/local-images.sh gobin $(MCCLIENT_IMG) ./test/real/cmd/mcclient
	hack/olm/scorecard-real.sh images
	hack/olm/scorecard-real.sh config "$(REAL_CLUSTER_DIR)/scorecard/config.yaml"
	NODE=real CLUSTER_DIR="$(REAL_CLUSTER_DIR)" hack/olm/olm-up.sh
	set -a; . "$(REGISTRY_DIR)/images.env"; . "$(REGISTRY_DIR)/mirror.env"; set +a; \
	KUBECONFIG="$(REAL_KUBECONFIG)" KUBECTL="$(KUBECTL)" OPERATOR_SDK="$(OPERATOR_SDK)" \
	BUNDLE_DIR="$(CURDIR)/bundle" SCORECARD_CONFIG="$(REAL_CLUSTER_DIR)/scorecard/config.yaml" \
	BUNDLE_PREVIOUS=$(LOCAL_REGISTRY_TLS)/memcached-operator-bundle:v$(OLM_REAL_PREVIOUS) \
	BUNDLE_HEAD=$(LOCAL_REGISTRY_TLS)/memcached-operator-bundle:v$(VERSION) \
	BUNDLE_PREVIOUS_HTTP=$(LOCAL_REGISTRY)/memcached-operator-bundle:v$(OLM_REAL_PREVIOUS) \
	INDEX_IMAGE=$(LOCAL_REGISTRY_TLS)/local/opm-index:$(OPM_VERSION) INDEX_IMAGE_HTTP=$(LOCAL_REGISTRY)/local/opm-index:$(OPM_VERSION) \
	DECOMPRESSION_IMAGE=$(LOCAL_REGISTRY)/ubi9/ubi:9.8 SSL_CERT_FILE="$(REGISTRY_DIR)/tls/ca-bundle.crt" \
	OPERATOR_IMAGE_PREVIOUS=$$OPERATOR_IMAGE_$(call version-key,$(OLM_REAL_PREVIOUS)) OPERATOR_IMAGE_HEAD=$$OPERATOR_IMAGE_$(call version-key,$(VERSION)) \
	VERSION_PREVIOUS=$(OLM_REAL_PREVIOUS) \
	CATALOG_IMAGE_HEAD=$(OLM_REAL_CATALOG):olm-real CATALOG_IMAGE_PREVIOUS=$(OLM_REAL_CATALOG):olm-real-v$(OLM_REAL_PREVIOUS) \
	CATALOG_IMAGE_POLLED=$(OLM_REAL_CATALOG):olmreal-test \
	OLMREAL_ARTIFACTS="$(REAL_CLUSTER_DIR)/test-olm-real" \
		go test -tags real ./test/olmreal/ -v -count=1 -timeout 30m -run '$(OLMREAL_RUN)'

.PHONY: demo-olm-real
demo-olm-real: kubectl kustomize operator-sdk opm ## The OLM story on the real node, every step timed: run bundle / bundle-upgrade / cleanup, our catalog image, a channel-bump upgrade, scorecard.
	CLUSTER_DIR="$(REAL_CLUSTER_DIR)" KUBECTL="$(KUBECTL)" OPERATOR_SDK="$(OPERATOR_SDK)" MCCLIENT_IMG="$(MCCLIENT_IMG)" hack/demo/demo.sh real olm up

# OLM v1 on the real node (hack/olm/olmv1-up.sh): operator-controller and catalogd at
# OPERATOR_CONTROLLER_VERSION, cert-manager at CERT_MANAGER_VERSION, as pods, from their release
# manifests with local images. test/olmv1real applies config/samples/olmv1 (the YAML docs/olm.md
# shows) and pushes the catalog images of hack/olm/olm-real-images.sh over the tag its ClusterCatalog polls.
OLMV1_ENV = KUBECONFIG="$(REAL_KUBECONFIG)" KUBECTL="$(KUBECTL)" CLUSTER_DIR="$(REAL_CLUSTER_DIR)" \
	OPERATOR_CONTROLLER_VERSION=$(OPERATOR_CONTROLLER_VERSION) CERT_MANAGER_VERSION=$(CERT_MANAGER_VERSION)

.PHONY: olmv1-up
olmv1-up: kubectl kustomize ## Install OLM v1 (operator-controller, catalogd) and cert-manager into the real-node cluster as pods (NODE=real; the node must be up).
	@test "$(NODE)" = real || { echo "olmv1-up: OLM v1 runs on the real node: make olmv1-up NODE=real" >&2; exit 2; }
	$(OLMV1_ENV) hack/olm/olmv1-up.sh

.PHONY: olmv1-down
olmv1-down: kubectl ## Delete every ClusterExtension and ClusterCatalog (NODE=real); PURGE=1 also removes OLM v1 and cert-manager.
	@test "$(NODE)" = real || { echo "olmv1-down: OLM v1 runs on the real node: make olmv1-down NODE=real" >&2; exit 2; }
	$(OLMV1_ENV) hack/olm/olmv1-down.sh $(if $(filter 1,$(PURGE)),--purge)

# OLMV1REAL_RUN: a go test -run pattern for make test-olmv1-real (empty: every test).
OLMV1REAL_RUN ?=

.PHONY: test-olmv1-real
test-olmv1-real: kubectl kustomize opm ## Prove OLM v1 on the real node (test/olmv1real): ClusterCatalog, ClusterExtension install, deprecation, version pin, CRD upgrade safety, the previous release to the head with the preflight at its default, uninstall, SingleNamespace.
	$(MAKE) --no-print-directory cluster-up NODE=real CLUSTER_DIR=$(REAL_CLUSTER_DIR)
	test ! -f "$(REAL_CLUSTER_DIR)/deploy/kustomization.yaml" || $(MAKE) --no-print-directory undeploy-real
	@# What the OLM v0 stories leave (their namespaces, the Memcached CRD OLM v0 installed) would clash with the v1 install.
	CLUSTER_DIR="$(REAL_CLUSTER_DIR)" KUBECTL="$(KUBECTL)" hack/demo/demo.sh real olm down
	$(MAKE) --no-print-directory olm-real-images
	hack/images/local-images.sh gobin $(MCCLIENT_IMG) ./test/real/cmd/mcclient
	$(OLMV1_ENV) hack/olm/olmv1-up.sh
	$(OLMV1_ENV) hack/olm/olmv1-down.sh
	set -a; . "$(REGISTRY_DIR)/images.env"; . "$(REGISTRY_DIR)/mirror.env"; set +a; $(OLMV1_ENV) SAMPLES_DIR="$(CURDIR)/config/samples/olmv1" \
	CATALOG_IMAGE_HEAD=$$OLM_REAL_CATALOG_IMAGE CATALOG_IMAGE_OLDEST=$$OLM_REAL_CATALOG_IMAGE_OLDEST \
	VERSION_HEAD=$(VERSION) VERSION_OLDEST=$(OLM_REAL_OLDEST) VERSION_PREVIOUS=$(OLM_REAL_PREVIOUS) \
	OPERATOR_IMAGE_HEAD=$$OPERATOR_IMAGE_$(call version-key,$(VERSION)) OPERATOR_IMAGE_OLDEST=$$OPERATOR_IMAGE_$(call version-key,$(OLM_REAL_OLDEST)) \
	OPERATOR_IMAGE_PREVIOUS=$$OPERATOR_IMAGE_$(call version-key,$(OLM_REAL_PREVIOUS)) \
		go test -tags real ./test/olmv1real/ -v -count=1 -timeout 20m $(if $(OLMV1REAL_RUN),-run '$(OLMV1REAL_RUN)')

.PHONY: demo-olmv1-real
demo-olmv1-real: kubectl kustomize opm ## The OLM v1 story on the real node, every step timed: OLM v1 and cert-manager as pods, our ClusterCatalog, a ClusterExtension, a Memcached Available (down: make demo-olmv1-real-down).
	$(MAKE) --no-print-directory cluster-up NODE=real CLUSTER_DIR=$(REAL_CLUSTER_DIR)
	$(MAKE) --no-print-directory olm-real-images
	$(OLMV1_ENV) hack/demo/demo.sh real olmv1 up

.PHONY: demo-olmv1-real-down
demo-olmv1-real-down: kubectl ## Remove what demo-olmv1-real created (its namespace, the ClusterExtension, the ClusterCatalog).
	$(OLMV1_ENV) hack/demo/demo.sh real olmv1 down

.PHONY: scorecard-real
scorecard-real: kubectl kustomize operator-sdk ## Run operator-sdk scorecard on bundle/ in the real-node cluster, its tests as pods from local images (config/scorecard-local).
	$(MAKE) --no-print-directory cluster-up NODE=real CLUSTER_DIR=$(REAL_CLUSTER_DIR)
	KUBECONFIG="$(REAL_KUBECONFIG)" hack/olm/scorecard-real.sh run bundle

.PHONY: test-helm-real
test-helm-real: kubectl kustomize helm kubebuilder ## Install the Helm chart of the newest release (OLM_REAL_PREVIOUS, written from its source) on the real node, then upgrade to dist/chart and uninstall (test/helmreal).
	$(MAKE) --no-print-directory cluster-up NODE=real CLUSTER_DIR=$(REAL_CLUSTER_DIR)
	$(MAKE) --no-print-directory real-images
	@# The chart installs the CRD and the operator itself: what deploy-real applied goes first.
	[ ! -f "$(REAL_CLUSTER_DIR)/deploy/kustomization.yaml" ] || $(MAKE) --no-print-directory undeploy-real
	KUBEBUILDER=$(KUBEBUILDER) KUSTOMIZE=$(KUSTOMIZE) hack/helm/previous.sh $(OLM_REAL_PREVIOUS) "$(REAL_CLUSTER_DIR)/helm"
	set -a; . "$(REGISTRY_DIR)/images.env"; . "$(REAL_CLUSTER_DIR)/helm/previous.env"; set +a; \
	KUBECONFIG="$(REAL_KUBECONFIG)" KUBECTL="$(KUBECTL)" HELM="$(HELM)" HELM_CHART="$(CURDIR)/dist/chart" \
	OPERATOR_IMAGE="$(REAL_IMG:%:v$(VERSION)=%)@$$(skopeo inspect --tls-verify=false --format '{{.Digest}}' docker://$(REAL_IMG))" \
		go test -tags real ./test/helmreal/ -v -count=1 -timeout 15m
