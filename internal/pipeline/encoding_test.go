package pipeline

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/fetch"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

func gzipped(t testing.TB, level int, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, level)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func hexSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// serveCoded serves id's body under Content-Encoding enc ("" for none).
func (r *textRig) serveCoded(id string, d servedDoc, enc string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.encs == nil {
		r.encs = map[string]string{}
	}
	r.docs[id], r.encs[id] = d, enc
}

// blobs is every blob the store holds.
func (r *textRig) blobs() []store.Sum {
	r.t.Helper()
	all, err := r.st.Unindexed(context.Background(), store.NewIndex())
	if err != nil {
		r.t.Fatal(err)
	}
	return all
}

// cleanStore fails the test when the store holds a blob the index does
// not name, or Verify finds anything.
func (r *textRig) cleanStore() {
	r.t.Helper()
	if orphans, err := r.st.Unindexed(context.Background(), r.ix); err != nil || len(orphans) != 0 {
		r.t.Errorf("unindexed blobs %v (%v), want none", orphans, err)
	}
	if probs, err := r.st.Verify(context.Background(), r.ix); err != nil || len(probs) != 0 {
		r.t.Errorf("verify: %v (%v), want no problem", probs, err)
	}
}

var ratesPage = []byte(`<!DOCTYPE html>
<html><head><title>Income Tax rates and bands</title></head><body>
<h1>Income Tax rates and bands</h1>
<table>
<tr><th>Band</th><th>Taxable income</th><th>Tax rate</th></tr>
<tr><td>Personal Allowance</td><td>Up to £12,570</td><td>0%</td></tr>
<tr><td>Basic rate</td><td>£12,571 to £50,270</td><td>20%</td></tr>
<tr><td>Higher rate</td><td>£50,271 to £125,140</td><td>40%</td></tr>
<tr><td>Additional rate</td><td>over £125,140</td><td>45%</td></tr>
</table>
` + strings.Repeat("<p>You do not get a Personal Allowance on taxable income over £125,140.</p>\n", 40) + `</body></html>
`)

// TestPreCompressedDocument: a page served pre-compressed (nginx's
// gzip_static always) is recorded as the page: fresh text/html under the
// page's hash, with a readable text, and the gzip stream kept beside it
// as what was sent. The next day it comes compressed at another level,
// then not compressed at all: unchanged each time, one index entry, and
// no blob left behind.
func TestPreCompressedDocument(t *testing.T) {
	best := gzipped(t, gzip.BestCompression, ratesPage)
	r := newTextRig(t, map[string]servedDoc{"rates": {"text/html; charset=utf-8", best}})
	r.serveCoded("rates", r.docs["rates"], "gzip")

	first := r.run()
	e := first.Sources[0]
	if e.Status != state.Fresh || e.SHA256 != hexSum(ratesPage) || e.Size != int64(len(ratesPage)) || e.ContentType != "text/html; charset=utf-8" {
		t.Fatalf("first run: %s %q, sha256 %.12s size %d %s; want fresh text/html, the page's %.12s (%d bytes)",
			e.Status, e.Detail, e.SHA256, e.Size, e.ContentType, hexSum(ratesPage), len(ratesPage))
	}
	text, ok, err := textview.Load(r.st.Root(), e.SHA256)
	if !ok || err != nil || !strings.Contains(text.Text, "Basic rate") || !strings.Contains(text.Text, "£12,571 to £50,270") {
		t.Errorf("derived text (kept %v, %v): %q; want the page's words", ok, err, text.Text)
	}
	entries := r.ix.Entries("xx-rates")
	want := &store.Sent{SHA256: store.Sum(hexSum(best)), Size: int64(len(best)), Encoding: "gzip"}
	if len(entries) != 1 || entries[0].Sent == nil || *entries[0].Sent != *want || entries[0].Header["Content-Encoding"] != "gzip" {
		t.Fatalf("index: %+v; want one entry with the bytes as sent %+v", entries, want)
	}
	if !r.st.Has(want.SHA256) {
		t.Error("the bytes as sent are not held")
	}
	r.cleanStore()
	t.Logf("page %d bytes, sent as %d gzip bytes", len(ratesPage), len(best))

	for _, again := range []struct {
		name, enc string
		body      []byte
	}{
		{"gzip at level 1", "gzip", gzipped(t, gzip.BestSpeed, ratesPage)},
		{"not compressed", "", ratesPage},
	} {
		if bytes.Equal(again.body, best) {
			t.Fatalf("%s: the same bytes as the first run's: the test proves nothing", again.name)
		}
		r.logs = nil
		r.serveCoded("rates", servedDoc{"text/html; charset=utf-8", again.body}, again.enc)
		next := r.run()
		if d := report.Diff(first, next); len(d) != 0 {
			t.Errorf("%s: the report changed: %+v", again.name, d)
		}
		if !strings.Contains(strings.Join(r.logs, "\n"), "200 unchanged sha256 "+e.SHA256[:12]) {
			t.Errorf("%s: the run did not say unchanged:\n%s", again.name, strings.Join(r.logs, "\n"))
		}
		if got := r.ix.Entries("xx-rates"); len(got) != 1 || *got[0].Sent != *want {
			t.Errorf("%s: index %+v, want the first entry alone, unchanged", again.name, got)
		}
		if again.enc != "" && r.st.Has(store.Sum(hexSum(again.body))) {
			t.Errorf("%s: the bytes as sent were kept although the document was held", again.name)
		}
		r.cleanStore()
	}
}

