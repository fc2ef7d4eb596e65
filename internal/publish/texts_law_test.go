package publish

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/review"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

// TestBodyNamesTheChangedProvisions: the pull request body of a change
// of a real Act (the Employment Insurance Act, 2025-07-31 → 2026-05-29,
// in Justice Canada's XML) says which provisions changed before its
// diff.
func TestBodyNamesTheChangedProvisions(t *testing.T) {
	blobs := map[string][]byte{}
	for sum, date := range map[string]string{strings.Repeat("a", 64): "2025-07-31", strings.Repeat("b", 64): "2026-05-29"} {
		f, err := os.Open(filepath.Join("..", "law", "testdata", "justicecanada", "E-5.6_"+date+".xml.gz"))
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(zr)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		blobs[sum] = b
	}
	open := func(sum string) (io.ReadCloser, int64, error) {
		return io.NopCloser(bytes.NewReader(blobs[sum])), int64(len(blobs[sum])), nil
	}
	const url = "https://laws-lois.justice.gc.ca/eng/XML/E-5.6.xml"
	changes := []report.Change{{
		ID:   "ca-ei-act",
		Kind: report.KindChanged,
		Old:  report.Entry{ID: "ca-ei-act", URL: url, SHA256: strings.Repeat("a", 64), Size: int64(len(blobs[strings.Repeat("a", 64)])), ContentType: "application/xml"},
		New:  report.Entry{ID: "ca-ei-act", URL: url, SHA256: strings.Repeat("b", 64), Size: int64(len(blobs[strings.Repeat("b", 64)])), ContentType: "application/xml"},
	}}
	d := BodyDetails(context.Background(), &manifest.Set{}, state.New(), changes, open)
	const want = "Provisions: s. 113 amended; s. 114 amended; 2023, c. 26, s. 662 repealed; 2023, c. 26, s. 663 amended"
	if got := d.Texts["ca-ei-act"].Provisions; "Provisions: "+got != want {
		t.Fatalf("provisions %q (why %q)", got, d.Texts["ca-ei-act"].Why)
	}
	body := review.Body(changes, review.Summary{Sources: 1}, review.Links{}, d)
	at, diff := strings.Index(body, want), strings.Index(body, "```diff")
	if at < 0 || diff < 0 || at > diff {
		t.Errorf("the body does not say %q before its diff:\n%.3000s", want, body)
	}
}
