package atomicfile

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkWriteMany writes a thousand small new files (the feeds of a
// first run), at once and one after the other.
//
//	go test -run '^$' -bench WriteMany -benchtime 3x ./internal/atomicfile
func BenchmarkWriteMany(b *testing.B) {
	data := make([]byte, 2000)
	for _, at := range []string{"at-once", "one-by-one"} {
		b.Run(at, func(b *testing.B) {
			var took time.Duration
			for b.Loop() {
				b.StopTimer()
				dir := b.TempDir()
				d, err := OpenDir(dir)
				if err != nil {
					b.Fatal(err)
				}
				files := make([]Named, 1000)
				for i := range files {
					files[i] = Named{Path: fmt.Sprintf("f%04d.xml", i), Data: data}
				}
				b.StartTimer()
				start := time.Now()
				if at == "at-once" {
					if _, err := d.WriteFilesIfChanged(files, 0o644); err != nil {
						b.Fatal(err)
					}
				} else {
					for _, f := range files {
						if _, err := d.WriteFileIfChanged(f.Path, f.Data, 0o644); err != nil {
							b.Fatal(err)
						}
					}
				}
				took += time.Since(start)
				d.Close()
			}
			b.ReportMetric(float64(took.Milliseconds())/float64(b.N), "ms/1000-files")
		})
	}
}
