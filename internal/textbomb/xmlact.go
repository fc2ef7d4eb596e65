package textbomb

import (
	"fmt"
	"strings"
)

// XMLAct is a consolidated Act as Justice Canada serves it in XML, about
// size bytes: an XML declaration, the statute's opening tag with its
// consolidation date, then the sections spread over lines lines (1: the
// whole body on one line, as the Employment Insurance Act's XML has it;
// more: one line per Part), each section with lims: attribute ids, a
// marginal note, a label and subsections of prose with amounts and rates.
//
// Version 1 is the next consolidation of version 0: a later
// consolidation date, and one section in 500 amended (a new amount and
// rate, and the new lims: ids and in-force date Justice gives an amended
// section); every other byte is the same. So a change to it is a few
// provisions inside lines of megabytes, among thousands of figures that
// are attribute ids.
func XMLAct(size, lines, version int) []byte {
	lines = max(lines, 1)
	var b strings.Builder
	b.Grow(size + size/8)
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	date := "2025-07-31"
	if version == 1 {
		date = "2026-05-29"
	}
	fmt.Fprintf(&b, `<Statute xmlns:lims="http://justice.gc.ca/lims" lims:pit-date="%s" lims:current-date="%s" lims:lastAmendedDate="%s" bill-origin="commons" in-force="yes"><Identification><LongTitle>An Act respecting employment insurance in Canada</LongTitle><ShortTitle status="official">Employment Insurance Act</ShortTitle><Chapter><ConsolidatedNumber official="yes">S.C. 1996, c. 23</ConsolidatedNumber></Chapter></Identification><Body>`+"\n", date, date, date)
	perLine := max(size/lines, 1)
	lineStart := b.Len()
	written := 1
	for s := 1; b.Len() < size; s++ {
		amended := version == 1 && s%500 == 250
		id, inforce := 1_000_000+s*13, "1996-06-30"
		if amended {
			id, inforce = 9_000_000+s, date
		}
		fmt.Fprintf(&b, `<Section lims:inforce-start-date="%s" lims:fid="%d" lims:id="%d"><MarginalNote lims:inforce-start-date="%s" lims:fid="%d" lims:id="%d">Rate of benefit</MarginalNote><Label>%d</Label>`, inforce, id+1, id+2, inforce, id+3, id+4, s)
		for sub := 1; sub <= 3; sub++ {
			amount, rate := 1000+(s*37+sub)%90000, 1+(s+sub)%55
			if amended && sub == 2 {
				amount, rate = amount+125, rate+1
			}
			fmt.Fprintf(&b, `<Subsection lims:inforce-start-date="%s" lims:fid="%d" lims:id="%d"><Label>(%d)</Label><Text>The rate of weekly benefits payable to a claimant is %d%% of the claimant’s weekly insurable earnings, up to $%d,%03d in a year, as set out in section %d.</Text></Subsection>`, inforce, id+4+2*sub, id+5+2*sub, sub, rate, amount/1000, amount%1000, s+1)
		}
		b.WriteString("</Section>")
		if written < lines && b.Len()-lineStart >= perLine {
			b.WriteString("\n")
			lineStart = b.Len()
			written++
		}
	}
	b.WriteString("\n</Body></Statute>\n")
	return []byte(b.String())
}
