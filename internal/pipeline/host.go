package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/answer"
	"github.com/taxkernel/taxkernelbot/internal/audit"
	"github.com/taxkernel/taxkernelbot/internal/fetch"
	"github.com/taxkernel/taxkernelbot/internal/gate"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/policy"
	"github.com/taxkernel/taxkernelbot/internal/robots"
	"github.com/taxkernel/taxkernelbot/internal/robotsdecision"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
	"github.com/taxkernel/taxkernelbot/internal/usage"
)

// errUnreachable ends a host's turn when a document request could not reach
// it at all; the source that found out is already recorded.
var errUnreachable = errors.New("host could not be reached")

// hostStop is a gate refusal, or an unreachable host, that ends a host's
// turn in this run.
type hostStop struct {
	host string
	err  error
}

func (h *hostStop) Error() string { return h.host + ": " + h.err.Error() }
func (h *hostStop) Unwrap() error { return h.err }

// hostEnd is how a host's turn ended when a refusal cut it short: why the
// sources not tried wait (reason), and the line the run's log says it in.
// Both are empty when the turn ran to its end or was cut by the run's end
// or an interruption; a pause has no reason, as its sources say it.
type hostEnd struct {
	reason, message string
}

// runHost requests host's due sources one after the other. A gate refusal
// (cap, backoff past the deadline, off-peak, pause) ends the host's turn:
// the remaining sources are deferred (or shown paused), never failed.
func (r *run) runHost(ctx context.Context, hp hostPlan) hostEnd {
	defer r.showPause(hp)
	for i, src := range hp.sources {
		if ctx.Err() != nil || r.pastDeadline() {
			r.count(func(res *Result) { res.Deferred += len(hp.sources) - i })
			return hostEnd{}
		}
		err := r.fetchSource(ctx, src)
		if r.o.SourceDone != nil {
			r.o.SourceDone(src.ID)
		}
		var stop *hostStop
		if err == nil || !errors.As(err, &stop) {
			continue
		}
		rest := len(hp.sources) - i
		switch {
		case errors.Is(stop.err, gate.ErrPaused):
			return hostEnd{message: fmt.Sprintf("paused after repeated 403s until the next UTC day; %d source(s) paused", rest)}
		case ctx.Err() != nil:
			r.count(func(res *Result) { res.Deferred += rest })
			return hostEnd{}
		case errors.Is(stop.err, errUnreachable):
			r.count(func(res *Result) { res.Deferred += rest - 1 })
			return hostEnd{reason: "the host could not be reached", message: fmt.Sprintf("%d other source(s) deferred to a later run: the host could not be reached", rest-1)}
		default:
			r.count(func(res *Result) { res.Deferred += rest })
			why := r.why(hp.host, stop.err)
			return hostEnd{reason: why, message: fmt.Sprintf("%s; %d source(s) deferred to a later run", why, rest)}
		}
	}
	return hostEnd{}
}

// why says, for a person, why a host's turn ended: what holds it back
// and until when, in the host's local time as well as UTC.
func (r *run) why(host string, err error) string {
	h := r.o.Set.Host(host)
	at := func(t time.Time) string {
		loc := h.Location
		if loc == nil || loc == time.UTC {
			return t.UTC().Format("2006-01-02 15:04 UTC")
		}
		return t.In(loc).Format("2006-01-02 15:04 MST") + " (" + t.UTC().Format("15:04 UTC") + ")"
	}
	var deferred *gate.DeferredError
	switch {
	case errors.Is(err, gate.ErrOffPeak):
		if next, ok := h.NextOffPeak(r.o.Clock.Now()); ok {
			return "outside its off-peak windows until " + at(next)
		}
		return "outside its off-peak windows"
	case errors.Is(err, gate.ErrCapReached):
		return fmt.Sprintf("daily cap of %d reached until the next UTC day", h.DailyCap)
	case errors.As(err, &deferred):
		return fmt.Sprintf("%s until %s, past this run's end", deferred.Why(), at(deferred.Until))
	}
	return err.Error()
}

