package cycle

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/blobs"
	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/github"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// withStores keeps r's bytes in two stores: the repository's release
// assets on the GitHub fake and a directory standing for a bucket. fail,
// when set, makes the bucket refuse every save while it returns true.
func withStores(t *testing.T, r *repo, fail func() bool) {
	bucket := t.TempDir()
	r.stores = func(clk clock.Clock) blobs.Stores {
		gh, err := github.NewClient(r.cfg, nil, github.WithClock(clk))
		must(t, err)
		rel, err := blobs.NewReleases(gh, blobs.ReleasesOptions{Clock: clk})
		must(t, err)
		local, err := store.Open(bucket)
		must(t, err)
		return blobs.Stores{rel, failing{blobs.NewLocal(local), fail}}
	}
}

// failing is a backend whose saves fail while fail says so: an outage.
type failing struct {
	blobs.Backend
	fail func() bool
}

func (f failing) Save(ctx context.Context, sum store.Sum, r io.ReaderAt, size int64) error {
	if f.fail != nil && f.fail() {
		return errors.New("503 Service Unavailable")
	}
	return f.Backend.Save(ctx, sum, r, size)
}

// blobFiles lists a branch's files under snapshots/sha256/.
func blobFiles(r *repo, branch string) []string {
	var out []string
	for p := range r.files(branch) {
		if strings.HasPrefix(p, "snapshots/sha256/") {
			out = append(out, p)
		}
	}
	return out
}

// TestBytesInStoresTheRecordInMain: with stores, the bot's pull request
// carries the index, the texts and the reports and no blob; each cited
// hash is in both stores before the branch citing it is pushed, its
// index entries say where, and the release asset's link serves the bytes
// to anyone. Nothing cited is ever missing, through changes, a merge and
// a store's outage.
func TestBytesInStoresTheRecordInMain(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "t-a", "t-b", "t-c")
	outage := false
	withStores(t, r, func() bool { return outage })
	check := func(step string) {
		t.Helper()
		assertHeld(t, r)
		for _, branch := range []string{botrepo.BotBranch, botrepo.BaseBranch} {
			if files := blobFiles(r, branch); len(files) > 0 {
				t.Errorf("%s: %s carries blobs: %v", step, branch, files)
			}
		}
	}

	r.cycle()
	check("day 1")
	ix, err := store.ParseIndex([]byte(r.show(botrepo.BotBranch, botrepo.IndexJSON)))
	must(t, err)
	n := 0
	for _, id := range ix.IDs() {
		for _, e := range ix.Entries(id) {
			n++
			if len(e.Held) != 2 || e.Held[0].Store != "github-releases:acme/tax" || !strings.HasPrefix(e.Held[1].Store, "local:") {
				t.Errorf("%s's entry: held %+v, want the release assets and the bucket", id, e.Held)
				continue
			}
			if tp := botrepo.TextPath(id); !r.files(botrepo.BotBranch)[tp] || textFrom(r, botrepo.BotBranch, id) != e.SHA256 {
				t.Errorf("%s: the bot branch lacks the derived text of %.12s at %s", id, e.SHA256, tp)
			}
			resp, err := http.Get(e.Held[0].URL) // no token: anyone
			must(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || sumOf(body) != e.SHA256 {
				t.Errorf("%s: GET %s: %s, %d bytes, want the cited bytes", id, e.Held[0].URL, resp.Status, len(body))
			}
		}
	}
	if n != 3 {
		t.Fatalf("the bot branch's index has %d entries, want 3", n)
	}
	body := r.gh.PRs()[0].Body
	if strings.Contains(body, "/blob/") && strings.Contains(body, "snapshots/sha256") {
		t.Errorf("the pull request links blobs in the repository:\n%s", body)
	}
	// The site links the bytes where anyone downloads them: the source's
	// page and its TimeMap.
	for _, p := range []string{"reports/site/sources/t-a.html", "reports/site/sources/t-a.wlnk"} {
		if page := r.show(botrepo.BotBranch, p); !strings.Contains(page, "/releases/download/blobs-") || strings.Contains(page, "snapshots/sha256") {
			t.Errorf("%s does not link the bytes' release asset:\n%s", p, page)
		}
	}

	// A store's outage: nothing is pushed to the bot branch, the bytes wait
	// on the cache branch, and the next day they are stored and proposed.
	r.docs["t-a"] = "t-a rates, edition 2"
	outage = true
	tip := r.tip(botrepo.BotBranch)
	o, log := r.options("1/1")
	o.Run = r.runner(&o)
	if _, err := Run(context.Background(), o); err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("a cycle whose store refuses saves: err %v, want the store's refusal\n%s", err, log)
	}
	if r.tip(botrepo.BotBranch) != tip {
		t.Error("the bot branch moved although a store refused the bytes it cites")
	}
	pending := 0
	for p := range r.files(botrepo.CacheBranch) {
		if strings.HasPrefix(p, botrepo.PendingDir+"/sha256/") {
			pending++
		}
	}
	if pending == 0 {
		t.Error("the new bytes are not under pending/ on the cache branch")
	}
	check("the outage")
	outage = false
	r.now = r.now.Add(24 * time.Hour)
	r.cycle()
	check("after the outage")
	if body := r.gh.PRs()[0].Body; !strings.Contains(body, "t-a") {
		t.Errorf("t-a's change is not proposed after the outage:\n%s", body)
	}

	r.squashMerge(1)
	check("merged")
	r.docs["t-b"] = "t-b rates, edition 2"
	r.cycle()
	check("day after the merge")
	r.cycle()
	check("quiet day")
	// pending/ keeps no bytes the stores hold: only the texts of entries
	// main does not record yet.
	stores := r.stores(clock.NewFake(r.now))
	texts := 0
	for p := range r.files(botrepo.CacheBranch) {
		if strings.HasPrefix(p, botrepo.PendingDir+"/sha256/") && heldByAll(t, stores, store.Sum(p[strings.LastIndex(p, "/")+1:])) {
			t.Errorf("%s waits on the cache branch though every store holds it", p)
		}
		if strings.HasPrefix(p, botrepo.PendingDir+"/text/") {
			texts++
		}
	}
	if texts == 0 {
		t.Error("the texts of t-b's new version, which main does not record yet, left pending/")
	}
	// The cache branch keeps a copy of every blob that left pending/, a
	// store beside the others.
	onCache := r.files(botrepo.CacheBranch)
	for _, sum := range citedBy(t, r, botrepo.BaseBranch) {
		if p := botrepo.CacheBlobPath(store.Sum(sum)); !onCache[p] && !onCache[botrepo.PendingPath("snapshots/"+store.BlobPath(sum))] {
			t.Errorf("the cache branch keeps no copy of %.12s, which main cites", sum)
		}
	}
}

