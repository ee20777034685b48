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

package controllers

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// ruleCase is one input for TestGoValidationMatchesAdmission.
type ruleCase struct {
	// rule is the CRD rule the input breaks ("<JSON path> <keyword>", as crdRules names it), or
	// "" for an input both sides accept.
	rule string
	// name is metadata.name; empty means "rules".
	name string
	// spec is merged over defaultedSpec.
	spec map[string]any
	// field is the path both errors must name.
	field string
	// unseen says why the typed spec cannot tell this refused input from a valid one.
	unseen string
	// operatorOnly marks an input only the operator refuses (rule is then ""): admission accepts
	// it by design, the Go check refuses it naming field.
	operatorOnly bool
}

// defaultedSpec is a spec with every CRD default written out, so the object admission validates
// and the object Go validates are the same: the API server defaults before it validates, while
// json.Unmarshal into the typed spec does not.
func defaultedSpec() map[string]any {
	return map[string]any{
		"size": 1, "minReadySeconds": 0, "antiAffinityPreset": "Soft",
		"memcached":           map[string]any{"maxMemoryMB": 64, "maxConnections": 1024, "threads": 4, "verbosity": 0},
		"podDisruptionBudget": map[string]any{"enabled": true},
		"service":             map[string]any{"enabled": true},
		"gracefulShutdown":    map[string]any{"preStopDelaySeconds": 0, "terminationGracePeriodSeconds": 30},
		"networkPolicy":       map[string]any{"enabled": false},
	}
}

// merge writes src over dst, recursing into maps.
func merge(dst, src map[string]any) map[string]any {
	for k, v := range src {
		if sub, ok := v.(map[string]any); ok {
			if d, ok := dst[k].(map[string]any); ok {
				dst[k] = merge(d, sub)
				continue
			}
		}
		dst[k] = v
	}
	return dst
}

// memcachedCfg is a spec with only spec.memcached fields set.
func memcachedCfg(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return map[string]any{"memcached": m}
}