// showPause makes every source of a paused host say so: the ones that got a
// 403 on the way to the pause and the ones it stopped. Sources
// that got another answer earlier in the run keep it.
func (r *run) showPause(hp hostPlan) {
	if !r.gate(hp.host).State().PausedUntil.After(r.o.Clock.Now()) {
		return
	}
	for _, src := range hp.sources {
		s := r.o.State.Source(src.ID)
		if s.Status != state.BlockedRobots && (s.LastCheck.Before(r.start) || s.HTTPStatus == 403) {
			r.setPaused(src.ID)
		}
	}
}

// pastDeadline: the gate defers waits past the deadline, but a request
// owing no wait would still go; the run's time is up for it too.
func (r *run) pastDeadline() bool {
	return !r.o.Deadline.IsZero() && r.o.Clock.Now().After(r.o.Deadline)
}

func (r *run) setPaused(id string) {
	s := r.o.State.Source(id)
	s.SetStatus(state.Paused, r.o.Clock.Now())
	s.Detail = fmt.Sprintf("host paused for the rest of the UTC day after %d consecutive 403 responses", r.o.Set.Policy.PauseAfter403)
	r.o.State.PutSource(id, s)
}

// fetchSource checks one source, following the redirects the rules allow.
// It returns a *hostStop when the source's own host may not be sent to now.
func (r *run) fetchSource(ctx context.Context, src manifest.Source) error {
	prior := r.o.State.Source(src.ID)
	req := fetch.Request{URL: src.URL}
	if prior.SHA256 != "" && r.o.Store.Has(prior.SHA256) {
		// Validators stand for bytes; without the bytes a 304 would leave
		// us with nothing, so a plain GET recovers them instead.
		req.ETag, req.LastModified = prior.ETag, prior.LastModified
	}
	u := src.Parsed
	purpose := ledger.PurposeDocument
	var overridden string
	for hop := 0; ; hop++ {
		host := manifest.HostOf(u)
		if ex, ok := r.o.Set.Policy.Excluded(u); ok {
			r.finish(src, state.Excluded, prior, func(s *state.Source) {
				s.Detail = fmt.Sprintf("excluded at the owner's request (%s): %s", u, ex.Reason)
			})
			return nil
		}
		dec, err := r.robotsDecision(ctx, u)
		if err != nil {
			return r.refused(src, host, err)
		}
		switch {
		case dec.unreachable:
			r.finish(src, state.Unreachable, prior, func(s *state.Source) {
				s.Detail = fmt.Sprintf("host %s could not be reached: %s", host, dec.detail)
			})
			r.count(func(res *Result) { res.Failed++ })
			return nil
		case dec.unavailable:
			r.finish(src, state.RobotsUnavailable, prior, func(s *state.Source) {
				s.Detail = fmt.Sprintf("robots.txt of %s unreadable (%s): host not fetched this run", host, dec.detail)
			})
			r.count(func(res *Result) { res.Failed++ })
			return nil
		case !dec.rules.Allowed(r.token, u):
			h := r.o.Set.Host(host)
			if h.Override == nil {
				r.finish(src, state.BlockedRobots, prior, func(s *state.Source) {
					s.Detail = "robots.txt disallows " + u.String()
				})
				return nil
			}
			overridden = fmt.Sprintf("fetched despite robots.txt Disallow under robots_override: %q", h.Override.Permission)
		}

		req.URL = u.String()
		sink := &storeSink{s: r.o.Store, clock: r.o.Clock}
		var resp *fetch.Response
		var ferr error
		gr := gate.Request{URL: req.URL, Purpose: purpose, Source: src.ID}
		var verdict answer.Verdict
		resp, ferr, err = r.send(ctx, host, gr, func() (*fetch.Response, error) {
			resp, err := r.o.HTTP.Get(ctx, req, sink)
			if err == nil && resp != nil {
				verdict = r.judge(src, prior, u, resp, sink.head)
			}
			return resp, err
		}, func(_ *fetch.Response, out *gate.Outcome, line *ledger.Line) {
			switch {
			case verdict.Refusal():
				out.Refused = true
			case verdict.Kind == answer.Maintenance && out.Status/100 == 2:
				// Down, whatever the status says: backed off as a 503,
				// honouring the page's Retry-After.
				out.Status = http.StatusServiceUnavailable
			}
			if !verdict.IsDocument() {
				line.NotDocument = verdict.Words
			}
		}, func() time.Time { return sink.ended })
		if err != nil {
			return r.refused(src, host, err)
		}
		if storeFailed(ctx, resp, ferr, sink) {
			err := fmt.Errorf("%w: snapshot store unwritable: %w", ErrFatal, ferr)
			r.cancel(err)
			return err
		}
		var prefs *usage.Prefs
		if resp != nil {
			prefs = usage.Combine(preferences(dec.rules, r.token, u, resp.Header))
		}
		next, done := r.outcome(ctx, src, prior, u, hop, resp, ferr, verdict, overridden, prefs)
		r.keepSent(src, resp)
		if why, ok := fetch.Unreachable(ferr); ok && resp == nil && ctx.Err() == nil && host == src.Host {
			// The host cannot be reached: its other sources are not tried
			// one by one to learn the same thing.
			return &hostStop{host: host, err: fmt.Errorf("%w: %s", errUnreachable, why)}
		}
		if done {
			return nil
		}
		u, purpose = next, ledger.PurposeRedirect
	}
}

