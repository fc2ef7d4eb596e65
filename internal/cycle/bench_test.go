package cycle

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/gitstore"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// seedHistory gives main `commits` commits that each add blobs/commits
// stored documents (4 KiB each) under snapshots/sha256/ and index them,
// as a repository does after years of merged bot pull requests.
func seedHistory(tb testing.TB, r *repo, blobs, commits int) {
	ix := store.NewIndex()
	var in bytes.Buffer
	per := blobs / commits
	for c := range commits {
		fmt.Fprintf(&in, "commit refs/heads/main\ncommitter reviewer <r@example.invalid> %d +0000\ndata 6\nmerge\n", 1767225600+c)
		if c == 0 {
			fmt.Fprintf(&in, "from refs/heads/main^0\n")
		}
		for i := range per {
			doc := bytes.Repeat(fmt.Appendf(nil, "old document %d/%d ", c, i), 400)[:4096]
			sum := sha256.Sum256(doc)
			hexSum := store.Sum(hex.EncodeToString(sum[:]))
			ix.Add(fmt.Sprintf("old-%d", c*per+i), store.Entry{SHA256: hexSum, Size: int64(len(doc)), ContentType: "application/pdf", FinalURL: "https://old.example.gov/doc", FirstSeen: "2025-01-01"}, "")
			fmt.Fprintf(&in, "M 100644 inline snapshots/%s\ndata %d\n%s\n", hexSum.Path(), len(doc), doc)
		}
		idx, err := ix.Marshal()
		if err != nil {
			tb.Fatal(err)
		}
		fmt.Fprintf(&in, "M 100644 inline snapshots/index.json\ndata %d\n%s\n", len(idx), idx)
	}
	r.git.FastImport(tb, repoName, in.Bytes())
}

// BenchmarkQuietCycle measures a cycle in which nothing changed, on
// repositories whose main holds the same 5,000 stored documents reached
// through short and long histories: what it downloads must follow what
// it reads, not how long main's history is.
//
//	go test -run '^$' -bench QuietCycle -benchtime 5x ./internal/cycle
func BenchmarkQuietCycle(b *testing.B) {
	for _, h := range []struct{ blobs, commits int }{{5000, 5}, {5000, 50}, {5000, 500}} {
		b.Run(fmt.Sprintf("blobs=%d/commits=%d", h.blobs, h.commits), func(b *testing.B) {
			r := newRepo(b, "t-a", "t-b", "t-c")
			seedHistory(b, r, h.blobs, h.commits)
			r.cycle()
			r.squashMerge(1)
			r.cycle() // the first quiet cycle: the cache branch settles
			full := r.git.FetchedBytes(repoName)
			reader, err := gitstore.Open(b.TempDir(), gitstore.Remote{URL: r.git.URL + "/" + repoName, Username: "x-access-token", Password: "tok"})
			if err != nil {
				b.Fatal(err)
			}
			defer reader.Close()
			if _, _, err := reader.Read(context.Background(), "main"); err != nil {
				b.Fatal(err)
			}
			full = r.git.FetchedBytes(repoName) - full
			before, writes := r.git.FetchedBytes(repoName), len(r.gh.Writes())
			b.ResetTimer()
			for range b.N {
				// A fresh runner's checkout is the harness's work, not the cycle's.
				b.StopTimer()
				o, log := r.options("1/1")
				o.Run = r.runner(&o)
				b.StartTimer()
				if _, err := Run(context.Background(), o); err != nil {
					b.Fatalf("%v\n%s", err, log)
				}
				r.now = r.now.Add(24 * time.Hour)
			}
			b.StopTimer()
			if len(r.gh.Writes()) != writes {
				b.Fatalf("a quiet cycle wrote to GitHub: %v", r.gh.Writes()[writes:])
			}
			b.ReportMetric(float64(r.git.FetchedBytes(repoName)-before)/float64(b.N), "fetched-B/cycle")
			b.ReportMetric(float64(full), "full-clone-of-main-B")
		})
	}
}
