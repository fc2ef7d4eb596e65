package sign

import (
	"crypto/ed25519"
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

func testStatement(issued time.Time) Statement {
	return NewServedStatement(strings.Repeat("ab", 32), Served{
		URL: "https://www.legislation.gov.uk/ukpga/2007/3/contents", From: "2026-11-01", Until: "2026-11-30", Checks: 12,
		Size: 1234, ContentType: "text/html", Source: "uk-ita-2007", Issued: issued.UTC().Format(time.RFC3339),
	})
}

func seededKey(b byte) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed([]byte(strings.Repeat(string(rune(b)), ed25519.SeedSize)))
}

func TestAttestationRoundTrip(t *testing.T) {
	key := seededKey('k')
	issued := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	d := Rotate(Directory{}, PrivateJWK(key), issued.Add(-time.Hour), 7*24*time.Hour)
	tok, err := Attest(key, testStatement(issued))
	if err != nil {
		t.Fatal(err)
	}
	got, err := VerifyAttestation(tok, d)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if got.Key.Kid != PrivateJWK(key).Kid || got.Statement.Predicate.From != "2026-11-01" || got.Statement.Subject[0].Digest["sha256"] != strings.Repeat("ab", 32) {
		t.Errorf("verified %+v", got)
	}
	if !strings.Contains(got.Statement.Predicate.Claim, "served these bytes (sha256 abab") {
		t.Errorf("claim %q", got.Statement.Predicate.Claim)
	}
}

func TestAttestationRefused(t *testing.T) {
	key, other := seededKey('k'), seededKey('o')
	issued := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	dir := Rotate(Directory{}, PrivateJWK(key), issued.Add(-time.Hour), 7*24*time.Hour)
	tok, err := Attest(key, testStatement(issued))
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(tok, ".")
	b64 := base64.RawURLEncoding
	payload, _ := b64.DecodeString(parts[1])
	tampered := parts[0] + "." + b64.EncodeToString([]byte(strings.Replace(string(payload), "2026-11-01", "2026-10-01", 1))) + "." + parts[2]
	otherTok, _ := Attest(other, testStatement(issued))
	// The other key's token with this key's kid: the signature is checked
	// against the key named, not the one that made it.
	forged := parts[0] + "." + strings.Split(otherTok, ".")[1] + "." + strings.Split(otherTok, ".")[2]
	none := b64.EncodeToString([]byte(`{"alg":"none","kid":"`+PrivateJWK(key).Kid+`"}`)) + "." + parts[1] + "."
	late := Rotate(Directory{}, PrivateJWK(key), issued.Add(time.Hour), time.Hour) // listed only from after the issue
	retired := Rotate(dir, PrivateJWK(other), issued.Add(-time.Hour*2), time.Minute)
	for _, tc := range []struct {
		name, tok string
		d         Directory
		want      string
	}{
		{"tampered statement", tampered, dir, "bad signature"},
		{"wrong key", otherTok, dir, "does not list"},
		{"signed by another key under this kid", forged, dir, "bad signature"},
		{"alg none", none, dir, `alg is "none"`},
		{"key not yet valid", tok, late, "was not valid when"},
		{"key retired before", tok, retired, "was not valid when"},
		{"not a JWS", "hello", dir, "compact form"},
	} {
		if _, err := VerifyAttestation(tc.tok, tc.d); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.want)
		}
	}
}