// ruleCases are the inputs: for every rule at least one it refuses, and the edges it accepts.
var ruleCases = map[string]ruleCase{
	"name starts with a digit":   {rule: ". rule#0", name: "1cache", field: "metadata.name"},
	"name of 64 characters":      {rule: ". rule#0", name: strings.Repeat("a", 64), field: "metadata.name"},
	"name of 63 characters":      {name: strings.Repeat("a", 63)},
	"size 0":                     {rule: ".spec.size minimum", spec: map[string]any{"size": 0}, field: "spec.size"},
	"size -1":                    {rule: ".spec.size minimum", spec: map[string]any{"size": -1}, field: "spec.size"},
	"size 64":                    {spec: map[string]any{"size": 64}},
	"size 65":                    {rule: ".spec.size maximum", spec: map[string]any{"size": 65}, field: "spec.size"},
	"minReadySeconds -1":         {rule: ".spec.minReadySeconds minimum", spec: map[string]any{"minReadySeconds": -1}, field: "spec.minReadySeconds"},
	"minReadySeconds 3600":       {spec: map[string]any{"minReadySeconds": 3600}},
	"minReadySeconds 3601":       {rule: ".spec.minReadySeconds maximum", spec: map[string]any{"minReadySeconds": 3601}, field: "spec.minReadySeconds"},
	"image empty":                {rule: ".spec.image minLength", spec: map[string]any{"image": ""}, field: "spec.image", unseen: "an empty spec.image reads as unset: the default image is used"},
	"image of 512 characters":    {spec: map[string]any{"image": strings.Repeat("i", 512)}},
	"image of 513 characters":    {rule: ".spec.image maxLength", spec: map[string]any{"image": strings.Repeat("i", 513)}, field: "spec.image"},
	"image not a ref::":          {rule: ".spec.image pattern", spec: map[string]any{"image": "not a ref::"}, field: "spec.image"},
	"image with upper-case path": {rule: ".spec.image pattern", spec: map[string]any{"image": "registry.example.com/Memcached:1"}, field: "spec.image"},
	"image with two tags":        {rule: ".spec.image pattern", spec: map[string]any{"image": "memcached:1:2"}, field: "spec.image"},
	"image with a short digest":  {rule: ".spec.image pattern", spec: map[string]any{"image": "memcached@sha256:abc"}, field: "spec.image"},
	"image with non-ASCII":       {rule: ".spec.image pattern", spec: map[string]any{"image": "mémcached"}, field: "spec.image"},
	"image digest-pinned":        {spec: map[string]any{"image": "registry.example.com:5000/cache/memcached:1.6@sha256:" + strings.Repeat("0", 64)}},
	"image name only":            {spec: map[string]any{"image": "memcached"}},
	"image with a space":         {rule: ".spec.image pattern", spec: map[string]any{"image": "a b"}, field: "spec.image"},
	"image with a tab":           {rule: ".spec.image pattern", spec: map[string]any{"image": "a\tb"}, field: "spec.image"},
	"maxMemoryMB 7":              {rule: ".spec.memcached.maxMemoryMB minimum", spec: memcachedCfg("maxMemoryMB", 7), field: "spec.memcached.maxMemoryMB"},
	"maxMemoryMB 8":              {spec: memcachedCfg("maxMemoryMB", 8)},
	"maxMemoryMB 1048577":        {rule: ".spec.memcached.maxMemoryMB maximum", spec: memcachedCfg("maxMemoryMB", 1048577), field: "spec.memcached.maxMemoryMB"},
	"maxConnections 9":           {rule: ".spec.memcached.maxConnections minimum", spec: memcachedCfg("maxConnections", 9), field: "spec.memcached.maxConnections"},
	"maxConnections 1048577":     {rule: ".spec.memcached.maxConnections maximum", spec: memcachedCfg("maxConnections", 1048577), field: "spec.memcached.maxConnections"},
	"threads 0":                  {rule: ".spec.memcached.threads minimum", spec: memcachedCfg("threads", 0), field: "spec.memcached.threads"},
	"threads 256":                {spec: memcachedCfg("threads", 256)},
	"threads 257":                {rule: ".spec.memcached.threads maximum", spec: memcachedCfg("threads", 257), field: "spec.memcached.threads"},
	"verbosity -1":               {rule: ".spec.memcached.verbosity minimum", spec: memcachedCfg("verbosity", -1), field: "spec.memcached.verbosity"},
	"verbosity 2":                {spec: memcachedCfg("verbosity", 2)},
	"verbosity 3":                {rule: ".spec.memcached.verbosity maximum", spec: memcachedCfg("verbosity", 3), field: "spec.memcached.verbosity"},
	"item size 600Ki":            {rule: ".spec.memcached.maxItemSize rule#0", spec: memcachedCfg("maxItemSize", "600Ki"), field: "spec.memcached.maxItemSize"},
	"item size 1Ki":              {rule: ".spec.memcached.maxItemSize rule#0", spec: memcachedCfg("maxItemSize", "1Ki"), field: "spec.memcached.maxItemSize"},
	"item size 1M":               {rule: ".spec.memcached.maxItemSize rule#0", spec: memcachedCfg("maxItemSize", "1M"), field: "spec.memcached.maxItemSize"},
	"item size 1e6":              {rule: ".spec.memcached.maxItemSize rule#0", spec: memcachedCfg("maxItemSize", "1e6"), field: "spec.memcached.maxItemSize"},
	"item size 2Gi":              {rule: ".spec.memcached.maxItemSize rule#0", spec: memcachedCfg("maxMemoryMB", 8192, "maxItemSize", "2Gi"), field: "spec.memcached.maxItemSize"},
	"item size 1Gi":              {spec: memcachedCfg("maxMemoryMB", 2048, "maxItemSize", "1Gi")},
	"item size 512Ki":            {spec: memcachedCfg("maxItemSize", "512Ki")},
	"item size 1.5Mi":            {spec: memcachedCfg("maxItemSize", "1.5Mi")},
	"item size 524288":           {spec: memcachedCfg("maxItemSize", "524288")},
	"item size not a quantity":   {rule: ".spec.memcached.maxItemSize pattern", spec: memcachedCfg("maxItemSize", "big"), field: "maxItemSize"},
	"item size 32Mi of 64":       {spec: memcachedCfg("maxMemoryMB", 64, "maxItemSize", "32Mi")},
	"item size 32.5Mi of 64":     {rule: ".spec.memcached rule#0", spec: memcachedCfg("maxMemoryMB", 64, "maxItemSize", "32.5Mi"), field: "spec.memcached.maxItemSize"},
	"33 extra args":              {rule: ".spec.memcached.extraArgs maxItems", spec: memcachedCfg("extraArgs", slices.Repeat([]any{"-M"}, 33)), field: "spec.memcached.extraArgs"},
	"32 extra args":              {spec: memcachedCfg("extraArgs", slices.Repeat([]any{"-M"}, 32))},
	"extra arg of 257":           {rule: ".spec.memcached.extraArgs.items maxLength", spec: memcachedCfg("extraArgs", []any{"-D", strings.Repeat("x", 257)}), field: "spec.memcached.extraArgs[1]"},
	"extra arg of 256":           {spec: memcachedCfg("extraArgs", []any{"-D", strings.Repeat("x", 256)})},
	"extra arg -m":               {rule: ".spec.memcached.extraArgs rule#0", spec: memcachedCfg("extraArgs", []any{"-m", "100"}), field: "spec.memcached.extraArgs"},
	"extra arg --port=1":         {rule: ".spec.memcached.extraArgs rule#0", spec: memcachedCfg("extraArgs", []any{"--port=1"}), field: "spec.memcached.extraArgs"},
	"extra arg -R40":             {rule: ".spec.memcached.extraArgs rule#0", spec: memcachedCfg("extraArgs", []any{"-R40"}), field: "spec.memcached.extraArgs"},
	"extra arg -":                {rule: ".spec.memcached.extraArgs rule#0", spec: memcachedCfg("extraArgs", []any{"-"}), field: "spec.memcached.extraArgs"},
	"extra args allowed":         {spec: memcachedCfg("extraArgs", []any{"-o", "modern", "-M", "-R", "40", "-D", "x-y"})},
	"extra arg without its flag": {operatorOnly: true, spec: memcachedCfg("extraArgs", []any{"-M", "40"}), field: "spec.memcached.extraArgs[1]"},
	"extra flag without a value": {operatorOnly: true, spec: memcachedCfg("extraArgs", []any{"-R"}), field: "spec.memcached.extraArgs[0]"},
	"extra -o turning TLS off":   {operatorOnly: true, spec: merge(tlsSpec(map[string]any{"secretName": "cert", "clientCA": map[string]any{"verification": "Require"}}), memcachedCfg("extraArgs", []any{"-o", "ssl_verify_mode=0"})), field: "spec.memcached.extraArgs[1]"},
	"extra -o not on the list":   {operatorOnly: true, spec: memcachedCfg("extraArgs", []any{"-o", "modern,no_drop_privileges"}), field: "spec.memcached.extraArgs[1]"},
	"preset Always":              {rule: ".spec.antiAffinityPreset enum", spec: map[string]any{"antiAffinityPreset": "Always"}, field: "spec.antiAffinityPreset"},
	"preset empty":               {rule: ".spec.antiAffinityPreset enum", spec: map[string]any{"antiAffinityPreset": ""}, field: "spec.antiAffinityPreset", unseen: "an empty spec.antiAffinityPreset reads as unset: the default applies"},
	"preset Hard":                {spec: map[string]any{"antiAffinityPreset": "Hard"}},
	"identity Sticky":            {rule: ".spec.serverIdentity enum", spec: map[string]any{"serverIdentity": "Sticky"}, field: "spec.serverIdentity"},
	"identity Stable":            {spec: map[string]any{"serverIdentity": "Stable"}},
	"identity Ephemeral":         {spec: map[string]any{"serverIdentity": "Ephemeral"}},
	"priority class of 254":      {rule: ".spec.priorityClassName maxLength", spec: map[string]any{"priorityClassName": strings.Repeat("p", 254)}, field: "spec.priorityClassName"},
	"priority class of 253":      {spec: map[string]any{"priorityClassName": strings.Repeat("p", 253)}},
	"pdb min and max":            {rule: ".spec.podDisruptionBudget rule#0", spec: map[string]any{"podDisruptionBudget": map[string]any{"minAvailable": 1, "maxUnavailable": "50%"}}, field: "spec.podDisruptionBudget"},
	"pdb min only":               {spec: map[string]any{"podDisruptionBudget": map[string]any{"minAvailable": "50%"}}},
	// spec.tls and spec.auth.
	"tls without secretName":        {rule: ".spec.tls required", spec: tlsSpec(map[string]any{}), field: "spec.tls.secretName"},
	"tls secretName empty":          {rule: ".spec.tls.secretName pattern", spec: tlsSpec(map[string]any{"secretName": ""}), field: "spec.tls.secretName"},
	"tls secretName upper-case":     {rule: ".spec.tls.secretName pattern", spec: tlsSpec(map[string]any{"secretName": "Cert"}), field: "spec.tls.secretName"},
	"tls secretName of 254":         {rule: ".spec.tls.secretName maxLength", spec: tlsSpec(map[string]any{"secretName": strings.Repeat("a", 254)}), field: "spec.tls.secretName"},
	"tls secretName of 253":         {spec: tlsSpec(map[string]any{"secretName": strings.Repeat("a", 253)})},
	"tls secretName dotted":         {spec: tlsSpec(map[string]any{"secretName": "cache.example-tls"})},
	"tls with a client CA":          {spec: tlsSpec(map[string]any{"secretName": "cert", "clientCA": map[string]any{"secretName": "ca", "key": "bundle.pem", "verification": "Request"}})},
	"tls client CA defaults":        {spec: tlsSpec(map[string]any{"secretName": "cert", "clientCA": map[string]any{}})},
	"client CA secretName with _":   {rule: ".spec.tls.clientCA.secretName pattern", spec: tlsSpec(map[string]any{"secretName": "cert", "clientCA": map[string]any{"secretName": "my_ca"}}), field: "spec.tls.clientCA.secretName"},
	"client CA secretName empty":    {rule: ".spec.tls.clientCA.secretName pattern", spec: tlsSpec(map[string]any{"secretName": "cert", "clientCA": map[string]any{"secretName": ""}}), field: "spec.tls.clientCA.secretName", unseen: "an empty clientCA.secretName reads as unset: tls.secretName is used"},
	"client CA secretName of 254":   {rule: ".spec.tls.clientCA.secretName maxLength", spec: tlsSpec(map[string]any{"secretName": "cert", "clientCA": map[string]any{"secretName": strings.Repeat("a", 254)}}), field: "spec.tls.clientCA.secretName"},
	"client CA key with a slash":    {rule: ".spec.tls.clientCA.key pattern", spec: tlsSpec(map[string]any{"secretName": "cert", "clientCA": map[string]any{"key": "a/b"}}), field: "spec.tls.clientCA.key"},
	"client CA key empty":           {rule: ".spec.tls.clientCA.key pattern", spec: tlsSpec(map[string]any{"secretName": "cert", "clientCA": map[string]any{"key": ""}}), field: "spec.tls.clientCA.key", unseen: "an empty clientCA.key reads as unset: ca.crt is used"},
	"client CA key of 254":          {rule: ".spec.tls.clientCA.key maxLength", spec: tlsSpec(map[string]any{"secretName": "cert", "clientCA": map[string]any{"key": strings.Repeat("k", 254)}}), field: "spec.tls.clientCA.key"},
	"client CA verification Always": {rule: ".spec.tls.clientCA.verification enum", spec: tlsSpec(map[string]any{"secretName": "cert", "clientCA": map[string]any{"verification": "Always"}}), field: "spec.tls.clientCA.verification"},
	"auth without secretName":       {rule: ".spec.auth required", spec: map[string]any{"auth": map[string]any{"key": "users"}}, field: "spec.auth.secretName"},
	"auth secretName with a space":  {rule: ".spec.auth.secretName pattern", spec: map[string]any{"auth": map[string]any{"secretName": "a b"}}, field: "spec.auth.secretName"},
	"auth secretName of 254":        {rule: ".spec.auth.secretName maxLength", spec: map[string]any{"auth": map[string]any{"secretName": strings.Repeat("a", 254)}}, field: "spec.auth.secretName"},
	"auth key with a colon":         {rule: ".spec.auth.key pattern", spec: map[string]any{"auth": map[string]any{"secretName": "users", "key": "a:b"}}, field: "spec.auth.key"},
	"auth key of 254":               {rule: ".spec.auth.key maxLength", spec: map[string]any{"auth": map[string]any{"secretName": "users", "key": strings.Repeat("k", 254)}}, field: "spec.auth.key"},
	"auth key of 253":               {spec: map[string]any{"auth": map[string]any{"secretName": "users", "key": strings.Repeat("k", 253)}}},
	"auth with -B binary":           {operatorOnly: true, spec: merge(map[string]any{"auth": map[string]any{"secretName": "users"}}, memcachedCfg("extraArgs", []any{"-B", "binary"})), field: "spec.memcached.extraArgs"},
	"auth with -B ascii":            {spec: merge(map[string]any{"auth": map[string]any{"secretName": "users"}}, memcachedCfg("extraArgs", []any{"-B", "ascii"}))},
	"-B binary without auth":        {spec: memcachedCfg("extraArgs", []any{"-B", "binary"})},
	"auth with other extra args":    {spec: merge(map[string]any{"auth": map[string]any{"secretName": "users"}}, memcachedCfg("extraArgs", []any{"-o", "modern"}))},
	"tls and auth":                  {spec: merge(tlsSpec(map[string]any{"secretName": "cert"}), map[string]any{"auth": map[string]any{"secretName": "cert", "key": "users"}})},

	// spec.monitoring (issue 11).
	"monitoring without service":     {operatorOnly: true, spec: map[string]any{"monitoring": map[string]any{"enabled": true}, "service": map[string]any{"enabled": false}}, field: "spec.monitoring.enabled"},
	"monitoring with service":        {spec: map[string]any{"monitoring": map[string]any{"enabled": true}}},
	"monitoring with auth":           {spec: map[string]any{"monitoring": map[string]any{"enabled": true}, "auth": map[string]any{"secretName": "users"}}},
	"monitoring off with auth":       {spec: map[string]any{"monitoring": map[string]any{"enabled": false}, "auth": map[string]any{"secretName": "users"}}},
	"monitoring with tls":            {spec: merge(tlsSpec(map[string]any{"secretName": "cert", "clientCA": map[string]any{"secretName": "ca"}}), map[string]any{"monitoring": map[string]any{"enabled": true}})},
	"monitoring off, service off":    {spec: map[string]any{"monitoring": map[string]any{"enabled": false}, "service": map[string]any{"enabled": false}}},
	"exporter image empty":           {rule: ".spec.monitoring.image minLength", spec: map[string]any{"monitoring": map[string]any{"image": ""}}, field: "spec.monitoring.image", unseen: "an empty spec.monitoring.image reads as unset: the default exporter image is used"},
	"exporter image of 513":          {rule: ".spec.monitoring.image maxLength", spec: map[string]any{"monitoring": map[string]any{"image": strings.Repeat("i", 513)}}, field: "spec.monitoring.image"},
	"exporter image of 512":          {spec: map[string]any{"monitoring": map[string]any{"image": strings.Repeat("i", 512)}}},
	"exporter image not a reference": {rule: ".spec.monitoring.image pattern", spec: map[string]any{"monitoring": map[string]any{"image": "Quay.io/x y"}}, field: "spec.monitoring.image"},
	"exporter image digest-pinned":   {spec: map[string]any{"monitoring": map[string]any{"enabled": true, "image": "127.0.0.1:5000/memcached-exporter@sha256:" + strings.Repeat("0", 64)}}},

	// What the spec adds to the objects the operator builds.
	"17 image pull secrets":          {rule: ".spec.imagePullSecrets maxItems", spec: map[string]any{"imagePullSecrets": pullSecrets(17)}, field: "spec.imagePullSecrets"},
	"16 image pull secrets":          {spec: map[string]any{"imagePullSecrets": pullSecrets(16)}},
	"image pull secret without name": {rule: ".spec.imagePullSecrets rule#0", spec: map[string]any{"imagePullSecrets": []any{map[string]any{"name": "a"}, map[string]any{}}}, field: "spec.imagePullSecrets"},
	"65 pod labels":                  {rule: ".spec.podMetadata.labels maxProperties", spec: map[string]any{"podMetadata": map[string]any{"labels": keys("team", 65)}}, field: "spec.podMetadata.labels"},
	"64 pod labels":                  {spec: map[string]any{"podMetadata": map[string]any{"labels": keys("team", 64)}}},
	"pod label instance":             {rule: ".spec.podMetadata.labels rule#0", spec: map[string]any{"podMetadata": map[string]any{"labels": map[string]any{"app.kubernetes.io/instance": "x"}}}, field: "spec.podMetadata.labels"},
	"pod label version":              {spec: map[string]any{"podMetadata": map[string]any{"labels": map[string]any{"app.kubernetes.io/version": "1.6"}}}},
	"65 pod annotations":             {rule: ".spec.podMetadata.annotations maxProperties", spec: map[string]any{"podMetadata": map[string]any{"annotations": keys("a", 65)}}, field: "spec.podMetadata.annotations"},
	"pod annotation secret-hash":     {rule: ".spec.podMetadata.annotations rule#0", spec: map[string]any{"podMetadata": map[string]any{"annotations": map[string]any{"cache.example.com/secret-hash": "x"}}}, field: "spec.podMetadata.annotations"},
	"pod annotation of a mesh":       {spec: map[string]any{"podMetadata": map[string]any{"annotations": map[string]any{"sidecar.istio.io/inject": "true"}}}},
	"65 service annotations":         {rule: ".spec.service.annotations maxProperties", spec: map[string]any{"service": map[string]any{"annotations": keys("a", 65)}}, field: "spec.service.annotations"},
	"service annotation reserved":    {rule: ".spec.service.annotations rule#0", spec: map[string]any{"service": map[string]any{"annotations": map[string]any{"cache.example.com/added-metadata": "{}"}}}, field: "spec.service.annotations"},
	"service annotation":             {spec: map[string]any{"service": map[string]any{"annotations": map[string]any{"external-dns.alpha.kubernetes.io/hostname": "cache.example.com"}}}},
	"interval 30s":                   {spec: map[string]any{"monitoring": map[string]any{"interval": "30s"}}},
	"interval 1m30s":                 {spec: map[string]any{"monitoring": map[string]any{"interval": "1m30s"}}},
	"interval 30 seconds":            {rule: ".spec.monitoring.interval pattern", spec: map[string]any{"monitoring": map[string]any{"interval": "30 seconds"}}, field: "spec.monitoring.interval"},
	"interval of 33":                 {rule: ".spec.monitoring.interval maxLength", spec: map[string]any{"monitoring": map[string]any{"interval": strings.Repeat("1", 32) + "s"}}, field: "spec.monitoring.interval"},
	"65 monitoring labels":           {rule: ".spec.monitoring.labels maxProperties", spec: map[string]any{"monitoring": map[string]any{"labels": keys("r", 65)}}, field: "spec.monitoring.labels"},
	"monitoring label managed-by":    {rule: ".spec.monitoring.labels rule#0", spec: map[string]any{"monitoring": map[string]any{"labels": map[string]any{"app.kubernetes.io/managed-by": "helm"}}}, field: "spec.monitoring.labels"},
	"monitoring label release":       {spec: map[string]any{"monitoring": map[string]any{"labels": map[string]any{"release": "kube-prometheus-stack"}}}},
	"runbook base https":             {spec: map[string]any{"monitoring": map[string]any{"runbookBaseURL": "https://wiki.example.com/runbooks/memcached"}}},
	"runbook base relative":          {rule: ".spec.monitoring.runbookBaseURL rule#0", spec: map[string]any{"monitoring": map[string]any{"runbookBaseURL": "/runbooks"}}, field: "spec.monitoring.runbookBaseURL"},
	"runbook base ftp":               {rule: ".spec.monitoring.runbookBaseURL rule#0", spec: map[string]any{"monitoring": map[string]any{"runbookBaseURL": "ftp://example.com/runbooks"}}, field: "spec.monitoring.runbookBaseURL"},
	"runbook base with a fragment":   {rule: ".spec.monitoring.runbookBaseURL rule#0", spec: map[string]any{"monitoring": map[string]any{"runbookBaseURL": "https://example.com/runbooks#top"}}, field: "spec.monitoring.runbookBaseURL"},
	"runbook base of 513":            {rule: ".spec.monitoring.runbookBaseURL maxLength", spec: map[string]any{"monitoring": map[string]any{"runbookBaseURL": "https://example.com/" + strings.Repeat("r", 493)}}, field: "spec.monitoring.runbookBaseURL"},
	"pod label not a label":          {operatorOnly: true, spec: map[string]any{"podMetadata": map[string]any{"labels": map[string]any{"team": "a b"}}}, field: "spec.podMetadata.labels"},
	"pod annotation not a key":       {operatorOnly: true, spec: map[string]any{"podMetadata": map[string]any{"annotations": map[string]any{"a b": "x"}}}, field: "spec.podMetadata.annotations"},
	"service annotation not a key":   {operatorOnly: true, spec: map[string]any{"service": map[string]any{"annotations": map[string]any{"-bad": "x"}}}, field: "spec.service.annotations"},
	"monitoring label of 64":         {operatorOnly: true, spec: map[string]any{"monitoring": map[string]any{"labels": map[string]any{"release": strings.Repeat("r", 64)}}}, field: "spec.monitoring.labels"},
}

