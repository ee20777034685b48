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
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// What spec.tls and spec.auth put into the pods. The Secrets' data is never copied into an
// object: the pods mount the keys they use (projected volumes, read-only, mode 0440, group 11211
// through the pod's fsGroup), memcached's flags name the files, and the pod template carries only
// a SHA-256 of that data (SecretHashAnnotation), so a rotation changes the template and rolls the
// pods once, and an unchanged Secret changes nothing.
const (
	// SecretHashAnnotation on the pod template is the SHA-256 (hex) of the Secret data the pods use
	// (secretFiles): it changes exactly when that data changes, which makes the Deployment roll.
	SecretHashAnnotation = "cache.example.com/secret-hash"
	// SecretsIndex is the field index of Memcacheds by the names of the Secrets they reference
	// (referencedSecrets), through which a Secret's watch event finds its Memcacheds.
	SecretsIndex = "spec.secretNames"

	// tlsVolume and authVolume name the pod volumes; tlsDir and authDir are where they are mounted.
	tlsVolume  = "memcached-tls"
	authVolume = "memcached-auth"
	tlsDir     = "/etc/memcached/tls"
	authDir    = "/etc/memcached/auth"
	// Files in those directories.
	tlsCertFile = "tls.crt"
	tlsKeyFile  = "tls.key"
	caFile      = "ca.crt"
	authFile    = "authfile"
	// secretFileMode lets the owner (root) and the group (fsGroup 11211, memcached's) read the
	// files, nobody else; memcached runs as uid/gid 11211.
	secretFileMode = 0o440

	// defaultCAKey and defaultAuthKey are the CRD defaults of tls.clientCA.key and auth.key, used
	// when an object stored without them reads "".
	defaultCAKey   = "ca.crt"
	defaultAuthKey = "authfile"

	// maxAuthEntries and maxAuthLine are memcached's limits on its auth file (authfile.c
	// MAX_ENTRIES and MAX_ENTRY_LEN, memcached 1.6): it reads at most 8 lines (the rest silently
	// ignored) with fgets into 256 bytes (a longer line is split in two).
	maxAuthEntries = 8
	maxAuthLine    = 254
)

// secretFile is one key of one Secret that the pods use, and the file it becomes.
type secretFile struct {
	// secret and key name the data.
	secret, key string
	// volume is the pod volume it is projected into, file its path in that volume.
	volume, file string
}

// path is where the container sees the file.
func (f secretFile) path() string {
	if f.volume == tlsVolume {
		return path.Join(tlsDir, f.file)
	}
	return path.Join(authDir, f.file)
}

// caSecret returns the Secret and key of the client CA of spec.tls.clientCA (defaults applied).
func caSecret(mc *cachev1alpha1.Memcached) (string, string) {
	ca := mc.Spec.TLS.ClientCA
	name, key := ca.SecretName, ca.Key
	if name == "" {
		name = mc.Spec.TLS.SecretName
	}
	if key == "" {
		key = defaultCAKey
	}
	return name, key
}

// secretFiles lists every Secret key mc's pods use, in a fixed order: the TLS certificate and
// key, the client CA, the auth file. Empty when neither spec.tls nor spec.auth is set.
func secretFiles(mc *cachev1alpha1.Memcached) []secretFile {
	var out []secretFile
	if t := mc.Spec.TLS; t != nil {
		out = append(out,
			secretFile{secret: t.SecretName, key: corev1.TLSCertKey, volume: tlsVolume, file: tlsCertFile},
			secretFile{secret: t.SecretName, key: corev1.TLSPrivateKeyKey, volume: tlsVolume, file: tlsKeyFile})
		if t.ClientCA != nil {
			name, key := caSecret(mc)
			out = append(out, secretFile{secret: name, key: key, volume: tlsVolume, file: caFile})
		}
	}
	if a := mc.Spec.Auth; a != nil {
		key := a.Key
		if key == "" {
			key = defaultAuthKey
		}
		out = append(out, secretFile{secret: a.SecretName, key: key, volume: authVolume, file: authFile})
	}
	return out
}

