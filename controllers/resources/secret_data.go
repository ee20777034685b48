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
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// The data of the Secrets that spec.tls and spec.auth name: read uncached when a reconcile needs
// it (secretsHash), checked as memcached would load it, and hashed into the pod template
// (deployment_secrets.go puts the files into the pods).

// memcached's limits on its auth file (authfile.c, MAX_ENTRIES and MAX_ENTRY_LEN 256): it keeps
// the first maxAuthEntries entries and ignores the rest of the file; it reads each line with fgets
// into 256 bytes, so at most maxAuthLine bytes with the line ending, and a longer line is cut
// there and ends the file.
const (
	maxAuthEntries = 8
	maxAuthLine    = 255
)

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

// SecretHashes are the keyed hashes (hashSecretData) of the Secret data mc's pods use: All of it,
// and NotTLS, the
// data of the files other than the TLS certificate, key and CA (the auth file), which a running
// memcached cannot reload in place; "" where there is none.
type SecretHashes struct {
	All, NotTLS string
}

// rollout returns the hash the pod template carries (SecretHashAnnotation): the data whose change
// must roll the pods. With warm restarts none: the TLS files reach the running servers through
// the certificate reloader's refresh_certs and the auth file through the launcher's SIGHUP
// (deployment_warm.go). With the certificate reloader alone (certReloadEnabled) that is NotTLS;
// without it, All.
func (h SecretHashes) rollout(mc *cachev1alpha1.Memcached, opts Options) string {
	if warmRestartEnabled(mc, opts) {
		return ""
	}
	if certReloadEnabled(mc, opts) {
		return h.NotTLS
	}
	return h.All
}

// SecretDataHash returns the hashes of the data of the keys mc's pods use, read from secrets
// (every Secret they name, by name), after checking it (checkSecretData: a *SecretError when a
// key is absent or unusable).
func SecretDataHash(mc *cachev1alpha1.Memcached, secrets map[string]*corev1.Secret) (SecretHashes, error) {
	if err := checkSecretData(mc, secrets); err != nil {
		return SecretHashes{}, err
	}
	files := secretFiles(mc)
	var notTLS []secretFile
	for _, f := range files {
		if f.volume != tlsVolume {
			notTLS = append(notTLS, f)
		}
	}
	return SecretHashes{All: hashSecretData(files, secrets), NotTLS: hashSecretData(notTLS, secrets)}, nil
}

// UsedFor names the fields that reference Secret name.
func UsedFor(mc *cachev1alpha1.Memcached, name string) string {
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

// hashSecretData returns the hex HMAC-SHA-256 of the data of files read from secrets: for each file
// in order, its path in the container and its data, each length-prefixed, so no two different
// inputs hash alike. Keys the pods do not use do not count. No files hash to "".
//
// The hash lands in the pod template, which anyone who may view Deployments, StatefulSets or pods
// reads; an unkeyed hash of an auth file (a few short user:password lines) can be brute-forced
// offline. So it is keyed, with the UIDs of the Secrets the files come from (secretKey): a UID is
// random (a version 4 UUID, 122 random bits) and is shown only to those who may read the Secret
// itself, i.e. its data. The hash then still changes exactly when the data changes, and also when
// a Secret is deleted and created again (a new UID), which rolls the pods once.
func hashSecretData(files []secretFile, secrets map[string]*corev1.Secret) string {
	if len(files) == 0 {
		return ""
	}
	h := hmac.New(sha256.New, secretKey(files, secrets))
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

// secretKey is hashSecretData's key: the UID of each Secret files read, in the order they are first
// read, each length-prefixed.
func secretKey(files []secretFile, secrets map[string]*corev1.Secret) []byte {
	var key bytes.Buffer
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f.secret] {
			continue
		}
		seen[f.secret] = true
		uid := []byte(secrets[f.secret].UID)
		_ = binary.Write(&key, binary.BigEndian, uint64(len(uid)))
		key.Write(uid)
	}
	return key.Bytes()
}