// pullSecrets is n imagePullSecrets entries.
func pullSecrets(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = map[string]any{"name": fmt.Sprintf("pull-%d", i)}
	}
	return out
}

// keys is a map of n entries prefix-<i>: "v".
func keys(prefix string, n int) map[string]any {
	out := make(map[string]any, n)
	for i := range n {
		out[fmt.Sprintf("%s-%d", prefix, i)] = "v"
	}
	return out
}

// tlsSpec is a spec with only spec.tls set.
func tlsSpec(tls map[string]any) map[string]any { return map[string]any{"tls": tls} }

// coreSubtrees hold the schemas of embedded core types (resources, tolerations, affinity,
// topology spread), which the API server enforces again when it validates the Deployment; they and
// status (written only by the operator) are the parts of the CRD validateSpec does not repeat.
var coreSubtrees = []string{".spec.resources", ".spec.tolerations", ".spec.affinity", ".spec.topologySpreadConstraints", ".spec.monitoring.resources"}

// The CRD's pattern for spec.image is the reference grammar the operator checks, so spec.image and
// RELATED_IMAGE_MEMCACHED follow one rule.
func TestCRDImagePatternIsTheReferenceGrammar(t *testing.T) {
	image := loadCRD(t).Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["image"]
	if image.Pattern != cachev1alpha1.ImageReferencePattern {
		t.Fatalf("spec.image pattern in the CRD\n%s\ndiffers from v1alpha1.ImageReferencePattern\n%s", image.Pattern, cachev1alpha1.ImageReferencePattern)
	}
}

