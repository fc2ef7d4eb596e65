package outputs

import (
	"strings"
	"testing"
)

// TestBlobLinksFollowTheRepository: the feeds link blobs on main of the
// repository GitHub Actions names; a name or server that is not one falls
// back to the bot's own, so no feed links a forge nobody named.
func TestBlobLinksFollowTheRepository(t *testing.T) {
	sum := strings.Repeat("ab", 32)
	own := "https://github.com/taxkernel/taxkernelbot/blob/main/snapshots/sha256/ab/" + sum
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{nil, own},
		{map[string]string{"GITHUB_REPOSITORY": "acme/tax"}, "https://github.com/acme/tax/blob/main/snapshots/sha256/ab/" + sum},
		{map[string]string{"GITHUB_REPOSITORY": "acme/tax", "GITHUB_SERVER_URL": "https://git.example.org/"}, "https://git.example.org/acme/tax/blob/main/snapshots/sha256/ab/" + sum},
		{map[string]string{"GITHUB_REPOSITORY": "acme/tax/extra"}, own},
		{map[string]string{"GITHUB_REPOSITORY": "acme/"}, own},
		{map[string]string{"GITHUB_SERVER_URL": "https://user:secret@git.example.org"}, own},
		{map[string]string{"GITHUB_SERVER_URL": "ftp://git.example.org"}, own},
	} {
		getenv := func(k string) string { return c.env[k] }
		if c.env == nil {
			getenv = nil
		}
		if got := BlobLinks(getenv)(sum); got != c.want {
			t.Errorf("env %v: %s, want %s", c.env, got, c.want)
		}
	}
	if got := BlobLinks(nil)("not a hash"); got != "" {
		t.Errorf("a link for what is not a hash: %s", got)
	}
}
