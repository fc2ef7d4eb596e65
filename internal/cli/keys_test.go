package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/sign"
)

func TestKeysGenerateThenDirectory(t *testing.T) {
	code, stdout, stderr := runMain(t, nil, "keys", "generate")
	if code != ExitOK {
		t.Fatalf("generate: exit %d: %s", code, stderr)
	}
	pemEnd := strings.Index(stdout, "-----END PRIVATE KEY-----\n")
	if pemEnd < 0 {
		t.Fatalf("no PEM key in %q", stdout)
	}
	keyPEM := stdout[:pemEnd+len("-----END PRIVATE KEY-----\n")]
	k, err := sign.ParseKey(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	kid := sign.PrivateJWK(k).Kid
	if !strings.Contains(stdout[pemEnd:], `"kid":"`+kid+`"`) {
		t.Errorf("public JWK with kid %s missing: %q", kid, stdout)
	}

	dir := filepath.Join(t.TempDir(), "site", ".well-known", "http-message-signatures-directory")
	env := map[string]string{sign.KeyEnv: keyPEM}
	if code, _, stderr := runMain(t, env, "keys", "directory", "-o", dir); code != ExitOK {
		t.Fatalf("directory: exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	d, err := sign.ParseDirectory(data)
	if err != nil || len(d.Keys) != 1 || d.Keys[0].Kid != kid {
		t.Fatalf("directory %s: %v", data, err)
	}
}

// TestKeysDirectoryRotation: a new key is listed first and the old one
// stays, with an expiry, until that passes.
func TestKeysDirectoryRotation(t *testing.T) {
	out := filepath.Join(t.TempDir(), "dir.json")
	fake := clock.NewFake(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	run := func(seed string) string {
		t.Helper()
		var o, e bytes.Buffer
		io := IO{Out: &o, Err: &e, Getenv: func(k string) string {
			if k == sign.KeyEnv {
				return seed
			}
			return ""
		}}
		if err := runKeys(io, fake, []string{"directory", "-o", out, "--keep", "2d"}); err != nil {
			t.Fatalf("%v: %s", err, e.String())
		}
		b, _ := os.ReadFile(out)
		return string(b)
	}
	k1, k2 := strings.Repeat("11", 32), strings.Repeat("22", 32)
	kid := func(seed string) string { k, _ := sign.ParseKey(seed); return sign.PrivateJWK(k).Kid }
	run(k1)
	fake.Advance(24 * time.Hour)
	got := run(k2)
	if strings.Index(got, kid(k2)) > strings.Index(got, kid(k1)) || !strings.Contains(got, kid(k1)) {
		t.Fatalf("after rotation want new key first and old key kept:\n%s", got)
	}
	if !strings.Contains(got, `"exp": 1796342400`) { // 2026-12-02 + 2d
		t.Errorf("old key has no expiry two days on:\n%s", got)
	}
	fake.Advance(2 * 24 * time.Hour)
	if got := run(k2); strings.Contains(got, kid(k1)) {
		t.Errorf("expired key still listed:\n%s", got)
	}
}

func TestKeysDirectoryNeedsAKey(t *testing.T) {
	code, _, stderr := runMain(t, nil, "keys", "directory", "-o", filepath.Join(t.TempDir(), "d"))
	if code != ExitUsage || !strings.Contains(stderr, sign.KeyEnv) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
