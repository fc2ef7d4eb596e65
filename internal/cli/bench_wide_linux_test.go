package cli

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/atomicfile"
)

// BenchmarkWideRunEnd is the end of a wide first run as the command runs
// it: 1,000 hosts × 1 document (plus robots.txt each), the servers in a
// process of their own (remote_authorities_test.go). last-answer-to-exit
// is from the last completion any server recorded to the process's exit:
// the ledgers closed, the index, the state, the reports, the pages and
// the feeds written. run-peak-MiB is the run's own peak RSS (VmHWM),
// largest-process-MiB the largest of it and its children (wait4).
// first is a first run, in which every source's feed is a new file;
// again is the run after it, which rewrites only what changed.
//
// Where the end's time goes: files-after-last-answer is how many files
// under reports/ were written after the last answer (those the end
// wrote), and disk-1000-files-ms what this machine takes, right after
// each run, to write 1,000 new files of 2 KB as the end writes them
// (its disk's speed at creating files varies several times over from
// one minute to the next on a shared runner).
//
// The figures depend on the filesystem TMPDIR is on. On ext4 without a
// journal, creating a file scans past every inode freed in the last
// minute or more (the allocator will not reuse them yet), so the end's
// time follows what the machine deleted just before, this benchmark's
// earlier workspaces included: disk-1000-files-ms shows it. A runner's
// disk is ext4 with a journal, where no such scan happens; to measure as
// a runner would, point TMPDIR at one (a loop-mounted ext4 image of a few
// gigabytes will do: a set of five runs of each case leaves some 30,000
// files). Without a journal, each set also pays for the clean-up of the
// set before it: five sets of first runs, one after the other, found
// 1,000 files taking 74, 184, 260, 290 and 323 ms.
//
//	go test -run '^$' -bench WideRunEnd -benchtime 5x ./internal/cli
func BenchmarkWideRunEnd(b *testing.B) {
	const hosts = 1000
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(Procs())) // as the command runs
	auths := startRemoteAuthorities(b, hosts)
	srcs := make([]src, hosts)
	for h, base := range auths.URLs {
		srcs[h] = src{fmt.Sprintf("test-h%04d", h), base + "/doc", ""}
	}
	bin := buildBot(b)
	// first: a first run, every feed new. again: the run after it, each
	// host's robots.txt kept and its document unchanged, so its end
	// rewrites only what changed.
	for _, again := range []bool{false, true} {
		name := "first"
		if again {
			name = "again"
		}
		b.Run(name, func(b *testing.B) { wideRunEnd(b, auths, srcs, bin, again) })
	}
}

func wideRunEnd(b *testing.B, auths *remoteAuthorities, srcs []src, bin string, again bool) {
	want := 2 // robots.txt and the document
	if again {
		want = 1
	}
	var wall, tail, disk time.Duration
	var self, tree int64
	var late int
	for b.Loop() {
		b.StopTimer()
		w := newWorkspace(b, testPolicy, "", srcs...)
		if again {
			auths.reset(b)
			runPeak(b, w.runCmd(bin)) // the first run, not measured
		}
		auths.reset(b)
		cmd := w.runCmd(bin)
		b.StartTimer()
		start := time.Now()
		end, s, t := runPeak(b, cmd)
		b.StopTimer()
		var last time.Time
		for h, seen := range auths.seen(b) {
			if len(seen) != want {
				b.Fatalf("%s saw %d requests, want %d", auths.URLs[h], len(seen), want)
			}
			if c := seen[want-1].Completed; c.After(last) {
				last = c
			}
		}
		wall += end.Sub(start)
		tail += end.Sub(last)
		late += writtenAfter(b, w.Reports, last)
		disk += writeThousand(b)
		self, tree = max(self, s), max(tree, t)
		b.StartTimer()
	}
	n := time.Duration(b.N)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(wall/n), "wall-ms")
	b.ReportMetric(ms(tail/n), "last-answer-to-exit-ms")
	b.ReportMetric(float64(self)/(1<<20), "run-peak-MiB")
	b.ReportMetric(float64(tree)/(1<<20), "largest-process-MiB")
	b.ReportMetric(float64(late)/float64(b.N), "files-after-last-answer")
	b.ReportMetric(ms(disk/n), "disk-1000-files-ms")
}

// writtenAfter counts the files beneath dir last modified after t.
func writtenAfter(b *testing.B, dir string, t time.Time) int {
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err == nil && fi.ModTime().After(t) {
			n++
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// writeThousand is how long writing 1,000 new files of 2 KB takes here,
// now, as a run's end writes feeds.
func writeThousand(b *testing.B) time.Duration {
	d, err := atomicfile.OpenDir(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	files := make([]atomicfile.Named, 1000)
	for i := range files {
		files[i] = atomicfile.Named{Path: fmt.Sprintf("feeds/test/f%04d.xml", i), Data: make([]byte, 2000)}
	}
	start := time.Now()
	if _, err := d.WriteFilesIfChanged(files, 0o644); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}
