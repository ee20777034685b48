// Checks of the Grafana dashboards in config/grafana (make test runs `go test ./...` here): every
// PromQL expression parses with Prometheus' own parser and names only series that exist. A module
// of its own because github.com/prometheus/prometheus would raise most of the operator's
// dependencies (OpenTelemetry, gRPC, x/net) for a test. memcached_exporter is pinned to the
// version of the exporter image (hack/tools/memcached-exporter; its go.sum entries were written
// with GONOSUMDB=github.com/prometheus/memcached_exporter, as there).
module github.com/example/memcached-operator/hack/dashboards

go 1.26.7

require (
	github.com/prometheus/client_golang v1.25.0
	github.com/prometheus/memcached_exporter v0.16.0
	github.com/prometheus/prometheus v0.316.0
)

require (
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/dennwc/varint v1.0.0 // indirect
	github.com/grafana/regexp v0.0.0-20250905093917-f7b3be9d1853 // indirect
	github.com/grobie/gomemcache v0.0.0-20230213081705-239240bbc445 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/prometheus/client_model v0.6.3 // indirect
	github.com/prometheus/common v0.72.1 // indirect
	github.com/prometheus/procfs v0.22.0 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
