package ledger

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)

func open(t testing.TB) *Ledger {
	t.Helper()
	l, err := Open(filepath.Join(t.TempDir(), "ledgers"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func dispatch(host string, at time.Time, src string) Line {
	return Line{Event: Dispatch, Time: at, Host: host, URL: "https://" + host + "/" + src,
		Purpose: PurposeDocument, Source: src, RunID: "run-1"}
}

func TestAppendReadRoundTrip(t *testing.T) {
	l := open(t)
	want := []Line{
		{Event: Dispatch, Time: t0, Host: "www.gov.uk", URL: "https://www.gov.uk/robots.txt", Purpose: PurposeRobots, RunID: "r"},
		{Event: Result, Time: t0.Add(time.Second), Host: "www.gov.uk", URL: "https://www.gov.uk/robots.txt", RunID: "r",
			Status: 200, Bytes: 42, SHA256: strings.Repeat("ab", 32), DurationMS: 120},
		dispatch("www.gov.uk", t0.Add(5*time.Second), "uk-income-tax-rates"),
		{Event: Result, Time: t0.Add(6 * time.Second), Host: "www.gov.uk", URL: "https://www.gov.uk/x", Error: "timeout after 60s"},
	}
	for _, line := range want {
		if err := l.Append(line); err != nil {
			t.Fatal(err)
		}
	}
	got, err := l.Read("2026-11-03", "www.gov.uk")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Read (-want +got):\n%s", diff)
	}
	// Read must see the lines in a fresh process too, not only through us.
	l2, err := Open(l.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if got, err := l2.Read("2026-11-03", "www.gov.uk"); err != nil || len(got) != len(want) {
		t.Errorf("second ledger Read = %d lines, %v; want %d", len(got), err, len(want))
	}
}

func TestAppendIsOneJSONObjectPerLine(t *testing.T) {
	l := open(t)
	line := dispatch("a.example", t0, "s")
	if err := l.Append(line); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(l.Dir(), "2026-11-03", "a.example.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"event":"dispatch","time":"2026-11-03T10:00:00Z","host":"a.example","url":"https://a.example/s","purpose":"document","source":"s","run":"run-1"}` + "\n"
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("file (-want +got):\n%s", diff)
	}
}

func TestMissingFileIsEmpty(t *testing.T) {
	l := open(t)
	n, err := l.Dispatches("2026-11-03", "nobody.example")
	if n != 0 || err != nil {
		t.Errorf("Dispatches = %d, %v; want 0, nil", n, err)
	}
	lines, err := l.Read("2026-11-03", "nobody.example")
	if lines != nil || err != nil {
		t.Errorf("Read = %v, %v; want nil, nil", lines, err)
	}
}

func TestConcurrentAppendsWriteWholeLines(t *testing.T) {
	l := open(t)
	const workers, each = 8, 50
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				line := dispatch("busy.example", t0, fmt.Sprintf("w%d-%d", w, i))
				// A long field makes a torn or interleaved write easy to see.
				line.Error = strings.Repeat("x", 4096)
				if err := l.Append(line); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	lines, err := l.Read("2026-11-03", "busy.example")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, line := range lines {
		seen[line.Source] = true
	}
	if len(lines) != workers*each || len(seen) != workers*each {
		t.Errorf("read %d lines, %d distinct; want %d", len(lines), len(seen), workers*each)
	}
}

func TestTornTailIgnoredThenRepaired(t *testing.T) {
	l := open(t)
	first := dispatch("torn.example", t0, "one")
	if err := l.Append(first); err != nil {
		t.Fatal(err)
	}
	l.Close()
	path := filepath.Join(l.Dir(), "2026-11-03", "torn.example.jsonl")
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// What a crash half way through the second Append leaves behind.
	torn := `{"event":"dispatch","time":"2026-11-03T10:00:05Z","host":"torn.exa`
	if err := os.WriteFile(path, append(whole, torn...), 0o644); err != nil {
		t.Fatal(err)
	}

	l, err = Open(l.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if n, err := l.Dispatches("2026-11-03", "torn.example"); n != 1 || err != nil {
		t.Errorf("Dispatches with torn tail = %d, %v; want 1, nil", n, err)
	}
	if got, err := l.Read("2026-11-03", "torn.example"); err != nil || len(got) != 1 {
		t.Errorf("Read with torn tail = %d lines, %v; want 1, nil", len(got), err)
	}

	second := dispatch("torn.example", t0.Add(10*time.Second), "two")
	if err := l.Append(second); err != nil {
		t.Fatal(err)
	}
	got, err := l.Read("2026-11-03", "torn.example")
	if err != nil {
		t.Fatalf("Read after repair: %v", err)
	}
	if diff := cmp.Diff([]Line{first, second}, got); diff != "" {
		t.Errorf("after repair (-want +got):\n%s", diff)
	}
}

func TestTornOnlyLineRepairedToEmpty(t *testing.T) {
	l := open(t)
	dir := filepath.Join(l.Dir(), "2026-11-03")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "t.example.jsonl")
	if err := os.WriteFile(path, []byte(`{"event":"disp`), 0o644); err != nil {
		t.Fatal(err)
	}
	line := dispatch("t.example", t0, "s")
	if err := l.Append(line); err != nil {
		t.Fatal(err)
	}
	got, err := l.Read("2026-11-03", "t.example")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Line{line}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestAfterLastNewlineAcrossBlocks(t *testing.T) {
	// A torn tail longer than one read block must still be found.
	data := "a\n" + strings.Repeat("z", 200<<10)
	got, err := afterLastNewline(strings.NewReader(data), int64(len(data)))
	if err != nil || got != 2 {
		t.Errorf("afterLastNewline = %d, %v; want 2", got, err)
	}
}

func TestCorruptLineNamesFileAndLine(t *testing.T) {
	l := open(t)
	if err := l.Append(dispatch("c.example", t0, "s")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(l.Dir(), "2026-11-03", "c.example.jsonl")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("not json\n")
	f.Close()
	want := path + ":2:"
	if _, err := l.Dispatches("2026-11-03", "c.example"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Dispatches error = %v; want one containing %q", err, want)
	}
	if _, err := l.Read("2026-11-03", "c.example"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Read error = %v; want one containing %q", err, want)
	}
}

func TestDispatchesCountsOnlyDispatchesOfHostAndDay(t *testing.T) {
	l := open(t)
	lines := []Line{
		dispatch("h.example", t0, "a"),
		{Event: Result, Time: t0, Host: "h.example", Status: 200},
		dispatch("h.example", t0.Add(time.Minute), "b"),
		{Event: Result, Time: t0, Host: "h.example", Status: 500},
		dispatch("h.example:8443", t0, "port"),           // another host: its own port
		dispatch("other.example", t0, "c"),               // another host
		dispatch("h.example", t0.Add(24*time.Hour), "d"), // another day
		// Shares the file of h.example:8443, but is not that host.
		dispatch("h.example_8443", t0, "e"),
	}
	for _, line := range lines {
		if err := l.Append(line); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		day, host string
		want      int
	}{
		{"2026-11-03", "h.example", 2},
		{"2026-11-04", "h.example", 1},
		{"2026-11-03", "h.example:8443", 1},
		{"2026-11-03", "h.example_8443", 1},
		{"2026-11-05", "h.example", 0},
	} {
		n, err := l.Dispatches(tc.day, tc.host)
		if n != tc.want || err != nil {
			t.Errorf("Dispatches(%s, %s) = %d, %v; want %d", tc.day, tc.host, n, err, tc.want)
		}
	}
}

func TestLinesLandInUTCDay(t *testing.T) {
	l := open(t)
	est := time.FixedZone("EST", -5*3600)
	at := time.Date(2026, 11, 3, 23, 59, 59, 0, est) // 2026-11-04T04:59:59Z
	if err := l.Append(dispatch("late.example", at, "s")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(l.Dir(), "2026-11-04", "late.example.jsonl")); err != nil {
		t.Errorf("line not in its UTC day: %v", err)
	}
	if n, _ := l.Dispatches("2026-11-03", "late.example"); n != 0 {
		t.Errorf("local day has %d dispatches, want 0", n)
	}
	got, err := l.Read("2026-11-04", "late.example")
	if err != nil || len(got) != 1 {
		t.Fatalf("Read = %v, %v", got, err)
	}
	if got[0].Time.Location() != time.UTC || !got[0].Time.Equal(at) {
		t.Errorf("time read back = %v; want %v in UTC", got[0].Time, at.UTC())
	}
	if Day(at) != "2026-11-04" {
		t.Errorf("Day(%v) = %s; want 2026-11-04", at, Day(at))
	}
}

func TestFileName(t *testing.T) {
	for host, want := range map[string]string{
		"www.gov.uk":           "www.gov.uk.jsonl",
		"www.gov.uk:8443":      "www.gov.uk_8443.jsonl",
		"127.0.0.1:8080":       "127.0.0.1_8080.jsonl",
		"[::1]:8080":           "___1__8080.jsonl",
		"[2001:db8::1]":        "_2001_db8__1_.jsonl",
		"xn--bcher-kva.de":     "xn--bcher-kva.de.jsonl",
		"../../etc/passwd":     ".._.._etc_passwd.jsonl",
		"a\\b":                 "a_b.jsonl",
		"ünïcode.example":      "__n__code.example.jsonl",
		"UPPER.Example":        "UPPER.Example.jsonl",
		"zone%25eth0":          "zone_25eth0.jsonl",
		"host.example:notport": "host.example_notport.jsonl",
	} {
		if got := FileName(host); got != want {
			t.Errorf("FileName(%q) = %q; want %q", host, got, want)
		}
	}
}

func TestAppendRejectsIncompleteLine(t *testing.T) {
	l := open(t)
	for _, line := range []Line{
		{Time: t0, Host: "h"},
		{Event: Dispatch, Time: t0},
		{Event: Dispatch, Host: "h"},
	} {
		if err := l.Append(line); err == nil {
			t.Errorf("Append(%+v) = nil; want an error", line)
		}
	}
}

func TestLongestLineRoundTrips(t *testing.T) {
	l := open(t)
	line := dispatch("long.example", t0, "s")
	b, _ := json.Marshal(line)
	// Fill Error so that the encoded line plus newline is exactly MaxLine.
	line.Error = strings.Repeat("e", MaxLine-len(b)-len(`,"error":""`)-1)
	if err := l.Append(line); err != nil {
		t.Fatal(err)
	}
	if got, err := l.Read("2026-11-03", "long.example"); err != nil || len(got) != 1 {
		t.Errorf("Read of a MaxLine line = %d lines, %v", len(got), err)
	}
	line.Error += "e"
	if err := l.Append(line); err == nil {
		t.Error("Append of a line over MaxLine = nil; want an error")
	}
}

func TestAppendAfterCloseFails(t *testing.T) {
	l := open(t)
	if err := l.Append(dispatch("h", t0, "s")); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(dispatch("h", t0, "s")); err == nil {
		t.Error("Append after Close = nil; want an error")
	}
}

func TestDays(t *testing.T) {
	l := open(t)
	for _, at := range []time.Time{t0.AddDate(0, 1, 0), t0, t0.AddDate(0, 0, 1)} {
		if err := l.Append(dispatch("h", at, "s")); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(l.Dir(), "not-a-day"), 0o755)
	os.WriteFile(filepath.Join(l.Dir(), "2026-01-01"), nil, 0o644) // a file, not a day
	got, err := Days(l.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"2026-11-03", "2026-11-04", "2026-12-03"}, got); diff != "" {
		t.Errorf("Days (-want +got):\n%s", diff)
	}
	if got, err := Days(filepath.Join(l.Dir(), "missing")); got != nil || err != nil {
		t.Errorf("Days(missing) = %v, %v; want nil, nil", got, err)
	}
}

func TestBadDayRefused(t *testing.T) {
	l := open(t)
	for _, day := range []string{"", "../..", "2026-13-01", "20261103"} {
		if _, err := l.Dispatches(day, "h"); err == nil {
			t.Errorf("Dispatches(%q) = nil error; want one", day)
		}
	}
}

// BenchmarkAppend measures one durable append; it is bound by fsync, so the
// figure is the disk's, not the code's.
func BenchmarkAppend(b *testing.B) {
	l := open(b)
	line := dispatch("bench.example", t0, "uk-income-tax-rates")
	for b.Loop() {
		if err := l.Append(line); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDispatches counts the dispatches in a 10,000-line file, half of
// them results: what the cap check reads for a busy host-day.
func BenchmarkDispatches(b *testing.B) {
	l := open(b)
	dir := filepath.Join(l.Dir(), "2026-11-03")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	var buf []byte
	for i := range 10000 {
		line := dispatch("bench.example", t0, fmt.Sprintf("source-%d", i))
		if i%2 == 1 {
			line = Line{Event: Result, Time: t0, Host: "bench.example", URL: line.URL, Status: 200,
				Bytes: 12345, SHA256: strings.Repeat("ab", 32), DurationMS: 250}
		}
		j, _ := json.Marshal(line)
		buf = append(append(buf, j...), '\n')
	}
	if err := os.WriteFile(filepath.Join(dir, FileName("bench.example")), buf, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		n, err := l.Dispatches("2026-11-03", "bench.example")
		if err != nil || n != 5000 {
			b.Fatalf("Dispatches = %d, %v", n, err)
		}
	}
}

// BenchmarkCloseAtRunEnd is the ledger's share of a run's end on 200
// hosts, each with a result line not yet durable: all 200 left to Close,
// or all but the 10 that ended last settled when their turns ended.
func BenchmarkCloseAtRunEnd(b *testing.B) {
	const hosts = 200
	for _, settled := range []int{0, hosts - 10} {
		b.Run(fmt.Sprintf("settled=%d", settled), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				l := open(b)
				for h := range hosts {
					host := fmt.Sprintf("h%03d.example", h)
					for _, ev := range []string{Dispatch, Result} {
						if err := l.Append(Line{Event: ev, Time: t0, Host: host, URL: "https://" + host + "/"}); err != nil {
							b.Fatal(err)
						}
					}
					if h < settled {
						l.Settle(host)
					}
				}
				b.StartTimer()
				if err := l.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestScanAll(t *testing.T) {
	l := open(t)
	dir := l.Dir()
	day1 := time.Date(2026, 11, 29, 23, 59, 0, 0, time.UTC)
	day2 := day1.Add(2 * time.Minute)
	for _, line := range []Line{
		{Event: Dispatch, Time: day2, Host: "b.example", URL: "https://b.example/1"},
		{Event: Result, Time: day1, Host: "a.example", URL: "https://a.example/1", Status: 200, SHA256: "ab"},
		{Event: Result, Time: day2, Host: "a.example", URL: "https://a.example/2", Status: 200},
	} {
		if err := l.Append(line); err != nil {
			t.Fatal(err)
		}
	}
	// A torn last line, as a kill leaves it.
	f, err := os.OpenFile(filepath.Join(dir, "2026-11-30", "a.example.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"event":"resu`)
	f.Close()
	var got []string
	if err := ScanAll(dir, func(l Line) error { got = append(got, l.Time.Format("02 ")+l.URL); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []string{"29 https://a.example/1", "30 https://a.example/2", "30 https://b.example/1"}
	if !slices.Equal(got, want) {
		t.Errorf("ScanAll saw %v, want %v", got, want)
	}
	if err := ScanAll(filepath.Join(dir, "missing"), func(Line) error { return nil }); err != nil {
		t.Errorf("missing dir: %v", err)
	}
}

// Only dispatch lines are fsynced as they are written; result lines ride on
// the next dispatch line's fsync, or on Close's.
func TestOnlyDispatchLinesSyncAtOnce(t *testing.T) {
	l := open(t)
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	for i, ev := range []string{Dispatch, Result, Dispatch, Result} {
		if err := l.Append(Line{Event: ev, Time: at.Add(time.Duration(i) * time.Second), Host: "x.example", URL: "https://x.example/"}); err != nil {
			t.Fatal(err)
		}
	}
	if got := l.Syncs(); got != 2 {
		t.Errorf("%d fsyncs for two dispatch and two result lines, want 2", got)
	}
	lines, err := l.Read("2026-11-30", "x.example")
	if err != nil || len(lines) != 4 {
		t.Fatalf("read back %d lines (%v), want 4: a result line is readable at once", len(lines), err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if got := l.Syncs(); got != 3 {
		t.Errorf("%d fsyncs after Close, want 3: the last result line made durable", got)
	}
}

// A host settled when its turn ends has its result lines synced then, and
// Close syncs only what was written after; another host's lines wait for
// Close as before.
func TestSettleSyncsOnlyThatHostsLinesAndLeavesTheRestToClose(t *testing.T) {
	l := open(t)
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	appendLines := func(host string, events ...string) {
		t.Helper()
		for _, ev := range events {
			if err := l.Append(Line{Event: ev, Time: at, Host: host, URL: "https://" + host + "/"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	synced := watchFileSyncs(t, nil)
	appendLines("a.example", Dispatch, Result)
	appendLines("b.example", Dispatch, Result)
	l.Settle("a.example")
	l.Settle("a.example") // nothing left to sync
	l.Settle("c.example") // nothing written
	want := []string{"a.example.jsonl", "b.example.jsonl", "a.example.jsonl"}
	if got := synced(); !slices.Equal(got, want) {
		t.Fatalf("synced %q after settling a.example, want %q: the two dispatches, then a.example's result", got, want)
	}
	appendLines("a.example", Result)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got := synced()[len(want):]
	slices.Sort(got)
	if want := []string{"a.example.jsonl", "b.example.jsonl"}; !slices.Equal(got, want) {
		t.Errorf("Close synced %q, want %q: b's result and a's line after its settling", got, want)
	}
	l.Settle("a.example") // after Close: nothing, and no panic
}

// A failed fsync in Settle is Close's error, and Close does not try that
// file again: a second fsync could succeed with the lines already lost.
func TestAFailedSettleIsReportedByClose(t *testing.T) {
	l := open(t)
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	for _, ev := range []string{Dispatch, Result} {
		if err := l.Append(Line{Event: ev, Time: at, Host: "a.example", URL: "https://a.example/"}); err != nil {
			t.Fatal(err)
		}
	}
	synced := watchFileSyncs(t, errors.New("disk on fire"))
	l.Settle("a.example")
	if got := synced(); len(got) != 1 {
		t.Fatalf("Settle synced %q, want a.example's file once", got)
	}
	synced = watchFileSyncs(t, nil)
	err := l.Close()
	if err == nil || !strings.Contains(err.Error(), "disk on fire") || !strings.Contains(err.Error(), "a.example.jsonl") {
		t.Errorf("Close = %v, want the settling's failure, naming the file", err)
	}
	if got := synced(); len(got) != 0 {
		t.Errorf("Close synced %q again after a failed settling, want nothing", got)
	}
}

// watchFileSyncs records the base names of the ledger files synced from
// now on; each sync fails with fail when it is not nil.
func watchFileSyncs(t *testing.T, fail error) (synced func() []string) {
	t.Helper()
	var (
		mu    sync.Mutex
		names []string
	)
	syncFile = func(f *os.File) error {
		mu.Lock()
		names = append(names, filepath.Base(f.Name()))
		mu.Unlock()
		if fail != nil {
			return fail
		}
		return f.Sync()
	}
	t.Cleanup(func() { syncFile = (*os.File).Sync })
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(names)
	}
}

// watchDirSyncs records the directories synced from now on. The first
// sync of block (none when "") closes begun and waits for release.
func watchDirSyncs(t *testing.T, block string, begun, release chan struct{}) (synced func() []string) {
	t.Helper()
	var mu sync.Mutex
	var dirs []string
	blocked := false
	old := syncDir
	syncDir = func(dir string) error {
		mu.Lock()
		wait := block != "" && dir == block && !blocked
		blocked = blocked || wait
		mu.Unlock()
		if wait {
			close(begun)
			<-release
		}
		err := old(dir)
		mu.Lock()
		dirs = append(dirs, dir)
		mu.Unlock()
		return err
	}
	t.Cleanup(func() { syncDir = old })
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(dirs)
	}
}

// The first dispatch line of a new file returns only once the file's name
// and its day directory's are durable as well as the line: a crash must
// not take the file, and the line with it, away after the request left.
// Later lines of the file cost no directory sync.
func TestNewFilesNameDurableWithItsFirstDispatch(t *testing.T) {
	l := open(t)
	dir := l.Dir()
	synced := watchDirSyncs(t, "", nil, nil)
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	day := filepath.Join(dir, "2026-11-30")
	if err := l.Append(Line{Event: Dispatch, Time: at, Host: "a.example", URL: "u"}); err != nil {
		t.Fatal(err)
	}
	if got, want := synced(), []string{day, dir}; !slices.Equal(got, want) {
		t.Fatalf("after the first dispatch line, synced directories %q, want %q", got, want)
	}
	for _, line := range []Line{
		{Event: Result, Time: at, Host: "a.example", URL: "u", Status: 200},
		{Event: Dispatch, Time: at.Add(time.Second), Host: "a.example", URL: "u"},
	} {
		if err := l.Append(line); err != nil {
			t.Fatal(err)
		}
	}
	if got := synced(); len(got) != 2 {
		t.Errorf("later lines synced directories again: %q", got[2:])
	}
}

// A result line that opens a new day's file (a run crossing midnight) is
// not synced on its own; its file's name becomes durable with the next
// sync of the file, here Close's.
func TestNewFilesNameDurableByClose(t *testing.T) {
	l := open(t)
	dir := l.Dir()
	synced := watchDirSyncs(t, "", nil, nil)
	at := time.Date(2026, 12, 1, 0, 0, 1, 0, time.UTC)
	if err := l.Append(Line{Event: Result, Time: at, Host: "a.example", URL: "u", Status: 200}); err != nil {
		t.Fatal(err)
	}
	if got := synced(); len(got) != 0 {
		t.Errorf("a result line synced %q", got)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := synced(), []string{filepath.Join(dir, "2026-12-01"), dir}; !slices.Equal(got, want) {
		t.Errorf("Close synced directories %q, want %q", got, want)
	}
}

// Two hosts' first lines of a new day at once: the one that finds the day
// directory made by the other must not return before the directory's name
// is durable, although the other's sync of it has not ended.
func TestFirstLinesOfADayAtOnce(t *testing.T) {
	l := open(t)
	dir := l.Dir()
	begun, release := make(chan struct{}), make(chan struct{})
	synced := watchDirSyncs(t, dir, begun, release)
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	first := make(chan error, 1)
	go func() { first <- l.Append(Line{Event: Dispatch, Time: at, Host: "a.example", URL: "u"}) }()
	<-begun // a.example made the day directory and is syncing its name
	if err := l.Append(Line{Event: Dispatch, Time: at, Host: "b.example", URL: "u"}); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(synced(), dir) {
		t.Errorf("b.example's first line returned with the day directory's name not yet synced (syncs done: %q)", synced())
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
}

// A directory that cannot be synced fails the dispatch line's Append, so
// its request is never sent.
func TestDirSyncFailureFailsTheDispatch(t *testing.T) {
	l := open(t)
	old := syncDir
	syncDir = func(string) error { return errors.New("disk on fire") }
	t.Cleanup(func() { syncDir = old })
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	err := l.Append(Line{Event: Dispatch, Time: at, Host: "a.example", URL: "u"})
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("Append = %v, want the directory sync's error", err)
	}
	syncDir = old
	// The next Append tries again, and the name is made durable then.
	synced := watchDirSyncs(t, "", nil, nil)
	if err := l.Append(Line{Event: Dispatch, Time: at, Host: "a.example", URL: "u"}); err != nil {
		t.Fatal(err)
	}
	if got := synced(); len(got) != 2 {
		t.Errorf("after a failed directory sync, the next dispatch synced %q, want the day directory and the ledger's", got)
	}
}

// A torn tail from a killed run is repaired when the file is first opened.
func TestTornTailRepairedOnOpen(t *testing.T) {
	l := open(t)
	dir := l.Dir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "2026-11-30"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "2026-11-30", "b.example.jsonl"), []byte(`{"event":"dispatch","time":"2026-11-30T09:00:00Z","host":"b.example","url":"u"}`+"\n{\"ev"), 0o644))
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	must(l.Append(Line{Event: Dispatch, Time: at, Host: "b.example", URL: "u2"}))
	lines, err := l.Read("2026-11-30", "b.example")
	if err != nil || len(lines) != 2 {
		t.Errorf("after Append: %d lines, %v; want the old whole line and the new one", len(lines), err)
	}
}

func TestReadDay(t *testing.T) {
	l := open(t)
	dir := l.Dir()
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	for _, line := range []Line{
		{Event: Dispatch, Time: at, Host: "b.example", URL: "https://b.example/1"},
		{Event: Dispatch, Time: at, Host: "a.example:8443", URL: "https://a.example:8443/1"},
		{Event: Result, Time: at.Add(time.Second), Host: "b.example", URL: "https://b.example/1", Status: 200},
		{Event: Dispatch, Time: at.Add(24 * time.Hour), Host: "b.example", URL: "https://b.example/2"},
	} {
		if err := l.Append(line); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	// A torn last line, as a crash leaves it, is not read.
	f, err := os.OpenFile(filepath.Join(dir, "2026-11-30", FileName("b.example")), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"event":"dispa`)
	f.Close()
	lines, err := ReadDay(dir, "2026-11-30")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range lines {
		got = append(got, l.Event+" "+l.URL)
	}
	want := []string{"dispatch https://a.example:8443/1", "dispatch https://b.example/1", "result https://b.example/1"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("ReadDay = %q, want %q", got, want)
	}
	if lines, err := ReadDay(dir, "2026-01-01"); err != nil || len(lines) != 0 {
		t.Errorf("missing day: %v %v", lines, err)
	}
}