func sumOf(b []byte) store.Sum {
	s := sha256.Sum256(b)
	return store.Sum(hex.EncodeToString(s[:]))
}

// TestMainsBlobsLeaveOnceEveryStoreHoldsThem: a repository whose main
// carries blobs from before its bytes went to stores. A blob leaves main,
// by the bot's pull request, once every store holds it, and not before;
// a quiet day proposes the move on its own; the record cites every hash
// throughout.
func TestMainsBlobsLeaveOnceEveryStoreHoldsThem(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "t-a", "t-b")
	r.cycle()
	r.squashMerge(1)
	carried := blobFiles(r, botrepo.BaseBranch)
	if len(carried) != 2 {
		t.Fatalf("main carries %v, want the two documents", carried)
	}
	// One bucket, whose blobs have no public link: nothing the pages show
	// changes when a blob moves, so the move must be proposed on its own.
	bucket := t.TempDir()
	r.stores = func(clock.Clock) blobs.Stores {
		local, err := store.Open(bucket)
		must(t, err)
		return blobs.Stores{blobs.NewLocal(local)}
	}
	// A migration that has moved one blob so far.
	first := carried[0]
	sum := store.Sum(first[strings.LastIndex(first, "/")+1:])
	data := []byte(r.show(botrepo.BaseBranch, first))
	for _, b := range r.stores(clock.NewFake(r.now)) {
		must(t, b.Save(context.Background(), sum, bytes.NewReader(data), int64(len(data))))
	}
	r.cycle() // nothing fetched changed: the move alone is proposed
	assertHeld(t, r)
	prs := r.gh.PRs()
	if len(prs) != 2 || prs[1].State != "open" {
		t.Fatalf("pull requests %+v, want #2 open to move the stored blob out of main", prs)
	}
	onBot := r.files(botrepo.BotBranch)
	if onBot[first] || !onBot[carried[1]] {
		t.Errorf("the bot branch holds %v of main's %v: want only the blob no store holds yet", blobFiles(r, botrepo.BotBranch), carried)
	}
	ix, err := store.ParseIndex([]byte(r.show(botrepo.BotBranch, botrepo.IndexJSON)))
	must(t, err)
	for _, id := range ix.IDs() {
		for _, e := range ix.Entries(id) {
			if want := e.SHA256 == sum; (len(e.Held) == 1) != want {
				t.Errorf("%s's %.12s: held %+v (stored everywhere: %v)", id, e.SHA256, e.Held, want)
			}
		}
	}
	// The next day finds the branch proposing all of it: nothing pushed.
	tip := r.tip(botrepo.BotBranch)
	r.cycle()
	if r.tip(botrepo.BotBranch) != tip {
		t.Error("a day with nothing new moved the bot branch")
	}
	r.squashMerge(2)
	if got := blobFiles(r, botrepo.BaseBranch); len(got) != 1 || got[0] != carried[1] {
		t.Errorf("after the merge main carries %v, want only %s", got, carried[1])
	}
	assertHeld(t, r)
}

