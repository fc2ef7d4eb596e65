package github

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestConfigFromEnv(t *testing.T) {
	base := map[string]string{"GITHUB_REPOSITORY": "octo/coverage", "GITHUB_TOKEN": "tok"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, tc := range []struct {
		name    string
		env     map[string]string
		want    Config
		wantErr []string // substrings, all required
	}{
		{name: "defaults", env: base,
			want: Config{Owner: "octo", Repo: "coverage", ServerURL: "https://github.com", APIURL: "https://api.github.com", Token: "tok"}},
		{name: "actions", env: with("GITHUB_SERVER_URL", "https://github.com", "GITHUB_API_URL", "https://api.github.com", "GITHUB_RUN_ID", "1234"),
			want: Config{Owner: "octo", Repo: "coverage", ServerURL: "https://github.com", APIURL: "https://api.github.com", Token: "tok", RunID: "1234"}},
		{name: "enterprise trailing slashes", env: with("GITHUB_SERVER_URL", "https://ghe.example/", "GITHUB_API_URL", "https://ghe.example/api/v3/"),
			want: Config{Owner: "octo", Repo: "coverage", ServerURL: "https://ghe.example", APIURL: "https://ghe.example/api/v3", Token: "tok"}},
		{name: "enterprise api derived", env: with("GITHUB_SERVER_URL", "https://ghe.example"),
			want: Config{Owner: "octo", Repo: "coverage", ServerURL: "https://ghe.example", APIURL: "https://ghe.example/api/v3", Token: "tok"}},
		{name: "loopback", env: with("GITHUB_SERVER_URL", "http://127.0.0.1:8080", "GITHUB_API_URL", "http://127.0.0.1:8080"),
			want: Config{Owner: "octo", Repo: "coverage", ServerURL: "http://127.0.0.1:8080", APIURL: "http://127.0.0.1:8080", Token: "tok"}},
		{name: "token trimmed", env: with("GITHUB_TOKEN", " tok\n"),
			want: Config{Owner: "octo", Repo: "coverage", ServerURL: "https://github.com", APIURL: "https://api.github.com", Token: "tok"}},
		{name: "missing token", env: with("GITHUB_TOKEN", ""),
			wantErr: []string{"GITHUB_TOKEN is not set", "pull-requests: write", "secrets.GITHUB_TOKEN", "GitHub App"}},
		{name: "missing repository", env: with("GITHUB_REPOSITORY", ""),
			wantErr: []string{"GITHUB_REPOSITORY is not set", "owner/name"}},
		{name: "nothing set", env: map[string]string{},
			wantErr: []string{"GITHUB_REPOSITORY is not set", "GITHUB_TOKEN is not set"}},
		{name: "repository without slash", env: with("GITHUB_REPOSITORY", "coverage"),
			wantErr: []string{`GITHUB_REPOSITORY is "coverage"`, "owner/name"}},
		{name: "repository with two slashes", env: with("GITHUB_REPOSITORY", "a/b/c"), wantErr: []string{`GITHUB_REPOSITORY is "a/b/c"`}},
		{name: "repository with empty owner", env: with("GITHUB_REPOSITORY", "/b"), wantErr: []string{`GITHUB_REPOSITORY is "/b"`}},
		{name: "repository with space", env: with("GITHUB_REPOSITORY", "a b/c"), wantErr: []string{"owner/name"}},
		{name: "bad server", env: with("GITHUB_SERVER_URL", "github.com"), wantErr: []string{"GITHUB_SERVER_URL", "http(s) URL"}},
		{name: "bad api", env: with("GITHUB_API_URL", "ftp://api.github.com"), wantErr: []string{"GITHUB_API_URL"}},
		{name: "api with credentials", env: with("GITHUB_API_URL", "https://u:p@api.github.com"), wantErr: []string{"GITHUB_API_URL"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ConfigFromEnv(func(k string) string { return tc.env[k] })
			if tc.wantErr != nil {
				if err == nil {
					t.Fatalf("no error; got %v", got)
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestConfigURLs(t *testing.T) {
	c := Config{Owner: "octo", Repo: "coverage", ServerURL: "https://ghe.example/", RunID: "42"}
	sum := "0f9e8d7c6b5a" + strings.Repeat("0", 52)
	for _, tc := range []struct{ got, want string }{
		{c.GitURL(), "https://ghe.example/octo/coverage.git"},
		{c.RunURL(), "https://ghe.example/octo/coverage/actions/runs/42"},
		{c.FileURL("taxkernelbot/update")("snapshots/sha256/0f/" + sum), "https://ghe.example/octo/coverage/blob/taxkernelbot/update/snapshots/sha256/0f/" + sum},
		{c.FileURL("main")(""), ""},
		{Config{Owner: "o", Repo: "r", ServerURL: "https://github.com"}.RunURL(), ""},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestConfigNeverPrintsToken(t *testing.T) {
	c := Config{Owner: "o", Repo: "r", Token: "ghs_secret"}
	for _, f := range []string{"%v", "%+v", "%#v", "%s"} {
		if s := fmt.Sprintf(f, c); strings.Contains(s, "ghs_secret") {
			t.Errorf("%s prints the token: %s", f, s)
		}
	}
}

// TestConfigFromEnvApp: an App's id and key stand in for GITHUB_TOKEN;
// one without the other, a bad id or a key that is not PEM is refused
// naming the variable; neither is ever printed.
func TestConfigFromEnvApp(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	c, err := ConfigFromEnv(env(map[string]string{"GITHUB_REPOSITORY": "octo/cov", "TAXKERNELBOT_APP_ID": "4242", "TAXKERNELBOT_APP_PRIVATE_KEY": pemKey}))
	if err != nil || c.AppID != "4242" || c.Token != "" {
		t.Fatalf("an App without GITHUB_TOKEN: %+v, %v", c, err)
	}
	if s := fmt.Sprintf("%v %+v %#v", c, c, c); strings.Contains(s, "PRIVATE") {
		t.Errorf("the key is printed: %s", s)
	}
	for _, bad := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"GITHUB_REPOSITORY": "octo/cov", "TAXKERNELBOT_APP_ID": "4242"}, "TAXKERNELBOT_APP_PRIVATE_KEY is not"},
		{map[string]string{"GITHUB_REPOSITORY": "octo/cov", "TAXKERNELBOT_APP_PRIVATE_KEY": pemKey}, "TAXKERNELBOT_APP_ID is not"},
		{map[string]string{"GITHUB_REPOSITORY": "octo/cov", "TAXKERNELBOT_APP_ID": "app", "TAXKERNELBOT_APP_PRIVATE_KEY": pemKey}, "numeric id"},
		{map[string]string{"GITHUB_REPOSITORY": "octo/cov", "TAXKERNELBOT_APP_ID": "1", "TAXKERNELBOT_APP_PRIVATE_KEY": "ghp_notakey"}, "not a PEM key"},
	} {
		if _, err := ConfigFromEnv(env(bad.env)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%v: %v, want an error saying %q", bad.env, err, bad.want)
		}
	}
}
