package state

import (
	"github.com/taxkernel/taxkernelbot/internal/store"

	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)

// sample is a State with something in every field that is saved.
func sample() *State {
	s := New()
	s.PutSource("uk-income-tax-rates", Source{
		Status: Fresh, Since: "2026-11-01",
		LastCheck: t0, LastGood: t0.Add(-time.Hour),
		HTTPStatus: 200, SHA256: store.Sum(strings.Repeat("ab", 32)), Size: 1234,
		ContentType: "text/html; charset=utf-8", FinalURL: "https://www.gov.uk/income-tax-rates",
		Detail: "robots_override: email 4411", ETag: `"abc"`, LastModified: "Mon, 02 Nov 2026 10:00:00 GMT",
	})
	s.PutSource("de-estg", Source{Status: Failing, Since: "2026-11-03", LastCheck: t0, HTTPStatus: 503, Detail: "503 Service Unavailable"})
	s.PutHost("www.gov.uk", Host{LastDispatch: t0, LastCompletion: t0.Add(2 * time.Second)})
	s.PutHost("127.0.0.1:8080", Host{
		LastDispatch: t0, Failures: 3, BackoffUntil: t0.Add(4 * time.Minute),
		Consecutive403: 3, PausedUntil: time.Date(2026, 11, 4, 0, 0, 0, 0, time.UTC),
	})
	s.PutRobots("https://www.gov.uk", Robots{
		URL: "https://www.gov.uk/robots.txt", FetchedAt: t0, HTTPStatus: 200, Outcome: RobotsParsed,
		Body: []byte("User-agent: *\nDisallow: /search\n"),
	})
	s.PutRobots("http://127.0.0.1:8080", Robots{
		URL: "http://127.0.0.1:8080/robots.txt", FetchedAt: t0, HTTPStatus: 404, Outcome: RobotsMissing,
	})
	s.PutRobots("http://[::1]:8080", Robots{
		URL: "http://[::1]:8080/robots.txt", FetchedAt: t0, HTTPStatus: 503, Outcome: RobotsUnreadable, Detail: "503",
	})
	return s
}

// contents is everything a State holds, for comparison.
type contents struct {
	Sources map[string]Source
	Hosts   map[string]Host
	Robots  map[string]Robots
}

func dump(s *State) contents {
	c := contents{map[string]Source{}, map[string]Host{}, map[string]Robots{}}
	for _, id := range s.SourceIDs() {
		c.Sources[id] = s.Source(id)
	}
	for _, h := range s.HostNames() {
		c.Hosts[h] = s.Host(h)
	}
	for _, k := range s.RobotsKeys() {
		c.Robots[k], _ = s.Robots(k)
	}
	return c
}

func TestSaveLoadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	want := sample()
	if err := want.Save(dir); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(dump(want), dump(got)); diff != "" {
		t.Errorf("Load(Save(s)) (-want +got):\n%s", diff)
	}
	body, err := os.ReadFile(filepath.Join(dir, "robots", "https_www.gov.uk.txt"))
	if err != nil || string(body) != "User-agent: *\nDisallow: /search\n" {
		t.Errorf("robots body file = %q, %v", body, err)
	}
	// Bodies are kept beside state.json, not in it.
	b, _ := os.ReadFile(filepath.Join(dir, "state.json"))
	if strings.Contains(string(b), "Disallow") {
		t.Errorf("state.json holds a robots body:\n%s", b)
	}
}

