// Tools module that builds grpc_health_probe, which OLM's catalog pods exec as their probe, for the
// local opm base image (hack/images/local-images.sh opm). Pinned to the version operator-registry v1.74.0
// requires (the version its release image ships).
module github.com/example/memcached-operator/hack/tools/grpc-health-probe

go 1.26.3

require github.com/grpc-ecosystem/grpc-health-probe v0.4.53

require (
	github.com/Microsoft/go-winio v0.6.2 // indirect
	github.com/go-jose/go-jose/v4 v4.1.4 // indirect
	github.com/spiffe/go-spiffe/v2 v2.8.1 // indirect
	golang.org/x/net v0.55.0 // indirect
	golang.org/x/sync v0.20.0 // indirect
	golang.org/x/sys v0.45.0 // indirect
	golang.org/x/text v0.37.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260226221140-a57be14db171 // indirect
	google.golang.org/grpc v1.81.1 // indirect
	google.golang.org/protobuf v1.36.11 // indirect
)
