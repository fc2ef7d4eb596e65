package dataset

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/store"
)

// TestEncodedDocumentVerifies: a document that came gzipped is in the
// dataset's WARC as sent, and under its own hash in the conversion record
// beside it, so the dataset verifies and its citation holds.
func TestEncodedDocumentVerifies(t *testing.T) {
	f := newFixture(t)
	page := []byte("<html><p>Barème de l'impôt sur le revenu: 11 %</p></html>\n")
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(page)
	zw.Close()
	doc, _, err := f.in.Store.Put(t.Context(), bytes.NewReader(page))
	must(t, err)
	sent, _, err := f.in.Store.Put(t.Context(), bytes.NewReader(buf.Bytes()))
	must(t, err)
	f.in.Index.Add("fr-bareme", store.Entry{
		SHA256: doc, Size: int64(len(page)), ContentType: "text/html", FinalURL: "https://www.impots.gouv.fr/bareme", FirstSeen: "2026-11-10",
		Status: 200, Fetched: "2026-11-10T09:00:00Z",
		Header: map[string]string{"Content-Type": "text/html", "Content-Encoding": "gzip", "Content-Length": fmt.Sprint(buf.Len())},
		Sent:   &store.Sent{SHA256: sent, Size: int64(buf.Len()), Encoding: "gzip"},
	}, "")
	dir, s := build(t, f.in)
	if s.Documents != 4 {
		t.Errorf("%d documents, want 4", s.Documents)
	}
	if probs := verify(t, dir); len(probs) > 0 {
		t.Fatalf("a dataset with a document sent gzipped does not verify: %v", probs)
	}
	index, err := os.ReadFile(filepath.Join(dir, IndexName))
	must(t, err)
	if !strings.Contains(string(index), `"sha256": "`+string(sent)+`"`) {
		t.Errorf("the dataset's index lost the bytes as sent:\n%s", index)
	}

	// Damage the document's hash in the index: no record carries it.
	replace(t, filepath.Join(dir, IndexName), string(doc), "0"+string(doc)[1:])
	if probs := verify(t, dir); len(probs) == 0 || !strings.Contains(fmt.Sprint(probs), "nor a conversion record") {
		t.Errorf("verify after damage: %v", probs)
	}
}
