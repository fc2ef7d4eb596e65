package dataset

import (
	"encoding/json"
	"fmt"

	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// FRBRName is the dataset's file of FRBR levels: for each source whose
// manifest names its work (legal_id) or edition, and for each of its
// documents in index.json, in the same order, where the document sits in
// FRBR's levels (work, expression, manifestation, item).
const FRBRName = "frbr.json"

// frbrFile renders FRBRName for the sources of ix, or nil when no source
// has a level to give (the file is then left out).
func frbrFile(ix *store.Index, levels func(id string, e store.Entry) *manifest.FRBR) ([]byte, error) {
	if levels == nil {
		return nil, nil
	}
	out := map[string][]*manifest.FRBR{}
	for _, id := range ix.IDs() {
		var docs []*manifest.FRBR
		for _, e := range ix.Entries(id) {
			if f := levels(id, e); f != nil {
				docs = append(docs, f)
			}
		}
		if len(docs) > 0 {
			out[id] = docs
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	b, err := json.MarshalIndent(struct {
		Sources map[string][]*manifest.FRBR `json:"sources"`
	}{out}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", FRBRName, err)
	}
	return append(b, '\n'), nil
}