// loadCRD reads the generated Memcached CRD.
func loadCRD(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "config", "crd", "bases", "cache.example.com_memcacheds.yaml"))
	if err != nil {
		t.Fatalf("read CRD: %v", err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(raw, crd); err != nil {
		t.Fatalf("parse CRD: %v", err)
	}
	return crd
}

// crdRules lists every rule of the generated CRD outside coreSubtrees and status, as
// "<JSON path> <keyword>" (CEL rules as "rule#<index>").
func crdRules(t *testing.T) []string {
	t.Helper()
	crd := loadCRD(t)
	var rules []string
	var walk func(path string, s apiextensionsv1.JSONSchemaProps)
	walk = func(path string, s apiextensionsv1.JSONSchemaProps) {
		if slices.ContainsFunc(coreSubtrees, func(c string) bool { return path == c || strings.HasPrefix(path, c+".") }) {
			return
		}
		{
			add := func(kw string, set bool) {
				if set {
					rules = append(rules, path+" "+kw)
				}
			}
			add("minimum", s.Minimum != nil)
			add("maximum", s.Maximum != nil)
			add("minLength", s.MinLength != nil)
			add("maxLength", s.MaxLength != nil)
			add("pattern", s.Pattern != "")
			add("enum", len(s.Enum) > 0)
			add("minItems", s.MinItems != nil)
			add("maxItems", s.MaxItems != nil)
			add("maxProperties", s.MaxProperties != nil)
			add("required", len(s.Required) > 0)
			for i := range s.XValidations {
				rules = append(rules, fmt.Sprintf("%s rule#%d", path, i))
			}
		}
		for name, p := range s.Properties {
			if path == "." && name == "status" {
				continue
			}
			walk(strings.TrimSuffix(path, ".")+"."+name, p)
		}
		if s.Items != nil && s.Items.Schema != nil {
			walk(path+".items", *s.Items.Schema)
		}
	}
	walk(".", *crd.Spec.Versions[0].Schema.OpenAPIV3Schema)
	slices.Sort(rules)
	return rules
}

// Every rule of the CRD has its twin in validateSpec: for each input, the Go check refuses it
// exactly when admission (a dry-run create against the envtest API server with the real CRD)
// does, and both name the same field. Every rule has at least one refused input. This is what
// lets the operator re-check objects stored under an older CRD (upgrade hazard:
// https://github.com/operator-framework/operator-lifecycle-manager/issues/933).
func TestGoValidationMatchesAdmission(t *testing.T) {
	covered := map[string]bool{}
	for _, tc := range ruleCases {
		covered[tc.rule] = true
	}
	for _, r := range crdRules(t) {
		if !covered[r] {
			t.Errorf("CRD rule %q has no input in ruleCases: add one that breaks it (and its twin in validateSpec)", r)
		}
	}
	for _, desc := range slices.Sorted(maps.Keys(ruleCases)) {
		tc := ruleCases[desc]
		t.Run(desc, func(t *testing.T) {
			name := tc.name
			if name == "" {
				name = "rules"
			}
			obj := map[string]any{
				"apiVersion": cachev1alpha1.GroupVersion.String(),
				"kind":       "Memcached",
				"metadata":   map[string]any{"name": name, "namespace": "t-admission"},
				"spec":       merge(defaultedSpec(), tc.spec),
			}
			admissionErr := k8sClient.Create(testCtx, &unstructured.Unstructured{Object: obj}, client.DryRunAll, client.FieldValidation("Strict"))

			var goErr error
			decoded := true
			raw, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			mc := &cachev1alpha1.Memcached{}
			if err := json.Unmarshal(raw, mc); err != nil {
				goErr, decoded = err, false // the typed spec refuses what it cannot decode (a quantity's pattern)
			} else {
				goErr = validateSpec(mc)
			}

			switch {
			case tc.operatorOnly && admissionErr != nil:
				t.Fatalf("admission refuses an input only the operator should refuse (a CEL rule on spec blocks OLM v1 upgrades): %v", admissionErr)
			case tc.operatorOnly && goErr == nil:
				t.Fatalf("validateSpec accepts an input only the operator refuses")
			case tc.operatorOnly && !strings.Contains(goErr.Error(), tc.field):
				t.Fatalf("validateSpec error does not name %s: %v", tc.field, goErr)
			case tc.operatorOnly:
				return
			case tc.rule == "" && (admissionErr != nil || goErr != nil):
				t.Fatalf("want both to accept; admission: %v; Go: %v", admissionErr, goErr)
			case tc.rule == "":
				return
			case admissionErr == nil:
				t.Fatalf("admission accepted an input the table says breaks %s", tc.rule)
			case !strings.Contains(admissionErr.Error(), tc.field):
				t.Fatalf("admission error does not name %s: %v", tc.field, admissionErr)
			case tc.unseen != "":
				if goErr != nil {
					t.Fatalf("Go now refuses an input listed as unseen (%s): %v; drop unseen", tc.unseen, goErr)
				}
			case goErr == nil:
				t.Fatalf("admission refuses (%v) but validateSpec accepts", admissionErr)
			case decoded && !strings.Contains(goErr.Error(), tc.field):
				t.Fatalf("validateSpec error does not name %s: %v", tc.field, goErr)
			}
		})
	}
}

// crdName is the name of the Memcached CRD.
const crdName = "memcacheds.cache.example.com"

// getCRD reads the installed Memcached CRD (the suite's scheme lacks apiextensions: unstructured).
func getCRD(g Gomega) *apiextensionsv1.CustomResourceDefinition {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
	g.Expect(k8sClient.Get(testCtx, client.ObjectKey{Name: crdName}, u)).To(Succeed())
	crd := &apiextensionsv1.CustomResourceDefinition{}
	g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, crd)).To(Succeed())
	return crd
}

