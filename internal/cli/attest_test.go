package cli

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/sign"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// attestWorkspace holds a source that served A from 2026-10-01 and B from
// 2026-11-15, with scripted ledgers of its checks: A's 200s and 304s, a
// 503 and a bot challenge that confirm nothing, then B's.
func attestWorkspace(t *testing.T) (*workspace, store.Sum, store.Sum) {
	t.Helper()
	w := newWorkspace(t, testPolicy, "", src{"t-rates", "http://127.0.0.1:1/rates",
		"    legal_id: {scheme: uslm, id: /us/usc/t26/s1}\n    edition: current\n"})
	a, b := store.Sum(strings.Repeat("a1", 32)), store.Sum(strings.Repeat("b2", 32))
	ix := store.NewIndex()
	ix.Add("t-rates", store.Entry{SHA256: a, Size: 10, ContentType: "text/html; charset=utf-8", FinalURL: "http://127.0.0.1:1/rates", FirstSeen: "2026-10-01"}, "")
	ix.Add("t-rates", store.Entry{SHA256: b, Size: 12, ContentType: "text/html", FinalURL: "http://127.0.0.1:1/rates", FirstSeen: "2026-11-15"}, a)
	must(t, ix.Save(filepath.Join(w.Snapshots, "index.json")))
	l, err := ledger.Open(w.ledgerDir())
	must(t, err)
	for _, c := range []struct {
		date    string
		status  int
		sum     store.Sum
		notDoc  string
		purpose string
	}{
		{"2026-10-03", 304, "", "", ledger.PurposeDocument}, // before any 200 in the ledgers: the index held A
		{"2026-10-05", 200, a, "", ledger.PurposeDocument},
		{"2026-10-07", 503, "", "", ledger.PurposeDocument},
		{"2026-10-09", 200, "c3", "bot challenge", ledger.PurposeDocument},
		{"2026-10-20", 304, "", "", ledger.PurposeDocument},
		{"2026-11-15", 200, b, "", ledger.PurposeDocument},
		{"2026-11-20", 304, "", "", ledger.PurposeDocument},
		{"2026-11-25", 200, b, "", ledger.PurposeDocument},
	} {
		at, _ := time.Parse(time.DateOnly, c.date)
		at = at.Add(9 * time.Hour)
		must(t, l.Append(ledger.Line{Event: ledger.Dispatch, Time: at, Host: "127.0.0.1:1", URL: "http://127.0.0.1:1/rates", Purpose: c.purpose, Source: "t-rates"}))
		must(t, l.Append(ledger.Line{Event: ledger.Result, Time: at, Host: "127.0.0.1:1", URL: "http://127.0.0.1:1/rates", Purpose: c.purpose, Source: "t-rates",
			Status: c.status, SHA256: string(c.sum), NotDocument: c.notDoc}))
	}
	must(t, l.Close())
	return w, a, b
}

