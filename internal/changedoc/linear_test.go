package changedoc

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// The column headings of the figures of a long changed line are found
// by reading each line once, not once per figure: the bytes read for
// cells stay within a few times the texts' size however many figures
// change on the line (before, each figure read its whole line again: a
// 300 KB line of XML with 16,000 figures cost minutes).
func TestHeadingsReadEachLineOnce(t *testing.T) {
	for _, tc := range []struct {
		name   string
		row    func(i, v int) string
		column string
	}{
		// A line of XML: no cells, so no heading to find.
		{"xml", func(i, v int) string {
			return fmt.Sprintf(`<Subsection lims:id="%d"><Text>up to $%d,%03d</Text></Subsection>`, i, 1+v, i%1000)
		}, ""},
		// A table row of thousands of cells under a heading row.
		{"table", func(i, v int) string { return fmt.Sprintf("£%d,%03d | ", 1+v, i%1000) }, "Amount"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 4000
			var head, old, nw strings.Builder
			for i := range n {
				head.WriteString("Amount | ")
				old.WriteString(tc.row(i, 0))
				nw.WriteString(tc.row(i, 1))
			}
			prefix := ""
			if tc.column != "" {
				prefix = head.String() + "Rate\n"
				old.WriteString("20%")
				nw.WriteString("20%")
			}
			oldText, newText := prefix+old.String()+"\n", prefix+nw.String()+"\n"
			hs := textview.Hunks(oldText, newText, textview.DiffOptions{})
			read := new(int)
			tx := texts{newTextLines(oldText, read), newTextLines(newText, read)}
			figs := figureChanges(hs, tx, '.')
			if len(figs) < n {
				t.Fatalf("%d figures changed, want at least %d", len(figs), n)
			}
			for _, f := range figs[:3] {
				if f.Column != tc.column {
					t.Errorf("figure %s → %s under %q, want %q", f.Old.Text, f.New.Text, f.Column, tc.column)
				}
			}
			size := len(oldText) + len(newText)
			if *read > 4*size {
				t.Errorf("read %d bytes for the cells of %d figures in texts of %d bytes: more than 4× the texts, so quadratic in the line's length", *read, len(figs), size)
			}
		})
	}
}

// allocated is the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Whether a change needs its decimal mark told, and which the text uses,
// are read from the first figures of a long line, not all of them: each
// once held every figure of a 10 MB line of XML.
func TestDecimalMarkReadsTheFirstFiguresOnly(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, `<Text lims:id="%d">up to $1,%03d and 12.5%% in year %d</Text>`, i, i%1000, 2000+i%30)
	}
	line := b.String()
	hs := []textview.Hunk{{Lines: []textview.HunkLine{{Op: '-', Old: 1, Text: line}, {Op: '+', New: 1, Text: line + " "}}}}
	var amb bool
	var dec byte
	n := allocated(func() {
		amb = ambiguous(hs)
		dec = decimalMark(line, line)
	})
	if !amb || dec != '.' {
		t.Fatalf("ambiguous %v, decimal mark %q: want true, '.'", amb, dec)
	}
	if n > 64<<10 {
		t.Errorf("allocated %d bytes to read the decimal mark of a line of %d bytes: it reads more than the first figures", n, len(line))
	}
}

// Two long lines reworded are compared reading each once: a skeleton
// each, and a set of its words (before, four skeletons and a list of
// every word of each).
func TestAlikeReadsEachLineOnce(t *testing.T) {
	var x, y strings.Builder
	for i := 0; x.Len() < 1<<20; i++ {
		fmt.Fprintf(&x, "<Text>up to $%d in year %d</Text>", i, i)
		fmt.Fprintf(&y, "<Text>up to $%d in the year %d</Text>", i+1, i)
	}
	a, b := read(1, x.String(), '.'), read(1, y.String(), '.')
	var same bool
	n := allocated(func() { same = alike(a, b) })
	if !same {
		t.Fatal("a line reworded is not alike")
	}
	if n > 3*uint64(x.Len()+y.Len()) {
		t.Errorf("allocated %d bytes to compare two lines of %d bytes", n, x.Len())
	}
}

