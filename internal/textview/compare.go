package textview

import (
	"context"
	"fmt"
)

// Comparison is the verdict on new bytes from a source whose held bytes
// hash differently.
type Comparison struct {
	// Changed is true when the document says something else: its
	// normalised text differs, or one side has no complete text (then the
	// bytes decide, as before there were views). When false, the held
	// bytes remain the citation: the new ones are not stored and nothing
	// in the index or the reports changes.
	Changed bool
	// Why says how Changed was decided, for logs.
	Why string
	// Old and New are the normalised texts under the source's view.
	Old, New Result
	// Diff is the text diff, when both texts are complete.
	Diff TextDiff
	// DefaultView is the Hash of the new bytes' default-view text, for the
	// source's blink history (Check.View).
	DefaultView string
	// extracted is the new bytes' text as extracted, before any view,
	// when Compare extracted it so (hasExtracted).
	extracted    Result
	hasExtracted bool
}

// NewExtracted is the new bytes' text as extracted, before any view (as
// Save keeps it), and whether Compare extracted it so: a caller that
// keeps the new bytes' text saves it rather than extracting it again.
func (c Comparison) NewExtracted() (Result, bool) { return c.extracted, c.hasExtracted }

// Compare decides whether new bytes of a source change what it says,
// through the source's view v (nil: the default view). oldName and newName
// label the diff (e.g. the text files' paths).
func Compare(ctx context.Context, v *View, old, new Doc, oldName, newName string, lim Limits, opt DiffOptions) Comparison {
	return CompareKept(ctx, v, old, nil, new, oldName, newName, lim, opt)
}

// CompareKept is Compare, given the old bytes' text as kept (Load: as
// extracted, before any view) when the caller has it: it is not
// extracted again from the old bytes, unless the view drops parts of the
// document, which only its bytes show.
func CompareKept(ctx context.Context, v *View, old Doc, oldKept *Result, new Doc, oldName, newName string, lim Limits, opt DiffOptions) Comparison {
	var c Comparison
	if oldKept != nil && (v == nil || len(v.drop) == 0) {
		c.Old = *oldKept
		c.Old.Text = v.NormalizeText(c.Old.Text)
	} else {
		c.Old = v.NormalizeDoc(ctx, old, lim)
	}
	if v == nil || len(v.drop) == 0 {
		// The view's Ignore and the default view both apply to the one
		// text: the new bytes are extracted once.
		c.New = extract(ctx, new, nil, lim)
		c.extracted, c.hasExtracted = c.New, ctx.Err() == nil
		c.DefaultView = (*View)(nil).NormalizedHash(c.New.Text)
		c.New.Text = v.NormalizeText(c.New.Text)
	} else {
		c.New = v.NormalizeDoc(ctx, new, lim)
		c.DefaultView = (*View)(nil).NormalizedHash(extract(ctx, new, nil, lim).Text)
	}
	switch {
	case !c.Old.OK() || !c.New.OK():
		c.Changed = true
		c.Why = fmt.Sprintf("no complete text to compare (held: %s; new: %s), so the bytes decide", orOK(c.Old.Reason), orOK(c.New.Reason))
		return c
	case c.Old.Kind != c.New.Kind:
		c.Changed = true
		c.Why = fmt.Sprintf("the document changed from %s to %s", c.Old.Kind, c.New.Kind)
	}
	if opt.VerdictOnly {
		// Equal texts are equal lines: the diff would say only that.
		switch {
		case c.Old.Text != c.New.Text:
			c.Changed = true
			c.Why = "the text changed"
		case !c.Changed:
			c.Why = "new bytes, same text under the view: the held bytes remain the citation"
		}
		return c
	}
	c.Diff = Diff(oldName, newName, c.Old.Text, c.New.Text, opt)
	if c.Diff.Changed() {
		c.Changed = true
		c.Why = fmt.Sprintf("the text changed: %d line(s) removed, %d added", c.Diff.Removed, c.Diff.Added)
	} else if !c.Changed {
		c.Why = "new bytes, same text under the view: the held bytes remain the citation"
	}
	return c
}

func orOK(reason string) string {
	if reason == "" {
		return "complete"
	}
	return reason
}