// setCRDSchema replaces the installed CRD's schema and waits until the API server admits with it:
// admit reports whether a dry-run create of the probe spec must succeed.
func setCRDSchema(g Gomega, schema *apiextensionsv1.JSONSchemaProps, probe map[string]any, admit bool) {
	g.Eventually(func(g Gomega) {
		crd := getCRD(g)
		crd.Spec.Versions[0].Schema.OpenAPIV3Schema = schema.DeepCopy()
		obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(crd)
		g.Expect(err).NotTo(HaveOccurred())
		u := &unstructured.Unstructured{Object: obj}
		u.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
		g.Expect(k8sClient.Update(testCtx, u)).To(Succeed())
	}, timeout, interval).Should(Succeed())
	g.Eventually(func() bool {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": cachev1alpha1.GroupVersion.String(), "kind": "Memcached",
			"metadata": map[string]any{"name": "probe", "namespace": "t-admission"},
			"spec":     probe,
		}}
		return (k8sClient.Create(testCtx, u, client.DryRunAll) == nil) == admit
	}, timeout, interval).Should(BeTrue(), "the API server did not switch to the new CRD schema")
}

// An object stored under an older, looser CRD (0.2.1 accepted any maxItemSize in 1Ki..1Gi; 0.2.2
// wants a multiple of 512Ki) keeps its invalid field through the CRD upgrade. The operator
// re-checks it: Degraded/InvalidSpec naming the field, a Warning event, the Deployment left as it
// was; the API server still accepts a scale (validation ratcheting), and fixing the field
// converges. Upgrade hazard:
// https://github.com/operator-framework/operator-lifecycle-manager/issues/933
func TestStoredInvalidSpecIsDegraded(t *testing.T) {
	g := NewWithT(t)
	const ns, name = "t-admission", "legacy"
	mc := newMemcached(ns, name, 2)
	mc.Spec.Memcached.MaxItemSize = ptr.To(resource.MustParse("1Mi"))
	g.Expect(k8sClient.Create(testCtx, mc)).To(Succeed())
	before := &appsv1.Deployment{}
	g.Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(testCtx, key(ns, name), before)).To(Succeed())
		g.Expect(getMemcached(g, ns, name).Status.ObservedGeneration).To(Equal(int64(1)))
	}, timeout, interval).Should(Succeed())

	// Loosen the CRD as 0.2.1 had it, store the object, restore the real CRD.
	strict := getCRD(g).Spec.Versions[0].Schema.OpenAPIV3Schema.DeepCopy()
	loose := strict.DeepCopy()
	cfg := loose.Properties["spec"].Properties["memcached"]
	item := cfg.Properties["maxItemSize"]
	item.XValidations = nil
	cfg.Properties["maxItemSize"] = item
	loose.Properties["spec"].Properties["memcached"] = cfg
	probe := map[string]any{"memcached": map[string]any{"maxItemSize": "600Ki"}}
	t.Cleanup(func() { setCRDSchema(NewWithT(t), strict, probe, false) })
	setCRDSchema(g, loose, probe, true)
	g.Expect(k8sClient.Patch(testCtx, getMemcached(g, ns, name),
		client.RawPatch(types.MergePatchType, []byte(`{"spec":{"memcached":{"maxItemSize":"600Ki"}}}`)))).To(Succeed())
	setCRDSchema(g, strict, probe, false)

	g.Eventually(func(g Gomega) {
		mc := getMemcached(g, ns, name)
		g.Expect(mc.Status.ObservedGeneration).To(Equal(mc.Generation))
		c := conditionOf(mc, cachev1alpha1.ConditionDegraded)
		g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
		g.Expect(c.Reason).To(Equal(cachev1alpha1.ReasonInvalidSpec))
		g.Expect(c.Message).To(ContainSubstring("spec.memcached.maxItemSize"))
		g.Expect(conditionOf(mc, cachev1alpha1.ConditionAvailable).Status).To(Equal(metav1.ConditionFalse))
	}, timeout, interval).Should(Succeed())
	g.Eventually(func(g Gomega) {
		evs := &eventsv1.EventList{}
		g.Expect(k8sClient.List(testCtx, evs, client.InNamespace(ns))).To(Succeed())
		found := slices.ContainsFunc(evs.Items, func(e eventsv1.Event) bool {
			return e.Regarding.Name == name && e.Type == corev1.EventTypeWarning && e.Reason == cachev1alpha1.ReasonInvalidSpec &&
				strings.Contains(e.Note, "spec.memcached.maxItemSize")
		})
		g.Expect(found).To(BeTrue(), "a Warning InvalidSpec event naming the field")
	}, timeout, interval).Should(Succeed())

	// The API server still accepts a scale: the invalid field is unchanged (ratcheting).
	g.Expect(k8sClient.SubResource("scale").Patch(testCtx, getMemcached(g, ns, name),
		client.RawPatch(types.MergePatchType, []byte(`{"spec":{"replicas":3}}`)))).To(Succeed())
	g.Consistently(func(g Gomega) {
		d := &appsv1.Deployment{}
		g.Expect(k8sClient.Get(testCtx, key(ns, name), d)).To(Succeed())
		g.Expect(d.ResourceVersion).To(Equal(before.ResourceVersion), "the Deployment is left as it was")
		g.Expect(d.Spec.Template.Spec.Containers[0].Args).NotTo(ContainElement("614400"))
	}, 2*time.Second, 200*time.Millisecond).Should(Succeed())

	// Fixing the field converges, with the scale.
	g.Expect(k8sClient.Patch(testCtx, getMemcached(g, ns, name),
		client.RawPatch(types.MergePatchType, []byte(`{"spec":{"memcached":{"maxItemSize":"1Mi"}}}`)))).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(conditionOf(getMemcached(g, ns, name), cachev1alpha1.ConditionDegraded).Status).To(Equal(metav1.ConditionFalse))
		d := &appsv1.Deployment{}
		g.Expect(k8sClient.Get(testCtx, key(ns, name), d)).To(Succeed())
		g.Expect(d.Spec.Replicas).To(HaveValue(Equal(int32(3))))
	}, timeout, interval).Should(Succeed())
}
