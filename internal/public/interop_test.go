package public_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/interoptest"

	"github.com/taxkernel/taxkernelbot/internal/public"
)

// TestInteropFeedparser has feedparser, an independent JavaScript feed
// reader from the npm registry, read the feeds of the example index and
// the repository's own: each is an Atom feed it reads without an error,
// with the entries, ids, dates and links we wrote and the text diff in the
// content. It runs when TAXKERNELBOT_NPM_DIR names a folder with
// node_modules/feedparser (.ci/interop.sh sets it up) and skips otherwise.
func TestInteropFeedparser(t *testing.T) {
	interoptest.Need(t, "feedparser")
	dir := t.TempDir()
	files := renderFeeds(t)
	var paths []string
	for _, name := range []string{public.FeedAll, public.FeedOf("xa", false), public.FeedOf("xa-rates", true), public.FeedOf("xa-tables", true)} {
		p := filepath.Join(dir, strings.ReplaceAll(name, "/", "_"))
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	repo, _ := filepath.Glob("../../reports/feeds/*.atom")
	paths = append(paths, repo...)
	out := interoptest.Run(t, "read-feed.cjs", "feedparser", paths...)
	type entry struct{ ID, Title, Date, Link, Description string }
	read := map[string]struct {
		Type, Title, Date, Self, Error string
		Entries                        []entry
	}{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r struct {
			File, Type, Title, Date, Self, Error string
			Entries                              []entry
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("feedparser output %q: %v", sc.Text(), err)
		}
		if r.Error != "" || r.Type != "atom" {
			t.Errorf("%s: feedparser says %q (type %q)", r.File, r.Error, r.Type)
		}
		read[filepath.Base(r.File)] = struct {
			Type, Title, Date, Self, Error string
			Entries                        []entry
		}{r.Type, r.Title, r.Date, r.Self, r.Error, r.Entries}
	}
	if len(read) != len(paths) {
		t.Fatalf("feedparser read %d feeds of %d:\n%s", len(read), len(paths), out)
	}
	all := read["feeds_all.atom"]
	if len(all.Entries) != 4 || all.Self != "https://taxkernel.com/feeds/all.atom" || all.Date != "2026-11-05T00:00:00.000Z" {
		t.Fatalf("all.atom as feedparser reads it: %+v", all)
	}
	e := all.Entries[1]
	if !strings.Contains(e.ID, ":xa-rates/2026-11-03/") || e.Date != "2026-11-03T00:00:00.000Z" || e.Link != "https://www.example.gov/rates" ||
		!strings.Contains(html.UnescapeString(e.Description), "+20% up to £37,500") || strings.Contains(e.Description, "<script>") {
		t.Errorf("the change entry as feedparser reads it: %+v", e)
	}
	if n := len(read["feeds_sources_xa-tables.atom"].Entries); n != 0 {
		t.Errorf("the feed of a source with no change has %d entries", n)
	}
}
