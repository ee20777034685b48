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
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"

	"github.com/example/memcached-operator/controllers/internal/fixture"
)

func TestSecretArgs(t *testing.T) {
	const chain = "ssl_chain_cert=/etc/memcached/tls/tls.crt,ssl_key=/etc/memcached/tls/tls.key"
	tests := map[string]struct {
		mc   *cachev1alpha1.Memcached
		want []string
	}{
		"neither":             {mc: fixture.Defaulted("a"), want: nil},
		"tls":                 {mc: fixture.Defaulted("a", fixture.WithTLS("cert")), want: []string{"-Z", "-o", chain}},
		"tls, CA required":    {mc: fixture.Defaulted("a", fixture.WithTLS("cert"), fixture.WithClientCA("", "ca.crt", "Require")), want: []string{"-Z", "-o", chain + ",ssl_ca_cert=/etc/memcached/tls/ca.crt,ssl_verify_mode=2"}},
		"tls, CA requested":   {mc: fixture.Defaulted("a", fixture.WithTLS("cert"), fixture.WithClientCA("ca", "bundle.pem", "Request")), want: []string{"-Z", "-o", chain + ",ssl_ca_cert=/etc/memcached/tls/ca.crt,ssl_verify_mode=1"}},
		"tls, CA no defaults": {mc: fixture.Defaulted("a", fixture.WithTLS("cert"), fixture.WithClientCA("", "", "")), want: []string{"-Z", "-o", chain + ",ssl_ca_cert=/etc/memcached/tls/ca.crt,ssl_verify_mode=2"}},
		"auth":                {mc: fixture.Defaulted("a", fixture.WithAuth("users", "authfile")), want: []string{"-Y", "/etc/memcached/auth/authfile"}},
		"tls and auth":        {mc: fixture.Defaulted("a", fixture.WithTLS("cert"), fixture.WithAuth("users", "other")), want: []string{"-Z", "-o", chain, "-Y", "/etc/memcached/auth/authfile"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := secretArgs(tc.mc); !equality.Semantic.DeepEqual(got, tc.want) {
				t.Fatalf("secretArgs = %q, want %q", got, tc.want)
			}
		})
	}
	// The flags come before the user's extra arguments.
	mc := fixture.Defaulted("a", fixture.WithAuth("users", ""), func(mc *cachev1alpha1.Memcached) { mc.Spec.Memcached.ExtraArgs = []string{"-o", "modern"} })
	if got, want := MemcachedArgs(mc, Options{}), []string{"-p", "11211", "-U", "0", "-m", "64", "-c", "1024", "-t", "4", "-Y", "/etc/memcached/auth/authfile", "-o", "modern"}; !equality.Semantic.DeepEqual(got, want) {
		t.Fatalf("memcachedArgs = %q, want %q", got, want)
	}
}

