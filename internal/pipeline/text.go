package pipeline

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/fetch"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// textLimits bound the text work on one document during a run.
var textLimits = textview.Limits{}

// blobDoc is the held blob sum as a document to extract: read from the
// store (re-hashed on the way) by the extraction itself, streamed to the
// process that extracts it, so a big blob is never held in the run's
// memory, and one over the input limit is not read past its first bytes.
func blobDoc(s *store.Store, sum store.Sum, contentType string) (textview.Doc, error) {
	fi, err := os.Stat(s.Path(sum))
	if err != nil {
		return textview.Doc{}, err
	}
	return textview.Doc{
		Open:        func() (io.ReadCloser, error) { return s.Open(sum) },
		Size:        fi.Size(),
		ContentType: contentType,
	}, nil
}

// compareText decides whether the new bytes of src (resp, just stored)
// say something else than the held ones (prior), through the source's
// view. ok is false when the comparison could not be made (a blob could
// not be read back): then the bytes decide, as before there were views.
func (r *run) compareText(ctx context.Context, src manifest.Source, prior state.Source, resp *fetch.Response) (textview.Comparison, bool) {
	view, err := textview.Compile(src.View)
	if err != nil {
		r.log(src.Host, "%s: view unusable (%v): the bytes decide; fix the view in its manifest", src.ID, err)
		return textview.Comparison{}, false
	}
	// The held bytes' text is kept beside them: read, not extracted again.
	var kept *textview.Result
	if res, ok, err := textview.Load(r.o.Store.Root(), string(prior.SHA256)); err == nil && ok {
		kept = &res
	}
	old, err := blobDoc(r.o.Store, prior.SHA256, prior.ContentType)
	if err != nil {
		r.log(src.Host, "%s: held bytes %.12s unreadable for the text comparison (%v): the bytes decide", src.ID, prior.SHA256, err)
		return textview.Comparison{}, false
	}
	cur, err := blobDoc(r.o.Store, store.Sum(resp.SHA256), resp.ContentType)
	if err != nil {
		r.log(src.Host, "%s: new bytes %.12s unreadable for the text comparison (%v): the bytes decide", src.ID, resp.SHA256, err)
		return textview.Comparison{}, false
	}
	c := textview.CompareKept(ctx, view, old, kept, cur, string(prior.SHA256), resp.SHA256, textLimits, textview.DiffOptions{VerdictOnly: true})
	if c.Changed {
		return c, true
	}
	if src.View.IsZero() {
		// Kept for the suggestion, should the source start blinking now:
		// where the blobs are, not their bytes (read back if needed).
		r.mu.Lock()
		r.docs[src.ID] = []textview.Doc{old, cur}
		r.mu.Unlock()
	}
	return c, true
}

// deriveText keeps the text of the indexed blob sum beside the blobs and
// returns the hash of its default view, for the source's blink history;
// extracted, when not nil, is its text as the comparison extracted it,
// kept rather than extracted again, and extractedView, when not "", the
// hash of its default view that the comparison computed. A failure is
// logged and leaves the hash empty; it never fails the run.
func (r *run) deriveText(ctx context.Context, src manifest.Source, sum, contentType string, extracted *textview.Result, extractedView string) string {
	if res, ok, err := textview.Load(r.o.Store.Root(), sum); err == nil && ok {
		return (*textview.View)(nil).NormalizedHash(res.Text) // kept: no need to read the blob
	}
	if extracted != nil {
		if _, err := textview.Save(r.o.Store.Root(), sum, *extracted); err != nil {
			r.log(src.Host, "%s: text of %.12s not kept: %v", src.ID, sum, err)
		}
		if extracted.Reason != "" {
			r.log(src.Host, "%s: text of %.12s: %s", src.ID, sum, extracted.Reason)
		}
		if extractedView != "" {
			return extractedView // the comparison read it: a 20 MB text is not read again
		}
		return (*textview.View)(nil).NormalizedHash(extracted.Text)
	}
	doc, err := blobDoc(r.o.Store, store.Sum(sum), contentType)
	if err != nil {
		r.log(src.Host, "%s: no text derived from %.12s: blob unreadable: %v", src.ID, sum, err)
		return ""
	}
	_, res, err := textview.DeriveDoc(ctx, r.o.Store.Root(), sum, doc, textLimits)
	if ctx.Err() != nil {
		return "" // stopped: the text is unknown, not empty
	}
	if err != nil {
		r.log(src.Host, "%s: text of %.12s not kept: %v", src.ID, sum, err)
	}
	if res.Reason != "" {
		r.log(src.Host, "%s: text of %.12s: %s", src.ID, sum, res.Reason)
	}
	return (*textview.View)(nil).NormalizedHash(res.Text)
}

// noteBlink records the fetch in s's blink history and, when a source
// without a declared view starts blinking with it, the suggested view.
func (r *run) noteBlink(ctx context.Context, src manifest.Source, s *state.Source, c state.TextCheck, now time.Time) {
	if c.View == "" {
		return // the text is unknown (unreadable blob, stopped run): nothing to learn
	}
	s.AddTextCheck(c)
	if !src.View.IsZero() {
		s.Noisy = nil
		return
	}
	checks := make([]textview.Check, len(s.TextChecks))
	for i, tc := range s.TextChecks {
		checks[i] = textview.Check{Raw: tc.Raw, View: tc.View}
	}
	r.mu.Lock()
	docs := r.docs[src.ID]
	delete(r.docs, src.ID)
	r.mu.Unlock()
	if s.Noisy != nil || !textview.StartsBlinking(checks) {
		return
	}
	spec, matched := textview.Suggest(ctx, docs, textLimits)
	s.Noisy = &state.Noisy{
		Since: now.UTC().Format(time.DateOnly),
		Drop:  spec.Drop, Ignore: spec.Ignore, Matched: matched,
	}
	r.log(src.Host, "%s blinks: new bytes at each of its last %d fetches, same text; suggested view: drop %q, ignore %q",
		src.ID, textview.BlinkFetches, spec.Drop, spec.Ignore)
}

// lastView is the default-view hash recorded for raw in s's history, or
// "" with false.
func lastView(s state.Source, raw string) (string, bool) {
	for i := len(s.TextChecks) - 1; i >= 0; i-- {
		if s.TextChecks[i].Raw == raw {
			return s.TextChecks[i].View, true
		}
	}
	return "", false
}

// sweep removes the blobs this run stored and then did not keep (new
// bytes, same text). It runs once every host is done, so no fetch of this
// run can be between storing a blob and indexing it; Store.Remove refuses
// any blob the index names, so bytes a citation needs stay.
func (r *run) sweep() {
	for _, sum := range r.unkept {
		if err := r.o.Store.Remove(store.Sum(sum), r.o.Index); err != nil {
			r.log("", "blob %.12s kept: %v", sum, err)
		}
	}
}
