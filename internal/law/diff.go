package law

import (
	"fmt"
	"strings"
)

// Change is a provision that differs between two versions of a text.
type Change struct {
	// ID is the provision's ID; Change is Amended, Added or Repealed.
	ID     string
	Change string
	// Old and New are the provision in each version, nil on the side
	// that lacks it.
	Old, New *Provision
}

// Address is the provision's own address, the new version's if it has
// one.
func (c Change) Address() string {
	if c.New != nil && c.New.Address != "" {
		return c.New.Address
	}
	if c.Old != nil {
		return c.Old.Address
	}
	return ""
}

// Diff lists the provisions that differ between two versions of a text,
// matched by ID, in the new text's order (a provision only the old text
// has comes where it stood): amended when its text changed, added when
// only the new text has it (or the old held only its repeal note),
// repealed when only the old text has it or the new holds only a repeal
// note. Linear in the provisions' texts.
func Diff(old, new []Provision) []Change {
	oldAt := make(map[string]int, len(old))
	for i := range old {
		oldAt[old[i].ID] = i
	}
	newHas := make(map[string]bool, len(new))
	for i := range new {
		newHas[new[i].ID] = true
	}
	var out []Change
	next := 0 // the old provisions before next are told
	gone := func(upTo int) {
		for ; next < upTo; next++ {
			if !newHas[old[next].ID] {
				out = append(out, Change{ID: old[next].ID, Change: Repealed, Old: &old[next]})
			}
		}
	}
	for i := range new {
		n := &new[i]
		j, ok := oldAt[n.ID]
		if !ok {
			kind := Added
			if n.Repealed {
				kind = Repealed
			}
			out = append(out, Change{ID: n.ID, Change: kind, New: n})
			continue
		}
		if j >= next {
			gone(j + 1)
		}
		o := &old[j]
		if o.Text == n.Text {
			continue
		}
		kind := Amended
		switch {
		case n.Repealed && !o.Repealed:
			kind = Repealed
		case o.Repealed && !n.Repealed:
			kind = Added
		}
		out = append(out, Change{ID: n.ID, Change: kind, Old: o, New: n})
	}
	gone(len(old))
	return out
}

// Summary says which provisions changed, in a text's order: "s. 113
// amended; s. 662 repealed". Past max of them the rest are counted ("…
// and 12 more"); max <= 0 names all. at gives the i-th change's ID and
// kind, so that any list of changes (Diff's, a change document's) is
// said the same way.
func Summary(n int, at func(i int) (id, change string), max int) string {
	var b strings.Builder
	for i := range n {
		if max > 0 && i == max {
			fmt.Fprintf(&b, "; and %d more", n-i)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		id, change := at(i)
		b.WriteString(id + " " + change)
	}
	return b.String()
}
