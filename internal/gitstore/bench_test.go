package gitstore

import (
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const (
	benchHosts = 1000
	benchLines = 20
	benchDays  = 30
)

func benchHost(h int) string { return fmt.Sprintf("host%04d.example.gov", h) }

// benchLedger is a host's ledger for a day: n dispatch/result lines of the
// size the fetcher writes (~150 bytes).
func benchLedger(day time.Time, h, from, n int) string {
	var b strings.Builder
	for i := from; i < from+n; i++ {
		at := day.Add(time.Duration(i) * time.Minute).Format(time.RFC3339)
		if i%2 == 0 {
			fmt.Fprintf(&b, `{"time":"%s","event":"dispatch","url":"https://%s/doc/%d","purpose":"document","source":"src-%d-%d"}`+"\n", at, benchHost(h), i, h, i)
		} else {
			fmt.Fprintf(&b, `{"time":"%s","event":"result","status":200,"bytes":%d,"sha256":"%064x","duration":"%dms"}`+"\n", at, 1000+i, h*1000+i, 100+i)
		}
	}
	return b.String()
}

// BenchmarkUpdate1000Hosts pushes a day's ledgers of 1,000 hosts (1,000 files
// of 20 lines, one Update) to a branch that already holds 30 days of them,
// through git http-backend on loopback, then increments: one line appended to
// each of the 1,000 files, and one line to one file.
//
//	go test -run '^$' -bench Update1000 -benchtime 3x ./internal/gitstore
func BenchmarkUpdate1000Hosts(b *testing.B) {
	f := newFixture(b)
	start := time.Now()
	first := time.Date(2026, 10, 30, 0, 0, 0, 0, time.UTC)
	for d := range benchDays {
		day := first.AddDate(0, 0, d)
		files := make(map[string][]byte, benchHosts)
		for h := range benchHosts {
			files[fmt.Sprintf("ledgers/%s/%s.jsonl", day.Format(time.DateOnly), benchHost(h))] = []byte(benchLedger(day, h, 0, benchLines))
		}
		f.srv.Commit(b, repoNm, branch, "ledgers "+day.Format(time.DateOnly), files)
	}
	b.Logf("history: %d days × %d hosts written with git in %v", benchDays, benchHosts, time.Since(start).Round(time.Millisecond))

	rt := &timedTransport{}
	rem := f.remote()
	rem.HTTPClient = &http.Client{Transport: rt}
	repo, err := Open(b.TempDir(), rem)
	if err != nil {
		b.Fatal(err)
	}
	defer repo.Close()
	start = time.Now()
	if _, _, err := repo.Read(b.Context(), branch); err != nil {
		b.Fatal(err)
	}
	b.Logf("first fetch of the whole history: %v", time.Since(start).Round(time.Millisecond))

	day := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC) // the day being pushed; the next for each new push
	lines := benchLines
	update := func(b *testing.B, msg string, edit Edit) {
		if _, err := repo.Update(b.Context(), branch, msg, sig(0), edit, 3); err != nil {
			b.Fatal(err)
		}
	}
	// http-ms/op: the part of an update spent waiting for the server (git
	// http-backend on the same machine); the rest is the client's own work.
	run := func(name string, body func(b *testing.B)) {
		b.Run(name, func(b *testing.B) {
			rt.total.Store(0)
			body(b)
			b.ReportMetric(float64(rt.total.Load())/1e6/float64(b.N), "http-ms/op")
		})
	}

	run("day", func(b *testing.B) {
		for b.Loop() {
			day = day.AddDate(0, 0, 1)
			lines = benchLines
			update(b, "ledgers "+day.Format(time.DateOnly), func(fs.FS) ([]Change, error) {
				cs := make([]Change, benchHosts)
				for h := range cs {
					cs[h] = Change{Path: benchPath(day, h), Data: []byte(benchLedger(day, h, 0, benchLines))}
				}
				return cs, nil
			})
		}
	})
	run("append-1000-lines", func(b *testing.B) {
		for b.Loop() {
			update(b, "ledgers: one more line per host", func(tip fs.FS) ([]Change, error) {
				cs := make([]Change, benchHosts)
				for h := range cs {
					c, err := appendLines(benchPath(day, h), strings.TrimSuffix(benchLedger(day, h, lines, 1), "\n"))(tip)
					if err != nil || len(c) != 1 {
						return nil, fmt.Errorf("host %d: %v changes, %v", h, len(c), err)
					}
					cs[h] = c[0]
				}
				return cs, nil
			})
			lines++
		}
	})
	run("append-1-line", func(b *testing.B) {
		for b.Loop() {
			update(b, "ledgers: one more line", appendLines(benchPath(day, 0), strings.TrimSuffix(benchLedger(day, 0, lines, 1), "\n")))
			lines++
		}
	})
	run("no-op", func(b *testing.B) {
		for b.Loop() {
			update(b, "nothing", func(fs.FS) ([]Change, error) { return nil, nil })
		}
	})
}

func benchPath(day time.Time, h int) string {
	return fmt.Sprintf("ledgers/%s/%s.jsonl", day.Format(time.DateOnly), benchHost(h))
}

// timedTransport adds up the time spent in HTTP round trips.
type timedTransport struct{ total atomic.Int64 }

func (t *timedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := http.DefaultTransport.RoundTrip(r)
	t.total.Add(int64(time.Since(start)))
	return resp, err
}
