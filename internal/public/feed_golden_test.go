package public_test

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// feedSet is a set of perJ sources in each of js jurisdictions (xa, xb,
// …) and an index where each source served changes versions (a few none
// yet), on dates shared between sources, the third a return to the
// first; with the input's texts: some unreadable, some the same for
// other bytes.
func feedSet(t testing.TB, js, perJ, changes int) public.FeedInput {
	t.Helper()
	dir := t.TempDir()
	policy, err := os.ReadFile("testdata/manifests/policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "policy.yaml"), policy, 0o644); err != nil {
		t.Fatal(err)
	}
	for j := range js {
		code := fmt.Sprintf("x%c", 'a'+j)
		var b strings.Builder
		fmt.Fprintf(&b, "jurisdiction: %s\nname: Example %c\ntimezone: UTC\nsources:\n", code, 'A'+j)
		for i := range perJ {
			fmt.Fprintf(&b, "  - id: %s-doc%04d\n    url: https://www.%s.example/doc/%d?a=1&b=2\n    kind: rates-page\n    title: Rates <%d> & more\n", code, i, code, i, i)
		}
		if err := os.WriteFile(filepath.Join(dir, code+".yaml"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set, diags := manifest.Load(dir)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ix := store.NewIndex()
	texts := map[string]string{}
	for k, src := range set.Sources {
		var prior store.Sum
		var first store.Entry
		nc := changes
		if k%7 == 6 { // no copy yet
			nc = 0
		}
		for n := range nc {
			e := store.Entry{SHA256: sumOf(fmt.Appendf(nil, "%s %d", src.ID, n)), Size: int64(100 + n), ContentType: "text/html", FinalURL: src.URL, FirstSeen: fmt.Sprintf("2026-11-%02d", 1+n*4+k%3)}
			if n == 0 {
				first = e
			}
			if n == 2 { // back to the first bytes
				e.SHA256, e.Size = first.SHA256, first.Size
			}
			switch {
			case k%5 == 1 && n == 1: // no text
			case k%5 == 2 && n == 1: // the same text as before
				texts[string(e.SHA256)] = texts[string(prior)]
			case n != 2:
				texts[string(e.SHA256)] = fmt.Sprintf("Rates of %s\nversion %d <b>&</b>\nthe end\n", src.ID, n)
			}
			ix.Add(src.ID, e, prior)
			prior = e.SHA256
		}
	}
	return public.FeedInput{Set: set, Index: ix,
		Blob: func(sum string) string { return "https://example.org/blob/" + sum },
		Text: func(sum, _ string) (string, bool) { s, ok := texts[sum]; return s, ok },
	}
}

// TestFeedsGolden: the feeds of 4 jurisdictions of 4 sources with 4
// versions each (past FeedEntries in all.atom) are the bytes recorded in
// testdata/feeds.golden, by name, size and SHA-256.
func TestFeedsGolden(t *testing.T) {
	in := feedSet(t, 4, 4, 4)
	files, err := public.RulesOf(in.Set).Feeds(in)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "%s %d %x\n", f.Name, len(f.Data), sha256.Sum256(f.Data))
	}
	golden(t, "feeds.golden", []byte(b.String()))
}

// BenchmarkFeedsAtRunEnd is the feeds a run of 1,000 sources in 10
// jurisdictions renders after its last answer: every source's own feed
// written while the run waited, and its entries kept in the memo.
//
//	go test -run '^$' -bench FeedsAtRunEnd -benchmem ./internal/public
func BenchmarkFeedsAtRunEnd(b *testing.B) {
	in := feedSet(b, 10, 100, 2)
	in.Entries = &public.EntryMemo{}
	rules := public.RulesOf(in.Set)
	if _, err := rules.Feeds(in); err != nil {
		b.Fatal(err)
	}
	in.Done = func(string) bool { return true }
	for b.Loop() {
		if _, err := rules.Feeds(in); err != nil {
			b.Fatal(err)
		}
	}
}
