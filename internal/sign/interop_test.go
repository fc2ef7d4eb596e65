package sign_test

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/interoptest"
	"github.com/taxkernel/taxkernelbot/internal/sign"
)

// TestInteropAttestationJose: panva's jose, a JOSE library that knows
// nothing of TaxKernelBot, verifies an attestation against the key
// directory as `keys directory` writes it, and refuses a tampered one.
func TestInteropAttestationJose(t *testing.T) {
	interoptest.Need(t, "jose")
	key := ed25519Key(t)
	issued := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	d, err := sign.Rotate(sign.Directory{}, sign.PrivateJWK(key), issued.Add(-time.Hour), 7*24*time.Hour).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	directory := filepath.Join(dir, "directory.json")
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("directory.json", string(d))
	tok, err := sign.Attest(key, sign.NewServedStatement(strings.Repeat("ab", 32), sign.Served{
		URL: "https://www.legislation.gov.uk/ukpga/2007/3/contents", From: "2026-11-01", Until: "2026-11-30", Checks: 3,
		Source: "uk-income-tax-act-2007", Issued: issued.Format(time.RFC3339),
	}))
	if err != nil {
		t.Fatal(err)
	}
	good := write("good.jws", tok+"\n")
	parts := strings.Split(tok, ".")
	bad := write("bad.jws", parts[0]+"."+parts[1][:len(parts[1])-2]+"AA."+parts[2]+"\n")
	out := interoptest.Run(t, "verify-attestation.cjs", "jose", directory, good, bad)
	got := map[string]struct {
		OK            bool   `json:"ok"`
		Kid           string `json:"kid"`
		PredicateType string `json:"predicateType"`
		Claim         string `json:"claim"`
		Error         string `json:"error"`
	}{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var r struct {
			File string `json:"file"`
		}
		line := sc.Bytes()
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		v := got[r.File]
		if err := json.Unmarshal(line, &v); err != nil {
			t.Fatal(err)
		}
		got[r.File] = v
	}
	if g := got[good]; !g.OK || g.Kid != sign.PrivateJWK(key).Kid || g.PredicateType != sign.ServedPredicate || !strings.Contains(g.Claim, "from 2026-11-01 to 2026-11-30") {
		t.Errorf("jose on a good attestation: %+v", g)
	}
	if g := got[bad]; g.OK {
		t.Errorf("jose accepts a tampered attestation: %+v", g)
	}
}

func ed25519Key(t *testing.T) ed25519.PrivateKey {
	t.Helper()
	k, err := sign.ParseKey(strings.Repeat("k", 43))
	if err != nil {
		t.Fatal(err)
	}
	return k
}
