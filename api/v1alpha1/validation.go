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
	"math"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// Validate returns every rule of the CRD that mc breaks, each naming its field: the OpenAPI bounds
// and the CEL rules written as markers in this package, checked again in Go, one check per marker,
// with the same bounds and the messages of the CEL rules. The operator needs them because an
// object stored under an older, looser CRD keeps its invalid fields through a CRD upgrade: the API
// server does not re-validate stored objects, and on update it keeps an unchanged invalid field
// (validation ratcheting, KEP-4008; OLM checks stored objects against a new CRD's OpenAPI schema
// only, not its CEL rules:
// https://github.com/operator-framework/operator-lifecycle-manager/issues/933). The envtest
// TestGoValidationMatchesAdmission (controllers) proves, rule by rule on the same inputs, that
// these checks refuse what admission refuses. ValidateResources checks what the schema cannot.
//
// It also checks the cross-field rules that are the operator's alone (see MemcachedSpec: admission
// accepts them so that OLM v1 can upgrade the CRD).
//
// Two values admission refuses cannot be seen in the typed spec: an empty spec.image and an empty
// spec.antiAffinityPreset read as "unset", and the operator uses their defaults.
func (mc *Memcached) Validate() field.ErrorList {
	var errs field.ErrorList
	if name := mc.Name; len(name) > 63 || !dns1035.MatchString(name) {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), name,
			"metadata.name must be a DNS-1035 label of at most 63 characters: it names the Service and labels the pods"))
	}
	return append(errs, mc.Spec.validate(field.NewPath("spec"))...)
}

var (
	// dns1035 is the CEL rule on metadata.name: a DNS-1035 label (it names the Service).
	dns1035 = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)
	// imageReference is the OpenAPI pattern of spec.image.
	imageReference = regexp.MustCompile(ImageReferencePattern)
	// allowedExtraArg is the CEL rule on spec.memcached.extraArgs (an argument starting with '-').
	allowedExtraArg = regexp.MustCompile(`^-[MRBfnLCDbFXo]$`)
	// dns1123Subdomain is the OpenAPI pattern of the Secret names in spec.tls and spec.auth.
	dns1123Subdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	// secretKey is the OpenAPI pattern of the Secret keys in spec.tls and spec.auth.
	secretKey = regexp.MustCompile(`^[-._a-zA-Z0-9]+$`)
)

// Quantities of the CEL rules on spec.memcached.maxItemSize, in bytes.
var (
	minItemSize = resource.MustParse("512Ki")
	maxItemSize = resource.MustParse("1Gi")
)

// slabChunk is memcached's slab chunk size in bytes: -I must be a multiple of it.
const slabChunk = 524288.0

// validate checks the CRD rules of the spec (path spec).
func (s *MemcachedSpec) validate(spec *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, between(spec.Child("size"), int64(s.Size), 1, 64)...)
	errs = append(errs, between(spec.Child("minReadySeconds"), int64(s.MinReadySeconds), 0, 3600)...)
	if s.Image != "" {
		errs = append(errs, ValidateImageReference(spec.Child("image"), s.Image)...)
	}
	errs = append(errs, memcachedConfigErrors(spec.Child("memcached"), s.Memcached)...)
	switch s.AntiAffinityPreset {
	case "", AntiAffinityNone, AntiAffinitySoft, AntiAffinityHard:
	default:
		errs = append(errs, field.NotSupported(spec.Child("antiAffinityPreset"), s.AntiAffinityPreset,
			[]AntiAffinityPreset{AntiAffinityNone, AntiAffinitySoft, AntiAffinityHard}))
	}
	errs = append(errs, maxLength(spec.Child("priorityClassName"), s.PriorityClassName, 253)...)
	if pdb := s.PodDisruptionBudget; pdb.MinAvailable != nil && pdb.MaxUnavailable != nil {
		errs = append(errs, field.Invalid(spec.Child("podDisruptionBudget"), "minAvailable and maxUnavailable",
			"set at most one of minAvailable and maxUnavailable"))
	}
	errs = append(errs, gracefulShutdownErrors(spec.Child("gracefulShutdown"), s.GracefulShutdown)...)
	errs = append(errs, networkPolicyErrors(spec.Child("networkPolicy"), s.NetworkPolicy)...)
	errs = append(errs, tlsErrors(spec.Child("tls"), s.TLS)...)
	errs = append(errs, authErrors(spec.Child("auth"), s.Auth)...)
	errs = append(errs, extraArgsErrors(spec.Child("memcached", "extraArgs"), s.Memcached.ExtraArgs, s.Auth != nil)...)
	errs = append(errs, monitoringErrors(spec, s)...)
	errs = append(errs, serverIdentityErrors(spec, s)...)
	errs = append(errs, warmRestartErrors(spec, s)...)
	errs = append(errs, addedMetadataErrors(spec, s)...)
	return errs
}

