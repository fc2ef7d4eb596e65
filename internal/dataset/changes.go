package dataset

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/changedoc"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// ChangeDir is the directory of the change documents in a dataset: one
// per change in the period, changedoc.Path, the same bytes as the public
// site's reports/changes/.
const ChangeDir = changedoc.Dir

// changeName is a change document's name in a dataset.
var changeName = regexp.MustCompile(`^` + ChangeDir + `/[a-z0-9-]+/[0-9]{4}-[0-9]{2}-[0-9]{2}_[0-9a-f]{12}\.\.[0-9a-f]{12}\.json$`)

// inChanges reports whether rel, a directory or a file of a dataset, is
// under ChangeDir.
func inChanges(rel string) bool {
	return rel == ChangeDir || strings.HasPrefix(rel, ChangeDir+"/")
}

// periodChanges calls f with each change of the period in ix: a source
// served bytes other than those it held before (or went back to earlier
// ones) on a date of the period. A first copy is no change.
func periodChanges(ix *store.Index, p Period, f func(id string, old, new store.Change) error) error {
	from, to := p.from(), p.to()
	for _, id := range ix.IDs() {
		hist := ix.History(id)
		for i := 1; i < len(hist); i++ {
			if c := hist[i]; c.Date >= from && c.Date <= to {
				if err := f(id, hist[i-1], c); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// changes writes the change document of each change of the period, from
// the texts the dataset ships (or, for a document whose text of this
// extractor version the record does not keep, the text derived from its
// bytes, as the feeds do). It returns how many it wrote.
func (w *writer) changes(ctx context.Context, in Input) (int, error) {
	n := 0
	err := periodChanges(in.Index, in.Period, func(id string, old, new store.Change) error {
		name := changedoc.Path(id, new.Date, old.Entry.SHA256, new.Entry.SHA256)
		if _, done := w.sums[name]; done {
			return nil // the same two versions on the same day: one document
		}
		oldText, okOld, err := w.text(ctx, in, old.Entry)
		if err != nil {
			return err
		}
		newText, okNew, err := w.text(ctx, in, new.Entry)
		if err != nil {
			return err
		}
		url := in.URLs[id]
		if url == "" {
			url = new.Entry.FinalURL // a source no longer in the manifests
		}
		data, err := changedoc.Of(changedoc.Input{
			Source: id, URL: url, Date: new.Date, Returned: new.Date != new.Entry.FirstSeen,
			Old: old.Entry, New: new.Entry, OldText: oldText, NewText: newText, TextOK: okOld && okNew,
		}).JSON()
		if err != nil {
			return fmt.Errorf("dataset: %s: %w", name, err)
		}
		n++
		return w.put(name, data)
	})
	return n, err
}

// text is the text of e that the feeds compare: the one the dataset
// ships for this extractor version, else derived from the bytes.
func (w *writer) text(ctx context.Context, in Input, e store.Entry) (string, bool, error) {
	p, err := textview.TextPath(w.dir, string(e.SHA256))
	if err != nil {
		return "", false, err
	}
	text, err := textview.ReadText(p)
	if err == nil {
		return text, true, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", false, fmt.Errorf("dataset: %w", err)
	}
	res := extractHeld(ctx, in, e)
	if err := ctx.Err(); err != nil {
		return "", false, err
	}
	return res.Text, res.OK(), nil
}

// checkChanges checks the change documents of a dataset: each is named
// as one, reads as one, and names two documents of its source in the
// index, under its own name; and, in a dataset that has any (those built
// before there were change documents have none, and verify still),
// each change of the period has one.
func checkChanges(dir string, files []string, ix *store.Index, warcName string, c *Checked) []Problem {
	var probs []Problem
	add := func(where, format string, args ...any) {
		probs = append(probs, Problem{where, fmt.Sprintf(format, args...)})
	}
	have := map[string]bool{}
	for _, f := range files {
		if !inChanges(f) {
			continue
		}
		have[f] = true
		if !changeName.MatchString(f) {
			add(f, "is not a change document's name (%s/<source>/<date>_<12 hex>..<12 hex>.json)", ChangeDir)
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			add(f, "cannot be read: %v", err)
			continue
		}
		d, err := changedoc.Parse(f, data)
		if err != nil {
			add(f, "%v", err)
			continue
		}
		for _, s := range []store.Sum{d.From.SHA256, d.To.SHA256} {
			if _, ok := ix.Lookup(d.Source, s); !ok {
				add(f, "names sha256 %s of %s, which %s does not list for that source", s, d.Source, IndexName)
			}
		}
		c.Changes++
	}
	p, ok := periodOf(warcName)
	if !ok || len(have) == 0 {
		return probs
	}
	_ = periodChanges(ix, p, func(id string, old, new store.Change) error {
		if name := changedoc.Path(id, new.Date, old.Entry.SHA256, new.Entry.SHA256); !have[name] {
			add(name, "is missing: %s changed on %s (sha256 %s → %s) and the dataset has no change document of it", id, new.Date, old.Entry.SHA256.Short(), new.Entry.SHA256.Short())
			have[name] = true
		}
		return nil
	})
	return probs
}

// periodOf is the period a dataset's WARC is named after (Period.WarcName).
func periodOf(warcName string) (Period, bool) {
	name, ok := strings.CutPrefix(warcName, "taxkernelbot-")
	if !ok {
		return Period{}, false
	}
	if name, ok = strings.CutSuffix(name, ".warc.gz"); !ok {
		return Period{}, false
	}
	var p Period
	var err error
	if from, to, both := strings.Cut(name, "_"); both {
		p, err = Between(from, to)
	} else {
		p, err = Month(name)
	}
	return p, err == nil && p.WarcName() == warcName
}
