package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/agentcard"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/sign"
)

// TestKeysCard: `keys card` writes, beside the directory, a card the
// draft's rules accept, with the directory's keys and every URL of the
// manifests; rotating the keys then says the card is out of date.
func TestKeysCard(t *testing.T) {
	k, err := sign.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	pemKey, err := sign.MarshalKey(k)
	if err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(t.TempDir(), "site", ".well-known")
	dirFile := filepath.Join(site, "http-message-signatures-directory")
	if code, _, stderr := runMain(t, map[string]string{sign.KeyEnv: pemKey}, "keys", "directory", "-o", dirFile); code != ExitOK {
		t.Fatalf("directory: exit %d: %s", code, stderr)
	}

	// The repository's policy names no directory yet: the card's URL is
	// asked for, not guessed.
	code, _, stderr := runMain(t, nil, "keys", "card", "--directory", dirFile, "--manifests", "../../manifests")
	if code != ExitUsage || !strings.Contains(stderr, "set sign: {directory: URL} in ../../manifests/policy.yaml") || !strings.Contains(stderr, "or pass --url") {
		t.Fatalf("no URL: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runMain(t, nil, "keys", "card", "--directory", dirFile, "--manifests", "../../manifests", "--url", "http://taxkernel.com/card"); code != ExitUsage || !strings.Contains(stderr, "give the https URL") {
		t.Fatalf("http URL: exit %d: %s", code, stderr)
	}

	const url = "https://taxkernel.com/.well-known/signature-agent-card.json"
	code, _, stderr = runMain(t, nil, "keys", "card", "--directory", dirFile, "--manifests", "../../manifests", "--url", url)
	if code != ExitOK {
		t.Fatalf("card: exit %d: %s", code, stderr)
	}
	cardFile := filepath.Join(site, agentcard.FileName)
	if !strings.Contains(stderr, "wrote "+cardFile) || !strings.Contains(stderr, "serve it at "+url) || !strings.Contains(stderr, "Content-Type: application/json") {
		t.Errorf("stderr %q", stderr)
	}
	data, err := os.ReadFile(cardFile)
	if err != nil {
		t.Fatal(err)
	}
	c, err := agentcard.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	dirData, err := os.ReadFile(dirFile)
	if err != nil {
		t.Fatal(err)
	}
	d, err := sign.ParseDirectory(dirData)
	if err != nil {
		t.Fatal(err)
	}
	if diff := c.SameKeys(d); diff != "" || c.ClientID != url {
		t.Errorf("client_id %q, keys: %s", c.ClientID, diff)
	}
	set, diags := manifest.Load("../../manifests")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if got, want := len(c.WebBotAuth.KnownURLs), 1+len(set.Sources); got != want {
		t.Errorf("%d known URLs, want robots.txt and the %d sources", got, len(set.Sources))
	}

	// A new key: the directory's writer points at the card it made stale.
	k2, _ := sign.GenerateKey()
	pem2, _ := sign.MarshalKey(k2)
	code, _, stderr = runMain(t, map[string]string{sign.KeyEnv: pem2}, "keys", "directory", "-o", dirFile)
	if code != ExitOK || !strings.Contains(stderr, cardFile+" lists the keys too: run `taxkernelbot keys card --directory "+dirFile+"`") {
		t.Errorf("rotation: exit %d: %s", code, stderr)
	}
}

func TestKeysCardWithoutDirectory(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "http-message-signatures-directory")
	code, _, stderr := runMain(t, nil, "keys", "card", "--directory", missing, "--manifests", "../../manifests", "--url", "https://taxkernel.com/c")
	if code != ExitUsage || !strings.Contains(stderr, "no key directory at "+missing+": write it first with `taxkernelbot keys directory -o "+missing+"`") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	empty := filepath.Join(t.TempDir(), "d")
	if err := os.WriteFile(empty, []byte(`{"keys": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runMain(t, nil, "keys", "card", "--directory", empty, "--manifests", "../../manifests", "--url", "https://taxkernel.com/c"); code != ExitUsage || !strings.Contains(stderr, "lists no key") {
		t.Errorf("empty directory: exit %d: %s", code, stderr)
	}
}
