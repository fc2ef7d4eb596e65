package cycle

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestIssuesOffIsOneWarning: in a repository whose Issues are turned off,
// a cycle with a source failing for days publishes its pull request and
// ends as its run did, with one warning saying what to change; later
// cycles that day do not ask again.
func TestIssuesOffIsOneWarning(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "t-a", "t-b")
	r.docs["t-b"] = "" // gone from the first day
	r.gh.IssuesOff(http.StatusGone)
	r.cycle()
	r.now = r.now.Add(3 * 24 * time.Hour)
	_, log := r.cycle() // failing for days now: an issue would be opened
	if !strings.Contains(log, "turn Issues on") {
		t.Errorf("no warning saying what to change:\n%s", log)
	}
	calls := len(r.gh.Calls())
	r.now = r.now.Add(-23 * time.Hour) // later the same day
	_, log = r.cycle()
	for _, call := range r.gh.Calls()[calls:] {
		if strings.HasPrefix(call, "GET /repos/acme/tax/issues") {
			t.Errorf("asked for the issues again the same day: %s\n%s", call, log)
		}
	}
}
