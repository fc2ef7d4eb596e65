package cli

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"net/url"
	"os"
	"path/filepath"

	"github.com/taxkernel/taxkernelbot/internal/agentcard"
	"github.com/taxkernel/taxkernelbot/internal/atomicfile"
	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/sign"
)

const keysCardArgs = "card [--directory FILE] [-o FILE] [--url URL] [--manifests DIR]"

// defaultDirectoryFile is where `keys directory` writes the key directory
// unless told.
var defaultDirectoryFile = filepath.Join(".well-known", "http-message-signatures-directory")

// keysCard writes the Signature Agent Card beside the key directory: the
// manifests say who we are, what we fetch and how fast; the directory
// gives the keys.
func keysCard(io IO, args []string) error {
	var p paths
	fs := newFlags("keys", keysCardArgs, io)
	p.register(fs, "manifests")
	dirFile := fs.String("directory", defaultDirectoryFile, "the key directory `FILE` whose keys the card lists (what `keys directory` wrote)")
	out := fs.String("o", "", "the card `FILE` to write (default: "+agentcard.FileName+" beside --directory)")
	cardURL := fs.String("url", "", "the https `URL` the card is served at, its client_id (default: "+agentcard.FileName+" beside policy.yaml's sign directory)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *out == "" {
		*out = filepath.Join(filepath.Dir(*dirFile), agentcard.FileName)
	}
	data, err := os.ReadFile(*dirFile)
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		return usageError("no key directory at %s: write it first with `taxkernelbot keys directory -o %s`, or name it with --directory", *dirFile, *dirFile)
	case err != nil:
		return cannotRun("read %s: %w", *dirFile, err)
	}
	dir, err := sign.ParseDirectory(data)
	if err != nil {
		return usageError("%s: %w; rewrite it with `taxkernelbot keys directory`", *dirFile, err)
	}
	if len(dir.Keys) == 0 {
		return usageError("%s lists no key: write one with `taxkernelbot keys directory -o %s`", *dirFile, *dirFile)
	}
	set, err := loadManifests(p.Manifests, io)
	if err != nil {
		return err
	}
	if *cardURL == "" {
		*cardURL = agentcard.URLBeside(set.Policy.SignDirectory)
		if *cardURL == "" {
			return usageError("the card's client_id is the URL it is served at: set sign: {directory: URL} in %s (the card goes beside it) or pass --url", filepath.Join(p.Manifests, "policy.yaml"))
		}
	} else if u, err := url.Parse(*cardURL); err != nil || u.Scheme != "https" || u.Host == "" {
		return usageError("--url %q: give the https URL the card is served at, e.g. https://taxkernel.com/.well-known/%s", *cardURL, agentcard.FileName)
	}
	card := public.AgentCard(set, *cardURL, dir)
	b, err := card.Marshal()
	if err != nil {
		return cannotRun("%w", err)
	}
	// What we write is what a verifier reads: check it as one would.
	if c, err := agentcard.Parse(b); err != nil {
		return cannotRun("the card does not follow %s: %w", agentcard.Draft, err)
	} else if err := c.CheckKeys(); err != nil {
		return usageError("%s: %w", *dirFile, err)
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		return cannotRun("%w", err)
	}
	if err := atomicfile.WriteFile(*out, b, 0o644); err != nil {
		return cannotRun("write %s: %w", *out, err)
	}
	fmt.Fprintf(io.Err, "keys: wrote %s (%d key(s), %d known URL(s)); serve it at %s, beside the key directory, with Content-Type: %s; run `taxkernelbot keys card` again after changing the keys, policy.yaml or the manifests\n",
		*out, len(dir.Keys), len(card.WebBotAuth.KnownURLs), *cardURL, agentcard.MediaType)
	return nil
}

// fileExists says whether path names a file (a card to keep up to date).
func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}
