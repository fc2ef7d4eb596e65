package github

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
)

var allQuery = url.Values{"state": {"all"}, "head": {"octo:" + head}}

func retryingClient(t *testing.T, f *fakeAPI, clk *clock.Fake) *Client {
	t.Helper()
	c, err := NewClient(Config{Owner: "octo", Repo: "coverage", Token: testToken, ServerURL: f.srv.URL, APIURL: f.srv.URL},
		f.srv.Client(), WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestServerErrorIsRetriedWithBackoff(t *testing.T) {
	f := newFake(t)
	f.on("GET", "/repos/octo/coverage/pulls", allQuery, 502, map[string]any{"message": "Server Error"})
	f.on("GET", "/repos/octo/coverage/pulls", allQuery, 503, map[string]any{"message": "Unavailable"})
	f.on("GET", "/repos/octo/coverage/pulls", allQuery, 200, []any{pull(f.srv.URL, 7, head, "main", "t", "b")})
	clk := clock.NewFake(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	pr, err := retryingClient(t, f, clk).LatestPR(context.Background(), head)
	if err != nil || pr == nil || pr.Number != 7 || !pr.Open {
		t.Fatalf("LatestPR after two server errors: %+v, %v", pr, err)
	}
	if got := clk.Sleeps(); len(got) != 2 || got[0] != time.Second || got[1] != 2*time.Second {
		t.Errorf("waits %v, want [1s 2s]", got)
	}
}

func TestServerErrorGivesUpAfterBoundedAttempts(t *testing.T) {
	f := newFake(t)
	for range DefaultAttempts {
		f.on("GET", "/repos/octo/coverage/pulls", allQuery, 502, map[string]any{"message": "Server Error"})
	}
	clk := clock.NewFake(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	_, err := retryingClient(t, f, clk).LatestPR(context.Background(), head)
	if err == nil || !strings.Contains(err.Error(), "502") || !strings.Contains(err.Error(), "next scheduled run") {
		t.Fatalf("error %v, want the 502 and what happens next", err)
	}
	if n := len(f.requests()); n != DefaultAttempts {
		t.Errorf("%d requests, want %d", n, DefaultAttempts)
	}
}

func TestSecondaryLimitHonoursRetryAfter(t *testing.T) {
	f := newFake(t)
	f.onHeader("POST", "/repos/octo/coverage/issues/3/comments", nil, 403, http.Header{"Retry-After": {"42"}},
		map[string]any{"message": "You have exceeded a secondary rate limit.", "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"})
	f.onHeader("POST", "/repos/octo/coverage/issues/3/comments", nil, 429, nil,
		map[string]any{"message": "You have exceeded a secondary rate limit."})
	f.on("POST", "/repos/octo/coverage/issues/3/comments", nil, 201, objects(f.srv.URL).Comment(3, 1, "hello"))
	clk := clock.NewFake(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	if err := retryingClient(t, f, clk).Comment(context.Background(), 3, "hello"); err != nil {
		t.Fatal(err)
	}
	if got := clk.Sleeps(); len(got) != 2 || got[0] != 42*time.Second || got[1] != 2*time.Second {
		t.Errorf("waits %v, want [42s 2s]", got)
	}
	for _, r := range f.requests() {
		if b, _ := r.Body.(map[string]any); b["body"] != "hello" {
			t.Errorf("a retried POST lost its body: %v", r.Body)
		}
	}
}

func TestPrimaryLimitSaysWhenItResets(t *testing.T) {
	reset := time.Date(2026, 11, 30, 13, 5, 0, 0, time.UTC)
	for _, code := range []int{403, 429} {
		f := newFake(t)
		f.onHeader("GET", "/repos/octo/coverage/pulls", allQuery, code, http.Header{
			"X-Ratelimit-Limit": {"5000"}, "X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"1796043900"},
		}, map[string]any{"message": "API rate limit exceeded"})
		clk := clock.NewFake(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
		_, err := retryingClient(t, f, clk).LatestPR(context.Background(), head)
		if err == nil || !strings.Contains(err.Error(), reset.Format(time.RFC3339)) {
			t.Errorf("%d: error %v does not say the limit resets at %s", code, err, reset.Format(time.RFC3339))
		}
		if len(clk.Sleeps()) != 0 || len(f.requests()) != 1 {
			t.Errorf("%d: a primary limit was retried (%d requests, waits %v)", code, len(f.requests()), clk.Sleeps())
		}
	}
}

func TestRejectedTokenNamesTheSecret(t *testing.T) {
	f := newFake(t)
	f.on("GET", "/repos/octo/coverage/pulls", allQuery, 401, map[string]any{"message": "Bad credentials"})
	_, err := retryingClient(t, f, clock.NewFake(time.Now())).LatestPR(context.Background(), head)
	if err == nil || !strings.Contains(err.Error(), "TAXKERNELBOT_TOKEN") || !strings.Contains(err.Error(), "GITHUB_TOKEN") {
		t.Fatalf("error %v does not name the secret to fix", err)
	}
}

func TestLatestPRSeesMergedAndClosed(t *testing.T) {
	f := newFake(t)
	closed := pull(f.srv.URL, 4, head, "main", "t", "b")
	closed["state"] = "closed"
	merged := pull(f.srv.URL, 5, head, "main", "t", "b")
	merged["state"], merged["merged_at"] = "closed", "2026-11-29T10:00:00Z"
	merged["head"].(map[string]any)["sha"] = "abc"
	merged["labels"] = objects(f.srv.URL).Labels([]string{"taxkernelbot:rebase"})
	f.on("GET", "/repos/octo/coverage/pulls", allQuery, 200, []any{closed, merged})
	pr, err := retryingClient(t, f, clock.NewFake(time.Now())).LatestPR(context.Background(), head)
	if err != nil || pr.Number != 5 || pr.Open || !pr.Merged || pr.HeadSHA != "abc" || !pr.HasLabel("taxkernelbot:rebase") {
		t.Fatalf("LatestPR = %+v, %v", pr, err)
	}
}
