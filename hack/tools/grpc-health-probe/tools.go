//go:build tools

// Package tools records the grpc_health_probe command this module builds.
package tools

import _ "github.com/grpc-ecosystem/grpc-health-probe"
