package blobs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/blobs"
	"github.com/taxkernel/taxkernelbot/internal/blobs/blobstest"
	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/github"
	"github.com/taxkernel/taxkernelbot/internal/github/githubtest"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// december is when the tests run: their releases are blobs-2026-12….
var december = time.Date(2026, 12, 7, 20, 0, 0, 0, time.UTC)

func newReleases(t *testing.T, f *githubtest.Fake, perRelease int) *blobs.Releases {
	t.Helper()
	clk := clock.NewFake(december)
	c, err := github.NewClient(github.Config{Owner: f.Owner, Repo: f.Repo, APIURL: f.URL, Token: f.Token}, nil, github.WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	b, err := blobs.NewReleases(c, blobs.ReleasesOptions{Clock: clk, PerRelease: perRelease})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReleases(t *testing.T) {
	var mu sync.Mutex
	fakes := map[blobs.Backend]*githubtest.Fake{}
	blobstest.Run(t, blobstest.Options{
		New: func(t *testing.T) blobs.Backend {
			f := githubtest.New(t, "taxkernel", "archive", "tok")
			b := newReleases(t, f, 0)
			mu.Lock()
			fakes[b] = f
			mu.Unlock()
			return b
		},
		Corrupt: func(t *testing.T, b blobs.Backend, sum store.Sum) {
			mu.Lock()
			f := fakes[b]
			mu.Unlock()
			for _, rel := range f.Releases() {
				for _, a := range rel.Assets {
					if a.Name == string(sum) {
						data := slices.Clone(a.Data)
						data[len(data)/2] ^= 0xff // the same size, other bytes
						f.SetAssetBytes(a.Name, data)
						return
					}
				}
			}
			t.Fatalf("no asset %s", sum)
		},
	})
}

func uploads(calls []string) int {
	n := 0
	for _, c := range calls {
		if strings.HasPrefix(c, "POST ") && strings.HasSuffix(c, "/assets") {
			n++
		}
	}
	return n
}

func save(t *testing.T, b blobs.Backend, data []byte) store.Sum {
	t.Helper()
	sum := blobstest.SumOf(data)
	if err := b.Save(context.Background(), sum, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatalf("Save(%s): %v", sum.Short(), err)
	}
	return sum
}

func load(t *testing.T, b blobs.Backend, sum store.Sum) []byte {
	t.Helper()
	rc, err := b.Load(context.Background(), sum)
	if err != nil {
		t.Fatalf("Load(%s): %v", sum.Short(), err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("Load(%s): %v", sum.Short(), err)
	}
	return data
}

func TestReleasesSavingAHeldBlobSendsNoUpload(t *testing.T) {
	f := githubtest.New(t, "taxkernel", "archive", "tok")
	data := []byte("Income Tax rates and bands 2026 to 2027\n")
	save(t, newReleases(t, f, 0), data)
	if n := uploads(f.Calls()); n != 1 {
		t.Fatalf("first save: %d uploads, want 1 (calls %q)", n, f.Calls())
	}
	// The same backend, and a new one that learns what is held from the
	// listing (the next run's).
	for _, b := range []*blobs.Releases{newReleases(t, f, 0), newReleases(t, f, 0)} {
		before := len(f.Writes())
		save(t, b, data)
		save(t, b, data)
		if w := f.Writes()[before:]; len(w) != 0 {
			t.Errorf("saving a held blob again wrote %q, want nothing", w)
		}
	}
	rel := f.Releases()
	if len(rel) != 1 || rel[0].Tag != "blobs-2026-12" || !rel[0].Prerelease || rel[0].MakeLatest != "false" || rel[0].Draft {
		t.Errorf("releases %+v: want one prerelease blobs-2026-12, not a draft, never latest", rel)
	}
}

func TestReleasesRedoAnUploadAKilledRunLeft(t *testing.T) {
	f := githubtest.New(t, "taxkernel", "archive", "tok")
	data := []byte("Stamp Duty Land Tax rates\n")
	sum := blobstest.SumOf(data)
	left := f.AddAsset("blobs-2026-12", string(sum), "open", nil)
	b := newReleases(t, f, 0)
	ctx := context.Background()
	if _, err := b.Stat(ctx, sum); !errors.Is(err, blobs.ErrNotFound) {
		t.Fatalf("an unfinished upload is visible: Stat %v", err)
	}
	if err := b.List(ctx, func(s store.Sum, _ int64) error { return fmt.Errorf("listed %s", s.Short()) }); err != nil {
		t.Fatalf("List: %v", err)
	}
	before := len(f.Writes())
	save(t, b, data)
	writes := f.Writes()[before:]
	want := []string{
		fmt.Sprintf("DELETE /repos/taxkernel/archive/releases/assets/%d", left),
		"POST /repos/taxkernel/archive/releases/1/assets",
	}
	if !slices.Equal(writes, want) {
		t.Errorf("writes %q, want %q", writes, want)
	}
	if got := load(t, b, sum); !bytes.Equal(got, data) {
		t.Errorf("Load = %q, want %q", got, data)
	}
	assets := f.Releases()[0].Assets
	if len(assets) != 1 || assets[0].State != "uploaded" || assets[0].Name != string(sum) {
		t.Errorf("assets %+v: want the one uploaded", assets)
	}
	if authed := f.StorageRequestsWithToken(); len(authed) != 0 {
		t.Errorf("the token was sent to the storage host: %q", authed)
	}
}

func TestReleasesRedoAnUploadAnUpstreamFailureLeft(t *testing.T) {
	f := githubtest.New(t, "taxkernel", "archive", "tok")
	b := newReleases(t, f, 0)
	f.BreakNextUploads(1) // 502, with an asset left "open"; the retry finds the name taken
	data := bytes.Repeat([]byte("VAT notice 700\n"), 1000)
	sum := save(t, b, data)
	if got := load(t, b, sum); !bytes.Equal(got, data) {
		t.Errorf("Load = %d bytes, want the %d saved", len(got), len(data))
	}
	assets := f.Releases()[0].Assets
	if len(assets) != 1 || assets[0].State != "uploaded" {
		t.Errorf("assets %+v: want one, uploaded", assets)
	}
	if n := uploads(f.Calls()); n != 3 {
		t.Errorf("%d uploads (the failed one, its retry, the one after cleaning), want 3: %q", n, f.Calls())
	}
}

func TestReleasesRollOverToTheNextRelease(t *testing.T) {
	f := githubtest.New(t, "taxkernel", "archive", "tok")
	b := newReleases(t, f, 3)
	var sums []store.Sum
	for i := range 7 {
		sums = append(sums, save(t, b, fmt.Appendf(nil, "document %d\n", i)))
	}
	var tags []string
	var counts []int
	for _, rel := range f.Releases() {
		tags, counts = append(tags, rel.Tag), append(counts, len(rel.Assets))
		if !rel.Prerelease || rel.MakeLatest != "false" {
			t.Errorf("%s: prerelease %v, make_latest %q; want a prerelease never latest", rel.Tag, rel.Prerelease, rel.MakeLatest)
		}
	}
	if want := []string{"blobs-2026-12", "blobs-2026-12-2", "blobs-2026-12-3"}; !slices.Equal(tags, want) || !slices.Equal(counts, []int{3, 3, 1}) {
		t.Errorf("releases %q holding %v assets, want %q holding [3 3 1]", tags, counts, want)
	}
	// The next run finds every blob, in whichever release, and adds to
	// the last.
	next := newReleases(t, f, 3)
	for i, sum := range sums {
		if got := load(t, next, sum); string(got) != fmt.Sprintf("document %d\n", i) {
			t.Errorf("Load(%s) = %q", sum.Short(), got)
		}
	}
	save(t, next, []byte("document 7\n"))
	if rel := f.Releases(); len(rel) != 3 || len(rel[2].Assets) != 2 {
		t.Errorf("after one more save: %d releases, the last holding %d; want 3, 2", len(rel), len(rel[len(rel)-1].Assets))
	}
}

func TestReleasesListsEveryPage(t *testing.T) {
	f := githubtest.New(t, "taxkernel", "archive", "tok")
	want := map[store.Sum]int64{}
	add := func(tag string, i int) {
		data := fmt.Appendf(nil, "%s asset %d", tag, i)
		f.AddAsset(tag, string(blobstest.SumOf(data)), "uploaded", data)
		want[blobstest.SumOf(data)] = int64(len(data))
	}
	for i := range 250 { // three pages of assets
		add("blobs-2026-11", i)
	}
	for n := 2; n <= 121; n++ { // with the rest, two pages of releases
		add(fmt.Sprintf("blobs-2026-10-%d", n), 0)
	}
	f.AddAsset("v1.0.0", "taxkernelbot_linux_amd64.tar.gz", "uploaded", []byte("a product release")) // not the store's
	f.AddAsset("blobs-2026-11", "notes.txt", "uploaded", []byte("put there by hand"))                // not a blob

	b := newReleases(t, f, 0)
	got := map[store.Sum]int64{}
	if err := b.List(context.Background(), func(sum store.Sum, size int64) error { got[sum] = size; return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("List named %d blobs, want %d", len(got), len(want))
	}
	for sum, size := range want {
		if got[sum] != size {
			t.Errorf("List gives %s as %d bytes, want %d", sum.Short(), got[sum], size)
		}
	}
	count := map[string]int{}
	for _, c := range f.Calls() {
		count[c]++
	}
	if n := count["GET /repos/taxkernel/archive/releases"]; n != 2 {
		t.Errorf("%d pages of releases read, want 2", n)
	}
	if n := count["GET /repos/taxkernel/archive/releases/1/assets"]; n != 3 {
		t.Errorf("%d pages of blobs-2026-11's assets read, want 3", n)
	}
	if n := count["GET /repos/taxkernel/archive/releases/"+fmt.Sprint(f.Releases()[len(f.Releases())-1].ID)+"/assets"]; n != 0 {
		t.Errorf("the assets of release v1.0.0 were read %d times: it is not the store's", n)
	}
	// Read once for the backend's life.
	before := len(f.Calls())
	if _, err := b.Stat(context.Background(), blobstest.SumOf([]byte("blobs-2026-11 asset 0"))); err != nil {
		t.Errorf("Stat: %v", err)
	}
	if calls := f.Calls()[before:]; len(calls) != 0 {
		t.Errorf("Stat after List called %q, want nothing", calls)
	}
}

// sized is a reader of a given size that must not be read.
type sized struct{ t *testing.T }

func (s sized) ReadAt([]byte, int64) (int, error) {
	s.t.Error("the bytes of a blob too large for GitHub were read")
	return 0, io.EOF
}

func TestReleasesRefuseAFileOver2GiB(t *testing.T) {
	f := githubtest.New(t, "taxkernel", "archive", "tok")
	b := newReleases(t, f, 0)
	err := b.Save(context.Background(), blobstest.SumOf([]byte("big")), sized{t}, 2<<30)
	if err == nil || !strings.Contains(err.Error(), "under 2 GiB") {
		t.Errorf("Save of 2 GiB: %v, want a refusal naming GitHub's bound", err)
	}
	if calls := f.Calls(); len(calls) != 0 {
		t.Errorf("calls %q, want none", calls)
	}
}

func TestReleasesName(t *testing.T) {
	f := githubtest.New(t, "taxkernel", "archive", "tok")
	if got := newReleases(t, f, 0).Name(); got != "github-releases:taxkernel/archive" {
		t.Errorf("Name = %q", got)
	}
	c, _ := github.NewClient(github.Config{Owner: "o", Repo: "r", APIURL: f.URL, Token: "t"}, nil)
	if _, err := blobs.NewReleases(c, blobs.ReleasesOptions{PerRelease: 1001}); err == nil {
		t.Error("1,001 assets per release accepted; GitHub takes 1,000")
	}
}

func TestReleasesAnotherRunsReleaseCountsTowardsTheBound(t *testing.T) {
	f := githubtest.New(t, "taxkernel", "archive", "tok")
	first, other := newReleases(t, f, 3), newReleases(t, f, 3)
	if err := first.List(context.Background(), func(store.Sum, int64) error { return nil }); err != nil {
		t.Fatal(err) // the first run has read that there are no releases
	}
	var theirs []store.Sum
	for i := range 3 { // meanwhile another run fills this month's release
		theirs = append(theirs, save(t, other, fmt.Appendf(nil, "theirs %d", i)))
	}
	save(t, first, []byte("ours"))
	var tags []string
	for _, rel := range f.Releases() {
		tags = append(tags, rel.Tag)
	}
	if want := []string{"blobs-2026-12", "blobs-2026-12-2"}; !slices.Equal(tags, want) {
		t.Errorf("releases %q, want %q: the other run's full release takes no more", tags, want)
	}
	for _, sum := range theirs {
		if _, err := first.Stat(context.Background(), sum); err != nil {
			t.Errorf("the other run's %s, in the release found on create: %v", sum.Short(), err)
		}
	}
}

// A blob's URL is its asset's download link, which serves the bytes to
// anyone, without a token.
func TestReleasesURLServesTheBytesToAnyone(t *testing.T) {
	f := githubtest.New(t, "taxkernel", "archive", "tok")
	b := newReleases(t, f, 0)
	data := []byte("Income Tax Act, consolidated\n")
	sum := save(t, b, data)
	u, err := b.URL(context.Background(), sum)
	if err != nil {
		t.Fatal(err)
	}
	if want := "/taxkernel/archive/releases/download/blobs-2026-12/" + string(sum); !strings.HasSuffix(u, want) {
		t.Fatalf("URL = %q, want it to end in %q", u, want)
	}
	resp, err := http.Get(u) // no token
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !bytes.Equal(got, data) {
		t.Errorf("GET %s: %s %q, want 200 and the blob's bytes", u, resp.Status, got)
	}
	if _, err := b.URL(context.Background(), store.Sum(strings.Repeat("0", 64))); !errors.Is(err, blobs.ErrNotFound) {
		t.Errorf("URL of a blob not held: %v, want ErrNotFound", err)
	}
}
