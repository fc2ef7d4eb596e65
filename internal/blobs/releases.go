package blobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/github"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// Releases holds blobs as assets of a repository's GitHub releases, the
// default on GitHub: reached with the workflow's own token, nothing to
// set up. Each asset is named by its blob's 64 hex digits, which GitHub
// keeps as they are (it renames characters other than letters, digits and
// a few marks, and leading or trailing periods). The assets go into one
// release per month, tagged Prefix and the month ("blobs-2026-12"); when
// that release holds PerRelease assets the next is opened
// ("blobs-2026-12-2", "-3", …), below GitHub's 1,000 assets per release.
//
// The releases are published prereleases never marked latest: public, so
// that anyone can fetch a blob by its hash and check it, and not taken for
// a product release (not "Latest", flagged "Pre-release"). Drafts would
// hide them from everyone without push access, and GitHub finds no draft
// by its tag.
//
// Which hashes are held where is read once, listing the releases of the
// prefix and their assets page by page, and kept for the backend's life;
// saves add to it. An asset another process adds afterwards is seen by
// the next backend.
type Releases struct {
	c          *github.Client
	clock      clock.Clock
	prefix     string
	perRelease int

	save sync.Mutex // one upload at a time: GitHub asks for serial writes

	mu       sync.Mutex
	loaded   bool
	held     map[store.Sum]heldAsset
	open     map[store.Sum][]int64 // unfinished uploads, by asset id
	releases map[string]*period    // by tag
}

type heldAsset struct {
	id   int64
	size int64
	url  string // browser_download_url
}

type period struct {
	rel   github.Release
	count int // assets, finished or not: GitHub's bound counts them all
}

// ReleasesOptions configure NewReleases; the zero value is the default.
type ReleasesOptions struct {
	Clock      clock.Clock // which month it is; default the real one
	Prefix     string      // of the tags; default "blobs-"
	PerRelease int         // assets a release takes; default 900
}

// Release bounds: GitHub takes at most 1,000 assets in a release; the
// default leaves room below it for assets put there by hand.
const (
	DefaultPerRelease = 900
	MaxPerRelease     = 1000
)

// NewReleases is the releases of c's repository as a Backend.
func NewReleases(c *github.Client, o ReleasesOptions) (*Releases, error) {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Prefix == "" {
		o.Prefix = "blobs-"
	}
	if o.PerRelease == 0 {
		o.PerRelease = DefaultPerRelease
	}
	if o.PerRelease < 1 || o.PerRelease > MaxPerRelease {
		return nil, fmt.Errorf("blobs: %d assets per release: GitHub takes 1 to %d", o.PerRelease, MaxPerRelease)
	}
	return &Releases{c: c, clock: o.Clock, prefix: o.Prefix, perRelease: o.PerRelease}, nil
}

// Name is "github-releases:" and the repository.
func (b *Releases) Name() string { return "github-releases:" + b.c.Repository() }

// periodOf reads a tag of the prefix: its month and its number (1 for
// the month's first, unnumbered, release).
func (b *Releases) periodOf(tag string) (month string, n int, ok bool) {
	rest, ok := strings.CutPrefix(tag, b.prefix)
	if !ok || len(rest) < 7 || rest[4] != '-' {
		return "", 0, false
	}
	month, rest = rest[:7], rest[7:]
	if _, err := strconv.Atoi(month[:4]); err != nil {
		return "", 0, false
	}
	if m, err := strconv.Atoi(month[5:]); err != nil || m < 1 || m > 12 {
		return "", 0, false
	}
	if rest == "" {
		return month, 1, true
	}
	n, err := strconv.Atoi(strings.TrimPrefix(rest, "-"))
	if !strings.HasPrefix(rest, "-") || err != nil || n < 2 || strconv.Itoa(n) != rest[1:] {
		return "", 0, false
	}
	return month, n, true
}

func (b *Releases) tag(month string, n int) string {
	if n == 1 {
		return b.prefix + month
	}
	return b.prefix + month + "-" + strconv.Itoa(n)
}

