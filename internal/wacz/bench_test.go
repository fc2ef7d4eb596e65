package wacz_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/wacz"
	"github.com/taxkernel/taxkernelbot/internal/warc"
)

// BenchmarkWriteMonth packs a month of 500 sources checked daily: each
// one capture of a 32 KiB incompressible document and 29 revisits (304s),
// 15,000 indexed records. It reports the throughput (MB/s of WARC) and
// what the package adds to the WARC: its index, its pages and its zip
// and datapackage bytes.
func BenchmarkWriteMonth(b *testing.B) {
	const sources, checks, size = 500, 29, 32 << 10
	start := time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC)
	var items []warc.Item
	for i := range sources {
		body := make([]byte, size)
		rand.Read(body)
		c := &warc.Capture{
			Source: fmt.Sprintf("xx-source-%03d", i), URL: fmt.Sprintf("https://www.example.gov/forms/%03d.pdf", i),
			Time: start.Add(time.Duration(i) * time.Second), Status: 200, Header: map[string]string{"Content-Type": "application/pdf"},
			SHA256: sumOf(body), Size: size,
			Payload: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil },
		}
		items = append(items, warc.Item{Capture: c})
		for d := 1; d <= checks; d++ {
			items = append(items, warc.Item{Revisit: &warc.Revisit{Source: c.Source, URL: c.URL, Time: c.Time.AddDate(0, 0, d), Status: 304, RefersTo: *c, NotChanged: true}})
		}
	}
	var file bytes.Buffer
	n, err := warc.Export(context.Background(), &file, "taxkernelbot-2026-11.warc.gz", start, warc.Identity{UserAgent: "TaxKernelBot/1.0"}, nil, items)
	if err != nil {
		b.Fatal(err)
	}
	p := wacz.Package{Created: start, WARCs: []wacz.WARC{{
		Name:    "taxkernelbot-2026-11.warc.gz",
		Open:    func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(file.Bytes())), nil },
		Records: n.Records,
	}}}
	var out countingDiscard
	b.SetBytes(int64(file.Len()))
	b.ReportAllocs()
	for b.Loop() {
		out = 0
		if _, err := wacz.Write(&out, p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(file.Len()), "warc-B")
	b.ReportMetric(float64(int64(out)-int64(file.Len())), "added-B")
}

type countingDiscard int64

func (c *countingDiscard) Write(p []byte) (int, error) {
	*c += countingDiscard(len(p))
	return len(p), nil
}
