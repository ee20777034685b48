# The custom scorecard test image (`make scorecard-build SCORECARD_IMG=...`): our scorecard tests,
# test/scorecard/cmd/memcached-scorecard-tests, which the bundle's tests/scorecard/config.yaml runs
# as pods (entrypoint `memcached-scorecard-tests <test>`, the bundle at /bundle). The base images are
# build args whose defaults are the public images, as in Dockerfile.
ARG BUILDER_IMAGE=docker.io/library/golang:1.26
ARG BASE_IMAGE=gcr.io/distroless/static:nonroot

FROM ${BUILDER_IMAGE} AS builder
ARG TARGETOS
ARG TARGETARCH
ARG GOPROXY

WORKDIR /workspace
COPY go.mod go.sum ./
RUN go mod download

# The test program needs only test/scorecard (the checks) of this module.
COPY test/scorecard/ test/scorecard/
RUN CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} go build -trimpath -o memcached-scorecard-tests ./test/scorecard/cmd/memcached-scorecard-tests

# distroless static, non-root: the program only reads /bundle. On PATH, since the scorecard
# configuration names it as the entrypoint.
FROM ${BASE_IMAGE}
COPY --from=builder /workspace/memcached-scorecard-tests /usr/local/bin/memcached-scorecard-tests
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/memcached-scorecard-tests"]