func TestCiteConfirmedFromTheLedgers(t *testing.T) {
	w, a, b := attestWorkspace(t)
	flags := []string{"--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State, "--json"}
	for _, tc := range []struct {
		at                string
		sum               store.Sum
		first, last, held string
		n                 int
	}{
		{"", b, "2026-11-15", "2026-11-25", "", 3},
		{"2026-10-10", a, "2026-10-03", "2026-10-20", "2026-11-15", 3},
	} {
		args := append([]string{"cite", "t-rates"}, flags...)
		if tc.at != "" {
			args = append(args, "--at", tc.at)
		}
		code, stdout, stderr := runMain(t, nil, args...)
		var c citation
		if code != ExitOK || json.Unmarshal([]byte(stdout), &c) != nil {
			t.Fatalf("cite %v: exit %d\n%s%s", args, code, stdout, stderr)
		}
		if c.SHA256 != tc.sum || c.FirstConfirmed != tc.first || c.LastConfirmed != tc.last || c.Confirmations != tc.n || c.HeldUntil != tc.held {
			t.Errorf("cite --at %q: %.4s confirmed %s to %s (%d), held_until %q; want %.4s %s to %s (%d), %q",
				tc.at, c.SHA256, c.FirstConfirmed, c.LastConfirmed, c.Confirmations, c.HeldUntil, tc.sum, tc.first, tc.last, tc.n, tc.held)
		}
		want := manifest.FRBR{
			Work:          &manifest.LegalID{Scheme: "uslm", ID: "/us/usc/t26/s1"},
			Expression:    &manifest.Edition{Type: "current"},
			Manifestation: &manifest.Manifestation{MediaType: "text/html"},
			Item:          &manifest.Item{SHA256: string(tc.sum)},
		}
		if c.FRBR == nil || *c.FRBR.Work != *want.Work || *c.FRBR.Expression != *want.Expression || *c.FRBR.Manifestation != *want.Manifestation || *c.FRBR.Item != *want.Item {
			t.Errorf("cite --at %q: frbr %s", tc.at, stdout)
		}
	}
	code, stdout, _ := runMain(t, nil, "cite", "t-rates", "--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State)
	for _, line := range []string{"confirmed:    2026-11-15 to 2026-11-25 (3 check(s))", "legal_id:     /us/usc/t26/s1 (uslm)", "edition:      current"} {
		if code != ExitOK || !strings.Contains(stdout, line) {
			t.Errorf("cite (text): exit %d, no %q in:\n%s", code, line, stdout)
		}
	}
}

func TestAttestAndVerify(t *testing.T) {
	w, _, b := attestWorkspace(t)
	dir := t.TempDir()
	key, other := sign.PrivateJWK(testKey(t, 'k')), sign.PrivateJWK(testKey(t, 'o'))
	past := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	writeDir := func(name string, k sign.JWK) string {
		data, err := sign.Rotate(sign.Directory{}, k, past, time.Hour).Marshal()
		must(t, err)
		p := filepath.Join(dir, name)
		must(t, os.WriteFile(p, data, 0o644))
		return p
	}
	good, wrong := writeDir("directory.json", key), writeDir("other.json", other)
	pub, _ := json.Marshal(key)
	pubFile := filepath.Join(dir, "key.jwk")
	must(t, os.WriteFile(pubFile, pub, 0o644))
	pem, err := sign.MarshalKey(testKey(t, 'k'))
	must(t, err)
	env := map[string]string{sign.KeyEnv: pem}
	att := filepath.Join(dir, "att", "t-rates.jws")
	flags := []string{"--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State}

	if code, _, stderr := runMain(t, nil, append([]string{"cite", "t-rates", "--attest", att}, flags...)...); code != ExitUsage || !strings.Contains(stderr, sign.KeyEnv) {
		t.Errorf("cite --attest without a key: exit %d\n%s", code, stderr)
	}
	code, _, stderr := runMain(t, env, append([]string{"cite", "t-rates", "--attest", att}, flags...)...)
	if code != ExitOK || !strings.Contains(stderr, "served these bytes (sha256 "+string(b)+") at every check from 2026-11-15 to 2026-11-25") {
		t.Fatalf("cite --attest: exit %d\n%s", code, stderr)
	}

	code, stdout, stderr := runMain(t, nil, "verify", "--attestation", att, "--directory", good)
	if code != ExitOK || !strings.Contains(stdout, "good signature by key "+key.Kid) || !strings.Contains(stdout, "from 2026-11-15 to 2026-11-25") {
		t.Errorf("verify --attestation: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := runMain(t, nil, "verify", "--attestation", att, "--public", pubFile); code != ExitOK {
		t.Errorf("verify --attestation --public: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = runMain(t, nil, "verify", "--attestation", att, "--directory", good, "--json")
	var rep verifyReport
	decode(t, stdout, &rep)
	if code != ExitOK || !rep.OK || rep.Attestation == nil || rep.Attestation.Statement.Predicate.Checks != 3 || rep.Attestation.Statement.Predicate.FRBR == nil {
		t.Errorf("verify --attestation --json: exit %d\n%s", code, stdout)
	}

	if code, _, stderr := runMain(t, nil, "verify", "--attestation", att, "--directory", wrong); code != ExitFailures || !strings.Contains(stderr, "does not list") {
		t.Errorf("verify against a directory without the key: exit %d\n%s", code, stderr)
	}
	data, err := os.ReadFile(att)
	must(t, err)
	parts := strings.Split(strings.TrimSpace(string(data)), ".")
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	must(t, err)
	forged := strings.Replace(string(payload), `"from":"2026-11-15"`, `"from":"2026-01-15"`, 1)
	if forged == string(payload) {
		t.Fatalf("the statement has no from date to tamper with:\n%s", payload)
	}
	tampered := filepath.Join(dir, "tampered.jws")
	must(t, os.WriteFile(tampered, []byte(parts[0]+"."+base64.RawURLEncoding.EncodeToString([]byte(forged))+"."+parts[2]+"\n"), 0o644))
	if code, _, stderr := runMain(t, nil, "verify", "--attestation", tampered, "--directory", good); code != ExitFailures || !strings.Contains(stderr, "bad signature") {
		t.Errorf("verify a tampered statement: exit %d\n%s", code, stderr)
	}
}

func testKey(t *testing.T, b byte) ed25519.PrivateKey {
	t.Helper()
	k, err := sign.ParseKey(strings.Repeat(string(rune(b)), 43))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// The statement is stamped by the injected clock, and a key the directory
// lists only from a later time does not vouch for it.
func TestAttestIssuedByTheClock(t *testing.T) {
	w, _, _ := attestWorkspace(t)
	k := testKey(t, 'k')
	pem, err := sign.MarshalKey(k)
	must(t, err)
	issued := time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)
	att := filepath.Join(t.TempDir(), "a.jws")
	var out, errb strings.Builder
	err = runCite(t.Context(), citeOptions{paths: w.paths, Source: "t-rates", Attest: att, Clock: clock.NewFake(issued),
		IO: IO{Out: &out, Err: &errb, Getenv: func(string) string { return pem }}})
	must(t, err)
	data, err := os.ReadFile(att)
	must(t, err)
	early := sign.Rotate(sign.Directory{}, sign.PrivateJWK(k), issued.Add(-time.Hour), time.Hour)
	got, err := sign.VerifyAttestation(string(data), early)
	if err != nil || got.Statement.Predicate.Issued != "2026-12-01T06:00:00Z" {
		t.Errorf("issued %q, err %v", got.Statement.Predicate.Issued, err)
	}
	late := sign.Rotate(sign.Directory{}, sign.PrivateJWK(k), issued.Add(time.Hour), time.Hour)
	if _, err := sign.VerifyAttestation(string(data), late); err == nil {
		t.Error("a key listed only from after the statement's issue vouches for it")
	}
}