// ReservedLabels are the labels the operator puts on every object it builds (the recommended
// labels of controllers/resources); spec.podMetadata.labels and spec.monitoring.labels cannot set
// them (the CEL rules on both list them).
var ReservedLabels = []string{"app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/managed-by", "app.kubernetes.io/component", "app.kubernetes.io/part-of"}

// ReservedAnnotationPrefix starts the annotations that are the operator's: spec.podMetadata and
// spec.service cannot set them.
const ReservedAnnotationPrefix = "cache.example.com/"

// Bounds of the fields that add metadata (their CRD markers repeat them).
const (
	maxImagePullSecrets = 16
	maxAddedKeys        = 64
	maxIntervalLength   = 32
	maxRunbookURLLength = 512
)

// promDuration is the OpenAPI pattern of spec.monitoring.interval (the Prometheus Operator's
// Duration).
var promDuration = regexp.MustCompile(`^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$`)

// addedMetadataErrors checks the CRD rules of the fields that add to what the operator builds:
// spec.imagePullSecrets, spec.podMetadata, spec.service.annotations and
// spec.monitoring's interval, labels and runbookBaseURL.
func addedMetadataErrors(spec *field.Path, s *MemcachedSpec) field.ErrorList {
	var errs field.ErrorList
	p := spec.Child("imagePullSecrets")
	if n := len(s.ImagePullSecrets); n > maxImagePullSecrets {
		errs = append(errs, field.TooMany(p, n, maxImagePullSecrets))
	}
	if slices.ContainsFunc(s.ImagePullSecrets, func(r corev1.LocalObjectReference) bool { return r.Name == "" }) {
		errs = append(errs, field.Invalid(p, "", "every spec.imagePullSecrets entry needs a name"))
	}
	if m := s.PodMetadata; m != nil {
		errs = append(errs, labelsErrors(spec.Child("podMetadata", "labels"), m.Labels)...)
		errs = append(errs, annotationsErrors(spec.Child("podMetadata", "annotations"), m.Annotations)...)
	}
	errs = append(errs, annotationsErrors(spec.Child("service", "annotations"), s.Service.Annotations)...)
	mon := spec.Child("monitoring")
	if iv := s.Monitoring.Interval; iv != "" {
		errs = append(errs, maxLength(mon.Child("interval"), iv, maxIntervalLength)...)
		if !promDuration.MatchString(iv) {
			errs = append(errs, field.Invalid(mon.Child("interval"), iv, "must be a Prometheus duration such as 30s or 1m"))
		}
	}
	errs = append(errs, labelsErrors(mon.Child("labels"), s.Monitoring.Labels)...)
	if u := s.Monitoring.RunbookBaseURL; u != "" {
		p := mon.Child("runbookBaseURL")
		errs = append(errs, maxLength(p, u, maxRunbookURLLength)...)
		// CEL's isURL is Go's url.ParseRequestURI (k8s.io/apiserver/pkg/cel/library).
		if parsed, err := url.ParseRequestURI(u); err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || strings.Contains(u, "#") {
			errs = append(errs, field.Invalid(p, u, "spec.monitoring.runbookBaseURL must be an absolute http or https URL without a fragment"))
		}
	}
	return errs
}

// labelsErrors checks labels added to an object (at p): at most maxAddedKeys, none of
// ReservedLabels.
func labelsErrors(p *field.Path, labels map[string]string) field.ErrorList {
	return addedKeysErrors(p, labels, func(k string) bool { return slices.Contains(ReservedLabels, k) },
		"the labels app.kubernetes.io/name, instance, managed-by, component and part-of are the operator's")
}