// TestUndecodableDocumentFails: an answer under a coding the bot cannot
// undo, or a broken stream, fails its source with words that say so. It is
// not a failure of the store (the run goes on, the other source is
// fetched), and nothing of it is kept.
func TestUndecodableDocumentFails(t *testing.T) {
	r := newTextRig(t, map[string]servedDoc{
		"zstd":   {"text/html", []byte("(\xb5/\xfd\x00 pretend zstd")},
		"broken": {"text/html", ratesPage},
		"plain":  {"text/html", ratesPage},
	})
	r.serveCoded("zstd", r.docs["zstd"], "zstd")
	r.serveCoded("broken", r.docs["broken"], "gzip")
	rep := r.run()
	for _, e := range rep.Sources {
		switch e.ID {
		case "xx-plain":
			if e.Status != state.Fresh {
				t.Errorf("%s: %s %q, want fresh", e.ID, e.Status, e.Detail)
			}
		default:
			if e.Status != state.Failing || !strings.HasPrefix(e.Detail, "unreadable answer: ") || !strings.Contains(e.Detail, "Content-Encoding") || e.SHA256 != "" {
				t.Errorf("%s: %s %q sha256 %q; want failing, an unreadable answer naming the Content-Encoding, nothing held", e.ID, e.Status, e.Detail, e.SHA256)
			}
			t.Logf("%s: %s", e.ID, e.Detail)
		}
	}
	if got := r.blobs(); len(got) != 1 || string(got[0]) != hexSum(ratesPage) {
		t.Errorf("store holds %v, want the plain page alone", got)
	}
	r.cleanStore()
}

// TestCompressionBombIsTooLarge: a small answer that decodes past
// max_body is too large, as a large one is, and leaves nothing stored.
func TestCompressionBombIsTooLarge(t *testing.T) {
	const max = 1 << 20
	r := newTextRig(t, map[string]servedDoc{"bomb": {"text/html", gzipped(t, gzip.BestCompression, make([]byte, 16<<20))}})
	r.serveCoded("bomb", r.docs["bomb"], "gzip")
	r.set.Policy.MaxBody = max
	r.http = fetch.New(fetch.Config{UserAgent: "TaxKernelBot-test/1", AllowPrivate: true, MaxBody: max})
	rep := r.run()
	if e := rep.Sources[0]; e.Status != state.TooLarge || e.SHA256 != "" {
		t.Errorf("%s: %s %q, want too-large and nothing held", e.ID, e.Status, e.Detail)
	}
	if got := r.blobs(); len(got) != 0 {
		t.Errorf("store holds %v, want nothing", got)
	}
}
