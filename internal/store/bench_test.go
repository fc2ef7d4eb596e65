package store

import (
	"fmt"
	"testing"
)

// BenchmarkMarshalAtRunEnd is the encoding of index.json when a run of
// 1,000 sources ends.
//
//	go test -run '^$' -bench MarshalAtRunEnd -benchmem ./internal/store
func BenchmarkMarshalAtRunEnd(b *testing.B) {
	ix := NewIndex()
	id := func(i int) string { return fmt.Sprintf("h%02d-source-%04d", i%50, i) }
	for i := range 1000 {
		ix.Add(id(i), Entry{
			SHA256: Sum(fmt.Sprintf("%064x", i*7919)), Size: 48213, ContentType: "text/html; charset=utf-8",
			FinalURL: fmt.Sprintf("https://www.tax-office-%02d.example/rates/%04d?a=1&b=2", i%50, i), FirstSeen: "2026-11-02",
			Status: 200, Fetched: "2026-11-02T09:00:00Z",
			Header: map[string]string{"Content-Type": "text/html; charset=utf-8", "Date": "Mon, 02 Nov 2026 09:00:00 GMT", "ETag": fmt.Sprintf(`"%x"`, i)},
		}, "")
	}
	for b.Loop() {
		if _, err := ix.Marshal(); err != nil {
			b.Fatal(err)
		}
	}
}
