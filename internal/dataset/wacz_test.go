package dataset

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWACZHoldsTheDatasetWARC: the dataset's WACZ package stores the
// dataset's WARC byte for byte, indexes its captures and revisits, and
// lists a page per capture.
func TestWACZHoldsTheDatasetWARC(t *testing.T) {
	f := newFixture(t)
	dir, s := build(t, f.in)
	warc, err := os.ReadFile(filepath.Join(dir, f.in.Period.WarcName()))
	must(t, err)
	zr, err := zip.OpenReader(filepath.Join(dir, f.in.Period.WaczName()))
	must(t, err)
	defer zr.Close()
	read := func(name string) []byte {
		r, err := zr.Open(name)
		must(t, err)
		defer r.Close()
		data, err := io.ReadAll(r)
		must(t, err)
		return data
	}
	if got := read("archive/" + f.in.Period.WarcName()); !bytes.Equal(got, warc) {
		t.Errorf("the WACZ's archive/%s (%d bytes) is not the dataset's WARC (%d bytes)", f.in.Period.WarcName(), len(got), len(warc))
	}
	if n := strings.Count(string(read("indexes/index.cdxj")), "\n"); n != s.Captures+s.Revisits {
		t.Errorf("index.cdxj has %d lines; want %d, a capture's or a revisit's each", n, s.Captures+s.Revisits)
	}
	if n := strings.Count(string(read("pages/pages.jsonl")), "\n"); n != 1+s.Captures {
		t.Errorf("pages.jsonl has %d lines; want a header and %d pages", n, s.Captures)
	}
	if probs := verify(t, dir); len(probs) > 0 {
		t.Fatalf("a fresh build does not verify: %v", probs)
	}
}