func TestSecretVolumes(t *testing.T) {
	item := func(k, p string) corev1.KeyToPath { return corev1.KeyToPath{Key: k, Path: p} }
	src := func(name string, items ...corev1.KeyToPath) corev1.VolumeProjection {
		return corev1.VolumeProjection{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: name}, Items: items}}
	}
	vol := func(name string, srcs ...corev1.VolumeProjection) corev1.Volume {
		return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: srcs, DefaultMode: ptr.To[int32](0o440)}}}
	}
	tlsMount := corev1.VolumeMount{Name: "memcached-tls", MountPath: "/etc/memcached/tls", ReadOnly: true}
	authMount := corev1.VolumeMount{Name: "memcached-auth", MountPath: "/etc/memcached/auth", ReadOnly: true}
	tests := map[string]struct {
		mc      *cachev1alpha1.Memcached
		vols    []corev1.Volume
		mounts  []corev1.VolumeMount
		secrets []string
	}{
		"neither": {mc: fixture.Defaulted("a")},
		"tls": {
			mc:      fixture.Defaulted("a", fixture.WithTLS("cert")),
			vols:    []corev1.Volume{vol("memcached-tls", src("cert", item("tls.crt", "tls.crt"), item("tls.key", "tls.key")))},
			mounts:  []corev1.VolumeMount{tlsMount},
			secrets: []string{"cert"},
		},
		"tls with the CA of its own Secret": {
			mc:      fixture.Defaulted("a", fixture.WithTLS("cert"), fixture.WithClientCA("", "ca.crt", "Require")),
			vols:    []corev1.Volume{vol("memcached-tls", src("cert", item("tls.crt", "tls.crt"), item("tls.key", "tls.key"), item("ca.crt", "ca.crt")))},
			mounts:  []corev1.VolumeMount{tlsMount},
			secrets: []string{"cert"},
		},
		"tls with a CA Secret": {
			mc:      fixture.Defaulted("a", fixture.WithTLS("cert"), fixture.WithClientCA("ca", "bundle.pem", "Require")),
			vols:    []corev1.Volume{vol("memcached-tls", src("cert", item("tls.crt", "tls.crt"), item("tls.key", "tls.key")), src("ca", item("bundle.pem", "ca.crt")))},
			mounts:  []corev1.VolumeMount{tlsMount},
			secrets: []string{"ca", "cert"},
		},
		"auth, default key": {
			mc:      fixture.Defaulted("a", fixture.WithAuth("users", "")),
			vols:    []corev1.Volume{vol("memcached-auth", src("users", item("authfile", "authfile")))},
			mounts:  []corev1.VolumeMount{authMount},
			secrets: []string{"users"},
		},
		"tls and auth in one Secret": {
			mc: fixture.Defaulted("a", fixture.WithTLS("all"), fixture.WithAuth("all", "users")),
			vols: []corev1.Volume{
				vol("memcached-tls", src("all", item("tls.crt", "tls.crt"), item("tls.key", "tls.key"))),
				vol("memcached-auth", src("all", item("users", "authfile"))),
			},
			mounts:  []corev1.VolumeMount{tlsMount, authMount},
			secrets: []string{"all"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := secretVolumes(tc.mc); !equality.Semantic.DeepEqual(got, tc.vols) {
				t.Errorf("secretVolumes = %+v, want %+v", got, tc.vols)
			}
			if got := secretMounts(tc.mc); !equality.Semantic.DeepEqual(got, tc.mounts) {
				t.Errorf("secretMounts = %+v, want %+v", got, tc.mounts)
			}
			if got := ReferencedSecrets(tc.mc); !equality.Semantic.DeepEqual(got, tc.secrets) {
				t.Errorf("referencedSecrets = %q, want %q", got, tc.secrets)
			}
			dep := DesiredDeployment(tc.mc, Options{DefaultImage: testImage})
			wantFS := (*int64)(nil)
			if len(tc.vols) > 0 {
				wantFS = ptr.To[int64](11211)
			}
			if got := dep.Spec.Template.Spec.SecurityContext.FSGroup; !ptr.Equal(got, wantFS) {
				t.Errorf("fsGroup = %v, want %v", ptr.Deref(got, -1), ptr.Deref(wantFS, -1))
			}
			if !equality.Semantic.DeepEqual(dep.Spec.Template.Spec.Volumes, tc.vols) || !equality.Semantic.DeepEqual(dep.Spec.Template.Spec.Containers[0].VolumeMounts, tc.mounts) {
				t.Errorf("desiredDeployment does not carry the volumes and mounts")
			}
		})
	}
}

// secretOf returns a Secret named name with data.
func secretOf(name string, data map[string][]byte) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-of-" + name)}, Data: data}
}

