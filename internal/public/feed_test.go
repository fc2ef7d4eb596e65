package public_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"github.com/google/go-cmp/cmp"
	"html"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/taxkernel/taxkernelbot/internal/github"
	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/review"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

type atomFeed struct {
	XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
	ID      string   `xml:"id"`
	Title   string   `xml:"title"`
	Updated string   `xml:"updated"`
	Link    []struct {
		Href string `xml:"href,attr"`
		Rel  string `xml:"rel,attr"`
	} `xml:"link"`
	Entries []struct {
		ID      string `xml:"id"`
		Title   string `xml:"title"`
		Updated string `xml:"updated"`
		Link    struct {
			Href string `xml:"href,attr"`
		} `xml:"link"`
		Summary string `xml:"summary"`
		Content struct {
			Type string `xml:"type,attr"`
			Body string `xml:",chardata"`
		} `xml:"content"`
	} `xml:"entry"`
}

// feedExample is an index where xa-rates changed twice (and went back to
// its first bytes) and xa-act has one copy, with the derived texts.
// sumOf is the store's name of a blob of b.
func sumOf(b []byte) store.Sum {
	s := sha256.Sum256(b)
	return store.Sum(hex.EncodeToString(s[:]))
}

func feedExample() (*store.Index, map[string]string) {
	ix := store.NewIndex()
	a, b := sumOf([]byte("a")), sumOf([]byte("b"))
	act := sumOf([]byte("act"))
	ix.Add("xa-rates", store.Entry{SHA256: a, Size: 1, ContentType: "text/html", FinalURL: "https://www.example.gov/rates", FirstSeen: "2026-11-01"}, "")
	ix.Add("xa-rates", store.Entry{SHA256: b, Size: 1, ContentType: "text/html", FinalURL: "https://www.example.gov/rates", FirstSeen: "2026-11-03"}, a)
	ix.Add("xa-rates", store.Entry{SHA256: a, Size: 1, FinalURL: "https://www.example.gov/rates", FirstSeen: "2026-11-05"}, b)
	ix.Add("xa-act", store.Entry{SHA256: act, Size: 3, FinalURL: "https://www.example.gov/act", FirstSeen: "2026-11-02"}, "")
	texts := map[string]string{
		string(a): "Basic rate\n20% up to £37,700\n<script>alert(1)</script>\n",
		string(b): "Basic rate\n20% up to £37,500\n<script>alert(1)</script>\n",
	}
	return ix, texts
}

func renderFeeds(t *testing.T) map[string][]byte {
	t.Helper()
	set := loadSet(t, "testdata/manifests")
	ix, texts := feedExample()
	files, err := public.RulesOf(set).Feeds(public.FeedInput{Set: set, Index: ix, Blob: review.BlobLink(github.Config{ServerURL: "https://github.com", Owner: "taxkernel", Repo: "taxkernelbot"}.FileURL("main")),
		Text: func(sum, _ string) (string, bool) { s, ok := texts[sum]; return s, ok }})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		out[f.Name] = f.Data
	}
	return out
}

func parseFeed(t *testing.T, data []byte) atomFeed {
	t.Helper()
	var f atomFeed
	if err := xml.Unmarshal(data, &f); err != nil {
		t.Fatalf("not XML: %v\n%s", err, data)
	}
	return f
}

func TestFeeds(t *testing.T) {
	files := renderFeeds(t)
	for _, name := range []string{public.FeedAll, public.FeedOf("xa", false), public.FeedOf("xa-rates", true), public.FeedOf("xa-act", true), public.FeedOf("xa-tables", true)} {
		if files[name] == nil {
			t.Errorf("no %s among %d files", name, len(files))
		}
	}
	all := parseFeed(t, files[public.FeedAll])
	var ids []string
	for _, e := range all.Entries {
		ids = append(ids, e.ID)
	}
	if len(all.Entries) != 4 {
		t.Fatalf("all.atom has %d entries, want 4: %v", len(all.Entries), ids)
	}
	// Newest first, dated by the index.
	for i, want := range []string{"2026-11-05T00:00:00Z", "2026-11-03T00:00:00Z", "2026-11-02T00:00:00Z", "2026-11-01T00:00:00Z"} {
		if all.Entries[i].Updated != want {
			t.Errorf("entry %d updated %s, want %s", i, all.Entries[i].Updated, want)
		}
	}
	if all.Updated != "2026-11-05T00:00:00Z" {
		t.Errorf("the feed's updated is %s, want its newest entry's", all.Updated)
	}
	if all.ID != "tag:taxkernel.com,2026:feeds/all.atom" || len(all.Link) != 1 || all.Link[0].Href != "https://taxkernel.com/feeds/all.atom" || all.Link[0].Rel != "self" {
		t.Errorf("feed id %q, links %+v", all.ID, all.Link)
	}
	changed := all.Entries[1]
	b := sumOf([]byte("b"))
	if !strings.HasSuffix(changed.ID, ":xa-rates/2026-11-03/"+string(b)) || !strings.HasPrefix(changed.ID, "tag:taxkernel.com,2026:") {
		t.Errorf("entry id %q", changed.ID)
	}
	if !strings.Contains(changed.Title, "changed on 2026-11-03") || !strings.Contains(all.Entries[0].Title, "back to an earlier version") || !strings.Contains(all.Entries[3].Title, "first copy") {
		t.Errorf("titles: %q / %q / %q", changed.Title, all.Entries[0].Title, all.Entries[3].Title)
	}
	body := html.UnescapeString(changed.Content.Body) // the HTML as a reader shows it
	for _, want := range []string{
		"-20% up to £37,700", "+20% up to £37,500", // the text diff
		"https://github.com/taxkernel/taxkernelbot/blob/main/snapshots/" + b.Path(), // the blob
		"https://www.example.gov/rates",                                             // the live page
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the entry's content lacks %q:\n%s", want, body)
		}
	}
	if changed.Content.Type != "html" || strings.Contains(changed.Content.Body, "<script>") || !strings.Contains(changed.Content.Body, "&lt;script&gt;") {
		t.Errorf("the document's text is not escaped in the content:\n%s", body)
	}
	if !strings.Contains(changed.Summary, "→") {
		t.Errorf("summary %q has no old → new", changed.Summary)
	}
	if f := parseFeed(t, files[public.FeedOf("xa-rates", true)]); len(f.Entries) != 3 {
		t.Errorf("xa-rates feed has %d entries, want 3", len(f.Entries))
	}
	empty := parseFeed(t, files[public.FeedOf("xa-tables", true)])
	if len(empty.Entries) != 0 || empty.Updated != "2026-01-01T00:00:00Z" {
		t.Errorf("a feed with no change yet: %d entries, updated %s", len(empty.Entries), empty.Updated)
	}
}