func TestSaveFormat(t *testing.T) {
	dir := t.TempDir()
	s := New()
	s.PutSource("b", Source{Status: Gone, Since: "2026-11-03"})
	s.PutSource("a", Source{Status: Pending, Since: "2026-11-01"})
	s.PutHost("h.example", Host{Failures: 1})
	if err := s.Save(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "sources": {
    "a": {
      "status": "pending",
      "since": "2026-11-01"
    },
    "b": {
      "status": "gone",
      "since": "2026-11-03"
    }
  },
  "hosts": {
    "h.example": {
      "failures": 1
    }
  },
  "robots": {}
}
`
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("state.json (-want +got):\n%s", diff)
	}
}

func TestSaveTwiceDoesNotRewrite(t *testing.T) {
	dir := t.TempDir()
	s := sample()
	if err := s.Save(dir); err != nil {
		t.Fatal(err)
	}
	paths := []string{filepath.Join(dir, "state.json"), filepath.Join(dir, "robots", "https_www.gov.uk.txt")}
	old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	before := map[string]os.FileInfo{}
	bytesBefore := map[string]string{}
	for _, p := range paths {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
		before[p], _ = os.Stat(p)
		b, _ := os.ReadFile(p)
		bytesBefore[p] = string(b)
	}
	// A fresh Load + Save must come to the same bytes too.
	s2, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []*State{s, s2} {
		if err := st.Save(dir); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range paths {
		after, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if !os.SameFile(before[p], after) || !after.ModTime().Equal(old) {
			t.Errorf("%s was rewritten with unchanged content", p)
		}
		if b, _ := os.ReadFile(p); string(b) != bytesBefore[p] {
			t.Errorf("%s changed:\n%s\nwant:\n%s", p, b, bytesBefore[p])
		}
	}

	// And a real change is written.
	src := s.Source("de-estg")
	src.SetStatus(Fresh, t0.Add(24*time.Hour))
	s.PutSource("de-estg", src)
	if err := s.Save(dir); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(paths[0]); os.SameFile(before[paths[0]], after) {
		t.Error("state.json not rewritten after a change")
	}
}

func TestEmptiedRobotsBodyIsRemoved(t *testing.T) {
	dir := t.TempDir()
	s := sample()
	if err := s.Save(dir); err != nil {
		t.Fatal(err)
	}
	// The site now serves an empty robots.txt: no stale rules may survive.
	s.PutRobots("https://www.gov.uk", Robots{URL: "https://www.gov.uk/robots.txt", FetchedAt: t0.Add(time.Hour), HTTPStatus: 200, Outcome: RobotsParsed})
	if err := s.Save(dir); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := got.Robots("https://www.gov.uk"); r.Body != nil {
		t.Errorf("body after emptying = %q; want none", r.Body)
	}
	if _, err := os.Stat(filepath.Join(dir, "robots", "https_www.gov.uk.txt")); !os.IsNotExist(err) {
		t.Errorf("stale body file left: %v", err)
	}
}

func TestLoadMissing(t *testing.T) {
	for _, dir := range []string{filepath.Join(t.TempDir(), "no", "such"), t.TempDir()} {
		s, err := Load(dir)
		if err != nil {
			t.Fatalf("Load(%s): %v", dir, err)
		}
		if diff := cmp.Diff(dump(New()), dump(s)); diff != "" {
			t.Errorf("Load(%s) not empty:\n%s", dir, diff)
		}
		if got := s.Source("x"); got.Status != Pending {
			t.Errorf("unknown source status = %q; want pending", got.Status)
		}
	}
}

func TestLoadCorrupt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	if err := os.WriteFile(path, []byte(`{"sources": {"a": `), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(dir)
	if err == nil {
		t.Fatal("Load of a corrupt state.json = nil error")
	}
	for _, want := range []string{path, "corrupt", "remove it"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

func TestSetStatusSinceOnlyOnChange(t *testing.T) {
	var s Source
	s.SetStatus(Pending, t0)
	if s.Since != "2026-11-03" {
		t.Errorf("first SetStatus: Since = %q; want 2026-11-03", s.Since)
	}
	s.SetStatus(Pending, t0.Add(48*time.Hour))
	if s.Since != "2026-11-03" {
		t.Errorf("same status: Since = %q; want unchanged 2026-11-03", s.Since)
	}
	// A change at 23:30 in New York is the next UTC day.
	ny := time.FixedZone("EST", -5*3600)
	s.SetStatus(Fresh, time.Date(2026, 11, 5, 23, 30, 0, 0, ny))
	if s.Status != Fresh || s.Since != "2026-11-06" {
		t.Errorf("changed status: %q since %q; want fresh since 2026-11-06", s.Status, s.Since)
	}
}

func TestSortedNames(t *testing.T) {
	s := sample()
	if diff := cmp.Diff([]string{"de-estg", "uk-income-tax-rates"}, s.SourceIDs()); diff != "" {
		t.Errorf("SourceIDs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"127.0.0.1:8080", "www.gov.uk"}, s.HostNames()); diff != "" {
		t.Errorf("HostNames (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"http://127.0.0.1:8080", "http://[::1]:8080", "https://www.gov.uk"}, s.RobotsKeys()); diff != "" {
		t.Errorf("RobotsKeys (-want +got):\n%s", diff)
	}
}

func TestRobotsBodyIsCopied(t *testing.T) {
	s := New()
	body := []byte("Disallow: /a\n")
	s.PutRobots("https://h", Robots{Body: body})
	body[0] = 'X'
	r, _ := s.Robots("https://h")
	r.Body[1] = 'Y'
	if r2, _ := s.Robots("https://h"); string(r2.Body) != "Disallow: /a\n" {
		t.Errorf("stored body changed through a caller's slice: %q", r2.Body)
	}
}

func TestConcurrentUse(t *testing.T) {
	s := New()
	dir := t.TempDir()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 100 {
				id := fmt.Sprintf("s%d", i%10)
				src := s.Source(id)
				src.Size++
				s.PutSource(id, src)
				s.PutHost(fmt.Sprintf("h%d", w), Host{Failures: i})
				s.PutRobots("https://h", Robots{Body: []byte{byte(i)}})
				s.Robots("https://h")
				s.SourceIDs()
				s.HostNames()
				s.RobotsKeys()
				if i%25 == 0 {
					if err := s.Save(dir); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
	if got := len(s.SourceIDs()); got != 10 {
		t.Errorf("%d sources; want 10", got)
	}
}

func TestRobotsFileName(t *testing.T) {
	for key, want := range map[string]string{
		"https://www.gov.uk":      "https_www.gov.uk.txt",
		"http://127.0.0.1:8080":   "http_127.0.0.1_8080.txt",
		"http://[::1]:8080":       "http_%5B__1%5D_8080.txt",
		"https://under_score:443": "https_under%5Fscore_443.txt",
		"https://../../etc":       "https_..%2F..%2Fetc.txt",
		"no-scheme:80":            "no-scheme%3A80.txt",
	} {
		if got := RobotsFileName(key); got != want {
			t.Errorf("RobotsFileName(%q) = %q; want %q", key, got, want)
		}
	}
	// One key, one file: keys that a plain "replace by _" would merge.
	keys := []string{"https://a:80", "https://a_80", "https_a://80", "https://a%3A80", "https:a:80"}
	seen := map[string]string{}
	for _, k := range keys {
		n := RobotsFileName(k)
		if other, ok := seen[n]; ok {
			t.Errorf("keys %q and %q share %s", other, k, n)
		}
		seen[n] = k
	}
}

// TestSaveOrder stops Save at state.json (made unwritable) and checks what a
// crash there would leave: new bodies already written, unneeded ones still
// present for the old state.json that may refer to them.
func TestSaveOrder(t *testing.T) {
	dir := t.TempDir()
	s := New()
	s.PutRobots("https://a", Robots{Outcome: RobotsParsed, Body: []byte("old A")})
	s.PutRobots("https://b", Robots{Outcome: RobotsParsed, Body: []byte("B")})
	if err := s.Save(dir); err != nil {
		t.Fatal(err)
	}
	s.PutRobots("https://a", Robots{Outcome: RobotsParsed, Body: []byte("new A")})
	s.PutRobots("https://b", Robots{Outcome: RobotsMissing})

	statePath := filepath.Join(dir, "state.json")
	if err := os.Remove(statePath); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(statePath, "blocker"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := s.Save(dir)
	if err == nil || !strings.Contains(err.Error(), statePath) {
		t.Fatalf("Save with state.json unwritable = %v; want an error naming %s", err, statePath)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "robots", "https_a.txt")); string(b) != "new A" {
		t.Errorf("body of a = %q; want the new one written before state.json", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "robots", "https_b.txt")); err != nil {
		t.Errorf("body of b removed before state.json was written: %v", err)
	}
}
