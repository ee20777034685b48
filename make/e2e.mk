# make/e2e.mk, included by the Makefile (its header lists every part).
# The kwok tier's end-to-end suites (test-e2e, test-olm) and the scale benchmark (bench-scale,
# bench-gate, sample-manager). No section header of its own: `make help` lists these targets at
# the end of Development, as before the split. The real-node suites are in make/real.mk.

# The kwok tier's OLM runs bin/manager (the working tree) for the catalog's VERSION: catalog-serve.sh
# serves that version's bundle rendered from bundle/ (the working tree's CSV and RBAC), not the
# committed release, so the code runs under the permissions it is generated with.
OLM_HEAD_BUNDLE ?= $(CURDIR)/bundle

.PHONY: test-olm
test-olm: cluster-up build ## Prove under real OLM on the kwok cluster: every install mode with OLM's RBAC (metrics auth, namespace deletion) and the channel policy (upgrades and OperatorGroup reuse: test-olm-real).
	CLUSTER_DIR="$(CLUSTER_DIR)" hack/olm/olm-up.sh
	CLUSTER_DIR="$(CLUSTER_DIR)" CATALOG_HEAD_BUNDLE="$(OLM_HEAD_BUNDLE)" hack/olm/catalog-serve.sh start
	KUBECONFIG="$(LOCAL_KUBECONFIG)" CATALOG_HEAD_BUNDLE="$(OLM_HEAD_BUNDLE)" OLM_HEAD_VERSION=$(VERSION) OLM_BINARIES="v$(VERSION)=$(LOCALBIN)/manager$(if $(IMG_DIGEST),$(comma)$(IMG_DIGEST)=$(LOCALBIN)/manager)" \
		go test -tags olm ./test/olm/ -v -count=1 -timeout 30m

.PHONY: test-e2e
# E2E_RUN: a go test -run pattern for make test-e2e (empty: every test).
E2E_RUN ?=
test-e2e: cluster-up build ## Run the end-to-end tests on the local kwok cluster (starts it if needed).
	KUBECONFIG="$(LOCAL_KUBECONFIG)" KUBECTL="$(KUBECTL)" MANAGER_BIN="$(LOCALBIN)/manager" MEMCACHED_IMAGE="$(MEMCACHED_IMAGE)" \
		go test -tags e2e ./test/e2e/ -v -count=1 -timeout 20m $(if $(E2E_RUN),-run '$(E2E_RUN)')

# Scale benchmark (make bench-scale): its own kwok cluster in BENCH_CLUSTER_DIR on ports of its own,
# so it runs beside the kwok and real tiers; fresh at each run, stopped at the end.
BENCH_N ?= 500
BENCH_PHASES ?= floor,converge,steady,latency,restart,secrets,unrelated
BENCH_SUBJECTS ?= operator=bin/manager
# BENCH_SAMPLE=NAME: the operator-sdk Memcached sample runs first, as the subject NAME, with its own
# CRD and ClusterRole. hack/tools/build-sample.sh generates it with the pinned operator-sdk (init, then
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
# -gate, gateViolations), on a short run of plain, Stable, TLS and monitoring instances (BENCH_GATE_MIX),
# each variant gated on its own: writes per instance, events excluded, from owned objects + 1 to owned
# objects + spec.size + 1; one event per instance, give or take one per 50 instances; no conflict, no
# write in the steady state or on a restart; the status following a pod change.
BENCH_GATE_N ?= 50
BENCH_GATE_MIX ?= plain,stable,tls,monitoring
.PHONY: bench-gate
bench-gate: ## Short scale run (BENCH_GATE_N instances of every variant in BENCH_GATE_MIX) that fails when a speed-independent scale property breaks (CI).
	$(MAKE) --no-print-directory bench-scale BENCH_N=$(BENCH_GATE_N) BENCH_PHASES=converge,steady,latency,restart \
		BENCH_ARGS="-gate -mix $(BENCH_GATE_MIX) -steady 20s -timeout 5m"

.PHONY: sample-manager
sample-manager: operator-sdk ## Generate the operator-sdk Memcached sample with operator-sdk (OPERATOR_SDK_VERSION) into SAMPLE_DIR and build its manager into bin/sample-manager (and bin/sample-manager-samedeps, with this project's library versions).
	OPERATOR_SDK="$(OPERATOR_SDK)" SAMPLE_DIR="$(SAMPLE_DIR)" hack/tools/build-sample.sh
