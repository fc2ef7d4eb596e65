//go:build unix

package textview

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoSecretReachesTheParser: a PDF is read through a pdftotext that
// records its environment; none of the bot's credentials is in it, though
// the bot's own environment holds them all.
func TestNoSecretReachesTheParser(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "env.txt")
	stand := filepath.Join(dir, "pdftotext")
	script := "#!/bin/sh\n" +
		"if [ \"$1\" = -v ]; then echo 'pdftotext version 24.02.0' >&2; exit 0; fi\n" +
		"env > '" + seen + "'\n" +
		"cat > /dev/null\n" +
		"printf 'Basic rate 20%%\\f'\n"
	if err := os.WriteFile(stand, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(PDFToTextEnv, stand)
	secrets := map[string]string{
		"GITHUB_TOKEN":                  "ghs_secret-of-the-run",
		"TAXKERNELBOT_TOKEN":            "github_pat_secret",
		"TAXKERNELBOT_APP_PRIVATE_KEY":  "-----BEGIN RSA PRIVATE KEY-----",
		"TAXKERNELBOT_SIGNING_KEY":      "ed25519-secret",
		"AWS_SECRET_ACCESS_KEY":         "aws-secret",
		"ACTIONS_RUNTIME_TOKEN":         "actions-secret",
		"ACTIONS_ID_TOKEN_REQUEST_URL":  "https://token.actions.example/",
		"GITHUB_REPOSITORY":             "taxkernel/taxkernelbot",
		"TAXKERNELBOT_APP_ID":           "12345",
		"SOME_UNRELATED_PASSWORD_THING": "hunter2",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	res := Extract(t.Context(), makePDF(t, tablePage), "application/pdf", Limits{})
	if !strings.Contains(res.Text, "Basic rate 20%") {
		t.Fatalf("the stand-in did not read the PDF: %q (%s)", res.Text, res.Reason)
	}
	env, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range secrets {
		if strings.Contains(string(env), k+"=") || strings.Contains(string(env), v) {
			t.Errorf("%s reached pdftotext", k)
		}
	}
	if !strings.Contains(string(env), "PATH=") {
		t.Errorf("pdftotext got no PATH:\n%s", env)
	}
}

// TestRaceChildExitsAtOnce: under the race detector an extraction child
// gets atexit_sleep_ms=0 on top of the GORACE options of its parent (the
// race runtime's default second of sleep at exit, times every extraction,
// was most of the tests' time); an atexit_sleep_ms the parent set is kept.
func TestRaceChildExitsAtOnce(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "atexit_sleep_ms=0"},
		{"halt_on_error=1", "halt_on_error=1 atexit_sleep_ms=0"},
		{"log_path=/tmp/race atexit_sleep_ms=50", "log_path=/tmp/race atexit_sleep_ms=50"},
	} {
		if got := quickRaceExit(c.in); got != c.want {
			t.Errorf("quickRaceExit(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	t.Setenv("GORACE", "halt_on_error=1")
	var gorace []string
	for _, kv := range parserEnv() {
		if strings.HasPrefix(kv, "GORACE=") {
			gorace = append(gorace, kv)
		}
	}
	want := []string{"GORACE=halt_on_error=1"}
	if raceEnabled {
		want = []string{"GORACE=halt_on_error=1 atexit_sleep_ms=0"}
	}
	if strings.Join(gorace, "\n") != strings.Join(want, "\n") {
		t.Errorf("the parser's environment has %q, want %q", gorace, want)
	}
}
