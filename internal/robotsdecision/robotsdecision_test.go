package robotsdecision

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/state"
)

var (
	t0   = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	body = []byte("User-agent: *\nDisallow: /x\n")
	x    = &url.URL{Scheme: "https", Host: "tax.example", Path: "/x"}
	y    = &url.URL{Scheme: "https", Host: "tax.example", Path: "/y"}
)

// behaviour names what rules do with /x (disallowed by body) and /y.
func behaviour(kept state.Robots) string {
	r := Rules(kept)
	switch ax, ay := r.Allowed("TaxKernelBot", x), r.Allowed("TaxKernelBot", y); {
	case ax && ay:
		return "allow-all"
	case !ax && !ay:
		return "disallow-all"
	case !ax && ay:
		return "parsed"
	}
	return "inconsistent"
}

func TestFetched(t *testing.T) {
	netErr := errors.New("read: broken pipe")
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	tests := []struct {
		status  int
		body    []byte
		err     error
		outcome state.RobotsOutcome
		rules   string
	}{
		{200, body, nil, state.RobotsParsed, "parsed"},
		{203, body, nil, state.RobotsParsed, "parsed"},
		{299, body, nil, state.RobotsParsed, "parsed"},
		{200, nil, nil, state.RobotsMissing, "allow-all"}, // empty robots.txt
		{204, nil, nil, state.RobotsMissing, "allow-all"},
		{400, nil, nil, state.RobotsMissing, "allow-all"},
		{401, nil, nil, state.RobotsMissing, "allow-all"},
		{403, nil, nil, state.RobotsMissing, "allow-all"},
		{404, nil, nil, state.RobotsMissing, "allow-all"},
		{410, nil, nil, state.RobotsMissing, "allow-all"},
		{451, nil, nil, state.RobotsMissing, "allow-all"},
		{499, nil, nil, state.RobotsMissing, "allow-all"},
		{429, nil, nil, state.RobotsUnreadable, "disallow-all"},
		{500, nil, nil, state.RobotsUnreadable, "disallow-all"},
		{503, nil, nil, state.RobotsUnreadable, "disallow-all"},
		{599, nil, nil, state.RobotsUnreadable, "disallow-all"},
		{101, nil, nil, state.RobotsUnreadable, "disallow-all"},
		{301, nil, nil, state.RobotsUnreadable, "disallow-all"}, // a redirect not resolved
		{304, nil, nil, state.RobotsUnreadable, "disallow-all"},
		{600, nil, nil, state.RobotsUnreadable, "disallow-all"},
		{200, body, netErr, state.RobotsUnreadable, "disallow-all"}, // broke off mid-answer
		{302, nil, errors.New("more than 5 redirects"), state.RobotsUnreadable, "disallow-all"},
		{0, nil, netErr, state.RobotsUnreadable, "disallow-all"},
		{0, nil, refused, state.RobotsUnreached, "disallow-all"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%d/%v", tc.status, tc.err), func(t *testing.T) {
			kept := Fetched("https://tax.example/robots.txt", t0, tc.status, tc.body, tc.err)
			if kept.Outcome != tc.outcome || behaviour(kept) != tc.rules || kept.HTTPStatus != tc.status || !kept.FetchedAt.Equal(t0) {
				t.Errorf("Fetched = %+v behaving as %s; want outcome %s behaving as %s", kept, behaviour(kept), tc.outcome, tc.rules)
			}
			if tc.outcome == state.RobotsUnreadable && kept.Detail == "" {
				t.Errorf("no detail says why robots.txt is unavailable")
			}
		})
	}
}

func TestKept(t *testing.T) {
	const ttl = 24 * time.Hour
	parsed := state.Robots{FetchedAt: t0, HTTPStatus: 200, Outcome: state.RobotsParsed, Body: body}
	noBody := parsed
	noBody.Body = nil
	tests := []struct {
		name    string
		kept    state.Robots
		ok      bool
		now     time.Time
		current bool
		rules   string
	}{
		{"fresh copy", parsed, true, t0.Add(ttl - time.Second), true, "parsed"},
		{"at robots_ttl: fetched again", parsed, true, t0.Add(ttl), false, "parsed"},
		{"body missing: never allow-all", noBody, true, t0, false, "disallow-all"},
		{"missing robots.txt", state.Robots{FetchedAt: t0, HTTPStatus: 404, Outcome: state.RobotsMissing}, true, t0, true, "allow-all"},
		{"unavailable: asked again", state.Robots{FetchedAt: t0, HTTPStatus: 503, Outcome: state.RobotsUnreadable}, true, t0, false, "disallow-all"},
		{"unreachable: asked again", state.Robots{FetchedAt: t0, Outcome: state.RobotsUnreached}, true, t0, false, "disallow-all"},
		{"no copy", state.Robots{}, false, t0, false, "disallow-all"},
		{"unknown outcome: fetched again, closed until then", state.Robots{FetchedAt: t0, Outcome: "odd"}, true, t0, false, "disallow-all"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Kept(tc.kept, tc.ok, tc.now, ttl)
			if d.Current != tc.current || behaviour(tc.kept) != tc.rules {
				t.Errorf("Kept = current %v (%s), rules %s; want current %v, rules %s", d.Current, d.Stale, behaviour(tc.kept), tc.current, tc.rules)
			}
			if !d.Current && d.Stale == "" {
				t.Error("not current, and no reason given")
			}
		})
	}
}
