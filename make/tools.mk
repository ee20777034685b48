# make/tools.mk, included by the Makefile (its header lists every part).
# The tools built into ./bin at the versions pinned in the Makefile (hack/tools/build-tool.sh, and
# the build-*.sh of hack/cluster and hack/olm that call it, skip a tool already built at its pin).

CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen
KUSTOMIZE ?= $(LOCALBIN)/kustomize
CRD_REF_DOCS ?= $(LOCALBIN)/crd-ref-docs
KUBECTL ?= $(LOCALBIN)/kubectl
OPERATOR_SDK ?= $(LOCALBIN)/operator-sdk
OPM ?= $(LOCALBIN)/opm
CATALOG_TOOL ?= $(LOCALBIN)/catalog-tool
KUBEBUILDER ?= $(LOCALBIN)/kubebuilder
HELM ?= $(LOCALBIN)/helm
KREW ?= $(LOCALBIN)/krew

##@ Tools

.PHONY: controller-gen
controller-gen: ## Build controller-gen into ./bin.
	@hack/tools/build-tool.sh controller-gen $(CONTROLLER_TOOLS_VERSION) -- \
		bash -c 'GOBIN=$$(dirname "$$OUT") go install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_TOOLS_VERSION)'

.PHONY: kustomize
kustomize: ## Build kustomize into ./bin.
	@hack/tools/build-tool.sh kustomize $(KUSTOMIZE_VERSION) -- \
		bash -c 'GOBIN=$$(dirname "$$OUT") go install sigs.k8s.io/kustomize/kustomize/v5@$(KUSTOMIZE_VERSION)'

.PHONY: crd-ref-docs
crd-ref-docs: ## Build crd-ref-docs into ./bin.
	@hack/tools/build-tool.sh crd-ref-docs $(CRD_REF_DOCS_VERSION) -- \
		bash -c 'GOBIN=$$(dirname "$$OUT") go install github.com/elastic/crd-ref-docs@$(CRD_REF_DOCS_VERSION)'

.PHONY: kubebuilder
kubebuilder: ## Build kubebuilder (its helm/v2-alpha plugin writes dist/chart) into ./bin.
	@hack/tools/build-tool.sh kubebuilder $(KUBEBUILDER_VERSION) -- \
		bash -c 'GOBIN=$$(dirname "$$OUT") go install sigs.k8s.io/kubebuilder/v4@$(KUBEBUILDER_VERSION)'

.PHONY: helm
helm: ## Build helm into ./bin.
	@hack/tools/build-tool.sh helm $(HELM_VERSION) -- \
		bash -c 'GOBIN=$$(dirname "$$OUT") go install helm.sh/helm/v4/cmd/helm@$(HELM_VERSION)'

.PHONY: actionlint
actionlint: ## Build actionlint (lints .github/workflows) into ./bin.
	@hack/tools/build-tool.sh actionlint $(ACTIONLINT_VERSION) -- \
		bash -c 'GOBIN=$$(dirname "$$OUT") go install github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION)'

.PHONY: krew
krew: ## Build krew and validate-krew-manifest into ./bin.
	@hack/tools/build-tool.sh krew $(KREW_VERSION) -- \
		bash -c 'GOBIN=$$(dirname "$$OUT") go install sigs.k8s.io/krew/cmd/krew@$(KREW_VERSION)'
	@hack/tools/build-tool.sh validate-krew-manifest $(KREW_VERSION) -- \
		bash -c 'GOBIN=$$(dirname "$$OUT") go install sigs.k8s.io/krew/cmd/validate-krew-manifest@$(KREW_VERSION)'

.PHONY: kubectl
kubectl: ## Build kubectl into ./bin.
	@hack/cluster/build-kube.sh kubectl

.PHONY: envtest-assets
envtest-assets: ## Build kube-apiserver, etcd and kubectl into ./bin for envtest (KUBEBUILDER_ASSETS).
	@hack/cluster/build-kube.sh etcd kube-apiserver kubectl

.PHONY: operator-sdk
operator-sdk: ## Build operator-sdk into ./bin.
	@hack/olm/build-olm-tools.sh operator-sdk

.PHONY: opm
opm: ## Build opm into ./bin (statically linked).
	@hack/olm/build-olm-tools.sh opm

.PHONY: olmv1-tools
olmv1-tools: ## Build OLM v1 (operator-controller, catalogd) and cert-manager (controller, cainjector, webhook) into ./bin at their pinned versions.
	@hack/olm/build-olmv1-tools.sh operator-controller catalogd cert-manager-controller cert-manager-cainjector cert-manager-webhook

.PHONY: memcached-debian
memcached-debian: ## Assemble Debian's memcached MEMCACHED_DEBIAN_VERSION (suite MEMCACHED_DEBIAN_SUITE) with its libraries and loader into MEMCACHED_DEBIAN_DIR, and the previous one (MEMCACHED_PREVIOUS_DEBIAN_*), once (make test runs it; so do the memcached images).
	@hack/images/debian-memcached.sh >/dev/null
	@MEMCACHED_DEBIAN_SUITE=$(MEMCACHED_PREVIOUS_DEBIAN_SUITE) MEMCACHED_DEBIAN_VERSION=$(MEMCACHED_PREVIOUS_DEBIAN_VERSION) \
		MEMCACHED_DEBIAN_DIR=$(MEMCACHED_PREVIOUS_DEBIAN_DIR) hack/images/debian-memcached.sh >/dev/null

.PHONY: grpc-health-probe
grpc-health-probe: ## Build grpc_health_probe into ./bin (for the local opm image).
	@hack/olm/build-olm-tools.sh grpc-health-probe

.PHONY: catalog-tool
catalog-tool: ## Build the project's catalog tool (hack/catalog) into ./bin.
	cd hack/catalog && go build -o $(CATALOG_TOOL) .

.PHONY: cluster-tools
cluster-tools: ## Build every binary of the local cluster into ./bin.
	@hack/cluster/build-kube.sh etcd kube-apiserver kubectl kube-controller-manager kube-scheduler
	@hack/cluster/build-kwok.sh
	@$(if $(filter real,$(NODE)),hack/cluster/build-kube.sh kubelet kube-proxy coredns crictl)
