package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/github/githubtest"
)

// TestIssuesOffIsErrIssuesOff: a repository with Issues turned off (410)
// or a token that cannot see them (404) is ErrIssuesOff, saying what to
// change.
func TestIssuesOffIsErrIssuesOff(t *testing.T) {
	for status, want := range map[int]string{http.StatusGone: "turn Issues on", http.StatusNotFound: "issues: write"} { // listing answers 404 either way
		f := githubtest.New(t, "octo", "coverage", "tok")
		f.IssuesOff(status)
		c, err := NewClient(Config{Owner: "octo", Repo: "coverage", APIURL: f.URL, Token: "tok"}, nil, WithClock(clock.NewFake(issueNow)))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.SyncFailureIssues(context.Background(), []FailureIssue{failingRates(4)}, opts())
		if !errors.Is(err, ErrIssuesOff) || !strings.Contains(err.Error(), want) {
			t.Errorf("HTTP %d: %v, want ErrIssuesOff saying %q", status, err, want)
		}
	}
}

// TestABadDayOpensFewIssues: 40 sources of one authority fail at once.
// One sync opens 10 issues and one summary issue listing the other 30;
// the next opens 10 more and updates the summary (an edit, no comment);
// never more than 30 single-source issues are open. Content-creating
// calls are at least a second apart on the client's clock.
func TestABadDayOpensFewIssues(t *testing.T) {
	f := githubtest.New(t, "octo", "coverage", "tok")
	clk := clock.NewFake(issueNow)
	c, err := NewClient(Config{Owner: "octo", Repo: "coverage", APIURL: f.URL, Token: "tok"}, nil, WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	var failing []FailureIssue
	for i := range 40 {
		s := failingRates(4)
		s.Source, s.Fingerprint = fmt.Sprintf("src-%02d", i), fmt.Sprintf("%016x", i)
		failing = append(failing, s)
	}
	openNow := func() (single, summary int, summaryBody string) {
		for _, is := range f.Issues() {
			if is.State != "open" {
				continue
			}
			if strings.Contains(is.Body, `source="~more"`) {
				summary++
				summaryBody = is.Body
			} else {
				single++
			}
		}
		return
	}
	start := clk.Now()
	if _, err := c.SyncFailureIssues(context.Background(), failing, opts()); err != nil {
		t.Fatal(err)
	}
	single, summary, body := openNow()
	if single != DefaultMaxNew || summary != 1 || strings.Count(body, "| `src-") != 30 {
		t.Fatalf("after one sync: %d single issues and %d summaries listing %d, want %d, 1 and 30", single, summary, strings.Count(body, "| `src-"), DefaultMaxNew)
	}
	if took := clk.Now().Sub(start); took < 10*WriteGap {
		t.Errorf("11 issues created in %s of the client's clock: want at least %s between content-creating calls", took, WriteGap)
	}
	for range 3 {
		if _, err := c.SyncFailureIssues(context.Background(), failing, opts()); err != nil {
			t.Fatal(err)
		}
	}
	single, summary, body = openNow()
	if single != DefaultMaxOpen || summary != 1 || strings.Count(body, "| `src-") != 10 {
		t.Errorf("after four syncs: %d single issues and %d summaries listing %d, want %d, 1 and 10", single, summary, strings.Count(body, "| `src-"), DefaultMaxOpen)
	}
	for _, is := range f.Issues() {
		if strings.Contains(is.Body, `source="~more"`) && len(is.Comments) != 0 {
			t.Errorf("the summary issue was commented on (%d): its updates are edits", len(is.Comments))
		}
	}
}