// mainClone is the size of the pack a contributor's clone of main alone
// downloads (git clone --single-branch, packed by the server as over the
// wire).
func mainClone(t *testing.T, r *repo) int64 {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clone.git")
	if out, err := exec.Command("git", "clone", "--quiet", "--bare", "--no-local", "--single-branch", "--branch", "main", r.git.Dir(repoName), dir).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	var n int64
	packs, err := filepath.Glob(filepath.Join(dir, "objects", "pack", "*.pack"))
	must(t, err)
	for _, p := range packs {
		fi, err := os.Stat(p)
		must(t, err)
		n += fi.Size()
	}
	return n
}

// TestFiveConsolidationsInMainsClone: five consolidations of a 0.9 MiB
// legislation PDF (incompressible, as a compressed PDF's streams are),
// each of the bot's pull requests squash-merged: with the bytes in main,
// a contributor's clone of main grows by about what was served; with the
// bytes in stores, by at most a tenth of it.
func TestFiveConsolidationsInMainsClone(t *testing.T) {
	t.Parallel()
	for _, inStores := range []bool{false, true} {
		t.Run(fmt.Sprint("stores=", inStores), func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, "ca-ita")
			r.types = map[string]string{"ca-ita": "application/pdf"}
			if inStores {
				withStores(t, r, nil)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			pdf := func() string {
				b := make([]byte, 900<<10)
				for i := range b {
					b[i] = byte(rng.Uint32())
				}
				return "%PDF-1.7\n" + string(b)
			}
			r.docs["ca-ita"] = pdf()
			r.cycle()
			r.squashMerge(1)
			before := mainClone(t, r)
			served := 0
			for i := 2; i <= 6; i++ {
				r.docs["ca-ita"] = pdf()
				served += len(r.docs["ca-ita"])
				r.cycle()
				r.squashMerge(i)
				assertHeld(t, r)
			}
			growth := mainClone(t, r) - before
			ratio := float64(growth) / float64(served)
			t.Logf("bytes in stores %v: main's clone grew by %d bytes (%.1f%%) for %d bytes served in five consolidations", inStores, growth, 100*ratio, served)
			switch {
			case inStores && ratio > 0.10:
				t.Errorf("main's clone grew by %.1f%% of the bytes served, want at most 10%%", 100*ratio)
			case !inStores && ratio < 0.9:
				t.Errorf("with the bytes in main, its clone grew by only %.1f%% of the bytes served: the measure misses them", 100*ratio)
			}
		})
	}
}

// TestTwoSourcesOfTheSameBytesLeavePendingOnce: two sources serving the
// same bytes share one blob under pending/; once main records them (or,
// with stores, once the stores hold it), the blob leaves pending/ in one
// deletion, and the cache branch's push goes through.
func TestTwoSourcesOfTheSameBytesLeavePendingOnce(t *testing.T) {
	t.Parallel()
	for _, inStores := range []bool{false, true} {
		t.Run(fmt.Sprint("stores=", inStores), func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, "t-a", "t-b")
			if inStores {
				withStores(t, r, nil)
			}
			r.docs["t-a"], r.docs["t-b"] = "the same table", "the same table"
			r.cycle()
			r.squashMerge(1)
			r.docs["t-a"] = "t-a, edition 2"
			_, log := r.cycle()
			if strings.Contains(log, "changed twice") {
				t.Errorf("the cache branch's push conflicted with itself:\n%s", log)
			}
			for p := range r.files(botrepo.CacheBranch) {
				if strings.HasPrefix(p, botrepo.PendingDir+"/sha256/") && strings.Contains(p, string(sumOf([]byte("the same table")))) {
					t.Errorf("%s still waits on the cache branch", p)
				}
			}
			assertHeld(t, r)
		})
	}
}