// annotationsErrors checks annotations added to an object (at p): at most maxAddedKeys, none
// under ReservedAnnotationPrefix.
func annotationsErrors(p *field.Path, annotations map[string]string) field.ErrorList {
	return addedKeysErrors(p, annotations, func(k string) bool { return strings.HasPrefix(k, ReservedAnnotationPrefix) },
		"annotations under cache.example.com/ are the operator's")
}

// addedKeysErrors checks a map of labels or annotations added to an object (at p): at most
// maxAddedKeys entries (the maxProperties marker), and no key reserved says is the operator's (the
// CEL rule, with its message; the first such key in sorted order is named).
func addedKeysErrors(p *field.Path, m map[string]string, reserved func(string) bool, message string) field.ErrorList {
	var errs field.ErrorList
	if n := len(m); n > maxAddedKeys {
		errs = append(errs, field.TooMany(p, n, maxAddedKeys))
	}
	keys := slices.Sorted(maps.Keys(m))
	if i := slices.IndexFunc(keys, reserved); i >= 0 {
		errs = append(errs, field.Invalid(p, keys[i], message))
	}
	return errs
}

// ValidateMetadata returns why the labels and annotations the spec adds cannot be applied, or
// nil: each key and value in the syntax of Kubernetes object metadata (apimachinery's own
// validation, which the API server applies to the objects the operator builds; the CRD cannot
// express it). Only the operator refuses these, naming the field: the API server would refuse
// the Deployment instead.
func (mc *Memcached) ValidateMetadata() error {
	spec := field.NewPath("spec")
	var errs field.ErrorList
	if m := mc.Spec.PodMetadata; m != nil {
		errs = append(errs, metav1validation.ValidateLabels(m.Labels, spec.Child("podMetadata", "labels"))...)
		errs = append(errs, apivalidation.ValidateAnnotations(m.Annotations, spec.Child("podMetadata", "annotations"))...)
	}
	errs = append(errs, apivalidation.ValidateAnnotations(mc.Spec.Service.Annotations, spec.Child("service", "annotations"))...)
	errs = append(errs, metav1validation.ValidateLabels(mc.Spec.Monitoring.Labels, spec.Child("monitoring", "labels"))...)
	return errs.ToAggregate()
}

// serverIdentityErrors checks spec.serverIdentity: one of its values, and Stable only with the
// headless Service, whose DNS names (<name>-<i>.<service>.<namespace>.svc) are the stable names.
func serverIdentityErrors(spec *field.Path, s *MemcachedSpec) field.ErrorList {
	p := spec.Child("serverIdentity")
	switch s.ServerIdentity {
	case "", ServerIdentityEphemeral:
		return nil
	case ServerIdentityStable:
		if s.Service.Enabled != nil && !*s.Service.Enabled {
			return field.ErrorList{field.Invalid(p, s.ServerIdentity,
				"spec.serverIdentity Stable requires spec.service.enabled: the stable server names are the headless Service's DNS names")}
		}
		return nil
	default:
		return field.ErrorList{field.NotSupported(p, s.ServerIdentity, []ServerIdentity{ServerIdentityEphemeral, ServerIdentityStable})}
	}
}

// warmRestartErrors checks spec.warmRestart: enabled only with spec.serverIdentity Stable. A
// Deployment replaces a pod for every change of its template, and a new pod starts with a new,
// empty volume; the pods of a StatefulSet whose update strategy is OnDelete are left to the
// operator, which changes them in place.
func warmRestartErrors(spec *field.Path, s *MemcachedSpec) field.ErrorList {
	if s.WarmRestart.Enabled && s.ServerIdentity != ServerIdentityStable {
		return field.ErrorList{field.Invalid(spec.Child("warmRestart", "enabled"), true,
			"spec.warmRestart.enabled requires spec.serverIdentity Stable: a Deployment replaces its pods, and a new pod starts with an empty memory file")}
	}
	return nil
}

// WarmRestarts reports whether mc's servers keep their items across planned restarts
// (spec.warmRestart.enabled with spec.serverIdentity Stable).
func (mc *Memcached) WarmRestarts() bool {
	return mc.Spec.WarmRestart.Enabled && mc.StableIdentity()
}