// refused turns a gate's refusal into the source's fate. A refusal by the
// source's own host ends the host's turn; one by a redirect target's host
// defers only this source.
func (r *run) refused(src manifest.Source, host string, err error) error {
	if errors.Is(err, ErrFatal) {
		return err
	}
	if host != src.Host {
		r.log(src.Host, "%s: redirect target host %s refused now (%v); deferred", src.ID, host, err)
		r.count(func(res *Result) { res.Deferred++ })
		return nil
	}
	if errors.Is(err, gate.ErrPaused) {
		r.setPaused(src.ID)
	}
	return &hostStop{host: host, err: err}
}

// storeFailed tells a failure of the store (disk full, unwritable) apart
// from a failure of the body it was reading (network, size limit, timeout,
// a Content-Encoding that cannot be undone, found before the store is
// given a byte), because only the first must stop the run.
func storeFailed(ctx context.Context, resp *fetch.Response, ferr error, sink *storeSink) bool {
	return ferr != nil && sink.readErr == nil && resp != nil && resp.Status/100 == 2 &&
		!errors.Is(ferr, fetch.ErrTooLarge) && !errors.Is(ferr, fetch.ErrUndecodable) && !fetch.IsTimeout(ferr) &&
		!errors.Is(ferr, context.Canceled) && ctx.Err() == nil
}

