package session

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/outputs"
	"github.com/taxkernel/taxkernelbot/internal/pipeline"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// BenchmarkSaveAtRunEnd is what a first run of 1,000 sources does after
// its last answer (save): the ledger closed, the index, the state, the
// reports and the pages written, with every source's feed written while
// the run waited but the last of each host's. On 50 hosts × 20 documents
// that leaves 50 feeds to the end; on 1,000 hosts × 1 (a wide run, whose
// hosts all end at once) every feed.
//
//	go test -run '^$' -bench SaveAtRunEnd -benchmem ./internal/session
func BenchmarkSaveAtRunEnd(b *testing.B) {
	for _, shape := range [][2]int{{50, 20}, {1000, 1}} {
		b.Run(fmt.Sprintf("%dx%d", shape[0], shape[1]), func(b *testing.B) { saveAtRunEnd(b, shape[0], shape[1]) })
	}
}

func saveAtRunEnd(b *testing.B, hosts, docs int) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	var ids []string
	var sources [][2]string
	for h := range hosts {
		for d := range docs {
			id := fmt.Sprintf("test-h%04d-%02d", h, d)
			ids = append(ids, id)
			sources = append(sources, [2]string{id, fmt.Sprintf("http://127.0.0.1:%d/doc%d", 10000+h, d)})
		}
	}
	set := testSet(b, filepath.Join(b.TempDir(), "manifests"), sources...)
	clk := clock.NewFake(now)
	var user, sys time.Duration
	for b.Loop() {
		b.StopTimer()
		run := b.TempDir()
		o := Options{
			Dirs: Dirs{Snapshots: filepath.Join(run, "snapshots"), Reports: filepath.Join(run, "reports"), State: filepath.Join(run, "state")},
			Set:  set, Limits: pipeline.Limits{Clock: clk},
		}
		st, ix := state.New(), store.NewIndex()
		put := func(i int) {
			id := ids[i]
			sum := store.Sum(fmt.Sprintf("%064x", i*7919))
			st.PutSource(id, state.Source{Status: state.Fresh, Since: "2026-12-01", LastCheck: now, LastGood: now, HTTPStatus: 200, SHA256: sum, Size: 15, ContentType: "text/plain; charset=utf-8", TextChecks: []state.TextCheck{{Raw: string(sum), View: string(sum)}}})
			ix.Add(id, store.Entry{SHA256: sum, Size: 15, ContentType: "text/plain; charset=utf-8", FinalURL: set.Sources[i].URL, FirstSeen: "2026-12-01", Status: 200, Fetched: now.Format(time.RFC3339),
				Header: map[string]string{"Content-Type": "text/plain; charset=utf-8", "Date": now.Format(time.RFC1123)}}, "")
		}
		lines := make([]strings.Builder, hosts)
		for i, src := range set.Sources {
			put(i)
			for _, e := range []string{ledger.Dispatch, ledger.Result} {
				l, err := json.Marshal(ledger.Line{Event: e, Time: now, Host: src.Host, URL: src.URL, Purpose: ledger.PurposeDocument, Source: src.ID, RunID: "bench"})
				must(b, err)
				lines[i/docs].Write(append(l, '\n'))
			}
		}
		for h := range hosts {
			host := fmt.Sprintf("127.0.0.1:%d", 10000+h)
			st.PutHost(host, state.Host{LastDispatch: now, LastCompletion: now})
			st.PutRobots("http://"+host, state.Robots{URL: "http://" + host + "/robots.txt", FetchedAt: now, HTTPStatus: 404, Outcome: state.RobotsMissing})
			path := filepath.Join(o.LedgerDir(), ledger.Path(ledger.Day(now), host))
			must(b, os.MkdirAll(filepath.Dir(path), 0o755))
			must(b, os.WriteFile(path, []byte(lines[h].String()), 0o644))
		}
		led, err := ledger.Open(o.LedgerDir())
		must(b, err)
		must(b, os.MkdirAll(o.Snapshots, 0o755))
		feeds := outputs.Start(outputs.Dirs{Snapshots: o.Snapshots, Reports: o.Reports, Ledgers: o.LedgerDir()}, nil, set, st, ix)
		for i, id := range ids {
			if i%docs != docs-1 {
				feeds.SourceDone(id)
			}
		}
		for feedsIn(b, o.Reports) < len(ids)-hosts {
			time.Sleep(time.Millisecond)
		}
		for i := range 10 {
			put(i * 97)
		}
		runtime.GC() // the setup's garbage is not the save's
		b.StartTimer()
		user0, sys0 := cpuTime()
		// Each host's last answer comes in the last moments: the writer
		// has their feeds still to write.
		for i, id := range ids {
			if i%docs == docs-1 {
				feeds.SourceDone(id)
			}
		}
		// Labelled for a profile: go tool pprof -tagfocus exit=save.
		pprof.Do(b.Context(), pprof.Labels("exit", "save"), func(context.Context) {
			must(b, save(o, st, ix, led, newSettler(led), feeds))
		})
		user1, sys1 := cpuTime()
		user, sys = user+user1-user0, sys+sys1-sys0
	}
	// The CPU of every goroutine, the feed writer's and the collector's
	// too: on a machine shared with others it varies less than the wall.
	// The kernel's is mostly creating, flushing and renaming files.
	b.ReportMetric(float64(user.Microseconds())/1000/float64(b.N), "user-cpu-ms/op")
	b.ReportMetric(float64(sys.Microseconds())/1000/float64(b.N), "sys-cpu-ms/op")
}

// feedsIn counts the sources' feeds written under reports.
func feedsIn(b *testing.B, reports string) int {
	names, err := filepath.Glob(filepath.Join(reports, "feeds", "sources", "*.atom"))
	must(b, err)
	return len(names)
}
