package warc

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"testing"
	"time"
)

// BenchmarkCapture writes the request and response records of a 4 MiB
// incompressible document: the export's throughput (MB/s, payload bytes).
func BenchmarkCapture(b *testing.B) {
	body := make([]byte, 4<<20)
	rand.Read(body)
	sum := sha256.Sum256(body)
	c := Capture{
		Source: "uk-rates", URL: "https://www.gov.uk/rates", Time: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC),
		Status: 200, Header: map[string]string{"Content-Type": "application/pdf"},
		SHA256: hex.EncodeToString(sum[:]), Size: int64(len(body)),
		Payload: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil },
	}
	w := NewWriter(io.Discard, Identity{UserAgent: "TaxKernelBot/1.0", From: "contact@taxkernel.com"})
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Capture(c); err != nil {
			b.Fatal(err)
		}
	}
}