// A changed line of megabytes (an Act's XML on one line) is shown in the
// change document by its start, the rest counted, while its figures are
// read whole: the document is no copy of the two texts.
func TestLongLineIsShownByItsStart(t *testing.T) {
	var old, nw strings.Builder
	for i := 0; old.Len() < 1<<20; i++ {
		fmt.Fprintf(&old, `<Section><Label>%d</Label><Text>up to $1,%03d</Text></Section>`, i, i%1000)
		v := i % 1000
		if i == 5000 {
			v++
		}
		fmt.Fprintf(&nw, `<Section><Label>%d</Label><Text>up to $1,%03d</Text></Section>`, i, v)
	}
	d := Of(example("xa-act", "<Statute>\n"+old.String()+"\n", "<Statute>\n"+nw.String()+"\n"))
	data, err := d.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 16*MaxLineBytes {
		t.Errorf("the change document of one changed line of %d bytes takes %d bytes", old.Len(), len(data))
	}
	var shown []Line
	for _, h := range d.Hunks {
		for _, l := range h.Lines {
			if l.Op != OpContext {
				shown = append(shown, l)
			}
		}
	}
	if len(shown) != 2 || shown[0].OmittedBytes != old.Len()-len(shown[0].Text) || len(shown[0].Text) > MaxLineBytes || !strings.HasPrefix(old.String(), shown[0].Text) {
		t.Errorf("the changed lines shown: %d, first %d bytes + %d omitted", len(shown), len(shown[0].Text), shown[0].OmittedBytes)
	}
	if len(d.Figures) != 1 || d.Figures[0].Old.Text != "$1,000" || d.Figures[0].New.Text != "$1,001" {
		t.Errorf("figures %s, want $1,000 → $1,001 read past the line's shown start", figuresOf(d))
	}
}

// The figures of a long line are held in one array, not grown into one
// (a line of Justice Canada's XML holds 300,000 figures).
func TestScanAllocatesOnce(t *testing.T) {
	line := strings.Repeat(`<Text lims:id="1234567">up to $1000 or 12%</Text>`, 20_000)
	var figs []figure
	if n := testing.AllocsPerRun(3, func() { figs = scan(line, 0) }); n > 1 && !raceEnabled {
		t.Errorf("scan made %.0f allocations for a line of %d figures", n, len(figs))
	}
	if len(figs) != 60_000 {
		t.Errorf("%d figures, want 60,000", len(figs))
	}
}

// The decimal mark is told by the text's first figures: past maxRead
// figures that show none, the rest of the text is not read for it.
func TestDecimalMarkReadsAtMostMaxRead(t *testing.T) {
	text := strings.Repeat("up to 1,000\n", maxRead) + "12,5\n"
	if got := decimalMark(text); got != 0 {
		t.Errorf("decimal mark %q, want none: the comma comes after the first %d figures", got, maxRead)
	}
	if got := decimalMark("12,5\n" + text); got != ',' {
		t.Errorf("decimal mark %q, want ','", got)
	}
}

// The changed lines read for figures of a text rewritten whole (one hunk
// of every line) are copied into a slice of their own size, not of the
// hunk's: it held the lines not read as well.
func TestFigureHunksHoldOnlyTheLinesRead(t *testing.T) {
	const n = 100_000
	h := textview.Hunk{Lines: make([]textview.HunkLine, 0, 2*n)}
	for i := range n {
		h.Lines = append(h.Lines, textview.HunkLine{Op: '-', Old: i + 1, Text: fmt.Sprintf("Section %d (0). 12.%d per cent", i, i%10)})
	}
	for i := range n {
		h.Lines = append(h.Lines, textview.HunkLine{Op: '+', New: i + 1, Text: fmt.Sprintf("Section %d (1). 13.%d per cent", i, i%10)})
	}
	var read []textview.Hunk
	var unread int
	n2 := allocated(func() { read, unread = figureHunks([]textview.Hunk{h}, MaxFigureLines) })
	if len(read) != 1 || len(read[0].Lines) != MaxFigureLines || unread != 2*n-MaxFigureLines {
		t.Fatalf("%d hunks, %d unread, want 1 of %d lines and %d unread", len(read), unread, MaxFigureLines, 2*n-MaxFigureLines)
	}
	if r := read[0].Lines; r[0].Op != '-' || r[MaxFigureLines/2-1].Old != MaxFigureLines/2 || r[MaxFigureLines/2].Op != '+' || r[MaxFigureLines/2].New != 1 {
		t.Errorf("lines read: %+v … %+v, want the first %d removed, then the first %d added", r[0], r[len(r)-1], MaxFigureLines/2, MaxFigureLines/2)
	}
	size := uint64(unsafe.Sizeof(textview.HunkLine{}))
	if max := size * MaxFigureLines * 5 / 4; n2 > max {
		t.Errorf("figureHunks allocated %d bytes for %d lines read (%d bytes): it copies the lines not read too", n2, MaxFigureLines, size*MaxFigureLines)
	}
}