// referencedSecrets returns the sorted, distinct names of the Secrets mc's pods use.
func referencedSecrets(mc *cachev1alpha1.Memcached) []string {
	var names []string
	for _, f := range secretFiles(mc) {
		names = append(names, f.secret)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// secretArgs returns memcached's flags for spec.tls and spec.auth (see `memcached --help`):
// -Z -o ssl_chain_cert=<file>,ssl_key=<file>[,ssl_ca_cert=<file>,ssl_verify_mode=<1|2>] and
// -Y <file>. Only file paths: the credentials are in the mounted files.
func secretArgs(mc *cachev1alpha1.Memcached) []string {
	var args []string
	if t := mc.Spec.TLS; t != nil {
		opts := []string{
			"ssl_chain_cert=" + path.Join(tlsDir, tlsCertFile),
			"ssl_key=" + path.Join(tlsDir, tlsKeyFile),
		}
		if t.ClientCA != nil {
			mode := "2"
			if t.ClientCA.Verification == cachev1alpha1.ClientCertificateRequest {
				mode = "1"
			}
			opts = append(opts, "ssl_ca_cert="+path.Join(tlsDir, caFile), "ssl_verify_mode="+mode)
		}
		args = append(args, "-Z", "-o", strings.Join(opts, ","))
	}
	if mc.Spec.Auth != nil {
		args = append(args, "-Y", path.Join(authDir, authFile))
	}
	return args
}

// secretVolumes returns the pod volumes of spec.tls and spec.auth: projected volumes holding only
// the keys used (secretFiles), each Secret's keys in one source, mode secretFileMode. Every field
// the API server would default is set, so the built object equals the stored one.
func secretVolumes(mc *cachev1alpha1.Memcached) []corev1.Volume {
	var vols []corev1.Volume
	for _, vol := range []string{tlsVolume, authVolume} {
		var sources []corev1.VolumeProjection
		for _, f := range secretFiles(mc) {
			if f.volume != vol {
				continue
			}
			item := corev1.KeyToPath{Key: f.key, Path: f.file}
			if n := len(sources); n > 0 && sources[n-1].Secret.Name == f.secret {
				sources[n-1].Secret.Items = append(sources[n-1].Secret.Items, item)
				continue
			}
			sources = append(sources, corev1.VolumeProjection{Secret: &corev1.SecretProjection{
				LocalObjectReference: corev1.LocalObjectReference{Name: f.secret},
				Items:                []corev1.KeyToPath{item},
			}})
		}
		if len(sources) == 0 {
			continue
		}
		vols = append(vols, corev1.Volume{Name: vol, VolumeSource: corev1.VolumeSource{
			Projected: &corev1.ProjectedVolumeSource{Sources: sources, DefaultMode: ptr.To[int32](secretFileMode)},
		}})
	}
	return vols
}

// secretMounts returns the memcached container's read-only mounts of secretVolumes.
func secretMounts(mc *cachev1alpha1.Memcached) []corev1.VolumeMount {
	var mounts []corev1.VolumeMount
	for _, v := range secretVolumes(mc) {
		dir := tlsDir
		if v.Name == authVolume {
			dir = authDir
		}
		mounts = append(mounts, corev1.VolumeMount{Name: v.Name, MountPath: dir, ReadOnly: true})
	}
	return mounts
}

// secretFSGroup is the pod's fsGroup: memcached's gid when Secrets are mounted (the kubelet makes
// the files group-owned by it, so mode 0440 lets memcached read them), nil otherwise, so the pod
// template of an instance without spec.tls or spec.auth is what it was before these fields.
func secretFSGroup(mc *cachev1alpha1.Memcached) *int64 {
	if len(secretFiles(mc)) == 0 {
		return nil
	}
	return ptr.To[int64](memcachedUID)
}

// SecretError is a Secret that spec.tls or spec.auth names and the pods cannot use: it is missing
// (Reason SecretNotFound) or lacks a key or holds data memcached would refuse (InvalidSecret).
// Message names the Secret and the key, never the data.
type SecretError struct {
	// Reason is cachev1alpha1.ReasonSecretNotFound or cachev1alpha1.ReasonInvalidSecret.
	Reason string
	// Message says which Secret (and key) and why.
	Message string
}

// Error implements error.
func (e *SecretError) Error() string { return e.Message }

// secretsHash reads the Secrets mc's pods use and returns the SHA-256 (hex) of the data of the
// keys they use, "" when they use none. It returns a *SecretError when a Secret is missing or a key
// is absent or unusable (checkSecretData), and an error wrapping the API failure otherwise.
//
// Secrets are read with reader, the uncached API reader: the manager caches only the Secrets'
// metadata (CacheOptions, SetupWithManager), so their data is held in memory only during this
// call, and only for the Secrets an instance names.
func secretsHash(ctx context.Context, reader client.Reader, mc *cachev1alpha1.Memcached) (string, error) {
	files := secretFiles(mc)
	if len(files) == 0 {
		return "", nil
	}
	secrets := map[string]*corev1.Secret{}
	for _, name := range referencedSecrets(mc) {
		s := &corev1.Secret{}
		key := types.NamespacedName{Namespace: mc.Namespace, Name: name}
		if err := reader.Get(ctx, key, s); err != nil {
			if apierrors.IsNotFound(err) {
				return "", &SecretError{Reason: cachev1alpha1.ReasonSecretNotFound,
					Message: fmt.Sprintf("Secret %s not found (%s)", name, usedFor(mc, name))}
			}
			return "", fmt.Errorf("failed to get Secret %s: %w", key, err)
		}
		secrets[name] = s
	}
	if err := checkSecretData(mc, secrets); err != nil {
		return "", err
	}
	return hashSecretData(files, secrets), nil
}

// usedFor names the fields that reference Secret name.
func usedFor(mc *cachev1alpha1.Memcached, name string) string {
	var fields []string
	if t := mc.Spec.TLS; t != nil {
		if t.SecretName == name {
			fields = append(fields, "spec.tls.secretName")
		}
		if t.ClientCA != nil {
			if n, _ := caSecret(mc); n == name {
				fields = append(fields, "spec.tls.clientCA")
			}
		}
	}
	if a := mc.Spec.Auth; a != nil && a.SecretName == name {
		fields = append(fields, "spec.auth.secretName")
	}
	return "referenced by " + strings.Join(fields, ", ")
}

// hashSecretData returns the hex SHA-256 of the data of files read from secrets: for each file in
// order, its path in the container and its data, each length-prefixed, so no two different
// inputs hash alike. Keys the pods do not use do not count.
func hashSecretData(files []secretFile, secrets map[string]*corev1.Secret) string {
	h := sha256.New()
	field := func(b []byte) {
		_ = binary.Write(h, binary.BigEndian, uint64(len(b)))
		h.Write(b)
	}
	for _, f := range files {
		field([]byte(f.path()))
		field(secrets[f.secret].Data[f.key])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// checkSecretData returns a *SecretError (InvalidSecret) for the first key mc's pods use that is
// absent or empty in secrets, or that memcached would refuse: a certificate and key that do not
// form a key pair (crypto/tls.X509KeyPair), a CA bundle without a PEM certificate, an auth file
// that breaks authFileErrors. memcached exits when it cannot load them, so catching them here
// keeps a rollout from starting that could not finish.
func checkSecretData(mc *cachev1alpha1.Memcached, secrets map[string]*corev1.Secret) error {
	invalid := func(f secretFile, why string) error {
		return &SecretError{Reason: cachev1alpha1.ReasonInvalidSecret,
			Message: fmt.Sprintf("Secret %s: key %s %s (%s)", f.secret, f.key, why, usedFor(mc, f.secret))}
	}
	files := secretFiles(mc)
	for _, f := range files {
		if len(secrets[f.secret].Data[f.key]) == 0 {
			return invalid(f, "is missing or empty")
		}
	}
	for _, f := range files {
		data := secrets[f.secret].Data[f.key]
		switch f.file {
		case tlsCertFile:
			if _, err := tls.X509KeyPair(data, secrets[f.secret].Data[corev1.TLSPrivateKeyKey]); err != nil {
				return invalid(f, "and "+corev1.TLSPrivateKeyKey+" are not a PEM certificate chain and its private key: "+err.Error())
			}
		case caFile:
			if !x509.NewCertPool().AppendCertsFromPEM(data) {
				return invalid(f, "holds no PEM certificate")
			}
		case authFile:
			if why := authFileErrors(data); why != "" {
				return invalid(f, why)
			}
		}
	}
	return nil
}

// authFileErrors says why data is not an auth file memcached reads as written ("" when it is):
// 1 to maxAuthEntries lines "user:password" ending in \n or \r\n, at most maxAuthLine bytes each,
// user and password non-empty and without spaces (clients send "user password"), the user without
// a colon. memcached itself refuses a line without a colon and silently ignores or splits what
// exceeds its limits. The message never quotes the data.
func authFileErrors(data []byte) string {
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(lines) > maxAuthEntries {
		return fmt.Sprintf("has %d lines; memcached reads at most %d", len(lines), maxAuthEntries)
	}
	for i, l := range lines {
		l = bytes.TrimSuffix(l, []byte("\r"))
		user, pass, ok := bytes.Cut(l, []byte(":"))
		switch {
		case len(l) > maxAuthLine:
			return fmt.Sprintf("line %d is longer than %d bytes", i+1, maxAuthLine)
		case !ok || len(user) == 0 || len(pass) == 0:
			return fmt.Sprintf("line %d is not user:password", i+1)
		case bytes.ContainsAny(l, " \t\r\x00"):
			return fmt.Sprintf("line %d has a space, tab, carriage return or NUL", i+1)
		}
	}
	return ""
}

// setSecretHash records hash in dep's pod template (SecretHashAnnotation); an empty hash (no
// Secret used) sets nothing.
func setSecretHash(podTemplate *corev1.PodTemplateSpec, hash string) {
	if hash == "" {
		return
	}
	if podTemplate.Annotations == nil {
		podTemplate.Annotations = map[string]string{}
	}
	podTemplate.Annotations[SecretHashAnnotation] = hash
}

// secretHashNeedsUpdate reports whether live's pod template hash differs from desired's (an
// absent one equals "").
func secretHashNeedsUpdate(live, desired *corev1.PodTemplateSpec) bool {
	return live.Annotations[SecretHashAnnotation] != desired.Annotations[SecretHashAnnotation]
}

// updateSecretHash copies desired's hash into live's pod template, removing it when desired has
// none; other annotations (kubectl rollout restart's, a user's) are kept.
func updateSecretHash(live, desired *corev1.PodTemplateSpec) {
	h, ok := desired.Annotations[SecretHashAnnotation]
	switch {
	case ok:
		if live.Annotations == nil {
			live.Annotations = map[string]string{}
		}
		live.Annotations[SecretHashAnnotation] = h
	default:
		delete(live.Annotations, SecretHashAnnotation)
	}
}

// indexSecrets is the SecretsIndex function: the names of the Secrets a Memcached references.
func indexSecrets(obj client.Object) []string {
	mc, ok := obj.(*cachev1alpha1.Memcached)
	if !ok {
		return nil
	}
	return referencedSecrets(mc)
}

// secretToMemcacheds returns a map function from a Secret (its metadata) to the Memcacheds of its
// namespace that reference it, found through SecretsIndex in the cache reader.
func secretToMemcacheds(reader client.Reader) func(context.Context, client.Object) []reconcile.Request {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		list := &cachev1alpha1.MemcachedList{}
		if err := reader.List(ctx, list, client.InNamespace(obj.GetNamespace()), client.MatchingFields{SecretsIndex: obj.GetName()}); err != nil {
			return nil
		}
		out := make([]reconcile.Request, 0, len(list.Items))
		for i := range list.Items {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
		}
		return out
	}
}

// trimSecretMetadata is the cache transform of the Secrets' metadata (the operator watches
// Secrets as metadata only): it keeps name, namespace, UID and resourceVersion, all the watch
// needs to map an event to the Memcacheds that name the Secret. Labels and annotations are
// dropped: kubectl apply's last-applied-configuration annotation would hold the Secret's data.
func trimSecretMetadata(obj any) (any, error) {
	m, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		return obj, nil
	}
	return &metav1.PartialObjectMetadata{
		TypeMeta: m.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion,
			DeletionTimestamp: m.DeletionTimestamp,
		},
	}, nil
}
