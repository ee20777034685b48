//go:build tools

// Package tools records the commands this module builds: OLM v1's operator-controller and
// catalogd (both mains of the operator-controller module).
package tools

import (
	_ "github.com/operator-framework/operator-controller/cmd/catalogd"
	_ "github.com/operator-framework/operator-controller/cmd/operator-controller"
)