// checkSecretData returns a *SecretError (InvalidSecret) for the first key mc's pods use that is
// absent or empty in secrets, or that memcached would refuse: a certificate and key that do not
// form a key pair (crypto/tls.X509KeyPair), a CA bundle without a PEM certificate, an auth file
// that breaks authFileErrors. memcached exits when it cannot load them, so catching them here
// keeps a rollout from starting that could not finish.
func checkSecretData(mc *cachev1alpha1.Memcached, secrets map[string]*corev1.Secret) error {
	invalid := func(f secretFile, why string) error {
		return &SecretError{Reason: cachev1alpha1.ReasonInvalidSecret,
			Message: fmt.Sprintf("Secret %s: key %s %s (%s)", f.secret, f.key, why, UsedFor(mc, f.secret))}
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

// authFileErrors says why data is not an auth file memcached reads as the user meant ("" when it
// is), naming the line, never quoting the data. memcached (authfile.c) takes each line's user up to
// its first ':' and the password up to the first \r, \n or NUL; a client authenticates with a set
// whose data is "<user> <password>", which memcached up to 1.6.39 splits at every space
// (proto_text.c), so no client can send it an empty part or one holding a space. Bytes are
// compared as they are: any encoding works, tabs too, and each line of a user repeated on several
// lines is a password that works. The rule:
//   - 1 to maxAuthEntries lines, each ending in \n or \r\n (the last may end in neither);
//     memcached ignores the lines after the 8th, exits on an empty line, and ends a line at a
//     lone \r and ignores what follows it on that line;
//   - each at most maxAuthLine bytes with its ending (254 before \n, 253 before \r\n): a longer
//     one is cut and ends the file, or its \n is read as an empty line;
//   - each "user:password", both non-empty, no space, \r or NUL inside, not starting with a UTF-8
//     byte-order mark (an editor's, which memcached would take as part of the user).
//
// Checked by running memcached over every class of content (TestAuthFileReadByRealMemcached):
// 1.6.45 (Debian sid's: make test's and the real tier's image; the default image is 1.6.46, the
// release after it, which no table here has run), 1.6.38 (Debian trixie's; the default image up to
// 0.2.3) and 1.6.18 (Debian bookworm's). They differ in a file of one line, where 1.6.32 gave the
// reader its last byte: the rule follows the default image and accepts such a file without a final
// \n or ending in \r\n (what `kubectl create secret --from-literal` makes, and what earlier
// releases of the operator accepted); memcached before 1.6.32 drops the last byte of the first, and
// reads the \n of the second as an empty line and exits (the docs say so for users of spec.image).
// The rule refuses what memcached reads as meant in three cases: a last line of 255 bytes before
// its \n; an empty line after the 8th entry (never read); and an empty user, an empty password or a
// password with spaces, which memcached 1.6.40 and later read as meant (they split a client's
// credentials at the first space only) but earlier ones do not, and one Secret serves every pod of
// an instance, which may run an earlier one (spec.image, or 1.6.38 until an upgrade from 0.2.3 has
// rolled every pod).
func authFileErrors(data []byte) string {
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	finalNewline := bytes.HasSuffix(data, []byte("\n"))
	if len(lines) > maxAuthEntries {
		return fmt.Sprintf("has %d lines; memcached reads at most %d", len(lines), maxAuthEntries)
	}
	for i, l := range lines {
		n := len(l)
		if i < len(lines)-1 || finalNewline {
			n++ // the \n
		}
		l = bytes.TrimSuffix(l, []byte("\r"))
		user, pass, ok := bytes.Cut(l, []byte(":"))
		switch {
		case n > maxAuthLine:
			return fmt.Sprintf("line %d is longer than %d bytes with its line ending", i+1, maxAuthLine)
		case bytes.HasPrefix(l, []byte("\ufeff")):
			return fmt.Sprintf("line %d starts with a UTF-8 byte-order mark", i+1)
		case bytes.ContainsAny(l, "\r\x00"):
			return fmt.Sprintf("line %d has a carriage return or NUL byte before its end", i+1)
		case !ok:
			return fmt.Sprintf("line %d is not user:password", i+1)
		case len(user) == 0 || len(pass) == 0:
			return fmt.Sprintf("line %d has an empty user or password, which no client can send", i+1)
		case bytes.ContainsRune(l, ' '):
			return fmt.Sprintf("line %d has a space, which no client can send in a user or password", i+1)
		}
	}
	return ""
}
