package changedoc

import (
	"github.com/taxkernel/taxkernelbot/internal/law"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// MaxProvisionText bounds the old and new text a change document shows
// of its provisions, together: an Act rewritten whole would otherwise be
// held in it twice. The provisions past it are listed with their
// figures but without their texts (OmittedProvisionTexts counts them).
const MaxProvisionText = 1 << 20

// provisionChanges are the provisions of a legislative text that changed
// between the two texts, read by the publisher's way of starting a
// provision (law.Segment: the address says the publisher): nil for a text
// that is not read as law.
func provisionChanges(url, oldText, newText string, dec byte) (out []ProvisionChange, omitted int) {
	if law.PublisherOf(url) == "" {
		return nil, 0
	}
	old, cur := law.Segment(oldText, url), law.Segment(newText, url)
	if old == nil || cur == nil {
		return nil, 0
	}
	shown := 0
	for _, c := range law.Diff(old, cur) {
		pc := ProvisionChange{ID: c.ID, Address: c.Address(), Change: c.Change}
		var o, n string
		if c.Old != nil {
			o = c.Old.Text
		}
		if c.New != nil {
			n = c.New.Text
		}
		if shown+len(o)+len(n) <= MaxProvisionText {
			pc.Old, pc.New = o, n
			shown += len(o) + len(n)
		} else {
			omitted++
		}
		pc.Figures = provisionFigures(c, o, n, dec)
		out = append(out, pc)
	}
	return out, omitted
}

// provisionFigures are the figures that changed within one provision,
// their lines those of the whole texts.
func provisionFigures(c law.Change, o, n string, dec byte) []Figure {
	hs := textview.Hunks(o, n, textview.DiffOptions{})
	figs := figureChanges(hs, texts{newTextLines(o, nil), newTextLines(n, nil)}, dec)
	for _, f := range figs {
		if f.Old != nil && c.Old != nil {
			f.Old.Line += c.Old.Line - 1
		}
		if f.New != nil && c.New != nil {
			f.New.Line += c.New.Line - 1
		}
	}
	if len(figs) > MaxFigures {
		figs = figs[:MaxFigures]
	}
	return figs
}

// ProvisionSummary says which provisions the change amended, added and
// repealed ("s. 113 amended; s. 662 repealed"), at most max of them
// named (max <= 0: all); "" when the document lists none.
func (d Doc) ProvisionSummary(max int) string {
	return law.Summary(len(d.Provisions), func(i int) (string, string) {
		return d.Provisions[i].ID, d.Provisions[i].Change
	}, max)
}