// outcome records what one response means for src. It returns the next URL
// when a redirect is to be followed.
func (r *run) outcome(ctx context.Context, src manifest.Source, prior state.Source, u *url.URL, hop int, resp *fetch.Response, ferr error, verdict answer.Verdict, overridden string, prefs *usage.Prefs) (*url.URL, bool) {
	host := manifest.HostOf(u)
	now := r.o.Clock.Now()
	checked := func(s *state.Source) {
		// The run's start, not this moment: a recheck of 24h then falls
		// due in the same hourly run each day, however long runs take.
		s.LastCheck = r.start
		if resp != nil {
			s.HTTPStatus = resp.Status
		} else {
			s.HTTPStatus = 0
		}
		s.Detail = overridden
		if s.Status == state.Fresh {
			s.FailedChecks = 0
		} else {
			s.FailedChecks++
		}
	}
	fail := func(st state.Status, detail string) {
		r.finish(src, st, prior, func(s *state.Source) {
			checked(s)
			s.Detail = joinDetail(detail, overridden)
		})
		r.count(func(res *Result) { res.Checked++; res.Failed++ })
		r.log(src.Host, "%s %s → %s", src.ID, u, detail)
	}
	switch {
	case ferr != nil && errors.Is(ferr, fetch.ErrTooLarge):
		fail(state.TooLarge, fmt.Sprintf("body larger than max_body (%d bytes): abandoned", r.o.Set.Policy.MaxBody))
		return nil, true
	case ferr != nil && ctx.Err() != nil:
		r.count(func(res *Result) { res.Deferred++ })
		return nil, true
	case ferr != nil:
		if why, ok := fetch.Unreachable(ferr); ok && resp == nil {
			fail(state.Unreachable, fmt.Sprintf("host %s could not be reached: %s", host, why))
			return nil, true
		}
		fail(state.Failing, fetch.Describe(ferr))
		return nil, true
	}
	switch code := resp.Status; {
	case code == 304:
		if prior.SHA256 == "" || !r.o.Store.Has(prior.SHA256) {
			fail(state.Failing, "304 Not Modified to a request without validators")
			return nil, true
		}
		r.finish(src, state.Fresh, prior, func(s *state.Source) {
			checked(s)
			// http_status stays that of the answer that gave the held
			// bytes: a 304 confirms them, and must not make the report
			// differ from a day when nothing changed (the ledger has it).
			s.HTTPStatus = prior.HTTPStatus
			s.LastGood = now
			s.FinalURL = u.String()
			keepValidators(s, resp)
			view, ok := lastView(*s, string(prior.SHA256))
			if !ok {
				view = r.deriveText(ctx, src, string(prior.SHA256), prior.ContentType, nil, "")
			}
			r.noteBlink(ctx, src, s, state.TextCheck{Raw: string(prior.SHA256), View: view}, now)
		})
		r.count(func(res *Result) { res.Checked++ })
		r.log(src.Host, "%s %s → 304 unchanged", src.ID, u)
		return nil, true
	case code/100 == 2 && code != 200:
		fail(state.Failing, fmt.Sprintf("HTTP %d %s to a plain GET: only a 200 carries the whole document, nothing stored", code, http.StatusText(code)))
		return nil, true
	case code == 200 && !verdict.IsDocument():
		r.notDocument(src, prior, u, resp, verdict, checked, overridden, prefs)
		return nil, true
	case code == 200:
		held := prior.SHA256 != "" && r.o.Store.Has(prior.SHA256)
		var extracted *textview.Result // the new bytes' text, when the comparison extracted it
		var extractedView string       // and the hash of its default view, which it read
		if held && string(prior.SHA256) != resp.SHA256 {
			c, ok := r.compareText(ctx, src, prior, resp)
			if ok && !c.Changed {
				r.sameText(ctx, src, prior, u, resp, c, checked)
				return nil, true
			}
			if res, done := c.NewExtracted(); ok && done {
				extracted, extractedView = &res, c.DefaultView
			}
		}
		r.o.Index.Add(src.ID, store.Entry{
			SHA256: store.Sum(resp.SHA256), Size: resp.Size, ContentType: resp.ContentType,
			FinalURL: u.String(), FirstSeen: now.UTC().Format(time.DateOnly), SWHID: r.swhid(src.ID, resp.SHA256),
			Status: code, Fetched: now.UTC().Format(time.RFC3339), Header: store.KeepHeaders(resp.Header),
			Sent: sentEntry(resp), Usage: prefs,
		}, prior.SHA256)
		r.finish(src, state.Fresh, prior, func(s *state.Source) {
			checked(s)
			s.LastGood = now
			s.SHA256, s.Size, s.ContentType, s.FinalURL = store.Sum(resp.SHA256), resp.Size, resp.ContentType, u.String()
			s.ETag, s.LastModified = resp.ETag, resp.LastModified
			if prior.SHA256 == "" && s.Audit == nil {
				s.Audit = r.audit(src, u, resp, now)
			}
			// Whenever a blob is indexed (or found held), its text is kept
			// beside it.
			view := r.deriveText(ctx, src, resp.SHA256, resp.ContentType, extracted, extractedView)
			r.noteBlink(ctx, src, s, state.TextCheck{Raw: resp.SHA256, View: view}, now)
		})
		r.count(func(res *Result) { res.Checked++ })
		what := "changed"
		switch {
		case prior.SHA256 == "":
			what = "new"
		case prior.SHA256 == store.Sum(resp.SHA256):
			what = "unchanged"
		}
		r.log(src.Host, "%s %s → %d %s sha256 %.12s (%d bytes)", src.ID, u, code, what, resp.SHA256, resp.Size)
		if a := r.o.State.Source(src.ID).Audit; what == "new" && a != nil {
			for _, m := range a.Mismatches {
				r.log(src.Host, "%s first fetch: %s", src.ID, m)
			}
		}
		return nil, true
	case code == 404 || code == 410:
		r.finish(src, state.Gone, prior, func(s *state.Source) {
			checked(s)
			s.Detail = joinDetail(fmt.Sprintf("%d: the document is gone; fix or remove the manifest entry", code), overridden)
		})
		r.count(func(res *Result) { res.Checked++ })
		r.log(src.Host, "%s %s → %d gone", src.ID, u, code)
		return nil, true
	case code/100 == 3 && resp.Location != "":
		if to, err := url.Parse(resp.Location); err == nil {
			// Not followed: the home or sign-in page it lands on is no
			// document, and no address to point the manifest at.
			if v := answer.Redirect(u, to); !v.IsDocument() {
				fail(state.Failing, fmt.Sprintf("%s (HTTP %d to %s)", v.Words, code, resp.Location))
				return nil, true
			}
		}
		next, moved := r.redirect(u, resp.Location, hop)
		if moved != "" {
			r.finish(src, state.Moved, prior, func(s *state.Source) {
				checked(s)
				s.FinalURL = resp.Location
				s.Detail = moved
			})
			r.count(func(res *Result) { res.Checked++ })
			r.log(src.Host, "%s %s → %d %s", src.ID, u, code, moved)
			return nil, true
		}
		if next == nil {
			fail(state.Failing, fmt.Sprintf("more than %d redirects", policy.MaxRedirects))
			return nil, true
		}
		r.log(host, "%s %s → %d redirect to %s", src.ID, u, code, next)
		return next, false
	default:
		detail := fmt.Sprintf("HTTP %d", code)
		if !verdict.IsDocument() {
			detail = fmt.Sprintf("%s (HTTP %d)", verdict.Words, code)
		}
		if resp.RetryAfter != "" {
			detail += " (Retry-After: " + resp.RetryAfter + ")"
		}
		fail(state.Failing, detail)
		return nil, true
	}
}

