package edition

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/manifest"
)

// BenchmarkFind: n yearly sources, each with a held page of 100 links
// (one to its next edition, the others of other patterns): Find's time
// per link stays flat as n grows (it is linear in sources and links).
func BenchmarkFind(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("sources=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			var m strings.Builder
			m.WriteString("jurisdiction: uk\nname: UK\ntimezone: Europe/London\nsources:\n")
			for i := range n { // 50 hosts: each within its weekly checks
				fmt.Fprintf(&m, "  - {id: uk-doc-%d-2025-26, url: \"https://h%d.example.gov/guidance/doc-%d-2025-to-2026\", kind: rates-page, title: Doc %d 2025 to 2026}\n", i, i%50, i, i)
			}
			if err := os.WriteFile(filepath.Join(dir, "uk.yaml"), []byte(m.String()), 0o644); err != nil {
				b.Fatal(err)
			}
			set, diags := manifest.Load(dir)
			if diags.HasErrors() {
				b.Fatal(diags)
			}
			pages := make([]Page, n)
			links := 0
			for i := range n {
				p := Page{Source: fmt.Sprintf("uk-doc-%d-2025-26", i), SHA256: strings.Repeat("a", 64), Date: "2026-01-30"}
				p.Links = append(p.Links, Link{URL: fmt.Sprintf("https://h%d.example.gov/guidance/doc-%d-2026-to-2027", i%50, i), Line: 1})
				for k := range 99 {
					p.Links = append(p.Links, Link{URL: fmt.Sprintf("https://h%d.example.gov/government/publications/budget-%d/part-%d", i%50, 2000+k%30, k), Line: k + 2})
				}
				links += len(p.Links)
				pages[i] = p
			}
			b.ResetTimer()
			for b.Loop() {
				if got := Find(set, pages); len(got) != n {
					b.Fatalf("Find proposed %d, want %d", len(got), n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(links), "ns/link")
		})
	}
}
