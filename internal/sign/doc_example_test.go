package sign

import (
	"crypto/ed25519"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// TestDocExample: the signed request shown to operators in
// docs/operators.md ("Signed requests") verifies (under the RFC 9421 test
// key it says it uses), so the worked example cannot drift from what the
// code does.
func TestDocExample(t *testing.T) {
	data, err := os.ReadFile("../../docs/operators.md")
	if err != nil {
		t.Fatal(err)
	}
	r, _ := http.NewRequest("GET", "https://www.gov.uk/income-tax-rates", nil)
	for _, line := range strings.Split(string(data), "\n") {
		for _, h := range []string{"Signature-Agent", "Signature-Input", "Signature"} {
			if v, ok := strings.CutPrefix(line, h+": "); ok && r.Header.Get(h) == "" {
				r.Header.Set(h, v)
			}
		}
	}
	v, _ := loadB26(t)
	key, err := ParseKey(v.PrivateKeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	pub := key.Public().(ed25519.PublicKey)
	got, err := Verify(r, func(kid string) (ed25519.PublicKey, bool) { return pub, kid == PrivateJWK(key).Kid }, time.Unix(1764547200, 0).Add(time.Second))
	if err != nil {
		t.Fatalf("docs/operators.md's example does not verify: %v (headers %v)", err, r.Header)
	}
	if got.Agent != `"https://taxkernel.com/.well-known/http-message-signatures-directory"` {
		t.Errorf("agent %s", got.Agent)
	}
}
