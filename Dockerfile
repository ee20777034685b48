# Build the manager binary (the operator image; `make docker-build IMG=...`).
# The base images are build args whose defaults are the public images; where those cannot be pulled,
# `make docker-build` (buildah) passes the local equivalents of hack/images/local-images.sh.
ARG BUILDER_IMAGE=docker.io/library/golang:1.26
ARG BASE_IMAGE=gcr.io/distroless/static:nonroot

# The builder runs on the build machine's platform and cross-compiles for TARGETOS/TARGETARCH
# (docker buildx --platform linux/amd64,linux/arm64 builds both without emulating Go).
FROM --platform=${BUILDPLATFORM} ${BUILDER_IMAGE} AS builder
ARG TARGETOS
ARG TARGETARCH
# The Go module proxy, when not Go's default (optional).
ARG GOPROXY

WORKDIR /workspace
# Cache dependencies before copying sources.
COPY go.mod go.sum ./
RUN go mod download

# Package main: every Go file at the root (main.go, settings.go, ...).
COPY *.go ./
COPY api/ api/
COPY controllers/ controllers/
COPY internal/ internal/
COPY cmd/ cmd/

# No -a (rebuild every package): this stage has no stale build output to avoid, and -a would defeat
# a Go build cache mounted at /root/.cache/go-build (`make docker-build` with buildah mounts one).
# The manager, and what memcached pods run from this image: the certificate reloader (spec.tls), the
# stats relay (spec.monitoring with spec.auth) and the warm-restart launcher (spec.warmRestart).
RUN CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} go build -o manager . && \
    CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} go build -o cert-reloader ./cmd/cert-reloader && \
    CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} go build -o stats-relay ./cmd/stats-relay && \
    CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} go build -o memcached-launcher ./cmd/memcached-launcher

# distroless static, non-root (uid 65532): the manager and the sidecars need nothing else.
FROM ${BASE_IMAGE}
WORKDIR /
COPY --from=builder /workspace/manager /workspace/cert-reloader /workspace/stats-relay /workspace/memcached-launcher ./
USER 65532:65532

ENTRYPOINT ["/manager"]
