package state

import (
	"fmt"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/store"
)

// BenchmarkFilesAtRunEnd is the encoding of state.json when a run of
// 1,000 sources on 50 hosts ends.
//
//	go test -run '^$' -bench FilesAtRunEnd -benchmem ./internal/state
func BenchmarkFilesAtRunEnd(b *testing.B) {
	s := New()
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	put := func(i int) {
		s.PutSource(fmt.Sprintf("h%02d-source-%04d", i%50, i), Source{
			Status: Fresh, Since: "2026-11-02", LastCheck: at, LastGood: at.Add(time.Duration(i) * time.Second),
			HTTPStatus: 200, SHA256: store.Sum(fmt.Sprintf("%064x", i*7919)), Size: 48213, ContentType: "text/html; charset=utf-8",
			ETag: fmt.Sprintf(`"%x"`, i), LastModified: "Mon, 02 Nov 2026 08:00:00 GMT",
			TextChecks: []TextCheck{{Raw: fmt.Sprintf("%064x", i*7919), View: fmt.Sprintf("%064x", i*31)}},
		})
	}
	for i := range 1000 {
		put(i)
	}
	putHosts(s, at, "User-agent: *\nAllow: /\n")
	for b.Loop() {
		if _, err := s.Files(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSaveFirst is a first run's Save: state.json and 50 robots.txt
// bodies, every file new.
//
//	go test -run '^$' -bench SaveFirst -benchmem ./internal/state
func BenchmarkSaveFirst(b *testing.B) {
	s := New()
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	putHosts(s, at, "User-agent: *\nDisallow: /private/\n")
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		b.StartTimer()
		if err := s.Save(dir); err != nil {
			b.Fatal(err)
		}
	}
}

// putHosts gives s the 50 hosts of a benchmark run, each with a robots.txt
// of body.
func putHosts(s *State, at time.Time, body string) {
	for h := range 50 {
		host := fmt.Sprintf("www.tax-office-%02d.example", h)
		s.PutHost(host, Host{LastDispatch: at, LastCompletion: at.Add(time.Second)})
		s.PutRobots("https://"+host, Robots{URL: "https://" + host + "/robots.txt", FetchedAt: at, HTTPStatus: 200, Outcome: RobotsParsed, Body: []byte(body)})
	}
}
