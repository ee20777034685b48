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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/example/memcached-operator/controllers/internal/fixture"
	"github.com/example/memcached-operator/test/utils"
)

// TestAuthFileReadByRealMemcached writes each class of auth file content to a file, starts the
// memcached the Makefile pins (utils.MemcachedBinary) with the builder's flags and -Y on it, and checks that authFileErrors
// accepts exactly what memcached reads as the user meant: memcached starts, every credential the
// user meant authenticates and no unintended one (a cut password, a user with a byte-order mark)
// does. Rows whose reading changed with memcached's version say so (since); rows the rule refuses
// although memcached reads them as meant (from since on, when set) say why (stricter).
func TestAuthFileReadByRealMemcached(t *testing.T) {
	bin := utils.MemcachedBinary(t)
	out, err := exec.Command(bin, "-V").Output()
	if err != nil {
		t.Fatalf("memcached -V: %v", err)
	}
	version := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "memcached "))
	dir, err := os.MkdirTemp("", "memcached-authfile-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	// memcached drops root for -u nobody: the files must be readable by it.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}

	long := func(n int) string { return strings.Repeat("p", n) }
	// From 1.6.40 memcached splits a client's "<user> <password>" at its first space only, so an
	// empty user, an empty password and a password with spaces authenticate; earlier versions
	// split at every space and refuse them. The rule refuses them: one Secret serves every pod
	// of an instance, and pods may run memcached before 1.6.40 (spec.image, or the previous
	// default image's 1.6.38 until an upgrade has rolled them), where those credentials fail.
	const spaceSplit = "memcached before 1.6.40 splits the credentials at every space, and an instance's pods may run it"
	var eight, nine []string
	var eightLines string
	for i := 1; i <= 9; i++ {
		if i <= 8 {
			eight = append(eight, fmt.Sprintf("u%d p%d", i, i))
			eightLines += fmt.Sprintf("u%d:p%d\n", i, i)
		}
		nine = append(nine, fmt.Sprintf("u%d p%d", i, i))
	}
	tests := map[string]struct {
		data string
		// meant are the credentials the user meant, as a client sends them ("user password");
		// unintended are ones that must not authenticate.
		meant, unintended []string
		// asMeant: memcached starts, every meant credential works and no unintended one does,
		// from version since on when set (earlier versions, 1.6.18 among them, do not).
		asMeant bool
		since   string
		// stricter says why the rule refuses data memcached reads as meant.
		stricter string
		// want is authFileErrors' answer.
		want string
	}{
		"LF endings":                      {data: "app:s3cret\nops:other\n", meant: []string{"app s3cret", "ops other"}, asMeant: true},
		"CRLF endings":                    {data: "app:s3cret\r\nops:other\r\n", meant: []string{"app s3cret", "ops other"}, unintended: []string{"app s3cret\r"}, asMeant: true},
		"mixed endings":                   {data: "app:s3cret\r\nops:other\n", meant: []string{"app s3cret", "ops other"}, asMeant: true},
		"one line, LF":                    {data: "app:s3cret\n", meant: []string{"app s3cret"}, asMeant: true},
		"one line, no final newline":      {data: "app:s3cret", meant: []string{"app s3cret"}, unintended: []string{"app s3cre"}, asMeant: true, since: "1.6.32"},
		"one line, CRLF":                  {data: "app:s3cret\r\n", meant: []string{"app s3cret"}, asMeant: true, since: "1.6.32"},
		"one line, lone CR":               {data: "app:s3cret\r", meant: []string{"app s3cret"}, asMeant: true},
		"two lines, no final newline":     {data: "app:s3cret\nops:other", meant: []string{"app s3cret", "ops other"}, unintended: []string{"ops othe"}, asMeant: true},
		"lone CR endings":                 {data: "app:s3cret\rops:other\r", meant: []string{"app s3cret", "ops other"}, want: "line 1 has a carriage return or NUL byte before its end"},
		"carriage return in the password": {data: "app:s3\rcret\n", meant: []string{"app s3\rcret"}, unintended: []string{"app s3"}, want: "line 1 has a carriage return or NUL byte before its end"},
		"UTF-8 byte-order mark":           {data: "\ufeffapp:s3cret\n", meant: []string{"app s3cret"}, unintended: []string{"\ufeffapp s3cret"}, want: "line 1 starts with a UTF-8 byte-order mark"},
		"UTF-16 with byte-order mark":     {data: "\xff\xfea\x00:\x00b\x00\n\x00", meant: []string{"a b"}, want: "line 1 has a carriage return or NUL byte before its end"},
		"UTF-8 user and password":         {data: "josé:contraseña\n日本:パスワード\n", meant: []string{"josé contraseña", "日本 パスワード"}, asMeant: true},
		"Latin-1 user and password":       {data: "jos\xe9:contrase\xf1a\n", meant: []string{"jos\xe9 contrase\xf1a"}, unintended: []string{"josé contraseña"}, asMeant: true},
		"254-byte line, LF":               {data: "a:" + long(252) + "\nops:other\n", meant: []string{"a " + long(252), "ops other"}, asMeant: true},
		"255-byte line, LF":               {data: "a:" + long(253) + "\nops:other\n", meant: []string{"a " + long(253), "ops other"}, want: "line 1 is longer than 255 bytes with its line ending"},
		"255-byte last line, LF":          {data: "ops:other\na:" + long(253) + "\n", meant: []string{"a " + long(253), "ops other"}, asMeant: true, stricter: "a line of 255 bytes is read whole only when it is the last", want: "line 2 is longer than 255 bytes with its line ending"},
		"256-byte last line, LF":          {data: "ops:other\na:" + long(254) + "\n", meant: []string{"a " + long(254), "ops other"}, unintended: []string{"a " + long(253)}, want: "line 2 is longer than 255 bytes with its line ending"},
		"253-byte line, CRLF":             {data: "a:" + long(251) + "\r\nops:other\r\n", meant: []string{"a " + long(251), "ops other"}, asMeant: true},
		"254-byte line, CRLF":             {data: "a:" + long(252) + "\r\nops:other\r\n", meant: []string{"a " + long(252), "ops other"}, want: "line 1 is longer than 255 bytes with its line ending"},
		"colon in the password":           {data: "app:s3:cret\n", meant: []string{"app s3:cret"}, unintended: []string{"app s3"}, asMeant: true},
		"no colon":                        {data: "app s3cret\n", meant: []string{"app s3cret"}, want: "line 1 is not user:password"},
		"empty user":                      {data: ":s3cret\n", meant: []string{" s3cret"}, asMeant: true, since: "1.6.40", stricter: spaceSplit, want: "line 1 has an empty user or password, which no client can send"},
		"empty password":                  {data: "app:\n", meant: []string{"app "}, asMeant: true, since: "1.6.40", stricter: spaceSplit, want: "line 1 has an empty user or password, which no client can send"},
		"space in the password":           {data: "app:s3 cret\n", meant: []string{"app s3 cret"}, unintended: []string{"app s3"}, asMeant: true, since: "1.6.40", stricter: spaceSplit, want: "line 1 has a space, which no client can send in a user or password"},
		"space in the user":               {data: "my app:s3cret\n", meant: []string{"my app s3cret"}, want: "line 1 has a space, which no client can send in a user or password"},
		"trailing space":                  {data: "app:s3cret \n", meant: []string{"app s3cret"}, want: "line 1 has a space, which no client can send in a user or password"},
		"tab in user and password":        {data: "my\tapp:s3\tcret\n", meant: []string{"my\tapp s3\tcret"}, asMeant: true},
		"one user, two passwords":         {data: "app:old\napp:new\n", meant: []string{"app old", "app new"}, asMeant: true},
		"empty trailing line":             {data: "app:s3cret\n\n", meant: []string{"app s3cret"}, want: "line 2 is not user:password"},
		"blank line between entries":      {data: "app:s3cret\n\nops:other\n", meant: []string{"app s3cret", "ops other"}, want: "line 2 is not user:password"},
		"8 entries":                       {data: eightLines, meant: eight, asMeant: true},
		"9 entries":                       {data: eightLines + "u9:p9\n", meant: nine, want: "has 9 lines; memcached reads at most 8"},
		"8 entries and an empty line":     {data: eightLines + "\n", meant: eight, asMeant: true, stricter: "memcached stops at the 8th entry and never reads the blank line", want: "has 9 lines; memcached reads at most 8"},
		"NUL byte in the password":        {data: "app:s3\x00cret\nops:other\n", meant: []string{"app s3\x00cret", "ops other"}, unintended: []string{"app s3"}, want: "line 1 has a carriage return or NUL byte before its end"},
		"NUL byte in the user":            {data: "a\x00pp:s3cret\n", meant: []string{"a\x00pp s3cret"}, want: "line 1 has a carriage return or NUL byte before its end"},
	}
	i := 0
	for name, tc := range tests {
		i++
		fileDir := filepath.Join(dir, fmt.Sprint(i))
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := authFileErrors([]byte(tc.data))
			if got != tc.want {
				t.Errorf("authFileErrors = %q, want %q", got, tc.want)
			}
			if tc.stricter != "" && (!tc.asMeant || tc.want == "") {
				t.Fatalf("a stricter row is read as meant and refused: asMeant %v, want %q", tc.asMeant, tc.want)
			}
			// A row read as meant only from version since on is accepted when the default image
			// (memcached 1.6.46) reads it as meant (authFileErrors' doc comment), unless it is
			// stricter.
			if tc.stricter == "" && (tc.want == "") != tc.asMeant {
				t.Fatalf("the rule must accept exactly what the default image reads as meant: asMeant %v since %q, want %q", tc.asMeant, tc.since, tc.want)
			}

			if err := os.Mkdir(fileDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(fileDir, authFile), []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			args, _ := podArgs(t, fixture.Defaulted("a", fixture.WithAuth("u", "")), Options{}, tlsDir, fileDir)
			var why []string
			p, err := startMemcached(t, bin, args)
			if err != nil {
				why = append(why, "does not start: "+err.Error())
			}
			for _, c := range tc.meant {
				if p == nil {
					break
				}
				if answer, err := versionOver(p.addr, nil, c); err != nil || !strings.HasPrefix(answer, "VERSION ") {
					why = append(why, fmt.Sprintf("refuses meant %q (%q, %v)", c, answer, err))
				}
			}
			for _, c := range tc.unintended {
				if p == nil {
					break
				}
				if answer, err := versionOver(p.addr, nil, c); err == nil && strings.HasPrefix(answer, "VERSION ") {
					why = append(why, fmt.Sprintf("accepts unintended %q", c))
				}
			}
			asMeant := len(why) == 0
			want := tc.asMeant && (tc.since == "" || !versionBefore(version, tc.since))
			t.Logf("memcached %s reads it as meant: %v %q; authFileErrors: %q", version, asMeant, why, got)
			if asMeant != want {
				t.Errorf("memcached %s reads it as meant = %v, the table says %v: %q", version, asMeant, want, why)
			}
		})
	}
}

// versionBefore reports whether memcached version v ("1.6.18") is older than w.
func versionBefore(v, w string) bool {
	var a, b [3]int
	_, _ = fmt.Sscanf(v, "%d.%d.%d", &a[0], &a[1], &a[2])
	_, _ = fmt.Sscanf(w, "%d.%d.%d", &b[0], &b[1], &b[2])
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}
