package robotsdecision

import (
	"fmt"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/fetch"
	"github.com/taxkernel/taxkernelbot/internal/robots"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

// Fetched classifies a robots.txt fetch made at fetchedAt for the scope whose
// robots.txt is url: status is the final answer's (after redirects), body
// its bytes, err the failure if there was no whole answer (network,
// timeout, too many redirects). The result is the copy a run keeps:
//
//	2xx with a body → parsed; an empty 2xx or a 4xx except 429 → missing
//	(everything allowed); the host not reached at all → unreachable; 429,
//	5xx, other statuses and other errors → unavailable (complete disallow).
func Fetched(url string, fetchedAt time.Time, status int, body []byte, err error) state.Robots {
	kept := state.Robots{URL: url, FetchedAt: fetchedAt, HTTPStatus: status}
	switch {
	case err != nil && status == 0:
		if why, ok := fetch.Unreachable(err); ok {
			kept.Outcome, kept.Detail = state.RobotsUnreached, why
			return kept
		}
		kept.Outcome, kept.Detail = state.RobotsUnreadable, fetch.Describe(err)
	case err != nil:
		kept.Outcome, kept.Detail = state.RobotsUnreadable, fmt.Sprintf("HTTP %d, then %v", status, err)
	case status/100 == 2 && len(body) == 0:
		// An empty robots.txt allows everything, as a missing one does;
		// kept as such so that it is not mistaken for a lost copy.
		kept.Outcome, kept.Detail = state.RobotsMissing, "empty robots.txt"
	case status/100 == 2:
		kept.Outcome, kept.Body = state.RobotsParsed, body
	case status/100 == 4 && status != 429:
		kept.Outcome = state.RobotsMissing
	default:
		kept.Outcome, kept.Detail = state.RobotsUnreadable, fmt.Sprintf("HTTP %d", status)
	}
	return kept
}

// Decision is what a kept copy means now; its rules are Rules(kept),
// parsed only by a caller that needs them.
type Decision struct {
	// Current says a run may decide from the copy without fetching
	// robots.txt again; when it is false, Stale says why.
	Current bool
	Stale   string
}

// Kept decides from the copy kept for a scope (ok false: there is none) at
// now, under robots_ttl ttl. A copy is current while younger than ttl and
// whole; an unavailable or unreachable one never is (the next run asks
// again, its backoff permitting).
func Kept(kept state.Robots, ok bool, now time.Time, ttl time.Duration) Decision {
	var d Decision
	switch {
	case !ok:
		d.Stale = "no copy is kept"
	case kept.Outcome == state.RobotsUnreadable || kept.Outcome == state.RobotsUnreached:
		d.Stale = fmt.Sprintf("the last fetch failed (%s)", kept.Outcome)
	case kept.Outcome != state.RobotsParsed && kept.Outcome != state.RobotsMissing:
		d.Stale = fmt.Sprintf("the copy's outcome %q is not one this version reads", kept.Outcome)
	case kept.Outcome == state.RobotsParsed && kept.Body == nil:
		// Reading it as an empty robots.txt would allow everything.
		d.Stale = "the copy's body is missing"
	case !now.Before(kept.FetchedAt.Add(ttl)):
		d.Stale = fmt.Sprintf("the copy is older than robots_ttl (%s)", ttl)
	default:
		d.Current = true
	}
	return d
}

// Rules are the rules a kept copy stands for, whatever its age
// (DisallowAll for an unavailable or unreachable host and for a parsed copy
// without its body).
func Rules(kept state.Robots) *robots.Rules {
	switch kept.Outcome {
	case state.RobotsParsed:
		if kept.Body == nil {
			return robots.DisallowAll()
		}
		return robots.Parse(kept.Body)
	case state.RobotsMissing:
		return robots.AllowAll()
	}
	return robots.DisallowAll()
}
