//go:build tools

// Package tools records the Prometheus server command this module builds.
package tools

import _ "github.com/prometheus/prometheus/cmd/prometheus"
