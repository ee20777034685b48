//go:build tools

// Package tools records the memcached_exporter command this module builds.
package tools

import _ "github.com/prometheus/memcached_exporter/cmd/memcached_exporter"
