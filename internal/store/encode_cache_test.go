package store

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var encodeSeeds = flag.Int("encode.seeds", 50, "seeded schedules TestMarshalIsEncodingJSONsAfterEveryStep runs")

// reference is the index as encoding/json writes it, with no encoding kept
// from before: what Marshal must write whatever it reuses.
func reference(t *testing.T, ix *Index) string {
	t.Helper()
	sources, _ := ix.snapshot()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(indexFile{Sources: sources}); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestMarshalIsEncodingJSONsAfterEveryStep: Marshal keeps the encodings of
// unchanged sources, so a change it is not told of would be saved as the
// old bytes. After every step of a seeded random schedule of additions,
// returns, unions and pre-encodings, Marshal is encoding/json's output of
// the index as it is then.
func TestMarshalIsEncodingJSONsAfterEveryStep(t *testing.T) {
	sums := []Sum{sumA, sumB, sumC, Sum(fmt.Sprintf("%064x", 7))}
	for seed := range *encodeSeeds {
		r := rand.New(rand.NewPCG(uint64(seed), 1))
		ix := NewIndex()
		day := func() string { return fmt.Sprintf("2026-%02d-%02d", 1+r.IntN(12), 1+r.IntN(28)) }
		id := func() string { return fmt.Sprintf("s-%d", r.IntN(6)) }
		held := func(id string) Sum {
			if es := ix.Entries(id); len(es) > 0 && r.IntN(4) > 0 {
				return es[r.IntN(len(es))].SHA256
			}
			return ""
		}
		for step := range 60 {
			var did string
			switch op := r.IntN(10); {
			case op < 5:
				src := id()
				e := entry(sums[r.IntN(len(sums))], day())
				e.FinalURL = "https://example.gov/a?b=1&c=<2>"
				ix.Add(src, e, held(src))
				did = "add " + src
			case op < 7:
				other := NewIndex()
				other.Add(id(), entry(sums[r.IntN(len(sums))], day()), "")
				ix.Unite(other)
				did = "unite"
			case op < 9:
				if err := ix.PreEncode(); err != nil {
					t.Fatal(err)
				}
				did = "pre-encode"
			default:
				if _, err := ix.Marshal(); err != nil {
					t.Fatal(err)
				}
				did = "marshal"
			}
			got, err := ix.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(reference(t, ix), string(got)); diff != "" {
				t.Fatalf("seed %d, step %d (%s): Marshal is not encoding/json's output (-want +got):\n%s", seed, step, did, diff)
			}
		}
	}
}
