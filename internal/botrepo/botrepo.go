package botrepo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/gitstore"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// The branches the bot reads and writes.
const (
	// CacheBranch is the bot's memory: state, ledgers, leases, what waits
	// for main under pending/, and the publisher's record of its pull
	// requests. It is only ever added to.
	CacheBranch = "fetch-cache"
	// BotBranch is the pull request's branch: main plus one bot commit.
	BotBranch  = "taxkernelbot/update"
	BaseBranch = "main"
)

// The identity of the bot's commits: how it tells its own commits on the
// bot branch from anyone else's.
const (
	BotName  = "TaxKernelBot"
	BotEmail = "bot@taxkernel.com"
)

// Signature is the bot's signature of a commit made at now (to the
// second, as git keeps it).
func Signature(now time.Time) gitstore.Signature {
	return gitstore.Signature{Name: BotName, Email: BotEmail, When: now.UTC().Truncate(time.Second)}
}

// CacheTrailer, in the message of each bot commit, names the cache
// branch's tip the commit was built with: the bot branch remembers that
// the cache branch existed even on a runner that never saw it.
const CacheTrailer = "Fetch-Cache: "

// Paths of what the bot proposes, in the repository.
const (
	CoverageJSON = report.JSONPath
	IndexJSON    = "snapshots/index.json"
)

// What waits on the cache branch for main: the index entries main does not
// hold yet, their blobs and texts, in the store's own layout under
// PendingDir.
const (
	PendingDir   = "pending"
	PendingIndex = PendingDir + "/index.json"
)

// CacheBlobsDir is where the cache branch keeps, when the bytes are in
// stores, each blob that left pending/: a copy of its own, by its hash,
// and beside them, in a store's layout (text/<version>/…), the texts that
// left pending/, which main keeps only while a source serves their bytes.
const CacheBlobsDir = "blobs"

// CacheBlobPath is where the cache branch keeps blob sum once it has left
// pending/: blobs/sha256/<2 hex>/<hash>.
func CacheBlobPath(sum store.Sum) string { return CacheBlobsDir + "/" + sum.Path() }

// PendingPath is where a file of the repository's snapshots/ (a blob or a
// derived text) waits on the cache branch.
func PendingPath(repoPath string) string {
	return PendingDir + "/" + strings.TrimPrefix(repoPath, "snapshots/")
}

// PendingBlob reads a blob, or a text, waiting on the cache branch's tree
// cache (nil: there is none).
func PendingBlob(cache fs.FS, repoPath string) ([]byte, error) {
	if cache == nil {
		return nil, fmt.Errorf("no %s: %w", CacheBranch, fs.ErrNotExist)
	}
	return fs.ReadFile(cache, PendingPath(repoPath))
}

// ReadLocal reads a file of the local store (its bytes as served).
func ReadLocal(snapshots string, sum store.Sum) ([]byte, error) {
	return os.ReadFile(filepath.Join(snapshots, filepath.FromSlash(sum.Path())))
}

// ReportIn is the coverage report of a branch's tree (nil when it has none).
func ReportIn(tree fs.FS, branch string) (*report.Report, error) {
	data, err := fs.ReadFile(tree, CoverageJSON)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	r, err := report.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", branch, CoverageJSON, err)
	}
	return r, nil
}

// IndexAt is the hash index at path of a branch's tree (empty when it has
// none).
func IndexAt(tree fs.FS, path, branch string) (*store.Index, error) {
	data, err := fs.ReadFile(tree, path)
	if errors.Is(err, fs.ErrNotExist) {
		return store.NewIndex(), nil
	}
	if err != nil {
		return nil, err
	}
	ix, err := store.ParseIndex(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", branch, path, err)
	}
	return ix, nil
}

// Lister returns a test of whether a file exists in fsys that reads
// directory listings only (once each), never contents: on a partial tree,
// looking for thousands of blobs must not download them.
func Lister(fsys fs.FS) func(name string) bool {
	dirs := map[string]map[string]bool{}
	return func(name string) bool {
		dir, file := path.Split(name)
		dir = strings.TrimSuffix(dir, "/")
		names, ok := dirs[dir]
		if !ok {
			names = map[string]bool{}
			ents, _ := fs.ReadDir(fsys, dir)
			for _, e := range ents {
				names[e.Name()] = !e.IsDir()
			}
			dirs[dir] = names
		}
		return names[file]
	}
}

// ExplainGit adds to a git error what a maintainer must fix.
func ExplainGit(err error) error {
	if errors.Is(err, gitstore.ErrAuth) {
		return fmt.Errorf("%w (the token is the repository secret TAXKERNELBOT_TOKEN or, when it is not set, the workflow's GITHUB_TOKEN: "+
			"it needs `contents: write`; with TAXKERNELBOT_APP_ID and TAXKERNELBOT_APP_PRIVATE_KEY the bot mints and renews an App's tokens itself)", err)
	}
	return err
}
