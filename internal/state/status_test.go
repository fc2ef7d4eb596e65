package state

import "testing"

// TestStatusMeaning: each status is fresh, pending, a gap or a failure,
// exactly one; paused is a failure.
func TestStatusMeaning(t *testing.T) {
	gaps := map[Status]bool{BlockedRobots: true, Excluded: true}
	failures := map[Status]bool{Failing: true, Gone: true, TooLarge: true, RobotsUnavailable: true, Unreachable: true, Paused: true, Moved: true}
	for _, name := range statusNames() {
		s := Status(name)
		if s.Gap() != gaps[s] || s.Failure() != failures[s] {
			t.Errorf("%s: gap %v, failure %v; want gap %v, failure %v", s, s.Gap(), s.Failure(), gaps[s], failures[s])
		}
	}
	if len(statusNames()) != len(gaps)+len(failures)+2 {
		t.Errorf("statuses %v: want fresh, pending, the gaps and the failures", statusNames())
	}
}

// TestCloneSharesNothing: what is put into a clone, or changed in what it
// returns, is not seen in the state it was cloned from.
func TestCloneSharesNothing(t *testing.T) {
	s := New()
	s.PutSource("a", Source{Status: Fresh, TextChecks: []TextCheck{{Raw: "r1"}}, Noisy: &Noisy{Since: "2026-11-01", Drop: []string{"#x"}}})
	s.PutHost("h", Host{Failures: 1})
	s.PutRobots("https://h", Robots{URL: "https://h/robots.txt", Body: []byte("User-agent: *\n")})
	c := s.Clone()
	src := c.Source("a")
	src.TextChecks[0].Raw = "changed"
	src.Noisy.Drop[0] = "changed"
	src.Status = Failing
	c.PutSource("a", src)
	c.PutSource("b", Source{Status: Fresh})
	c.PutHost("h", Host{Failures: 2})
	c.PutRobots("https://h", Robots{URL: "https://h/robots.txt", Body: []byte("changed")})
	got := s.Source("a")
	if got.Status != Fresh || got.TextChecks[0].Raw != "r1" || got.Noisy.Drop[0] != "#x" {
		t.Errorf("the original's source changed with its clone: %+v", got)
	}
	if s.Source("b").Status != Pending || s.Host("h").Failures != 1 {
		t.Error("the original sees what was put into its clone")
	}
	if r, _ := s.Robots("https://h"); string(r.Body) != "User-agent: *\n" {
		t.Errorf("the original's robots.txt copy changed: %q", r.Body)
	}
	if c.Source("a").Status != Failing || c.Host("h").Failures != 2 {
		t.Error("the clone lost what was put into it")
	}
}