// StableIdentity reports whether mc's servers run in a StatefulSet with stable names
// (spec.serverIdentity Stable).
func (mc *Memcached) StableIdentity() bool {
	return mc.Spec.ServerIdentity == ServerIdentityStable
}

// gracefulShutdownErrors checks spec.gracefulShutdown (path p). The API server fills both fields'
// defaults before its CEL rule compares them; so does this comparison, for an object built in Go.
func gracefulShutdownErrors(p *field.Path, g GracefulShutdownSpec) field.ErrorList {
	var errs field.ErrorList
	if g.PreStopDelaySeconds != nil {
		errs = append(errs, between(p.Child("preStopDelaySeconds"), int64(*g.PreStopDelaySeconds), 0, 300)...)
	}
	if g.TerminationGracePeriodSeconds != nil {
		errs = append(errs, between(p.Child("terminationGracePeriodSeconds"), int64(*g.TerminationGracePeriodSeconds), 1, 3600)...)
	}
	delay := ptr.Deref(g.PreStopDelaySeconds, DefaultPreStopDelaySeconds)
	grace := ptr.Deref(g.TerminationGracePeriodSeconds, DefaultTerminationGracePeriodSeconds)
	if grace <= delay {
		errs = append(errs, field.Invalid(p.Child("terminationGracePeriodSeconds"), grace,
			"terminationGracePeriodSeconds must be greater than preStopDelaySeconds (the kubelet kills the container when the grace period ends, preStop delay included)"))
	}
	return errs
}

// networkPolicyErrors checks spec.networkPolicy (path p). The peers' selectors and ipBlock are core
// types the API server validates again when it validates the NetworkPolicy.
func networkPolicyErrors(p *field.Path, n NetworkPolicySpec) field.ErrorList {
	var errs field.ErrorList
	if n.Enabled && len(n.From) == 0 {
		errs = append(errs, field.Invalid(p.Child("from"), "[]",
			"spec.networkPolicy.from must list at least one peer when the policy is enabled (an empty list would admit no client; to admit every pod of the namespace use [{podSelector: {}}])"))
	}
	peers := func(p *field.Path, list []networkingv1.NetworkPolicyPeer) {
		if len(list) > 32 {
			errs = append(errs, field.TooMany(p, len(list), 32))
		}
		for i, peer := range list {
			selector := peer.PodSelector != nil || peer.NamespaceSelector != nil
			if !selector && peer.IPBlock == nil {
				errs = append(errs, field.Invalid(p.Index(i), "{}", "a peer must set podSelector, namespaceSelector or ipBlock"))
			}
			if selector && peer.IPBlock != nil {
				errs = append(errs, field.Invalid(p.Index(i), "ipBlock", "a peer with ipBlock must not set podSelector or namespaceSelector"))
			}
		}
	}
	peers(p.Child("from"), n.From)
	peers(p.Child("metricsFrom"), n.MetricsFrom)
	return errs
}

// tlsErrors checks spec.tls (path p). Empty optional fields read as unset (their defaults apply).
func tlsErrors(p *field.Path, t *TLSSpec) field.ErrorList {
	if t == nil {
		return nil
	}
	errs := secretNameErrors(p.Child("secretName"), t.SecretName)
	if ca := t.ClientCA; ca != nil {
		cp := p.Child("clientCA")
		if ca.SecretName != "" {
			errs = append(errs, secretNameErrors(cp.Child("secretName"), ca.SecretName)...)
		}
		if ca.Key != "" {
			errs = append(errs, secretKeyErrors(cp.Child("key"), ca.Key)...)
		}
		switch ca.Verification {
		case "", ClientCertificateRequest, ClientCertificateRequire:
		default:
			errs = append(errs, field.NotSupported(cp.Child("verification"), ca.Verification,
				[]ClientCertificateVerification{ClientCertificateRequest, ClientCertificateRequire}))
		}
	}
	return errs
}