// notDocument records a 200 that stood in for the document: its bytes are
// indexed as evidence (never cited), the source keeps citing what it held,
// and its status names the cause. A page that points elsewhere is a move,
// to the address it names; anything else is a failed check.
func (r *run) notDocument(src manifest.Source, prior state.Source, u *url.URL, resp *fetch.Response, v answer.Verdict, checked func(*state.Source), overridden string, prefs *usage.Prefs) {
	now := r.o.Clock.Now()
	// One piece of evidence per spell: a challenge page carries a new ray
	// id at every check, and a host that blocks us for a month would
	// otherwise add a blob a day. The ledger keeps each answer's hash.
	kept := "kept as evidence"
	if strings.HasPrefix(prior.Detail, v.Words) {
		kept = "not kept (the same answer as the last check's)"
		r.mu.Lock()
		r.unkept = append(r.unkept, resp.SHA256)
		r.mu.Unlock()
	} else {
		r.o.Index.Add(src.ID, store.Entry{
			SHA256: store.Sum(resp.SHA256), Size: resp.Size, ContentType: resp.ContentType,
			FinalURL: u.String(), FirstSeen: now.UTC().Format(time.DateOnly), SWHID: r.swhid(src.ID, resp.SHA256),
			Status: resp.Status, Fetched: now.UTC().Format(time.RFC3339), Header: store.KeepHeaders(resp.Header),
			Sent: sentEntry(resp), NotDocument: v.Words, Usage: prefs,
		}, prior.SHA256)
	}
	status := state.Failing
	if v.Kind == answer.Elsewhere {
		status = state.Moved
	}
	r.finish(src, status, prior, func(s *state.Source) {
		checked(s)
		s.Detail = joinDetail(v.Words, overridden)
		if status == state.Moved {
			s.FinalURL = v.Target
		}
	})
	r.count(func(res *Result) {
		res.Checked++
		if status == state.Failing {
			res.Failed++
		}
	})
	r.log(src.Host, "%s %s → 200 not the document: %s; sha256 %.12s %s, %s", src.ID, u, v.Words, resp.SHA256, kept, citing(prior))
}

