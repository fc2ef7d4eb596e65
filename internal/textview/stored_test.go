package textview

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSaveLoad(t *testing.T) {
	root := t.TempDir()
	sum := strings.Repeat("ab", 32)
	if _, ok, err := Load(root, sum); ok || err != nil {
		t.Fatalf("before Save: ok %v, err %v", ok, err)
	}
	p, err := Save(root, sum, Result{Kind: KindHTML, Text: "Basic rate 20%\n"})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "text", Version, "ab", sum+".txt"); p != want {
		t.Errorf("path %s, want %s", p, want)
	}
	got, ok, err := Load(root, sum)
	if err != nil || !ok || got.Text != "Basic rate 20%\n" || got.Reason != "" {
		t.Errorf("Load: %+v %v %v", got, ok, err)
	}
	// Kept texts are never rewritten by the same engine.
	if _, err := Save(root, sum, Result{Kind: KindHTML, Text: "other\n"}); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := Load(root, sum); got.Text != "Basic rate 20%\n" {
		t.Errorf("text was rewritten: %q", got.Text)
	}
	// No temp files are left.
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 2 { // the .txt and its .engine
		t.Errorf("files beside the text: %v", entries)
	}

	// A blob without text keeps its reason.
	none := strings.Repeat("cd", 32)
	if _, err := Save(root, none, Result{Kind: KindNone, Reason: "no text extractor for image/png"}); err != nil {
		t.Fatal(err)
	}
	got, ok, err = Load(root, none)
	if err != nil || !ok || got.Text != "" || got.Reason != "no text extractor for image/png" {
		t.Errorf("Load without text: %+v %v %v", got, ok, err)
	}
	if _, err := TextPath(root, "../../etc/passwd"); err == nil {
		t.Error("a bad sum gave a path")
	}
}

// TestLoadHoldsTheTextOnce: a kept text of megabytes (the held side of a
// change to a long text) is read into its string once, not read whole and
// then copied.
func TestLoadHoldsTheTextOnce(t *testing.T) {
	root := t.TempDir()
	sum := strings.Repeat("ef", 32)
	text := strings.Repeat("Section 1. The rate is 20 per cent.\n", 100_000)
	if _, err := Save(root, sum, Result{Kind: KindText, Text: text}); err != nil {
		t.Fatal(err)
	}
	var got Result
	n := allocatedBy(func() { got, _, _ = Load(root, sum) })
	if got.Text != text {
		t.Fatalf("Load: %d bytes, want %d", len(got.Text), len(text))
	}
	if n > uint64(len(text))*5/4 {
		t.Errorf("Load of a text of %d bytes allocated %d bytes, want about one copy", len(text), n)
	}
}

// TestSaveLoadOtherEngine: a text another engine derived (pdftotext of
// another version, or the built-in extractor) is not this process's
// text: Load does not return it, and Save replaces it, reason and all.
func TestSaveLoadOtherEngine(t *testing.T) {
	root := t.TempDir()
	sum := strings.Repeat("ef", 32)
	old := Result{Kind: KindPDF, Engine: "pdftotext 0.1 -layout", Text: "Basic rate 20 %\n", Reason: "text of the first 2 pages only", Truncated: true}
	p, err := Save(root, sum, old)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := Load(root, sum); ok || err != nil {
		t.Fatalf("another engine's text was loaded: ok %v, err %v", ok, err)
	}
	now := Result{Kind: KindPDF, Engine: Engine(KindPDF), Text: "Basic rate | 20%\n"}
	if _, err := Save(root, sum, now); err != nil {
		t.Fatal(err)
	}
	got, ok, err := Load(root, sum)
	if err != nil || !ok || got.Text != now.Text || got.Reason != "" || got.Engine != Engine(KindPDF) {
		t.Errorf("after the switch: %+v %v %v", got, ok, err)
	}
	if _, err := os.Stat(ReasonPath(p)); err == nil {
		t.Error("the old engine's reason is still there")
	}
}

// A run being stopped gets no text, and keeps no reason either: the next
// run must extract the document, not read "stopped" as its text's fate.
func TestDeriveKeepsNothingWhenStopped(t *testing.T) {
	root := t.TempDir()
	raw := []byte("<p>Basic rate <b>20%</b></p>")
	sum := Hash(string(raw))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if p, res, err := DeriveDoc(ctx, root, sum, Doc{Raw: raw, ContentType: "text/html"}, Limits{}); err != nil || p != "" || res.Text != "" {
		t.Fatalf("DeriveDoc on a stopped run: %q, %q, %v", p, res.Text, err)
	}
	if _, ok, err := Load(root, sum); ok || err != nil {
		t.Fatalf("Load after a stopped DeriveDoc: kept %v, %v; want nothing kept", ok, err)
	}
	if _, res, err := DeriveDoc(t.Context(), root, sum, Doc{Raw: raw, ContentType: "text/html"}, Limits{}); err != nil || res.Text != "Basic rate 20%\n" {
		t.Errorf("the next DeriveDoc: %q, %v", res.Text, err)
	}
}

func TestDerive(t *testing.T) {
	root := t.TempDir()
	raw := []byte("<p>Basic rate <b>20%</b></p>")
	sum := Hash(string(raw))
	p, res, err := DeriveDoc(t.Context(), root, sum, Doc{Raw: raw, ContentType: "text/html"}, Limits{})
	if err != nil || res.Text != "Basic rate 20%\n" {
		t.Fatalf("DeriveDoc: %q, %v", res.Text, err)
	}
	if data, err := os.ReadFile(p); err != nil || string(data) != res.Text {
		t.Errorf("kept text %q, %v", data, err)
	}
	// The second time the kept text is returned, not extracted anew (the
	// bytes given here would extract to something else).
	_, res, err = DeriveDoc(t.Context(), root, sum, Doc{Raw: []byte("<p>other</p>"), ContentType: "text/html"}, Limits{})
	if err != nil || res.Text != "Basic rate 20%\n" {
		t.Errorf("second DeriveDoc: %q, %v", res.Text, err)
	}
}

// countingReader is a document of n bytes that starts as a PDF, counting
// what is read of it.
type countingReader struct {
	n, read int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.read >= c.n {
		return 0, io.EOF
	}
	k := min(int64(len(p)), c.n-c.read)
	for i := range p[:k] {
		p[i] = ' '
	}
	if c.read == 0 {
		copy(p, "%PDF-1.7\n")
	}
	c.read += k
	return int(k), nil
}

func (c *countingReader) Close() error { return nil }

// TestExtractDocTooBig: a held blob over the input limit is told by its
// size and its first bytes: a 1 GiB document costs a look at 64 KiB.
func TestExtractDocTooBig(t *testing.T) {
	r := &countingReader{n: 1 << 30}
	res := ExtractDoc(t.Context(), Doc{Open: func() (io.ReadCloser, error) { return r, nil }, Size: r.n, ContentType: "application/pdf"}, Limits{})
	if res.Text != "" || !strings.Contains(res.Reason, "1073741824 bytes is over the 67108864-byte limit") {
		t.Errorf("got %q, %q", res.Text, res.Reason)
	}
	if r.read > sniffSize {
		t.Errorf("%d bytes read of a document too big to extract", r.read)
	}
}
