package textview

import (
	"compress/gzip"
	"context"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// icdarRow is one table row of the ground truth with two or more cells:
// its page (1-based) and its cells' words, left to right.
type icdarRow struct {
	page  int
	cells [][]string
}

// readICDARRows reads a *-str.xml.gz ground-truth file.
func readICDARRows(t testing.TB, path string) []icdarRow {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tables []struct {
			Regions []struct {
				Page  int `xml:"page,attr"`
				Cells []struct {
					Row     int    `xml:"start-row,attr"`
					Col     int    `xml:"start-col,attr"`
					Content string `xml:"content"`
				} `xml:"cell"`
			} `xml:"region"`
		} `xml:"table"`
	}
	if err := xml.NewDecoder(zr).Decode(&doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var rows []icdarRow
	for _, tb := range doc.Tables {
		for _, rg := range tb.Regions {
			byRow := map[int][]int{} // row → cell indexes
			for i, c := range rg.Cells {
				if len(words(c.Content)) > 0 {
					byRow[c.Row] = append(byRow[c.Row], i)
				}
			}
			for _, r := range slices.Sorted(func(yield func(int) bool) {
				for k := range byRow {
					if !yield(k) {
						return
					}
				}
			}) {
				idx := byRow[r]
				if len(idx) < 2 {
					continue
				}
				slices.SortStableFunc(idx, func(a, b int) int { return rg.Cells[a].Col - rg.Cells[b].Col })
				row := icdarRow{page: rg.Page}
				for _, i := range idx {
					row.cells = append(row.cells, words(rg.Cells[i].Content))
				}
				rows = append(rows, row)
			}
		}
	}
	return rows
}

// fold makes the same characters of the ground truth and of a text
// compare equal: typographic quotes and dashes, ligatures, odd spaces.
var fold = strings.NewReplacer(
	"\u2018", "'", "\u2019", "'", "\u201c", `"`, "\u201d", `"`,
	"\u2013", "-", "\u2014", "-", "\u2212", "-", "\u00ad", "",
	"\ufb00", "ff", "\ufb01", "fi", "\ufb02", "fl", "\ufb03", "ffi", "\ufb04", "ffl",
	"\u00a0", " ", "\u2009", " ", "\u2002", " ", "\u2003", " ",
)

// words splits s into words, the cell separator " | " not being one.
func words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(fold.Replace(s), isSpace) {
		if w != "|" {
			out = append(out, w)
		}
	}
	return out
}

// onOneLine reports whether some line holds every cell's words, cell
// after cell, each cell's words in a row: the row is readable as a row.
func onOneLine(lines [][]string, cells [][]string) bool {
	for _, l := range lines {
		at, ok := 0, true
		for _, c := range cells {
			i := indexWords(l[at:], c)
			if i < 0 {
				ok = false
				break
			}
			at += i + len(c)
		}
		if ok {
			return true
		}
	}
	return false
}

func indexWords(l, c []string) int {
	for i := 0; i+len(c) <= len(l); i++ {
		if slices.Equal(l[i:i+len(c)], c) {
			return i
		}
	}
	return -1
}

// pagesOf splits a text into pages of lines of words: at "[page N]" lines
// (this package's text) or at form feeds (pdftotext's own).
func pagesOf(text string, formFeeds bool) [][][]string {
	var pages [][][]string
	if formFeeds {
		for _, p := range strings.Split(text, "\f") {
			var ls [][]string
			for l := range strings.Lines(p) {
				ls = append(ls, words(l))
			}
			pages = append(pages, ls)
		}
		return pages
	}
	for l := range strings.Lines(text) {
		if n, ok := strings.CutPrefix(strings.TrimSpace(l), "[page "); ok && strings.HasSuffix(n, "]") {
			if _, err := strconv.Atoi(strings.TrimSuffix(n, "]")); err == nil {
				pages = append(pages, nil)
				continue
			}
		}
		if len(pages) == 0 {
			pages = append(pages, nil)
		}
		pages[len(pages)-1] = append(pages[len(pages)-1], words(l))
	}
	return pages
}

type rowScore struct {
	kept, rows, docsWithText, docs int
}

