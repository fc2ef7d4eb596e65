package refs

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkScanAndBuild reads and matches a tree shaped like a large rules
// repository's parameters (files × 4 references, most files citing
// nothing), as `refs` does without git. `refs` over policyengine-us (10,572
// YAML files, 11,400 references) takes about 4 s; see docs/commands.md.
func BenchmarkScanAndBuild(b *testing.B) {
	dir := b.TempDir()
	for i := range 2000 {
		sub := filepath.Join(dir, "parameters", "gov", fmt.Sprintf("p%03d", i/20))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		body := fmt.Sprintf("description: x\nvalues:\n  2024-01-01: %d\n", i)
		if i%3 == 0 {
			body += fmt.Sprintf("metadata:\n  reference:\n    - title: Act s. %d\n      href: https://www.legislation.gov.uk/ukpga/2007/3/section/%d\n    - title: Guide\n      href: https://www.gov.uk/guide-%d#x\n    - https://www.irs.gov/pub/irs-prior/i1040gi--20%02d.pdf\n    - title: Proc\n      href: https://www.irs.gov/pub/irs-drop/rp-24-%d.pdf\n", i, i, i%50, i%25, i%60)
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%d.yaml", i)), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	a := testArchive()
	b.ReportAllocs()
	for b.Loop() {
		refs, _, err := Scan(dir, ScanOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Build(refs, a, 30, nil); err != nil {
			b.Fatal(err)
		}
	}
}
