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

package resources

import (
	"path"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// What spec.tls and spec.auth put into the pods. The Secrets' data is never copied into an
// object: the pods mount the keys they use (projected volumes, read-only, mode 0440, group 11211
// through the pod's fsGroup), memcached's flags name the files, and the pod template carries only
// a keyed hash of that data (SecretHashAnnotation, hashSecretData), so a rotation changes the template and rolls the
// pods once, and an unchanged Secret changes nothing.
const (
	// SecretHashAnnotation on the pod template is the keyed hash (hashSecretData) of the Secret data the pods use
	// (secretFiles): it changes exactly when that data changes, which makes the Deployment roll.
	SecretHashAnnotation = "cache.example.com/secret-hash"

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

// ReferencedSecrets returns the sorted, distinct names of the Secrets mc's pods use.
func ReferencedSecrets(mc *cachev1alpha1.Memcached) []string {
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

// SetSecretHash records hash in dep's pod template (SecretHashAnnotation); an empty hash (no
// Secret used) sets nothing.
func SetSecretHash(podTemplate *corev1.PodTemplateSpec, hash string) {
	if hash == "" {
		return
	}
	if podTemplate.Annotations == nil {
		podTemplate.Annotations = map[string]string{}
	}
	podTemplate.Annotations[SecretHashAnnotation] = hash
}

// OwnTemplateAnnotations are the pod template annotations the operator writes and compares:
// the Secret data's hash, and with warm restarts memcached's arguments (deployment_warm.go).
var OwnTemplateAnnotations = []string{SecretHashAnnotation, MemcachedArgsAnnotation}

// ownAnnotationsNeedUpdate reports whether live's pod template differs from desired's in one of
// OwnTemplateAnnotations (an absent one equals "").
func ownAnnotationsNeedUpdate(live, desired *corev1.PodTemplateSpec) bool {
	for _, k := range OwnTemplateAnnotations {
		if live.Annotations[k] != desired.Annotations[k] {
			return true
		}
	}
	return false
}

// updateOwnAnnotations copies desired's OwnTemplateAnnotations into live's pod template, removing
// those desired has not; other annotations (kubectl rollout restart's, a user's) are kept.
func updateOwnAnnotations(live, desired *corev1.PodTemplateSpec) {
	for _, k := range OwnTemplateAnnotations {
		v, ok := desired.Annotations[k]
		switch {
		case ok:
			if live.Annotations == nil {
				live.Annotations = map[string]string{}
			}
			live.Annotations[k] = v
		default:
			delete(live.Annotations, k)
		}
	}
}
