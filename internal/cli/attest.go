package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/atomicfile"
	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/sign"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// confirm fills in the first and last checks that found the cited bytes
// (a 2xx answer with them, or a 304 while they were held) and their
// number, from the ledgers: only those from the day the bytes became the
// ones held to the day other bytes replaced them, so that first to last
// is a time they were served without a break.
func confirm(opts citeOptions, src manifest.Source, history []store.Change, c *citation) error {
	heldAt := func(t time.Time) string {
		day, held := ledger.Day(t), ""
		for _, ch := range history {
			if ch.Date <= day {
				held = string(ch.Entry.SHA256)
			}
		}
		return held
	}
	times, err := ledger.Confirmations(opts.ledgerDir(), src.ID, string(c.SHA256), heldAt)
	if err != nil {
		return cannotRun("%w", err)
	}
	for _, t := range times {
		day := ledger.Day(t)
		if day < c.heldFrom || c.HeldUntil != "" && day >= c.HeldUntil {
			continue
		}
		if c.FirstConfirmed == "" {
			c.FirstConfirmed = day
		}
		c.LastConfirmed = day
		c.Confirmations++
	}
	c.FRBR = src.FRBR(c.ContentType, string(c.SHA256))
	return nil
}

// attest writes the signed statement that the source's URL served the
// cited bytes from the first to the last check that found them.
func attest(opts citeOptions, c citation) error {
	raw := opts.IO.getenv(sign.KeyEnv)
	if raw == "" {
		return usageError("--attest signs with the request-signing key: set %s (see docs/operators.md, \"Signed requests\")", sign.KeyEnv)
	}
	key, err := sign.ParseKey(raw)
	if err != nil {
		return usageError("%s: %w", sign.KeyEnv, err)
	}
	if c.Confirmations == 0 {
		return nothingYet("nothing to attest: no check in the ledgers under %s found the bytes %s of %s while they were held; a run that checks the source records one", opts.ledgerDir(), c.SHA256, c.Source)
	}
	var frbr json.RawMessage
	if c.FRBR != nil {
		if frbr, err = json.Marshal(c.FRBR); err != nil {
			return cannotRun("%w", err)
		}
	}
	var clk clock.Clock = clock.Real{}
	if opts.Clock != nil {
		clk = opts.Clock
	}
	st := sign.NewServedStatement(string(c.SHA256), sign.Served{
		URL: c.URL, FinalURL: c.FinalURL, From: c.FirstConfirmed, Until: c.LastConfirmed, Checks: c.Confirmations,
		Size: c.Size, ContentType: c.ContentType, Source: c.Source, Title: c.Title, FRBR: frbr,
		Issued: clk.Now().UTC().Truncate(time.Second).Format(time.RFC3339),
	})
	tok, err := sign.Attest(key, st)
	if err != nil {
		return cannotRun("%w", err)
	}
	if dir := filepath.Dir(opts.Attest); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return cannotRun("%w", err)
		}
	}
	if err := atomicfile.WriteFile(opts.Attest, []byte(tok+"\n"), 0o644); err != nil {
		return cannotRun("write %s: %w", opts.Attest, err)
	}
	fmt.Fprintf(opts.IO.Err, "cite: wrote %s: %s; signed with key %s (check it with taxkernelbot verify --attestation %s)\n",
		opts.Attest, st.Predicate.Claim, sign.PrivateJWK(key).Kid, opts.Attest)
	return nil
}

// attestationResult is verify --attestation --json's account of the
// statement checked.
type attestationResult struct {
	Key       string         `json:"key"` // the kid (JWK thumbprint) of the key that signed it
	Statement sign.Statement `json:"statement"`
}

// runVerifyAttestation checks an attestation offline against a key
// directory file or one public JWK.
func runVerifyAttestation(opts verifyOptions) error {
	data, err := os.ReadFile(opts.Attestation)
	if err != nil {
		return usageError("--attestation: %w", err)
	}
	d, from, err := attestationKeys(opts)
	if err != nil {
		return err
	}
	got, verr := sign.VerifyAttestation(string(data), d)
	if opts.JSON {
		rep := verifyReport{Target: "attestation", Dir: opts.Attestation, OK: verr == nil, Problems: []verifyProblem{}}
		if verr != nil {
			rep.Counts.Problems = 1
			rep.Problems = append(rep.Problems, verifyProblem{Path: opts.Attestation, Message: verr.Error()})
		} else {
			rep.Attestation = &attestationResult{Key: got.Key.Kid, Statement: got.Statement}
		}
		if err := writeJSON(opts.IO.Out, rep); err != nil {
			return err
		}
	}
	if verr != nil {
		return withCode(ExitFailures, fmt.Errorf("%s does not verify against %s: %w", opts.Attestation, from, verr))
	}
	if !opts.JSON {
		p := got.Statement.Predicate
		fmt.Fprintf(opts.IO.Out, "%s: good signature by key %s (listed in %s)\n%s (%d check(s); issued %s)\n",
			opts.Attestation, got.Key.Kid, from, p.Claim, p.Checks, p.Issued)
	}
	return nil
}

// attestationKeys reads the keys to check against: --public's one JWK,
// else --directory's key set.
func attestationKeys(opts verifyOptions) (sign.Directory, string, error) {
	if opts.Public != "" {
		data, err := os.ReadFile(opts.Public)
		if err != nil {
			return sign.Directory{}, "", usageError("--public: %w", err)
		}
		var j sign.JWK
		if err := json.Unmarshal(data, &j); err != nil {
			return sign.Directory{}, "", usageError("--public %s is not a JWK: %w", opts.Public, err)
		}
		if _, err := j.PublicKey(); err != nil {
			return sign.Directory{}, "", usageError("--public %s: %w", opts.Public, err)
		}
		return sign.Directory{Keys: []sign.JWK{j}}, opts.Public, nil
	}
	data, err := os.ReadFile(opts.KeyDirectory)
	if errors.Is(err, os.ErrNotExist) {
		return sign.Directory{}, "", usageError("no key directory at %s: give the published one with --directory FILE (download it from the origin's %s) or the key with --public JWK-FILE", opts.KeyDirectory, sign.WellKnownPath)
	}
	if err != nil {
		return sign.Directory{}, "", usageError("--directory: %w", err)
	}
	d, err := sign.ParseDirectory(data)
	if err != nil {
		return sign.Directory{}, "", usageError("%s: %s", opts.KeyDirectory, strings.TrimPrefix(err.Error(), "sign: "))
	}
	return d, opts.KeyDirectory, nil
}
