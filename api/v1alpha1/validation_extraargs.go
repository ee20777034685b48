/*
Copyright 2026 The memcached-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package v1alpha1

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// What spec.memcached.extraArgs may carry beyond the CRD's rule on its flags (allowedExtraArg).
// memcached reads its command line in order, a later value of a flag or of an extended option
// (-o name=value) replaces an earlier one, and the extra arguments come after the operator's own
// (controllers/resources' MemcachedArgs: the certificate, key, client CA and ssl_verify_mode of
// spec.tls, the auth file of spec.auth, the listeners). Without these checks an extra argument
// could turn client-certificate verification off (-o ssl_verify_mode=0), trust another CA
// (-o ssl_ca_cert=…), serve another certificate, lower the TLS version, make memcached a proxy or
// keep root's privileges, while the status says all is well. They are the operator's checks, not
// CEL rules: changing the rules of the existing field would make OLM v1 refuse the CRD upgrade
// (see MemcachedSpec); a refused spec turns the instance Degraded/InvalidSpec.

// extraArgTakesValue says, for each flag allowedExtraArg admits, whether it takes a value: the
// flags followed by ':' in memcached's getopt string (memcached.c, main(): "R:" "B:" "f:" "n:"
// "D:" "b:" "o:"; "M" "L" "C" "F" "X" take none). getopt takes the next argument as the value
// whatever it holds, so a value starting with '-' is refused: a reader of the spec would take it
// for a flag.
var extraArgTakesValue = map[string]bool{
	"-M": false, "-L": false, "-C": false, "-F": false, "-X": false,
	"-R": true, "-B": true, "-f": true, "-n": true, "-D": true, "-b": true, "-o": true,
}

// subOptionValue is whether an extended option (-o) takes a value.
type subOptionValue int

const (
	// noValue: a bare name (memcached ignores a value given to it).
	noValue subOptionValue = iota
	// optionalValue: a bare name or name=value.
	optionalValue
	// requiredValue: name=value (memcached refuses to start on a bare name, or crashes on
	// slab_sizes).
	requiredValue
)

// extendedOptions are the extended options (-o, comma-separated) extraArgs may set: those that
// only tune memory, the hash table, the LRU, slabs, connection handling's performance and
// logging. Read from memcached.c (subopts_tokens and their cases in main()) at memcached 1.6.45,
// github.com/memcached/memcached commit 2d51e364799bc9698bd4b11728ea978cea12da6e (Debian sid's
// build of it is what the tests run); 1.6.18 and 1.6.38 have the same names. Refused
// are, besides any name not listed (including ones later versions add):
//   - ssl_*: TLS is spec.tls's, and an extra value would replace the operator's;
//   - proxy_*: the proxy mode turns the server into a router to other servers;
//   - drop_privileges, no_drop_privileges, relaxed_privileges: memcached's own sandbox;
//   - sock_cookie_id: a mark (SO_MARK) on the sockets, which firewalls filter on;
//   - ext_* (extstore, parsed by storage_read_config): files the pod does not have;
//   - resp_obj_mem_limit, inline_ascii_resp, no_inline_ascii_resp: no-ops (deprecated).
var extendedOptions = map[string]subOptionValue{
	// Hash table.
	"hashpower": requiredValue, "no_hashexpand": noValue, "hash_algorithm": requiredValue,
	// Connections.
	"maxconns_fast": noValue, "no_maxconns_fast": noValue, "idle_timeout": requiredValue,
	"read_buf_mem_limit": requiredValue,
	// Slabs.
	"slab_reassign": noValue, "no_slab_reassign": noValue, "slab_automove": optionalValue,
	"no_slab_automove": noValue, "slab_automove_ratio": requiredValue, "slab_automove_window": requiredValue,
	"slab_sizes": requiredValue, "slab_chunk_max": requiredValue, "no_chunked_items": noValue,
	// LRU.
	"tail_repair_time": requiredValue, "lru_crawler": noValue, "no_lru_crawler": noValue,
	"lru_crawler_sleep": requiredValue, "lru_crawler_tocrawl": requiredValue, "lru_maintainer": noValue,
	"no_lru_maintainer": noValue, "hot_lru_pct": requiredValue, "warm_lru_pct": requiredValue,
	"hot_max_factor": requiredValue, "warm_max_factor": requiredValue, "temporary_ttl": requiredValue,
	// Defaults as a set, statistics and logging.
	"modern": noValue, "no_modern": noValue, "track_sizes": noValue,
	"watcher_logbuf_size": requiredValue, "worker_logbuf_size": requiredValue,
}

// subOptionValuePattern is what a value of an extended option may hold: the numbers, ratios and
// hash names the list takes, and slab_sizes' dash-separated sizes.
var subOptionValuePattern = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// extraArgsErrors reads args (spec.memcached.extraArgs, at path p) as memcached's getopt does
// and refuses what could weaken or redirect what the spec asks for, or that memcached would not
// read as written: a value without its flag, a flag without its value, an extended option not in
// extendedOptions, and -B other than ascii with spec.auth (auth). A flag the CRD rule refuses is
// reported by memcachedConfigErrors alone.
func extraArgsErrors(p *field.Path, args []string, auth bool) field.ErrorList {
	if slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "-") && !allowedExtraArg.MatchString(a) }) {
		return nil
	}
	var errs field.ErrorList
	for i := 0; i < len(args); i++ {
		flag := args[i]
		if !strings.HasPrefix(flag, "-") {
			errs = append(errs, field.Invalid(p.Index(i), flag, fmt.Sprintf(
				`spec.memcached.extraArgs: %q is not the value of a flag: each value follows its flag as the next argument (e.g. ["-R", "40"]), and -M, -L, -C, -F and -X take none`, flag)))
			continue
		}
		if !extraArgTakesValue[flag] {
			continue
		}
		if i+1 == len(args) || strings.HasPrefix(args[i+1], "-") {
			errs = append(errs, field.Invalid(p.Index(i), flag, fmt.Sprintf(
				"spec.memcached.extraArgs: %s needs a value as the next argument, and a value may not start with '-' (memcached would take the next argument as the value whatever it is)", flag)))
			i++
			continue
		}
		i++
		switch flag {
		case "-o":
			errs = append(errs, extendedOptionErrors(p.Index(i), args[i])...)
		case "-B":
			errs = append(errs, protocolErrors(p.Index(i), args[i], auth)...)
		}
	}
	return errs
}

// extendedOptionErrors checks the value of one -o (at path p): each comma-separated sub-option
// must be in extendedOptions, with a value exactly when it takes one.
func extendedOptionErrors(p *field.Path, v string) field.ErrorList {
	var errs field.ErrorList
	for _, sub := range strings.Split(v, ",") {
		name, value, hasValue := strings.Cut(sub, "=")
		kind, allowed := extendedOptions[name]
		var why string
		switch {
		case sub == "":
			why = fmt.Sprintf("-o %q has an empty sub-option (sub-options are separated by single commas)", v)
		case !allowed:
			why = fmt.Sprintf("-o %s is not allowed: %s", name, subOptionRefusal(name))
		case kind == noValue && hasValue:
			why = fmt.Sprintf("-o %s takes no value", name)
		case kind == requiredValue && !hasValue:
			why = fmt.Sprintf("-o %s needs a value (%s=<value>)", name, name)
		case hasValue && !subOptionValuePattern.MatchString(value):
			why = fmt.Sprintf("the value of -o %s may hold only letters, digits, '.', '_' and '-'", name)
		default:
			continue
		}
		errs = append(errs, field.Invalid(p, v, "spec.memcached.extraArgs: "+why))
	}
	return errs
}

// subOptionRefusal says why an extended option outside extendedOptions is refused.
func subOptionRefusal(name string) string {
	switch {
	case strings.HasPrefix(name, "ssl_"):
		return "TLS is set by spec.tls, and memcached would let an extra value replace the operator's"
	case strings.HasPrefix(name, "proxy_"):
		return "memcached's proxy mode is not supported"
	case strings.HasPrefix(name, "ext_"):
		return "extstore is not supported (it reads and writes files the pods do not have)"
	case strings.HasSuffix(name, "_privileges"):
		return "memcached's privilege settings are the operator's"
	}
	return "extraArgs may set only the extended options that tune memory, the hash table, the LRU, slabs, connections and logging: " +
		strings.Join(slices.Sorted(maps.Keys(extendedOptions)), ", ")
}

// protocolErrors checks the value of -B (at path p): one of memcached's protocols, and ascii when
// spec.auth is set (auth).
func protocolErrors(p *field.Path, v string, auth bool) field.ErrorList {
	switch {
	case v != "ascii" && v != "binary" && v != "auto":
		return field.ErrorList{field.Invalid(p, v,
			"spec.memcached.extraArgs: -B takes ascii, binary or auto (memcached refuses to start otherwise)")}
	case auth && v != "ascii":
		return field.ErrorList{field.Invalid(p, v, fmt.Sprintf(
			"spec.memcached.extraArgs: -B %s is not allowed with spec.auth: memcached's ASCII authentication works only with the ASCII protocol (memcached refuses to start otherwise); -B ascii is allowed", v))}
	}
	return nil
}