// preferences are the statements of preference in force for a response to
// agent at u: the rules of the robots.txt copy the fetch was decided by
// (draft-ietf-aipref-attach: "the copy of robots.txt current at the time
// of the fetch"; none for a URL fetched despite a Disallow), then the
// response's own Content-Usage and Content-Signal headers, a repeated
// header read as one list as RFC 9651 reads it.
func preferences(rules *robots.Rules, agent string, u *url.URL, h http.Header) []usage.Statement {
	stmts := rules.Preferences(agent, u)
	for _, field := range []string{usage.ContentUsage, usage.ContentSignal} {
		if vals := h.Values(field); len(vals) > 0 {
			stmts = append(stmts, usage.Statement{Field: field, From: "header", Value: strings.Join(vals, ", ")})
		}
	}
	return stmts
}

// citing says what a source still cites, for a log line.
func citing(prior state.Source) string {
	if prior.SHA256 == "" {
		return "nothing cited yet"
	}
	return fmt.Sprintf("%.12s remains the citation", prior.SHA256)
}

// judge says whether resp, an answer to a request for src at u, is the
// document. Redirects are judged where they lead, and a 304 confirms
// bytes already judged. Bytes a reviewer accepted in the manifest are the
// document whatever they look like.
func (r *run) judge(src manifest.Source, prior state.Source, u *url.URL, resp *fetch.Response, head []byte) answer.Verdict {
	if resp.Status/100 == 3 || resp.Status == http.StatusNotModified {
		return answer.Verdict{}
	}
	a := answer.Answer{URL: u, Status: resp.Status, Header: resp.Header, Head: resp.Head, Size: resp.Size}
	if resp.Status == http.StatusOK {
		a.Head = head
	}
	if prior.SHA256 != "" {
		a.PriorType, a.PriorHead = prior.ContentType, r.head(prior.SHA256)
	}
	v := answer.Classify(a)
	if !v.IsDocument() && resp.Status == http.StatusOK && slices.Contains(src.Accept, resp.SHA256) {
		return answer.Verdict{}
	}
	return v
}

// audit holds a source's first bytes against what its manifest entry
// promised (package audit), reading them in place in the store: many
// hosts' first fetches at once hold no document in memory.
func (r *run) audit(src manifest.Source, u *url.URL, resp *fetch.Response, now time.Time) *audit.Audit {
	f := audit.Fetch{
		URL: src.URL, FinalURL: u.String(), Kind: string(src.Kind), Title: src.Title,
		ContentType: resp.ContentType, Date: now,
	}
	if blob, err := os.Open(r.o.Store.Path(store.Sum(resp.SHA256))); err == nil {
		defer blob.Close()
		f.Body, f.Size = blob, resp.Size
	}
	return audit.Of(f)
}

// swhid is the Software Heritage identifier of a blob just stored for
// source, for its new index entry: "" when the index has an entry for
// these bytes already (Add keeps that one, so reading the blob again would
// be for nothing: a server that answers every check with a whole 200 and
// the same bytes), or when it cannot be read back (the index then says
// nothing of it, and verify names what is wrong with the blob).
func (r *run) swhid(source, sum string) string {
	if _, held := r.o.Index.Lookup(source, store.Sum(sum)); held {
		return ""
	}
	id, err := r.o.Store.SWHID(store.Sum(sum))
	if err != nil {
		return ""
	}
	return id
}

