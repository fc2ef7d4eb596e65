package publish

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/gitstore"
	"github.com/taxkernel/taxkernelbot/internal/law"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/outputs"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/review"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// BodyDetails gathers what a pull request body shows beyond the reports'
// diff: the text diff of each changed document, compared through its
// source's view (the blobs streamed from blob), and each failing source's
// count of failed checks from st. A document whose blobs cannot be read
// gets a line saying so instead of a diff; nothing here fails.
func BodyDetails(ctx context.Context, set *manifest.Set, st *state.State, changes []report.Change, blob outputs.OpenBlob) review.Details {
	d := review.Details{Texts: map[string]review.TextChange{}, FailedChecks: map[string]int{}}
	for _, id := range st.SourceIDs() {
		if n := st.Source(id).FailedChecks; n > 0 {
			d.FailedChecks[id] = n
		}
	}
	for _, c := range changes {
		if c.Kind != report.KindChanged || c.Old.SHA256 == "" || c.New.SHA256 == "" {
			continue
		}
		// One file per source: its history is the text's, and the old
		// text is main's file as the diff reads it.
		tc := review.TextChange{NewPath: botrepo.TextPath(c.ID)}
		var view *textview.View
		url := c.New.URL
		if src, ok := set.Source(c.ID); ok {
			view, _ = textview.Compile(src.View) // validated with the manifest
			url = src.URL
		}
		old, errOld := outputs.BlobDoc(blob, c.Old.SHA256, c.Old.ContentType)
		cur, errNew := outputs.BlobDoc(blob, c.New.SHA256, c.New.ContentType)
		if err := errors.Join(errOld, errNew); err != nil {
			tc.Why = fmt.Sprintf("no text diff: a blob could not be read (%v)", err)
			d.Texts[c.ID] = tc
			continue
		}
		cmp := textview.Compare(ctx, view, old, cur, "a/"+tc.NewPath, "b/"+tc.NewPath, textview.Limits{}, textview.DiffOptions{})
		tc.Diff = cmp.Diff
		if tc.Diff.Markdown == "" {
			tc.Why = "no text diff: " + cmp.Why
		} else {
			tc.Provisions = provisionSummary(url, cmp.Old.Text, cmp.New.Text)
		}
		d.Texts[c.ID] = tc
	}
	return d
}

// maxBodyProvisions is how many changed provisions a pull request names
// per document; its change document lists them all.
const maxBodyProvisions = 30

// provisionSummary says which provisions of a legislative text changed
// ("s. 113 amended; s. 662 repealed"), "" for a text not read as law.
func provisionSummary(url, old, cur string) string {
	if law.PublisherOf(url) == "" {
		return ""
	}
	a, b := law.Segment(old, url), law.Segment(cur, url)
	if a == nil || b == nil {
		return ""
	}
	cs := law.Diff(a, b)
	return law.Summary(len(cs), func(i int) (string, string) { return cs[i].ID, cs[i].Change }, maxBodyProvisions)
}

// A partial tree fetches what outputs.Blobs reads from it.
var _ interface {
	Fetch(context.Context, ...string) error
} = (*gitstore.Tree)(nil)

// trees are the trees given that exist (the bot branch's is nil when
// the branch does not), as repository trees for outputs.
func trees(ts ...*gitstore.Tree) []fs.FS {
	var out []fs.FS
	for _, t := range ts {
		if t != nil {
			out = append(out, t)
		}
	}
	return out
}
