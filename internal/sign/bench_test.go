package sign

import (
	"crypto/ed25519"
	"net/http"
	"strings"
	"testing"
	"time"
)

// BenchmarkSign is the cost the fetcher adds to each request.
func BenchmarkSign(b *testing.B) {
	key, _ := ParseKey(strings.Repeat("42", 32))
	s, err := New(key, Options{Directory: "https://taxkernel.com" + WellKnownPath})
	if err != nil {
		b.Fatal(err)
	}
	r, _ := http.NewRequest("GET", "https://www.gov.uk/income-tax-rates", nil)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Sign(r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerify is what a site pays to check one request.
func BenchmarkVerify(b *testing.B) {
	key, _ := ParseKey(strings.Repeat("42", 32))
	s, _ := New(key, Options{Directory: "https://taxkernel.com" + WellKnownPath})
	r, _ := http.NewRequest("GET", "https://www.gov.uk/income-tax-rates", nil)
	if err := s.Sign(r); err != nil {
		b.Fatal(err)
	}
	pub := key.Public().(ed25519.PublicKey)
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Verify(r, func(string) (ed25519.PublicKey, bool) { return pub, true }, now); err != nil {
			b.Fatal(err)
		}
	}
}
