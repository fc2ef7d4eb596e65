package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// Recovered is what Recover did.
type Recovered struct {
	// Adopted maps each blob put back into the index to the sources it was
	// filed under.
	Adopted map[string][]string
	// Removed are the blobs nothing could vouch for, and the temp files of
	// interrupted writes.
	Removed []string
}

// Recover makes the store as if an interrupted run had never been
// interrupted between storing a blob and saving the index. A blob that no
// source in ix names is adopted when the ledger (a result line of a
// document request: status 200, that sha256, a source id) or the state (a
// source holding that sha256) proves which source served it, and its bytes
// still hash to its name; every other unindexed blob is removed, and so are
// temp files of interrupted writes. Run it before a run starts, with the
// state directory locked, never beside a run.
//
// A blob the ledger alone proves, for a source that holds other bytes,
// may be new bytes that say the same text: a run keeps none of those, but
// removes them only at its end, so a run killed before then leaves them.
// set, when given, lets Recover compare the texts through the source's
// view as the run would, and remove such a blob instead of adopting it.
func Recover(ctx context.Context, s *store.Store, ix *store.Index, ledgerDir string, st *state.State, set *manifest.Set) (Recovered, error) {
	rec := Recovered{Adopted: map[string][]string{}}
	leftovers, err := s.RemoveLeftovers()
	rec.Removed = append(rec.Removed, leftovers...)
	if err != nil {
		return rec, err
	}
	orphans, err := s.Unindexed(ctx, ix)
	if err != nil || len(orphans) == 0 {
		return rec, err
	}
	type claim struct {
		id    string
		entry store.Entry
	}
	want := map[store.Sum]bool{}
	for _, sum := range orphans {
		want[sum] = true
	}
	claims := map[store.Sum][]claim{}
	seen := map[[2]string]bool{} // (sum, id) already claimed
	add := func(sum store.Sum, id string, e store.Entry) {
		if k := [2]string{string(sum), id}; !seen[k] {
			seen[k] = true
			claims[sum] = append(claims[sum], claim{id, e})
		}
	}
	err = ledger.ScanAll(ledgerDir, func(l ledger.Line) error {
		if l.Event == ledger.Result && l.Status == 200 && l.Source != "" && want[store.Sum(l.SHA256)] &&
			(l.Purpose == ledger.PurposeDocument || l.Purpose == ledger.PurposeRedirect) &&
			!seen[[2]string{l.SHA256, l.Source}] && // compared once per (sum, source)
			!sameText(ctx, s, set, st, l.Source, store.Sum(l.SHA256)) {
			add(store.Sum(l.SHA256), l.Source, store.Entry{
				SHA256: store.Sum(l.SHA256), Size: l.Bytes, ContentType: l.ContentType,
				FinalURL: l.URL, FirstSeen: ledger.Day(l.Time), NotDocument: l.NotDocument,
			})
		}
		return nil
	})
	if err != nil {
		return rec, fmt.Errorf("recover: reading the ledgers: %w", err)
	}
	for _, id := range st.SourceIDs() {
		src := st.Source(id)
		if want[src.SHA256] {
			first := src.LastGood
			if first.IsZero() {
				first = src.LastCheck
			}
			add(src.SHA256, id, store.Entry{
				SHA256: src.SHA256, Size: src.Size, ContentType: src.ContentType,
				FinalURL: src.FinalURL, FirstSeen: first.UTC().Format(time.DateOnly),
			})
		}
	}
	for _, sum := range orphans {
		size, whole, err := rehash(s, sum)
		if err != nil {
			return rec, err
		}
		cs := claims[sum]
		if len(cs) == 0 || !whole {
			if err := s.Discard(sum); err != nil {
				return rec, err
			}
			rec.Removed = append(rec.Removed, s.Path(sum))
			continue
		}
		for _, c := range cs {
			c.entry.Size = size // the bytes held are the measure
			if id, err := s.SWHID(sum); err == nil {
				c.entry.SWHID = id
			}
			ix.Add(c.id, c.entry, "")
			rec.Adopted[string(sum)] = append(rec.Adopted[string(sum)], c.id)
		}
	}
	return rec, nil
}

// sameText reports whether blob, which the ledger says source id served,
// says what the bytes the source holds say, through its view: new bytes
// the run did not keep. Without a set, or when anything cannot be read,
// it says no, and the ledger's proof stands.
func sameText(ctx context.Context, s *store.Store, set *manifest.Set, st *state.State, id string, blob store.Sum) bool {
	if set == nil {
		return false
	}
	src, ok := set.Source(id)
	held := st.Source(id)
	if !ok || held.SHA256 == "" || held.SHA256 == blob || !s.Has(held.SHA256) {
		return false
	}
	view, err := textview.Compile(src.View)
	if err != nil {
		return false
	}
	old, err := blobDoc(s, held.SHA256, held.ContentType)
	if err != nil {
		return false
	}
	cur, err := blobDoc(s, blob, held.ContentType)
	if err != nil {
		return false
	}
	c := textview.Compare(ctx, view, old, cur, string(held.SHA256), string(blob), textLimits, textview.DiffOptions{VerdictOnly: true})
	return !c.Changed
}

// rehash reads the blob sum back: its size, and whether its bytes still
// hash to its name.
func rehash(s *store.Store, sum store.Sum) (int64, bool, error) {
	r, err := s.Open(sum)
	if err != nil {
		return 0, false, fmt.Errorf("recover: %w", err)
	}
	defer r.Close()
	n, err := io.Copy(io.Discard, r)
	switch {
	case errors.Is(err, store.ErrCorrupt):
		return n, false, nil
	case err != nil:
		return n, false, fmt.Errorf("recover: %w", err)
	}
	return n, true, nil
}
