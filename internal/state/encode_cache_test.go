package state

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestFilesIsMarshalIndentAfterEveryStep: Files keeps the encodings of
// unchanged sources, so a change it is not told of would be saved as the
// old state. After every step of seeded random schedules of source, host
// and robots changes and pre-encodings, state.json is json.MarshalIndent's
// output of the state as it is then.
func TestFilesIsMarshalIndentAfterEveryStep(t *testing.T) {
	statuses := []Status{Fresh, Failing, Gone, Pending, Paused}
	for seed := range 50 {
		r := rand.New(rand.NewPCG(uint64(seed), 2))
		s := New()
		at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
		for step := range 60 {
			var did string
			switch op := r.IntN(10); {
			case op < 5:
				id := fmt.Sprintf("s-%d", r.IntN(6))
				src := s.Source(id)
				src.Status = statuses[r.IntN(len(statuses))]
				src.Since = fmt.Sprintf("2026-11-%02d", 1+r.IntN(28))
				src.LastCheck = at.Add(time.Duration(r.IntN(1000)) * time.Minute)
				src.FailedChecks = r.IntN(3)
				src.Detail = "a <b> & c"
				if r.IntN(2) == 0 {
					src.TextChecks = append(src.TextChecks[:len(src.TextChecks):len(src.TextChecks)], TextCheck{})
				}
				s.PutSource(id, src)
				did = "put source " + id
			case op < 6:
				s.PutHost(fmt.Sprintf("h%d.example", r.IntN(3)), Host{Failures: r.IntN(4)})
				did = "put host"
			case op < 9:
				if err := s.PreEncode(); err != nil {
					t.Fatal(err)
				}
				did = "pre-encode"
			default:
				if _, err := s.Files(); err != nil {
					t.Fatal(err)
				}
				did = "files"
			}
			if diff := filesDiff(t, s); diff != "" {
				t.Fatalf("seed %d, step %d (%s): state.json is not MarshalIndent's output (-want +got):\n%s", seed, step, did, diff)
			}
		}
	}
}

// filesDiff is how the state.json that s.Files makes differs from
// json.MarshalIndent's output of s (-MarshalIndent +Files).
func filesDiff(t *testing.T, s *State) string {
	t.Helper()
	files, err := s.Files()
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := s.snapshot()
	want, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return cmp.Diff(string(want)+"\n", string(files[stateFile]))
}