// A text rewritten whole with no table row is not split into lines to
// look for column headings it has none of: the split of two texts of
// 200,000 lines was a tenth of the change document's time.
func TestHeadingsSplitNoTextWithoutRows(t *testing.T) {
	var a, b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&a, "Section %d (0). The rate is %d.5 per cent.\n", i, i%40)
		fmt.Fprintf(&b, "Section %d (1). The rate is %d.5 per cent.\n", i, i%40+1)
	}
	hs := textview.Hunks(a.String(), b.String(), textview.DiffOptions{})
	tx := texts{newTextLines(a.String(), nil), newTextLines(b.String(), nil)}
	if figs := figureChanges(hs, tx, 0); len(figs) < 5000 {
		t.Fatalf("%d figures changed, want at least 5000", len(figs))
	}
	if tx.old.isSplit || tx.new.isSplit {
		t.Errorf("a text with no row was split into lines (old %v, new %v)", tx.old.isSplit, tx.new.isSplit)
	}
	// A row's heading is still found above it.
	old, new := "Band | Rate\nBasic | 20%\n", "Band | Rate\nBasic | 21%\n"
	tx = texts{newTextLines(old, nil), newTextLines(new, nil)}
	figs := figureChanges(textview.Hunks(old, new, textview.DiffOptions{}), tx, 0)
	if len(figs) != 1 || figs[0].Column != "Rate" {
		t.Errorf("figures %+v, want one under Rate", figs)
	}
}

// The changed lines read are held in arrays sized once, not grown line by
// line: lines without figures (so that reading them allocates nothing)
// cost little more than their sides.
func TestFigureChangesSizeTheirSidesOnce(t *testing.T) {
	const n = 10_000
	var lines []textview.HunkLine
	for i := range n {
		lines = append(lines, textview.HunkLine{Op: '-', Old: i + 1, Text: "The rate of tax is set by order."})
	}
	for i := range n {
		lines = append(lines, textview.HunkLine{Op: '+', New: i + 1, Text: "The rate of the tax is set by order."})
	}
	hs := []textview.Hunk{{Lines: lines}}
	tx := texts{newTextLines("", nil), newTextLines("", nil)}
	var figs []Figure
	got := allocated(func() { figs = figureChanges(hs, tx, 0) })
	if len(figs) != 0 {
		t.Fatalf("%d figures, want none", len(figs))
	}
	// Less what reading each line and pairing them allocate (their
	// labels, their words), the same either way.
	removed, added := make([]side, n), make([]side, n)
	reading := allocated(func() {
		for i, l := range lines {
			if l.Op == '-' {
				removed[i] = read(l.Old, l.Text, 0)
			} else {
				added[i-n] = read(l.New, l.Text, 0)
			}
		}
	})
	pairing := allocated(func() { pairLines(removed, added) })
	sides := uint64(2*n) * uint64(unsafe.Sizeof(side{}))
	if rest := got - reading - pairing; rest > sides*3/2 {
		t.Errorf("figureChanges allocated %d bytes besides reading and pairing %d lines whose sides take %d: they are grown, not sized once", rest, 2*n, sides)
	}
}