func (s *rowScore) add(pages [][][]string, rows []icdarRow) {
	s.docs++
	for _, p := range pages {
		if slices.ContainsFunc(p, func(l []string) bool { return len(l) > 0 }) {
			s.docsWithText++
			break
		}
	}
	for _, r := range rows {
		s.rows++
		if r.page >= 1 && r.page <= len(pages) && onOneLine(pages[r.page-1], r.cells) {
			s.kept++
		}
	}
}

func (s rowScore) String() string {
	return fmt.Sprintf("%d of %d rows on one line (%.1f %%), text for %d of %d PDFs",
		s.kept, s.rows, 100*float64(s.kept)/float64(max(s.rows, 1)), s.docsWithText, s.docs)
}

// TestICDARRowsOnOneLine measures, on the US half of the ICDAR 2013 table
// dataset (testdata/icdar2013), the share of table rows with two or more
// cells whose cells stand on one line of the text, in order: this
// package's text, pdftotext -layout's own in the same run, and the
// built-in extractor's (the fallback without pdftotext). Ours must keep at
// least as many rows as pdftotext -layout.
func TestICDARRowsOnOneLine(t *testing.T) {
	t.Parallel()
	tool := needPdftotext(t)
	files, err := filepath.Glob("testdata/icdar2013/*-str.xml.gz")
	if err != nil || len(files) == 0 {
		t.Fatalf("no ground truth in testdata/icdar2013 (%v)", err)
	}
	var ours, plain, builtin rowScore
	var oursTime time.Duration
	var size int64
	var worse []string
	for _, gt := range files {
		pdfPath := strings.TrimSuffix(gt, "-str.xml.gz") + ".pdf"
		raw, err := os.ReadFile(pdfPath)
		if err != nil {
			t.Fatal(err)
		}
		rows := readICDARRows(t, gt)
		size += int64(len(raw))

		start := time.Now()
		res := Extract(t.Context(), raw, "application/pdf", Limits{})
		oursTime += time.Since(start)
		if !res.OK() {
			t.Errorf("%s: %s", pdfPath, res.Reason)
		}
		var o, p, b rowScore
		o.add(pagesOf(res.Text, false), rows)

		out, err := exec.CommandContext(t.Context(), tool.path, "-layout", "-enc", "UTF-8", pdfPath, "-").Output()
		if err != nil {
			t.Errorf("pdftotext -layout %s: %v", pdfPath, err)
		}
		p.add(pagesOf(string(out), true), rows)

		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		bo := extractHere(ctx, KindPDF, raw, "application/pdf", nil, DefaultLimits)
		cancel()
		b.add(pagesOf(bo.text, false), rows)

		if o.kept < p.kept {
			worse = append(worse, fmt.Sprintf("%s: ours %d, pdftotext %d of %d", filepath.Base(pdfPath), o.kept, p.kept, o.rows))
		}
		for _, x := range []struct{ into, from *rowScore }{{&ours, &o}, {&plain, &p}, {&builtin, &b}} {
			x.into.kept += x.from.kept
			x.into.rows += x.from.rows
			x.into.docs += x.from.docs
			x.into.docsWithText += x.from.docsWithText
		}
	}
	t.Logf("ICDAR 2013, US half, %d PDFs, %.1f MB:", len(files), float64(size)/1e6)
	t.Logf("  ours (%s): %s", Engine(KindPDF), ours)
	t.Logf("  pdftotext -layout, plain:            %s", plain)
	t.Logf("  built-in extractor (ledongthuc/pdf): %s", builtin)
	t.Logf("  ours: %.0f ms for %.1f MB, %.0f ms per MB (child process per document)",
		float64(oursTime.Milliseconds()), float64(size)/1e6, float64(oursTime.Milliseconds())/(float64(size)/1e6))
	for _, w := range worse {
		t.Log("  fewer rows: " + w)
	}
	if ours.kept < plain.kept {
		t.Errorf("ours keeps %d rows on one line, pdftotext -layout %d", ours.kept, plain.kept)
	}
	if ours.docsWithText < plain.docsWithText {
		t.Errorf("ours gives text for %d PDFs, pdftotext for %d", ours.docsWithText, plain.docsWithText)
	}
}