func TestCheckSecretData(t *testing.T) {
	cert, key := fixture.KeyPair(t, "a")
	other, otherKey := fixture.KeyPair(t, "b")
	_ = otherKey
	tlsData := func(kv ...string) map[string][]byte {
		m := map[string][]byte{"tls.crt": cert, "tls.key": key}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(m, kv[i])
				continue
			}
			m[kv[i]] = []byte(kv[i+1])
		}
		return m
	}
	tests := map[string]struct {
		mc      *cachev1alpha1.Memcached
		secrets map[string]*corev1.Secret
		want    string // substring of the error; "" for none
	}{
		"tls ok":              {mc: fixture.Defaulted("a", fixture.WithTLS("c")), secrets: map[string]*corev1.Secret{"c": secretOf("c", tlsData())}},
		"tls.key missing":     {mc: fixture.Defaulted("a", fixture.WithTLS("c")), secrets: map[string]*corev1.Secret{"c": secretOf("c", tlsData("tls.key", ""))}, want: "Secret c: key tls.key is missing or empty (referenced by spec.tls.secretName)"},
		"tls.crt not PEM":     {mc: fixture.Defaulted("a", fixture.WithTLS("c")), secrets: map[string]*corev1.Secret{"c": secretOf("c", tlsData("tls.crt", "junk"))}, want: "Secret c: key tls.crt and tls.key are not a PEM certificate chain"},
		"key of another cert": {mc: fixture.Defaulted("a", fixture.WithTLS("c")), secrets: map[string]*corev1.Secret{"c": secretOf("c", map[string][]byte{"tls.crt": other, "tls.key": key})}, want: "are not a PEM certificate chain"},
		"ca ok":               {mc: fixture.Defaulted("a", fixture.WithTLS("c"), fixture.WithClientCA("", "ca.crt", "Require")), secrets: map[string]*corev1.Secret{"c": secretOf("c", tlsData("ca.crt", string(other)))}},
		"ca missing":          {mc: fixture.Defaulted("a", fixture.WithTLS("c"), fixture.WithClientCA("", "ca.crt", "Require")), secrets: map[string]*corev1.Secret{"c": secretOf("c", tlsData())}, want: "Secret c: key ca.crt is missing or empty (referenced by spec.tls.secretName, spec.tls.clientCA)"},
		"ca not PEM":          {mc: fixture.Defaulted("a", fixture.WithTLS("c"), fixture.WithClientCA("ca", "b", "Require")), secrets: map[string]*corev1.Secret{"c": secretOf("c", tlsData()), "ca": secretOf("ca", map[string][]byte{"b": []byte("x")})}, want: "Secret ca: key b holds no PEM certificate (referenced by spec.tls.clientCA)"},
		"auth ok":             {mc: fixture.Defaulted("a", fixture.WithAuth("u", "authfile")), secrets: map[string]*corev1.Secret{"u": secretOf("u", map[string][]byte{"authfile": []byte("app:s3cret\nops:other:pw\r\n")})}},
		"auth malformed":      {mc: fixture.Defaulted("a", fixture.WithAuth("u", "authfile")), secrets: map[string]*corev1.Secret{"u": secretOf("u", map[string][]byte{"authfile": []byte("app s3cret\n")})}, want: "Secret u: key authfile line 1 is not user:password"},
		"auth other key":      {mc: fixture.Defaulted("a", fixture.WithAuth("u", "authfile")), secrets: map[string]*corev1.Secret{"u": secretOf("u", map[string][]byte{"users": []byte("a:b")})}, want: "key authfile is missing or empty"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := checkSecretData(tc.mc, tc.secrets)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("want no error, got %v", err)
				}
				return
			}
			var se *SecretError
			if !errors.As(err, &se) || se.Reason != cachev1alpha1.ReasonInvalidSecret || !strings.Contains(se.Message, tc.want) {
				t.Fatalf("want an InvalidSecret error containing %q, got %v", tc.want, err)
			}
			if strings.Contains(se.Message, "s3cret") || strings.Contains(se.Message, "PRIVATE KEY") {
				t.Fatalf("the message quotes the Secret's data: %s", se.Message)
			}
		})
	}
}

