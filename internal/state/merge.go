package state

import "time"

// Merge returns a new State holding the most conservative of remote
// and local (either may be nil), field by field:
//
//   - hosts: the later LastDispatch, the later LastCompletion, the later
//     BackoffUntil with the Failures of that side (the larger Failures on a
//     tie), the later PausedUntil, the larger Consecutive403. This is
//     commutative: runs merging in either order keep every backoff and pause.
//   - sources: the side with the later LastCheck, whole (a tie: local).
//   - robots copies: the side with the later FetchedAt, whole (a tie: local).
//
// The inputs are not modified.
func Merge(remote, local *State) *State {
	if remote == nil {
		remote = New()
	}
	if local == nil {
		local = New()
	}
	out := New()

	for _, name := range union(remote.HostNames(), local.HostNames()) {
		out.PutHost(name, mergeHost(remote.Host(name), local.Host(name)))
	}

	rIDs := set(remote.SourceIDs())
	lIDs := set(local.SourceIDs())
	for _, id := range union(remote.SourceIDs(), local.SourceIDs()) {
		_, inR := rIDs[id]
		_, inL := lIDs[id]
		r, l := remote.Source(id), local.Source(id)
		switch {
		case !inL:
			out.PutSource(id, r)
		case !inR || !r.LastCheck.After(l.LastCheck):
			out.PutSource(id, l)
		default:
			out.PutSource(id, r)
		}
	}

	for _, key := range union(remote.RobotsKeys(), local.RobotsKeys()) {
		r, inR := remote.Robots(key)
		l, inL := local.Robots(key)
		switch {
		case !inL:
			out.PutRobots(key, r)
		case !inR || !r.FetchedAt.After(l.FetchedAt):
			out.PutRobots(key, l)
		default:
			out.PutRobots(key, r)
		}
	}
	return out
}

func mergeHost(a, b Host) Host {
	h := Host{
		LastDispatch:   later(a.LastDispatch, b.LastDispatch),
		LastCompletion: later(a.LastCompletion, b.LastCompletion),
		PausedUntil:    later(a.PausedUntil, b.PausedUntil),
		Consecutive403: max(a.Consecutive403, b.Consecutive403),
	}
	switch {
	case a.BackoffUntil.After(b.BackoffUntil):
		h.BackoffUntil, h.Failures, h.BackoffFromRetryAfter = a.BackoffUntil, a.Failures, a.BackoffFromRetryAfter
	case b.BackoffUntil.After(a.BackoffUntil):
		h.BackoffUntil, h.Failures, h.BackoffFromRetryAfter = b.BackoffUntil, b.Failures, b.BackoffFromRetryAfter
	default:
		h.BackoffUntil, h.Failures = later(a.BackoffUntil, b.BackoffUntil), max(a.Failures, b.Failures)
		h.BackoffFromRetryAfter = a.BackoffFromRetryAfter || b.BackoffFromRetryAfter
	}
	return h
}

// later returns the later of a and b (b when they are the same instant).
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func union(a, b []string) []string {
	s := set(a)
	out := append([]string(nil), a...)
	for _, x := range b {
		if _, ok := s[x]; !ok {
			s[x] = struct{}{}
			out = append(out, x)
		}
	}
	return out
}

func set(xs []string) map[string]struct{} {
	m := make(map[string]struct{}, len(xs))
	for _, x := range xs {
		m[x] = struct{}{}
	}
	return m
}