// authErrors checks spec.auth (path p).
func authErrors(p *field.Path, a *AuthSpec) field.ErrorList {
	if a == nil {
		return nil
	}
	errs := secretNameErrors(p.Child("secretName"), a.SecretName)
	if a.Key != "" {
		errs = append(errs, secretKeyErrors(p.Child("key"), a.Key)...)
	}
	return errs
}

// secretNameErrors checks a required Secret name: present, at most 253 characters, a DNS-1123
// subdomain.
func secretNameErrors(p *field.Path, name string) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	errs := maxLength(p, name, 253)
	if !dns1123Subdomain.MatchString(name) {
		errs = append(errs, field.Invalid(p, name, "must be a Secret name (a DNS-1123 subdomain)"))
	}
	return errs
}

// secretKeyErrors checks a Secret key: at most 253 characters of [-._a-zA-Z0-9].
func secretKeyErrors(p *field.Path, key string) field.ErrorList {
	errs := maxLength(p, key, 253)
	if !secretKey.MatchString(key) {
		errs = append(errs, field.Invalid(p, key, "must be a Secret key ([-._a-zA-Z0-9]+)"))
	}
	return errs
}

// memcachedConfigErrors checks spec.memcached (path p).
func memcachedConfigErrors(p *field.Path, c MemcachedConfig) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, between(p.Child("maxMemoryMB"), int64(c.MaxMemoryMB), 8, 1048576)...)
	errs = append(errs, between(p.Child("maxConnections"), int64(c.MaxConnections), 10, 1048576)...)
	errs = append(errs, between(p.Child("threads"), int64(c.Threads), 1, 256)...)
	errs = append(errs, between(p.Child("verbosity"), int64(c.Verbosity), 0, 2)...)
	if q := c.MaxItemSize; q != nil {
		// The CEL rules compare quantities exactly and test the multiple on approximate floats
		// (quantity.asApproximateFloat()); so does this.
		f := q.AsApproximateFloat64()
		if q.Cmp(minItemSize) < 0 || q.Cmp(maxItemSize) > 0 || math.Trunc(f/slabChunk)*slabChunk != f {
			errs = append(errs, field.Invalid(p.Child("maxItemSize"), q.String(),
				"must be a multiple of 512Ki between 512Ki and 1Gi (memcached's -I must be a multiple of its slab chunk size, 512 KiB)"))
		}
		if f*2.0 > float64(c.MaxMemoryMB)*1048576.0 {
			errs = append(errs, field.Invalid(p.Child("maxItemSize"), q.String(),
				"spec.memcached.maxItemSize must be at most half of maxMemoryMB (memcached refuses to start otherwise)"))
		}
	}
	args := p.Child("extraArgs")
	if len(c.ExtraArgs) > 32 {
		errs = append(errs, field.TooMany(args, len(c.ExtraArgs), 32))
	}
	for i, a := range c.ExtraArgs {
		errs = append(errs, maxLength(args.Index(i), a, 256)...)
	}
	for _, a := range c.ExtraArgs {
		if strings.HasPrefix(a, "-") && !allowedExtraArg.MatchString(a) {
			errs = append(errs, field.Invalid(args, a,
				`options must be one of -M, -R, -B, -f, -n, -L, -C, -D, -b, -F, -X, -o, each its own argument (values as separate arguments, e.g. ["-R", "40"]); long options and bundled flags are not allowed`))
			break
		}
	}
	return errs
}

// between checks an OpenAPI minimum and maximum.
func between(p *field.Path, v, lo, hi int64) field.ErrorList {
	switch {
	case v < lo:
		return field.ErrorList{field.Invalid(p, v, fmt.Sprintf("should be greater than or equal to %d", lo))}
	case v > hi:
		return field.ErrorList{field.Invalid(p, v, fmt.Sprintf("should be less than or equal to %d", hi))}
	}
	return nil
}

// maxLength checks an OpenAPI maxLength, which counts characters, not bytes.
func maxLength(p *field.Path, v string, n int) field.ErrorList {
	if utf8.RuneCountInString(v) > n {
		return field.ErrorList{field.TooLong(p, "", n)}
	}
	return nil
}