// TestAuthFileErrors checks each branch of the rule without memcached;
// TestAuthFileReadByRealMemcached checks the rule against memcached itself.
func TestAuthFileErrors(t *testing.T) {
	tests := map[string]struct {
		data string
		want string
	}{
		"one line":                    {data: "app:pw\n"},
		"one line, no newline":        {data: "app:pw", want: ""},
		"one line, CRLF":              {data: "app:pw\r\n", want: ""},
		"one line, lone CR":           {data: "app:pw\r", want: ""},
		"two lines, no final newline": {data: "a:1\nb:2"},
		"CRLF":                        {data: "a:1\r\nb:2\r\n"},
		"CRLF, the last without":      {data: "a:1\r\nb:2"},
		"8 lines":                     {data: strings.Repeat("a:b\n", 8)},
		"9 lines":                     {data: strings.Repeat("a:b\n", 9), want: "has 9 lines; memcached reads at most 8"},
		"colon in password":           {data: "a:b:c\n"},
		"no colon":                    {data: "a\n", want: "line 1 is not user:password"},
		"empty user":                  {data: ":pw\n", want: "line 1 has an empty user or password, which no client can send"},
		"empty password":              {data: "a:\n", want: "line 1 has an empty user or password, which no client can send"},
		"blank line":                  {data: "a:b\n\nc:d\n", want: "line 2 is not user:password"},
		"two newlines at the end":     {data: "a:b\n\n", want: "line 2 is not user:password"},
		"space in password":           {data: "a:b c\n", want: "line 1 has a space, which no client can send in a user or password"},
		"tab in user and password":    {data: "a\tb:c\td\n"},
		"non-ASCII bytes":             {data: "jos\xe9:contrase\xf1a\n\u65e5:\u672c\n"},
		"byte-order mark":             {data: "\ufeffa:b\n", want: "line 1 starts with a UTF-8 byte-order mark"},
		"254 bytes and LF":            {data: "a:" + strings.Repeat("p", 252) + "\nb:c\n"},
		"255 bytes and LF":            {data: "a:" + strings.Repeat("p", 253) + "\nb:c\n", want: "line 1 is longer than 255 bytes with its line ending"},
		"253 bytes and CRLF":          {data: "a:" + strings.Repeat("p", 251) + "\r\nb:c\r\n"},
		"254 bytes and CRLF":          {data: "a:" + strings.Repeat("p", 252) + "\r\nb:c\r\n", want: "line 1 is longer than 255 bytes with its line ending"},
		"255 bytes, last, no newline": {data: "b:c\na:" + strings.Repeat("p", 253)},
		"256 bytes, last, no newline": {data: "b:c\na:" + strings.Repeat("p", 254), want: "line 2 is longer than 255 bytes with its line ending"},
		"carriage return mid-line":    {data: "a:b\rc\n", want: "line 1 has a carriage return or NUL byte before its end"},
		"NUL in the password":         {data: "a:b\x00c\n", want: "line 1 has a carriage return or NUL byte before its end"},
		"second line without colon":   {data: "a:b\nc", want: "line 2 is not user:password"},
		"one user, two passwords":     {data: "a:old\na:new\n"},
		"byte-order mark on line 2":   {data: "a:b\n\ufeffc:d\n", want: "line 2 starts with a UTF-8 byte-order mark"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := authFileErrors([]byte(tc.data)); got != tc.want {
				t.Fatalf("authFileErrors = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestHashSecretData(t *testing.T) {
	mc := fixture.Defaulted("a", fixture.WithTLS("c"), fixture.WithAuth("u", "authfile"))
	files := secretFiles(mc)
	base := func() map[string]*corev1.Secret {
		return map[string]*corev1.Secret{
			"c": secretOf("c", map[string][]byte{"tls.crt": []byte("crt"), "tls.key": []byte("key"), "ca.crt": []byte("unused")}),
			"u": secretOf("u", map[string][]byte{"authfile": []byte("a:b"), "other": []byte("unused")}),
		}
	}
	h0 := hashSecretData(files, base())
	if len(h0) != 64 {
		t.Fatalf("hash %q is not a hex SHA-256", h0)
	}
	tests := map[string]struct {
		mutate  func(map[string]*corev1.Secret)
		changes bool
	}{
		"nothing":             {mutate: func(map[string]*corev1.Secret) {}},
		"an unused key":       {mutate: func(s map[string]*corev1.Secret) { s["c"].Data["ca.crt"] = []byte("rotated") }},
		"a key added":         {mutate: func(s map[string]*corev1.Secret) { s["u"].Data["new"] = []byte("x") }},
		"labels":              {mutate: func(s map[string]*corev1.Secret) { s["c"].Labels = map[string]string{"a": "b"} }},
		"certificate rotated": {mutate: func(s map[string]*corev1.Secret) { s["c"].Data["tls.crt"] = []byte("crt2") }, changes: true},
		"password changed":    {mutate: func(s map[string]*corev1.Secret) { s["u"].Data["authfile"] = []byte("a:c") }, changes: true},
		"bytes moved between files": {mutate: func(s map[string]*corev1.Secret) {
			s["c"].Data["tls.crt"], s["c"].Data["tls.key"] = []byte("crtk"), []byte("ey")
		}, changes: true},
		// The UIDs key the hash: a Secret created again with the same data is another key.
		"auth Secret recreated": {mutate: func(s map[string]*corev1.Secret) { s["u"].UID = "another" }, changes: true},
		"UIDs swapped": {mutate: func(s map[string]*corev1.Secret) {
			s["c"].UID, s["u"].UID = s["u"].UID, s["c"].UID
		}, changes: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := base()
			tc.mutate(s)
			if got := hashSecretData(files, s); (got != h0) != tc.changes {
				t.Fatalf("hash changed: %v, want %v", got != h0, tc.changes)
			}
		})
	}
}

// The hash annotation and the Secret volumes are owned fields: drift of either is corrected,
// others' template annotations are kept, and an unchanged template needs no update.
// The pod template's hash cannot be checked against a guessed password by someone who reads the
// template but not the Secret: the same data under unknown UIDs gives another hash, and the plain
// SHA-256 of the data with the same framing is not the hash.
func TestHashSecretDataIsKeyed(t *testing.T) {
	mc := fixture.Defaulted("a", fixture.WithAuth("u", "authfile"))
	files := secretFiles(mc)
	secrets := func(uid types.UID) map[string]*corev1.Secret {
		s := secretOf("u", map[string][]byte{"authfile": []byte("user:guessable\n")})
		s.UID = uid
		return map[string]*corev1.Secret{"u": s}
	}
	got := hashSecretData(files, secrets("7b6f2f0e-2d4a-4d4e-9a43-1c1f3b0f9e21"))
	if other := hashSecretData(files, secrets("0a1b2c3d-0000-4000-8000-000000000000")); got == other {
		t.Fatalf("the same data under two UIDs hashes alike (%s): the hash is not keyed", got)
	}
	unkeyed := sha256.New()
	for _, f := range files {
		for _, b := range [][]byte{[]byte(f.path()), secrets("")["u"].Data[f.key]} {
			_ = binary.Write(unkeyed, binary.BigEndian, uint64(len(b)))
			unkeyed.Write(b)
		}
	}
	if got == hex.EncodeToString(unkeyed.Sum(nil)) {
		t.Fatalf("the hash is the unkeyed SHA-256 of the data: a guess can be checked offline")
	}
}

func TestSecretDrift(t *testing.T) {
	desired := func() *appsv1.Deployment {
		d := DesiredDeployment(fixture.Defaulted("a", fixture.WithTLS("c"), fixture.WithAuth("u", "")), Options{DefaultImage: testImage})
		SetSecretHash(&d.Spec.Template, "h1")
		return d
	}
	tests := map[string]struct {
		mutate func(live *appsv1.Deployment)
		update bool
	}{
		"unchanged":                 {mutate: func(*appsv1.Deployment) {}},
		"rollout restart annotated": {mutate: func(l *appsv1.Deployment) { l.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"] = "now" }},
		"hash edited":               {mutate: func(l *appsv1.Deployment) { l.Spec.Template.Annotations[SecretHashAnnotation] = "h0" }, update: true},
		"hash removed":              {mutate: func(l *appsv1.Deployment) { delete(l.Spec.Template.Annotations, SecretHashAnnotation) }, update: true},
		"volume removed":            {mutate: func(l *appsv1.Deployment) { l.Spec.Template.Spec.Volumes = l.Spec.Template.Spec.Volumes[:1] }, update: true},
		"volume added": {mutate: func(l *appsv1.Deployment) {
			l.Spec.Template.Spec.Volumes = append(l.Spec.Template.Spec.Volumes, corev1.Volume{Name: "x"})
		}, update: true},
		"mode loosened": {mutate: func(l *appsv1.Deployment) {
			l.Spec.Template.Spec.Volumes[0].Projected.DefaultMode = ptr.To[int32](0o644)
		}, update: true},
		"mount made writable": {mutate: func(l *appsv1.Deployment) { l.Spec.Template.Spec.Containers[0].VolumeMounts[0].ReadOnly = false }, update: true},
		"mount removed":       {mutate: func(l *appsv1.Deployment) { l.Spec.Template.Spec.Containers[0].VolumeMounts = nil }, update: true},
		"fsGroup removed":     {mutate: func(l *appsv1.Deployment) { l.Spec.Template.Spec.SecurityContext.FSGroup = nil }, update: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			live := desired()
			tc.mutate(live)
			if got := DeploymentNeedsUpdate(live, desired()); got != tc.update {
				t.Fatalf("deploymentNeedsUpdate = %v, want %v", got, tc.update)
			}
			UpdateDeployment(live, desired())
			if DeploymentNeedsUpdate(live, desired()) {
				t.Fatal("still needs an update after updateDeployment")
			}
			if v, ok := live.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"]; name == "rollout restart annotated" && (!ok || v != "now") {
				t.Fatal("an annotation of others was dropped")
			}
		})
	}

	// Turning the Secrets off removes the hash, the volumes and fsGroup.
	live := desired()
	plain := DesiredDeployment(fixture.Defaulted("a"), Options{DefaultImage: testImage})
	if !DeploymentNeedsUpdate(live, plain) {
		t.Fatal("no update when spec.tls and spec.auth are removed")
	}
	UpdateDeployment(live, plain)
	if _, ok := live.Spec.Template.Annotations[SecretHashAnnotation]; ok || len(live.Spec.Template.Spec.Volumes) != 0 || live.Spec.Template.Spec.SecurityContext.FSGroup != nil {
		t.Fatalf("hash, volumes or fsGroup left: %v %v %v", live.Spec.Template.Annotations, live.Spec.Template.Spec.Volumes, live.Spec.Template.Spec.SecurityContext.FSGroup)
	}
}

// An instance without spec.tls and spec.auth gets the pod template it had before these fields
// existed (no fsGroup, volume, mount, template annotation or flag), so upgrading the operator
// restarts no memcached pod.
func TestNoSecretsKeepsThePodTemplate(t *testing.T) {
	mc := fixture.Defaulted("a", fixture.Tuned)
	d := DesiredDeployment(mc, Options{DefaultImage: testImage})
	SetSecretHash(&d.Spec.Template, "")
	tpl := d.Spec.Template
	if tpl.Annotations != nil || tpl.Spec.Volumes != nil || tpl.Spec.Containers[0].VolumeMounts != nil || tpl.Spec.SecurityContext.FSGroup != nil {
		t.Fatalf("template changed: annotations %v, volumes %v, mounts %v, fsGroup %v",
			tpl.Annotations, tpl.Spec.Volumes, tpl.Spec.Containers[0].VolumeMounts, tpl.Spec.SecurityContext.FSGroup)
	}
	for _, a := range tpl.Spec.Containers[0].Args {
		if a == "-Z" || a == "-Y" {
			t.Fatalf("args carry %s: %q", a, tpl.Spec.Containers[0].Args)
		}
	}
	if refs := ReferencedSecrets(mc); refs != nil {
		t.Fatalf("referencedSecrets = %q, want none", refs)
	}
}
