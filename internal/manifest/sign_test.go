package manifest

import (
	"strings"
	"testing"
)

// TestSignDirectory: the key directory must be https, except on loopback
// when private networks are allowed (the demo serves it there).
func TestSignDirectory(t *testing.T) {
	const local = `"http://127.0.0.1:8080/.well-known/http-message-signatures-directory"`
	for _, tc := range []struct {
		policy, want, diag string
	}{
		{`sign: {directory: "https://taxkernel.com/.well-known/http-message-signatures-directory"}`, "https://taxkernel.com/.well-known/http-message-signatures-directory", ""},
		{`sign: {directory: "https://taxkernel.com/keys.json"}`, "https://taxkernel.com/keys.json", "is not at /.well-known/http-message-signatures-directory"},
		{"sign: {directory: " + local + "}", "", "must be https"},
		{"allow_private_networks: true\nsign: {directory: " + local + "}", strings.Trim(local, `"`), ""},
		{"allow_private_networks: true\nsign: {directory: \"http://keys.example.com/.well-known/http-message-signatures-directory\"}", "", "must be https"},
		{"sign: {directory: /relative}", "", "not an absolute URL"},
		{"sign: {}", "", `missing "directory"`},
		{"sign: {dir: x}", "", `unknown key "dir"`},
	} {
		dir := t.TempDir()
		writeFile(t, dir, "policy.yaml", tc.policy+"\n")
		src := "https://www.gov.uk/rates" // private networks only with private sources
		if strings.Contains(tc.policy, "allow_private_networks") {
			src = "http://127.0.0.1:8080/rates"
		}
		writeFile(t, dir, "demo.yaml", "jurisdiction: demo\nname: Demo\ntimezone: UTC\nsources:\n  - {id: demo-rates, url: \""+src+"\", kind: gazette, title: Rates}\n")
		set, diags := Load(dir)
		var all []string
		for _, d := range diags {
			all = append(all, d.String())
		}
		joined := strings.Join(all, "\n")
		if tc.diag == "" && len(diags) > 0 || tc.diag != "" && !strings.Contains(joined, tc.diag) {
			t.Errorf("%q: diagnostics %q, want %q", tc.policy, joined, tc.diag)
		}
		if set != nil && set.Policy.SignDirectory != tc.want {
			t.Errorf("%q: directory %q, want %q", tc.policy, set.Policy.SignDirectory, tc.want)
		}
	}
}