// head returns the first bytes of a held blob (nil when it cannot be read):
// what the held version says is no evidence against the new one.
func (r *run) head(sum store.Sum) []byte {
	f, err := r.o.Store.Open(sum)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, answer.HeadSize))
	return b
}

// sameText records a 200 whose new bytes say what the held ones say under
// the source's view: the check counts (state's check times, blink history;
// the ledger has the request already), but the held bytes remain the
// citation — hash, size, type and final URL stay, nothing is indexed, and
// the new blob is left for the end-of-run sweep. Only the validators are
// the new answer's.
func (r *run) sameText(ctx context.Context, src manifest.Source, prior state.Source, u *url.URL, resp *fetch.Response, c textview.Comparison, checked func(*state.Source)) {
	now := r.o.Clock.Now()
	r.finish(src, state.Fresh, prior, func(s *state.Source) {
		checked(s)
		s.HTTPStatus = prior.HTTPStatus
		s.LastGood = now
		// The validators follow the answer, not the citation: they stand
		// for bytes whose text is the held one's, so a 304 to them confirms
		// the citation as well, and asking with the old ones would cost a
		// whole body on every later check.
		s.ETag, s.LastModified = resp.ETag, resp.LastModified
		r.noteBlink(ctx, src, s, state.TextCheck{Raw: resp.SHA256, View: c.DefaultView}, now)
	})
	r.mu.Lock()
	r.unkept = append(r.unkept, resp.SHA256)
	r.mu.Unlock()
	r.count(func(res *Result) { res.Checked++ })
	r.log(src.Host, "%s %s → 200 unchanged text (%s): sha256 %.12s not kept, %.12s remains the citation", src.ID, u, c.Why, resp.SHA256, prior.SHA256)
}

// redirect decides a document redirect. It returns the next URL
// to follow, or a non-empty reason when the source is `moved`; both empty
// means too many hops.
func (r *run) redirect(from *url.URL, location string, hop int) (*url.URL, string) {
	to, err := url.Parse(location)
	if err != nil {
		return nil, "redirects to an unreadable Location " + fmt.Sprintf("%q", location)
	}
	if hop+1 > policy.MaxRedirects {
		return nil, ""
	}
	switch {
	case from.Scheme == "https" && to.Scheme == "http":
		return nil, "redirect from https to http refused: " + location
	case to.Scheme != "http" && to.Scheme != "https":
		return nil, "redirects to a non-http URL: " + location
	case manifest.HostOf(to) == manifest.HostOf(from):
		return to, ""
	case from.Scheme == "http" && to.Scheme == "https" && from.Hostname() == to.Hostname() && (to.Port() == "" || to.Port() == "443"):
		return to, ""
	}
	if _, listed := r.o.Set.SourceByURL(to.String()); listed {
		return to, ""
	}
	return nil, "redirects to " + location + " on another host, which no manifest lists: add that URL to a manifest to follow it"
}

// finish sets a source's status and lets f fill the rest.
func (r *run) finish(src manifest.Source, st state.Status, prior state.Source, f func(*state.Source)) {
	s := prior
	s.SetStatus(st, r.o.Clock.Now())
	if f != nil {
		f(&s)
	}
	r.o.State.PutSource(src.ID, s)
}

func keepValidators(s *state.Source, resp *fetch.Response) {
	if resp.ETag != "" {
		s.ETag = resp.ETag
	}
	if resp.LastModified != "" {
		s.LastModified = resp.LastModified
	}
}