// monitoringErrors checks spec.monitoring (spec is the path of spec): the OpenAPI bounds and
// pattern of monitoring.image, and a cross-field rule that is the operator's only (see
// MemcachedSpec): monitoring needs the Service (its metrics port and the ServiceMonitor's target).
// spec.tls and spec.auth are no obstacle: the exporter reads a plain-text loopback listener
// (controllers/resources' loopbackListenArgs), and with spec.auth a relay beside it that
// authenticates for it (controllers/resources' statsRelayContainers).
func monitoringErrors(spec *field.Path, s *MemcachedSpec) field.ErrorList {
	var errs field.ErrorList
	p := spec.Child("monitoring")
	if img := s.Monitoring.Image; img != "" {
		errs = append(errs, ValidateImageReference(p.Child("image"), img)...)
	}
	if ptr.Deref(s.Monitoring.Enabled, false) && s.Service.Enabled != nil && !*s.Service.Enabled {
		errs = append(errs, field.Invalid(p.Child("enabled"), true,
			"spec.monitoring.enabled requires spec.service.enabled: the metrics port and the ServiceMonitor are on the headless Service"))
	}
	return errs
}

// MaxImageLength is the maxLength of spec.image and spec.monitoring.image, in characters.
const MaxImageLength = 512

// ValidateImageReference checks img (at path p) against the one rule of every image reference the
// operator takes, spec.image, spec.monitoring.image and the operator's RELATED_IMAGE_* defaults
// (which end up in the same fields): at most MaxImageLength characters (a field.ErrorTypeTooLong
// error) and ImageReferencePattern (field.ErrorTypeInvalid), in that order.
func ValidateImageReference(p *field.Path, img string) field.ErrorList {
	errs := maxLength(p, img, MaxImageLength)
	if !imageReference.MatchString(img) {
		errs = append(errs, field.Invalid(p, img, "must be an image reference ([host[:port]/]path[:tag][@digest])"))
	}
	return errs
}

// containerResourcesError returns why r, a container's resources at path p, cannot be applied,
// or nil.
func containerResourcesError(p string, r *corev1.ResourceRequirements) error {
	if r == nil {
		return nil
	}
	// A container's resources.claims must name entries of the pod's spec.resourceClaims, which the
	// operator never writes: an API server with DynamicResourceAllocation (on by default from
	// Kubernetes 1.34) refuses such a Deployment, one without it drops the claims.
	if len(r.Claims) > 0 {
		return fmt.Errorf("%s.claims is not supported: the memcached pods have no resourceClaims for it to name", p)
	}
	// The API server checks this only when it validates the Deployment, which would make every
	// reconcile fail: report it as the spec problem it is.
	for _, name := range slices.Sorted(maps.Keys(r.Requests)) {
		req := r.Requests[name]
		if limit, ok := r.Limits[name]; ok && req.Cmp(limit) > 0 {
			return fmt.Errorf("%s.requests.%s (%s) must not exceed %s.limits.%s (%s)", p, name, req.String(), p, name, limit.String())
		}
	}
	return nil
}

// ValidateResources returns why spec.resources or spec.monitoring.resources cannot be applied, or
// nil. It checks what the CRD schema cannot: no claims (see below), no request may exceed its limit, and a memory limit must
// be larger than spec.memcached.maxMemoryMB (a CEL rule parsing the limit exceeds the API server's
// cost budget because the core ResourceRequirements type has no length bounds).
func (mc *Memcached) ValidateResources() error {
	if err := containerResourcesError("spec.monitoring.resources", mc.Spec.Monitoring.Resources); err != nil {
		return err
	}
	if mc.Spec.Resources == nil {
		return nil
	}
	if err := containerResourcesError("spec.resources", mc.Spec.Resources); err != nil {
		return err
	}
	limit, ok := mc.Spec.Resources.Limits[corev1.ResourceMemory]
	if !ok {
		return nil
	}
	items := resource.NewQuantity(int64(mc.Spec.Memcached.MaxMemoryMB)*1024*1024, resource.BinarySI)
	if limit.Cmp(*items) <= 0 {
		return fmt.Errorf("spec.memcached.maxMemoryMB (%dMi) must be lower than spec.resources.limits.memory (%s): memcached needs memory beyond its items for connections and hash tables",
			mc.Spec.Memcached.MaxMemoryMB, limit.String())
	}
	return nil
}
