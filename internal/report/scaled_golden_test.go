package report

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

// scaled is fixture's sources copies times over, each copy with ids of
// its own, in its jurisdiction or in a third, larger one.
func scaled(copies int) (*manifest.Set, *state.State) {
	set0, st0 := fixture()
	set, st := &manifest.Set{}, state.New()
	for k := range copies {
		for i, src := range set0.Sources {
			s := st0.Source(src.ID)
			src.ID = fmt.Sprintf("%s-%04d", src.ID, k)
			if (i+k)%3 == 0 {
				src.Jurisdiction = "xx"
			}
			set.Sources = append(set.Sources, src)
			if s.Status != state.Pending || k%2 == 0 {
				st.PutSource(src.ID, s)
			}
		}
	}
	return set, st
}

// TestScaledGolden: coverage.json and the Markdown files of 300 and 6,000
// sources (one file; split, a jurisdiction in parts), and the Markdown of
// a report out of order, are the bytes recorded in
// testdata/scaled.golden, by name, size and SHA-256.
func TestScaledGolden(t *testing.T) {
	var b strings.Builder
	line := func(name string, data []byte) {
		fmt.Fprintf(&b, "%s %d %x\n", name, len(data), sha256.Sum256(data))
	}
	for _, copies := range []int{20, 400} {
		r := Build(scaled(copies))
		js, err := r.JSON()
		if err != nil {
			t.Fatal(err)
		}
		line(fmt.Sprintf("%d/%s", copies, JSONName), js)
		md := r.MarkdownFiles()
		for _, name := range slices.Sorted(maps.Keys(md)) {
			line(fmt.Sprintf("%d/%s", copies, name), md[name])
		}
		slices.Reverse(r.Sources)
		line(fmt.Sprintf("%d/reversed.md", copies), r.Markdown())
	}
	golden(t, "scaled.golden", []byte(b.String()))
}