func joinDetail(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// robotsEntry is this run's decision basis for one robots scope, fetched at
// most once however many goroutines ask.
type robotsEntry struct {
	mu          sync.Mutex
	ready       bool
	rules       *robots.Rules
	unavailable bool
	unreachable bool
	detail      string
}

type decision struct {
	rules       *robots.Rules
	unavailable bool
	unreachable bool // the host could not be reached at all
	detail      string
}

// robotsDecision returns the robots.txt rules for u's scope: the kept copy
// while younger than robots_ttl, else a fresh fetch through the gate.
func (r *run) robotsDecision(ctx context.Context, u *url.URL) (decision, error) {
	key := robots.Key(u)
	r.mu.Lock()
	e, ok := r.robots[key]
	if !ok {
		e = &robotsEntry{}
		r.robots[key] = e
	}
	r.mu.Unlock()

	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.ready {
		if err := r.loadRobots(ctx, u, key, e); err != nil {
			return decision{}, err
		}
		e.ready = true
		g := r.gate(manifest.HostOf(u))
		g.SetCrawlDelay(e.rules.CrawlDelay(r.token))
		gap, text := e.rules.MaxCrawlRate(r.token)
		g.SetHint(gate.Hint{Source: gate.FromMaxCrawlRate, Gap: gap, Text: text})
	}
	return decision{rules: e.rules, unavailable: e.unavailable, unreachable: e.unreachable, detail: e.detail}, nil
}

func (r *run) loadRobots(ctx context.Context, u *url.URL, key string, e *robotsEntry) error {
	kept, ok := r.o.State.Robots(key)
	if dec := robotsdecision.Kept(kept, ok, r.o.Clock.Now(), r.o.Set.Policy.RobotsTTL); dec.Current {
		e.rules = robotsdecision.Rules(kept)
		return nil
	}
	first := robots.URL(u)
	target := first
	at, err := url.Parse(target) // built from a parsed URL: it parses
	if err != nil {
		return fmt.Errorf("robots.txt of %s: %w", u, err)
	}
	var (
		resp *fetch.Response
		body []byte
		ferr error
	)
	for hop := 0; ; hop++ {
		host := manifest.HostOf(at)
		var err error
		resp, ferr, err = r.send(ctx, host, gate.Request{URL: target, Purpose: ledger.PurposeRobots}, func() (*fetch.Response, error) {
			var rerr error
			var resp *fetch.Response
			resp, body, rerr = r.o.HTTP.GetBytes(ctx, fetch.Request{URL: target}, robots.MaxBody)
			return resp, rerr
		}, func(resp *fetch.Response, out *gate.Outcome, _ *ledger.Line) {
			// A redirect that leads nowhere leaves robots.txt unread, as a
			// 5xx would: a failure of the host for its backoff.
			switch {
			case resp.Status/100 != 3:
			case resp.Location == "":
				out.Err = fmt.Errorf("robots.txt: HTTP %d without a Location", resp.Status)
			case hop+1 > policy.MaxRedirects:
				out.Err = fmt.Errorf("robots.txt: more than %d redirects", policy.MaxRedirects)
			}
		}, nil)
		if err != nil {
			return err
		}
		if ferr != nil || resp.Status/100 != 3 || resp.Location == "" {
			break
		}
		if hop+1 > policy.MaxRedirects {
			ferr = fmt.Errorf("robots.txt: more than %d redirects", policy.MaxRedirects)
			break
		}
		next, err := url.Parse(resp.Location) // fetch resolved it: it parses
		if err != nil {
			ferr = fmt.Errorf("robots.txt: redirect to an unreadable Location %q: %w", resp.Location, err)
			break
		}
		target, at = resp.Location, next
	}
	if ferr != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	status := 0
	if resp != nil {
		status = resp.Status
	}
	kept = robotsdecision.Fetched(first, r.o.Clock.Now(), status, body, ferr)
	e.rules = robotsdecision.Rules(kept)
	e.unavailable = kept.Outcome == state.RobotsUnreadable
	e.unreachable = kept.Outcome == state.RobotsUnreached
	e.detail = kept.Detail
	r.o.State.PutRobots(key, kept)
	what := fmt.Sprintf("HTTP %d", kept.HTTPStatus)
	if kept.Detail != "" {
		what = kept.Detail
	}
	rate := ""
	if _, text := e.rules.MaxCrawlRate(r.token); text != "" {
		rate = ", max-crawl-rate " + text
	}
	r.log(manifest.HostOf(u), "robots.txt %s (%s), crawl-delay %s%s", kept.Outcome, what, e.rules.CrawlDelay(r.token), rate)
	return nil
}
