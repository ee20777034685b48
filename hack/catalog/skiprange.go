package main

import (
	"fmt"
	"strings"

	"github.com/blang/semver/v4"
)

// rangeOperators are the comparison operators blang/semver accepts before a version.
var rangeOperators = []string{">=", "<=", "!=", "==", ">", "<", "=", "!"}

// checkSkipRange returns why s is not a well-formed skipRange, or nil. blang/semver (which OLM
// v0 and v1 both parse skipRanges with) reads some malformed ranges leniently: a dangling or
// stray hyphen (">=0.1.0 <0.2.0 -", "0.1.0 -", "<0.2.0 - 0.3.0") is taken as part of a version
// or dropped, so the range means something other than it says. A well-formed range here is one
// or more alternatives joined by "||", each one or more comparisons separated by spaces, each an
// optional operator (>=, <=, >, <, =, ==, !=, !) immediately followed by a full X.Y.Z[-pre][+build]
// version (no "v" prefix, no wildcard, no hyphen range), and blang/semver must parse it too.
func checkSkipRange(s string) error {
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("empty range")
	}
	for _, alt := range strings.Split(s, "||") {
		fields := strings.Fields(alt)
		if len(fields) == 0 {
			return fmt.Errorf("an empty alternative around \"||\"")
		}
		for _, f := range fields {
			if f == "-" || strings.HasPrefix(f, "-") || strings.HasSuffix(f, "-") {
				return fmt.Errorf("a stray hyphen in %q (hyphen ranges are not supported: write >=A <B)", f)
			}
			v := f
			for _, op := range rangeOperators {
				if strings.HasPrefix(v, op) {
					v = strings.TrimPrefix(v, op)
					break
				}
			}
			if v == "" {
				return fmt.Errorf("operator %q is not followed by a version (write it without a space)", f)
			}
			if _, err := semver.Parse(v); err != nil {
				return fmt.Errorf("%q is not a full X.Y.Z version: %w", v, err)
			}
		}
	}
	if _, err := semver.ParseRange(s); err != nil {
		return fmt.Errorf("failed to parse range: %w", err)
	}
	return nil
}
