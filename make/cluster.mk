# make/cluster.mk, included by the Makefile (its header lists every part).
# The local cluster of NODE (kwok, the default, or real), OLM on it and the kwok tier's demos.

# NODE picks the local cluster's tier (hack/cluster/cluster-up.sh): kwok (simulated pods, the scale tier)
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

##@ Local cluster and demo

.PHONY: cluster-up
cluster-up: ## Build (first run) and start the local cluster: NODE=kwok (default, .cluster/kubeconfig) or NODE=real (.cluster-real/kubeconfig).
	CLUSTER_DIR="$(CLUSTER_DIR)" hack/cluster/cluster-up.sh

.PHONY: cluster-down
cluster-down: ## Stop the local cluster of NODE and what runs on it, undoing a real node's host changes (keeps its state; PURGE=1 deletes it).
	CLUSTER_DIR="$(CLUSTER_DIR)" hack/cluster/cluster-down.sh

.PHONY: demo
demo: build kubectl ## Start the local cluster and the operator, create the sample and scale it 3 -> 5.
	CLUSTER_DIR="$(CLUSTER_DIR)" MEMCACHED_IMAGE="$(MEMCACHED_IMAGE)" KUBECTL="$(KUBECTL)" hack/demo/demo.sh kwok up

.PHONY: test-snippets
test-snippets: kubectl ## Apply the snippets marked in README.md and docs/ (hack/demo/snippets.sh) to the kwok cluster: run after make demo (the operator running) and make olm-up (OLM's kinds, for the dry-run blocks).
	KUBECONFIG="$(LOCAL_KUBECONFIG)" KUBECTL="$(KUBECTL)" hack/demo/snippets.sh run

.PHONY: olm-up
olm-up: cluster-up ## Install OLM into the local cluster (CRDs, base objects; olm and catalog operators as local processes).
	CLUSTER_DIR="$(CLUSTER_DIR)" hack/olm/olm-up.sh

.PHONY: olm-down
olm-down: ## Stop the local OLM operators (PURGE=1 also removes OLM's CRDs and namespaces).
	CLUSTER_DIR="$(CLUSTER_DIR)" hack/olm/olm-down.sh $(if $(filter 1,$(PURGE)),--purge)

.PHONY: catalog-serve
catalog-serve: opm catalog-tool ## Serve catalog/ with opm (port 50051) and create the CatalogSource memcached-catalog in olm.
	CLUSTER_DIR="$(CLUSTER_DIR)" hack/olm/catalog-serve.sh start

.PHONY: demo-olm
demo-olm: build kubectl ## The OLM story on the local cluster: install OLM, catalog, subscribe, sample, scale, upgrade 0.1.0 -> VERSION.
	hack/release/build-release.sh 0.1.0
	CLUSTER_DIR="$(CLUSTER_DIR)" CATALOG_HEAD_BUNDLE="$(OLM_HEAD_BUNDLE)" OLM_HEAD_VERSION=$(VERSION) OLM_HEAD_DIGEST=$(IMG_DIGEST) OLM_BINARIES="v0.1.0=$(LOCALBIN)/manager-v0.1.0,v$(VERSION)=$(LOCALBIN)/manager$(if $(IMG_DIGEST),$(comma)$(IMG_DIGEST)=$(LOCALBIN)/manager)" KUBECTL="$(KUBECTL)" hack/demo/demo.sh kwok olm up

.PHONY: demo-down
demo-down: ## Stop the demo operator and the local cluster.
	CLUSTER_DIR="$(CLUSTER_DIR)" KUBECTL="$(KUBECTL)" hack/demo/demo.sh kwok down