// load lists the releases of the prefix and their assets, once.
func (b *Releases) load(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.loaded {
		return nil
	}
	held, open, releases := map[store.Sum]heldAsset{}, map[store.Sum][]int64{}, map[string]*period{}
	err := b.c.ListReleases(ctx, func(rel github.Release) error {
		if _, _, ok := b.periodOf(rel.Tag); ok {
			releases[rel.Tag] = &period{rel: rel}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("blobs: %s: %w", b.Name(), err)
	}
	for _, p := range releases {
		err := b.c.ListReleaseAssets(ctx, p.rel.ID, func(a github.Asset) error {
			p.count++
			sum := store.Sum(a.Name)
			switch {
			case !sum.Valid(): // not a blob: put there by hand
			case !a.Uploaded():
				open[sum] = append(open[sum], a.ID)
			default:
				held[sum] = heldAsset{id: a.ID, size: a.Size, url: a.DownloadURL}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("blobs: %s: %w", b.Name(), err)
		}
	}
	b.held, b.open, b.releases, b.loaded = held, open, releases, true
	return nil
}

func (b *Releases) lookup(ctx context.Context, sum store.Sum) (heldAsset, error) {
	if !sum.Valid() {
		return heldAsset{}, fmt.Errorf("%w: %q is not a hex sha256", ErrNotFound, sum)
	}
	if err := b.load(ctx); err != nil {
		return heldAsset{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	a, ok := b.held[sum]
	if !ok {
		return heldAsset{}, fmt.Errorf("%w: %s in %s", ErrNotFound, sum.Short(), b.Name())
	}
	return a, nil
}

// Stat is the asset's size, as the listing gave it.
func (b *Releases) Stat(ctx context.Context, sum store.Sum) (int64, error) {
	a, err := b.lookup(ctx, sum)
	return a.size, err
}

// URL is the asset's public download link, which serves the bytes to
// anyone without a token.
func (b *Releases) URL(ctx context.Context, sum store.Sum) (string, error) {
	a, err := b.lookup(ctx, sum)
	return a.url, err
}

// Load downloads the asset, re-hashing it as it is read.
func (b *Releases) Load(ctx context.Context, sum store.Sum) (io.ReadCloser, error) {
	a, err := b.lookup(ctx, sum)
	if err != nil {
		return nil, err
	}
	rc, found, err := b.c.DownloadReleaseAsset(ctx, a.id)
	if err != nil {
		return nil, fmt.Errorf("blobs: %s: %w", b.Name(), err)
	}
	if !found { // deleted since the listing
		b.mu.Lock()
		delete(b.held, sum)
		b.mu.Unlock()
		return nil, fmt.Errorf("%w: %s in %s (the asset was deleted)", ErrNotFound, sum.Short(), b.Name())
	}
	return Verified(rc, sum, a.size, b.Name()), nil
}

// List names the assets held, whole uploads only.
func (b *Releases) List(ctx context.Context, fn func(sum store.Sum, size int64) error) error {
	if err := b.load(ctx); err != nil {
		return err
	}
	b.mu.Lock()
	held := maps.Clone(b.held)
	b.mu.Unlock()
	for _, sum := range slices.Sorted(maps.Keys(held)) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(sum, held[sum].size); err != nil {
			return err
		}
	}
	return nil
}

// Save uploads the blob unless it is held. The bytes are hashed before
// they are sent; what GitHub says it received (its size, and its digest
// where it gives one) is checked after, and an asset that does not match
// is deleted again. An upload an earlier run left unfinished (an asset of
// the name not in state "uploaded") is deleted and done again; so is one
// an upstream failure leaves during this one (GitHub then answers 502,
// and the retry finds the name taken).
func (b *Releases) Save(ctx context.Context, sum store.Sum, r io.ReaderAt, size int64) error {
	if !sum.Valid() {
		return fmt.Errorf("%w: %q is not a hex sha256", ErrNotFound, sum)
	}
	if size > github.MaxAssetSize {
		return fmt.Errorf("blobs: %s is %d bytes, and GitHub takes release assets under 2 GiB: keep blobs this large in another store (S3), or lower the policy's max_body", sum.Short(), size)
	}
	if err := b.load(ctx); err != nil {
		return err
	}
	b.save.Lock()
	defer b.save.Unlock()
	b.mu.Lock()
	_, held := b.held[sum]
	b.mu.Unlock()
	if held {
		return nil
	}
	if err := Check(sum, r, size); err != nil {
		return err
	}
	if err := b.clean(ctx, sum); err != nil {
		return err
	}
	p, err := b.current(ctx)
	if err != nil {
		return err
	}
	b.mu.Lock()
	_, held = b.held[sum] // in a release another run made, found on create
	b.mu.Unlock()
	if held {
		return nil
	}
	for try := 1; ; try++ {
		a, err := b.c.UploadReleaseAsset(ctx, p.rel, string(sum), r, size)
		if errors.Is(err, github.ErrAssetExists) && try == 1 {
			// An upstream failure left the name taken (the retried call
			// finds it): see what is there.
			done, err := b.settle(ctx, p, sum, size)
			if err != nil || done {
				return err
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("blobs: %s: %w", b.Name(), err)
		}
		b.mu.Lock()
		p.count++
		b.mu.Unlock()
		return b.accept(ctx, sum, size, a)
	}
}

// accept checks what GitHub says it received and makes the asset held,
// or deletes it.
func (b *Releases) accept(ctx context.Context, sum store.Sum, size int64, a github.Asset) error {
	var bad string
	switch {
	case a.Name != string(sum):
		bad = fmt.Sprintf("GitHub named the asset %q", a.Name)
	case !a.Uploaded():
		bad = fmt.Sprintf("the asset is in state %q", a.State)
	case a.Size != size:
		bad = fmt.Sprintf("GitHub received %d bytes", a.Size)
	case a.Digest != "" && a.Digest != "sha256:"+string(sum):
		bad = "GitHub's digest of it is " + a.Digest
	}
	if bad != "" {
		if err := b.c.DeleteReleaseAsset(ctx, a.ID); err != nil {
			return fmt.Errorf("blobs: %s: upload of %s went wrong (%s) and deleting it failed: %w", b.Name(), sum.Short(), bad, err)
		}
		return fmt.Errorf("%w: %s: uploaded %s (%d bytes) but %s; the asset was deleted", ErrCorrupt, b.Name(), sum.Short(), size, bad)
	}
	b.mu.Lock()
	b.held[sum] = heldAsset{id: a.ID, size: a.Size, url: a.DownloadURL}
	b.mu.Unlock()
	return nil
}

// clean deletes the unfinished uploads of sum the listing found.
func (b *Releases) clean(ctx context.Context, sum store.Sum) error {
	b.mu.Lock()
	ids := b.open[sum]
	b.mu.Unlock()
	for _, id := range ids {
		if err := b.c.DeleteReleaseAsset(ctx, id); err != nil {
			return fmt.Errorf("blobs: %s: deleting the unfinished upload of %s: %w", b.Name(), sum.Short(), err)
		}
	}
	b.mu.Lock()
	delete(b.open, sum)
	b.mu.Unlock()
	return nil
}

// settle looks at the asset named sum in p after an upload found the name
// taken: a whole one of the right size is the blob (done); an unfinished
// one is deleted, for the upload to be tried again.
func (b *Releases) settle(ctx context.Context, p *period, sum store.Sum, size int64) (done bool, err error) {
	var found []github.Asset
	err = b.c.ListReleaseAssets(ctx, p.rel.ID, func(a github.Asset) error {
		if a.Name == string(sum) {
			found = append(found, a)
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("blobs: %s: %w", b.Name(), err)
	}
	for _, a := range found {
		if a.Uploaded() {
			return true, b.accept(ctx, sum, size, a)
		}
		if err := b.c.DeleteReleaseAsset(ctx, a.ID); err != nil {
			return false, fmt.Errorf("blobs: %s: deleting the unfinished upload of %s: %w", b.Name(), sum.Short(), err)
		}
	}
	return false, nil
}

// current is the release new assets go into: this month's last, or a new
// one when it is full or there is none. A release another run made since
// the listing is what GitHub gives on create: its assets are counted, and
// when it is full the next is made.
func (b *Releases) current(ctx context.Context) (*period, error) {
	month := b.clock.Now().UTC().Format("2006-01")
	for {
		b.mu.Lock()
		var last *period
		lastN := 0
		for tag, p := range b.releases {
			if m, n, _ := b.periodOf(tag); m == month && n > lastN {
				last, lastN = p, n
			}
		}
		b.mu.Unlock()
		if last != nil && last.count < b.perRelease {
			return last, nil
		}
		tag := b.tag(month, lastN+1)
		rel, err := b.c.CreatePrerelease(ctx, tag, "Bytes of TaxKernelBot's archive: each asset is a document, named by the SHA-256 of its bytes. Not a release of the software.")
		if err != nil {
			return nil, fmt.Errorf("blobs: %s: %w", b.Name(), err)
		}
		p := &period{rel: rel}
		held := map[store.Sum]heldAsset{}
		err = b.c.ListReleaseAssets(ctx, rel.ID, func(a github.Asset) error {
			p.count++
			if sum := store.Sum(a.Name); sum.Valid() && a.Uploaded() {
				held[sum] = heldAsset{id: a.ID, size: a.Size, url: a.DownloadURL}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("blobs: %s: %w", b.Name(), err)
		}
		b.mu.Lock()
		maps.Copy(b.held, held)
		b.releases[tag] = p
		b.mu.Unlock()
	}
}
