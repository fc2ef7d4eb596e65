package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
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
func Recover(ctx context.Context, s *store.Store, ix *store.Index, ledgerDir string, st *state.State) (Recovered, error) {
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
			(l.Purpose == ledger.PurposeDocument || l.Purpose == ledger.PurposeRedirect) {
			add(store.Sum(l.SHA256), l.Source, store.Entry{
				SHA256: store.Sum(l.SHA256), Size: l.Bytes, ContentType: l.ContentType,
				FinalURL: l.URL, FirstSeen: ledger.Day(l.Time),
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
			ix.Add(c.id, c.entry)
			rec.Adopted[string(sum)] = append(rec.Adopted[string(sum)], c.id)
		}
	}
	return rec, nil
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
