package repotest

import (
	"errors"
	iofs "io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/agentcard"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/sign"
)

// TestPublishedAgentCardIsCurrent: once the repository publishes its
// Signature Agent Card with the pages (reports/.well-known/), a change to
// policy.yaml or the manifests must bring it along in the same pull
// request, and its keys must be the key directory's beside it. Until
// then there is nothing to hold to it.
func TestPublishedAgentCardIsCurrent(t *testing.T) {
	wellKnown := filepath.Join("..", "..", "reports", ".well-known")
	data, err := os.ReadFile(filepath.Join(wellKnown, agentcard.FileName))
	if errors.Is(err, iofs.ErrNotExist) {
		t.Skipf("reports/.well-known/%s is not published yet", agentcard.FileName)
	}
	if err != nil {
		t.Fatal(err)
	}
	card, err := agentcard.Parse(data)
	if err != nil {
		t.Fatalf("reports/.well-known/%s: %v", agentcard.FileName, err)
	}
	set, diags := manifest.Load(filepath.Join("..", "..", "manifests"))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	drift, err := public.CardDrift(set, card)
	if err != nil {
		t.Fatal(err)
	}
	if drift != "" {
		t.Errorf("reports/.well-known/%s is behind policy.yaml and the manifests (%s differ): run taxkernelbot keys card --directory reports/.well-known/http-message-signatures-directory", agentcard.FileName, drift)
	}
	dirData, err := os.ReadFile(filepath.Join(wellKnown, "http-message-signatures-directory"))
	if err != nil {
		t.Fatalf("the card is published without the key directory beside it: %v", err)
	}
	dir, err := sign.ParseDirectory(dirData)
	if err != nil {
		t.Fatal(err)
	}
	if diff := card.SameKeys(dir); diff != "" {
		t.Errorf("the card's keys are not the directory's (%s): run taxkernelbot keys card --directory reports/.well-known/http-message-signatures-directory", diff)
	}
}
