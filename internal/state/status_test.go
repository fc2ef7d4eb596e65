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
