package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"

	"github.com/taxkernel/taxkernelbot/internal/agentcard"
	"github.com/taxkernel/taxkernelbot/internal/atomicfile"
	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/policy"
	"github.com/taxkernel/taxkernelbot/internal/sign"
)

// cmdKeys is `keys generate`, `keys directory` and `keys card`.
func cmdKeys(_ context.Context, io IO, args []string) error {
	return runKeys(io, clock.Real{}, args)
}

func runKeys(io IO, clk clock.Clock, args []string) error {
	sub := ""
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		sub, args = args[0], args[1:]
	}
	switch sub {
	case "generate":
		fs := newFlags("keys", "generate", io)
		if err := parse(fs, args); err != nil {
			return err
		}
		return keysGenerate(io)
	case "directory":
		return keysDirectory(io, clk, args)
	case "card":
		return keysCard(io, args)
	case "":
		fs := newFlags("keys", "generate | directory [-o FILE] [--public JWK-FILE] [--keep DURATION] | "+keysCardArgs, io)
		if err := parse(fs, args); err != nil {
			return err
		}
		return usageError("keys needs a subcommand: generate, directory or card")
	}
	return usageError("unknown subcommand %q; use generate, directory or card", sub)
}

// keysGenerate prints a new private key (for the Actions secret) and its
// public JWK (for the key directory).
func keysGenerate(io IO) error {
	k, err := sign.GenerateKey()
	if err != nil {
		return cannotRun("%w", err)
	}
	pemKey, err := sign.MarshalKey(k)
	if err != nil {
		return cannotRun("%w", err)
	}
	jwk, err := json.Marshal(sign.PrivateJWK(k))
	if err != nil {
		return cannotRun("%w", err)
	}
	fmt.Fprintf(io.Err, "keys: the private key below goes into the %s secret (never into the repository);\n", sign.KeyEnv)
	fmt.Fprintln(io.Err, "keys: then run `taxkernelbot keys directory` with it set and publish the file it writes.")
	fmt.Fprint(io.Out, pemKey)
	fmt.Fprintf(io.Out, "%s\n", jwk)
	return nil
}

func keysDirectory(io IO, clk clock.Clock, args []string) error {
	fs := newFlags("keys", "directory [-o FILE] [--public JWK-FILE] [--keep DURATION]", io)
	out := fs.String("o", defaultDirectoryFile, "the key directory `FILE` to update (read first, so rotated-out keys stay listed until they expire)")
	pubFile := fs.String("public", "", "read the current public key from this JWK `FILE` instead of the private key in "+sign.KeyEnv)
	keep := fs.String("keep", "7d", "how long a rotated-out key stays listed (`DURATION`, e.g. 7d); longer than any verifier's cache of the directory")
	if err := parse(fs, args); err != nil {
		return err
	}
	keepFor, err := policy.ParseDuration(*keep)
	if err != nil || keepFor < sign.DefaultValidity {
		return usageError("--keep %q: give a duration of at least %s, e.g. 7d", *keep, sign.DefaultValidity)
	}
	current, err := currentKey(io, *pubFile)
	if err != nil {
		return err
	}
	var old sign.Directory
	data, err := os.ReadFile(*out)
	switch {
	case errors.Is(err, iofs.ErrNotExist):
	case err != nil:
		return cannotRun("read %s: %w", *out, err)
	default:
		if old, err = sign.ParseDirectory(data); err != nil {
			return cannotRun("%s: %w; fix or remove the file", *out, err)
		}
	}
	d := sign.Rotate(old, current, clk.Now(), keepFor)
	b, err := d.Marshal()
	if err != nil {
		return cannotRun("%w", err)
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		return cannotRun("%w", err)
	}
	if err := atomicfile.WriteFile(*out, b, 0o644); err != nil {
		return cannotRun("write %s: %w", *out, err)
	}
	fmt.Fprintf(io.Err, "keys: wrote %s (%d key(s), current %s); serve it at %s of the origin named in policy.yaml's sign directory, with Content-Type: %s\n",
		*out, len(d.Keys), current.Thumbprint(), sign.WellKnownPath, sign.DirectoryMediaType)
	if card := filepath.Join(filepath.Dir(*out), agentcard.FileName); fileExists(card) {
		fmt.Fprintf(io.Err, "keys: %s lists the keys too: run `taxkernelbot keys card --directory %s` to bring it up to date\n", card, *out)
	}
	return nil
}

// currentKey is the public key now in use: from a JWK file, or derived
// from the private key in the environment.
func currentKey(io IO, pubFile string) (sign.JWK, error) {
	if pubFile != "" {
		data, err := os.ReadFile(pubFile)
		if err != nil {
			return sign.JWK{}, usageError("--public: %w", err)
		}
		var j sign.JWK
		if err := json.Unmarshal(data, &j); err != nil {
			return sign.JWK{}, usageError("--public %s is not a JWK: %w", pubFile, err)
		}
		if _, err := j.PublicKey(); err != nil {
			return sign.JWK{}, usageError("--public %s: %w", pubFile, err)
		}
		j.Nbf, j.Exp = 0, 0
		return j, nil
	}
	raw := ""
	if io.Getenv != nil {
		raw = io.Getenv(sign.KeyEnv)
	}
	if raw == "" {
		return sign.JWK{}, usageError("no current key: set %s or pass --public FILE (the JWK `keys generate` printed)", sign.KeyEnv)
	}
	k, err := sign.ParseKey(raw)
	if err != nil {
		return sign.JWK{}, usageError("%s: %w", sign.KeyEnv, err)
	}
	return sign.PrivateJWK(k), nil
}
