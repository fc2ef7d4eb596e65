package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/blobs"
	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/github"
	"github.com/taxkernel/taxkernelbot/internal/gitstore"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// configuredStores is where the archive's bytes are held, in the order
// they are asked: the local store under snapshots/, the repository's
// GitHub Release assets when the environment names a repository and a
// token (as GitHub Actions does), then each store policy.yaml lists, its
// keys read from the environment.
func configuredStores(snapshots string, set *manifest.Set, io IO, httpClient *http.Client) (blobs.Stores, error) {
	local, err := store.Open(snapshots)
	if err != nil {
		return nil, err
	}
	var gh *github.Client
	if io.getenv("GITHUB_REPOSITORY") != "" && io.getenv("GITHUB_TOKEN") != "" {
		cfg, err := github.ConfigFromEnv(io.Getenv)
		if err != nil {
			return nil, err
		}
		if gh, err = github.NewClient(cfg, httpClient); err != nil {
			return nil, err
		}
	}
	remote, err := remoteStores(set, io, gh, nil)
	if err != nil {
		return nil, err
	}
	return append(blobs.Stores{blobs.NewLocal(local)}, remote...), nil
}

// remoteStores are the stores that keep the archive's bytes outside the
// repository's history: the repository's GitHub release assets when gh
// is given (its months by clk, nil for the real clock), then each store policy.yaml lists, its keys read from the
// environment.
func remoteStores(set *manifest.Set, io IO, gh *github.Client, clk clock.Clock) (blobs.Stores, error) {
	var ss blobs.Stores
	if gh != nil {
		rel, err := blobs.NewReleases(gh, blobs.ReleasesOptions{Clock: clk})
		if err != nil {
			return nil, err
		}
		ss = append(ss, rel)
	}
	lookup := func(k string) (string, bool) {
		v := io.getenv(k)
		return v, v != ""
	}
	for _, st := range set.Policy.Stores {
		b, err := blobs.Open(st, lookup)
		if err != nil {
			return nil, err
		}
		ss = append(ss, b)
	}
	return ss, nil
}

// verifyStores checks that every hash the index cites is held by at
// least want of the stores, and downloads and re-hashes the sampled
// hashes from every store that holds them. It returns the problems, in
// words, one per line.
func verifyStores(ctx context.Context, ss blobs.Stores, ix *store.Index, want int, sample []store.Sum) ([]string, error) {
	short, err := ss.Census(ctx, ix, want)
	if err != nil {
		return nil, err
	}
	var problems []string
	for _, s := range short {
		held := "no store"
		if len(s.Holders) > 0 {
			held = strings.Join(s.Holders, ", ")
		}
		line := fmt.Sprintf("%s: held by %d of the %d store(s) it should be (%s), cited by %s", s.SHA256, len(s.Holders), want, held, strings.Join(s.Sources, ", "))
		if len(s.Unsure) > 0 {
			line += "; could not ask " + strings.Join(s.Unsure, "; ")
		}
		problems = append(problems, line)
	}
	for _, sum := range sample {
		for _, b := range ss {
			if _, err := b.Stat(ctx, sum); err != nil {
				continue // held or not is the census's to say
			}
			rc, err := b.Load(ctx, sum)
			if err == nil {
				_, err = io.Copy(io.Discard, rc) // reading to the end re-hashes
				rc.Close()
			}
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: %s: %v", sum, b.Name(), err))
			}
		}
	}
	return problems, nil
}

// cacheBranchStore is the cache branch's copy of the bytes (its blobs/
// and pending/) as the runner's git store under state holds it, brought up
// to date, when the environment names the repository and its token, as
// GitHub Actions does after a cycle; nil otherwise. done closes it.
func cacheBranchStore(ctx context.Context, state string, io IO) (blobs.Backend, func(), error) {
	dir := filepath.Join(state, ".gitstore")
	if _, err := os.Stat(dir); err != nil || io.getenv("GITHUB_REPOSITORY") == "" || io.getenv("GITHUB_TOKEN") == "" {
		return nil, nil, nil
	}
	cfg, err := github.ConfigFromEnv(io.Getenv)
	if err != nil {
		return nil, nil, err
	}
	repo, err := gitstore.Open(dir, gitstore.Remote{URL: cfg.GitURL(), Username: "x-access-token", Password: cfg.Token})
	if err != nil {
		return nil, nil, err
	}
	_, tree, err := repo.Read(ctx, botrepo.CacheBranch)
	if err != nil {
		repo.Close()
		if errors.Is(err, gitstore.ErrNoBranch) {
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("the cache branch's copy of the bytes: %w", botrepo.ExplainGit(err))
	}
	name := botrepo.CacheBranch + ":" + cfg.Owner + "/" + cfg.Repo
	return blobs.NewTree(name, tree, botrepo.CacheBlobsDir, botrepo.PendingDir), func() { repo.Close() }, nil
}
