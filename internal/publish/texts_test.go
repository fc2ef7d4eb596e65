package publish

import (
	"context"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

// lazyBlob is n bytes of text lines made as they are read: a blob far
// larger than what the test may allocate.
type lazyBlob struct {
	tail  string // after the lines
	left  int64
	line  string
	at    int
	reads *int
}

func (b *lazyBlob) Read(p []byte) (int, error) {
	if b.left <= 0 {
		if b.tail == "" {
			return 0, io.EOF
		}
		n := copy(p, b.tail)
		b.tail = b.tail[n:]
		*b.reads += n
		return n, nil
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n := 0
	for n < len(p) {
		c := copy(p[n:], b.line[b.at:])
		n += c
		b.at = (b.at + c) % len(b.line)
	}
	b.left -= int64(n)
	*b.reads += n
	return n, nil
}

func (b *lazyBlob) Close() error { return nil }

// TestBodyDetailsStreamsBlobs puts two 200 MiB blobs through BodyDetails
// and checks that it allocates a small fraction of one: the blobs are
// opened as streams and judged by their size and first bytes, never read
// whole into memory to be compared (before, BodyDetails took each blob
// as a []byte: 821 MiB allocated for this pair).
func TestBodyDetailsStreamsBlobs(t *testing.T) {
	t.Parallel()
	const size = 200 << 20
	oldSum, newSum := strings.Repeat("a", 64), strings.Repeat("b", 64)
	read := 0
	open := func(sum string) (io.ReadCloser, int64, error) {
		return &lazyBlob{left: size, line: "Rate 1 | 12.5 % | from 1 January " + sum[:8] + "\n", reads: &read}, size, nil
	}
	changes := []report.Change{{
		ID:   "big",
		Kind: report.KindChanged,
		Old:  report.Entry{SHA256: oldSum, Size: size, ContentType: "text/plain"},
		New:  report.Entry{SHA256: newSum, Size: size, ContentType: "text/plain"},
	}}
	set, st := &manifest.Set{}, state.New()

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	d := BodyDetails(context.Background(), set, st, changes, open)
	runtime.ReadMemStats(&after)

	tc, ok := d.Texts["big"]
	if !ok {
		t.Fatal("BodyDetails gave no entry for the changed document")
	}
	if !strings.Contains(tc.Why, "limit") {
		t.Errorf("a 200 MiB document's entry says %q; want the size limit named", tc.Why)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("2 × %d MiB blobs: %d bytes read, %.1f MiB allocated; %s", size>>20, read, float64(alloc)/(1<<20), tc.Why)
	// Each side reads at most its first 64 KiB to tell its kind; 8 MiB
	// leaves room for the runtime and the diff machinery, and is 2 % of
	// what reading the blobs whole costs.
	if alloc > 8<<20 {
		t.Errorf("BodyDetails allocated %.1f MiB for two %d MiB blobs; a streamed comparison needs well under 8 MiB", float64(alloc)/(1<<20), size>>20)
	}
	if read > 4<<20 {
		t.Errorf("BodyDetails read %d bytes of blobs over the extraction's size limit; their size should decide", read)
	}
}

// TestBodyDetailsStreamsToExtraction compares two blobs under the
// extraction's size limit (4 MiB of text, over the 1 MiB extracted in
// this process): they go to the extracting child as streams, and the
// text diff is there.
func TestBodyDetailsStreamsToExtraction(t *testing.T) {
	t.Parallel()
	const size = 4 << 20
	oldSum, newSum := strings.Repeat("c", 64), strings.Repeat("d", 64)
	read := 0
	open := func(sum string) (io.ReadCloser, int64, error) {
		tail := "Rate 9 | 12.5 % | from 1 January\n"
		if sum == newSum {
			tail = "Rate 9 | 13.0 % | from 1 January\n"
		}
		return &lazyBlob{left: size - int64(len(tail)), line: "Rate 1 | 10.0 % | since 1 July\n", tail: tail, reads: &read}, size, nil
	}
	changes := []report.Change{{
		ID:   "rates",
		Kind: report.KindChanged,
		Old:  report.Entry{SHA256: oldSum, Size: size, ContentType: "text/plain"},
		New:  report.Entry{SHA256: newSum, Size: size, ContentType: "text/plain"},
	}}
	d := BodyDetails(context.Background(), &manifest.Set{}, state.New(), changes, open)
	tc := d.Texts["rates"]
	if !strings.Contains(tc.Diff.Markdown, "13.0 %") {
		t.Errorf("no text diff with the new rate: why %q, diff %.200q", tc.Why, tc.Diff.Markdown)
	}
	if read < 2*size {
		t.Errorf("%d bytes read of two %d-byte blobs", read, size)
	}
}