// TestFeedsQuietDay: the same index renders the same bytes, whatever the
// day; a new change only adds its entry.
func TestFeedsQuietDay(t *testing.T) {
	one, two := renderFeeds(t), renderFeeds(t)
	for name, data := range one {
		if !bytes.Equal(data, two[name]) {
			t.Errorf("%s differs between two renderings of one index", name)
		}
	}
}

// TestFeedsHostileTitle: a manifest title with markup stays text in every
// reader.
func TestFeedsHostileTitle(t *testing.T) {
	set := loadSet(t, "testdata/manifests")
	for i := range set.Sources {
		set.Sources[i].Title = `</title><script>x</script>]]>&`
	}
	ix, _ := feedExample()
	files, err := public.RulesOf(set).Feeds(public.FeedInput{Set: set, Index: ix})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if bytes.Contains(f.Data, []byte("<script>")) || bytes.Contains(f.Data, []byte("]]>")) {
			t.Errorf("%s carries the title's markup raw:\n%s", f.Name, f.Data)
		}
		if strings.HasSuffix(f.Name, ".atom") {
			parseFeed(t, f.Data)
		}
	}
}

// TestEntryMemoRendersAnEntryOnce: an entry asked for while another
// goroutine renders it (a source's feed written during the run, every
// feed at its end) waits for that rendering: its texts are read once.
// Before, both rendered it, and a 20 MB text rewritten line by line was
// read and diffed twice at once, doubling the run's peak memory.
func TestEntryMemoRendersAnEntryOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		set := loadSet(t, "testdata/manifests")
		ix, texts := feedExample()
		var reads atomic.Int32
		gate := make(chan struct{})
		in := public.FeedInput{Set: set, Index: ix, Entries: &public.EntryMemo{}, Text: func(sum, _ string) (string, bool) {
			reads.Add(1)
			<-gate // the first reader holds its entry until every goroutine is blocked
			s, ok := texts[sum]
			return s, ok
		}}
		src, ok := set.Source("xa-rates")
		if !ok {
			t.Fatal("no source xa-rates in testdata/manifests")
		}
		var wg sync.WaitGroup
		var sourceErr, allErr error
		wg.Go(func() { _, sourceErr = public.RulesOf(set).SourceFeed(in, src) })
		wg.Go(func() { _, allErr = public.RulesOf(set).Feeds(in) })
		synctest.Wait()
		close(gate)
		wg.Wait()
		if err := errors.Join(sourceErr, allErr); err != nil {
			t.Fatal(err)
		}
		// xa-rates's two changes, each two texts, read once each.
		if n := reads.Load(); n != 4 {
			t.Errorf("texts read %d times by two feeds rendered at once, want 4", n)
		}
	})
}

// With an EntryMemo the feeds are the same bytes, and each entry's texts
// are read once however many feeds show it; without one, Feeds keeps its
// own for the feeds and change documents it renders.
func TestFeedsWithAnEntryMemo(t *testing.T) {
	set := loadSet(t, "testdata/manifests")
	ix, texts := feedExample()
	reads := 0
	in := public.FeedInput{Set: set, Index: ix, Text: func(sum, _ string) (string, bool) { reads++; s, ok := texts[sum]; return s, ok }}
	plain, err := public.RulesOf(set).Feeds(in)
	if err != nil {
		t.Fatal(err)
	}
	plainReads := reads
	reads = 0
	in.Entries = &public.EntryMemo{}
	memo, err := public.RulesOf(set).Feeds(in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(plain, memo); diff != "" {
		t.Errorf("feeds (-without +with the memo):\n%s", diff)
	}
	// xa-rates's two changes, each two texts, shown in three feeds and
	// a change document each.
	if reads != 4 || plainReads != 4 {
		t.Errorf("texts read %d times with the memo, %d without; want 4 and 4", reads, plainReads)
	}
}
