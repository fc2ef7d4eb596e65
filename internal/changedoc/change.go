package changedoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// Dir is the directory of change documents, under the reports directory
// (so under the public site) and in a dataset.
const Dir = "changes"

// Version is the format of a change document (Doc.Version); a field
// added keeps it, a field changed or removed takes the next.
const Version = 1

// The text a change document's hunks show.
const (
	TextChanged    = "changed"    // the texts differ: hunks and figures
	TextSame       = "same"       // only the bytes changed
	TextUnreadable = "unreadable" // one of the two has no text to compare
)

// Caps of a change document, so that a document rewritten whole does not
// make one of megabytes: the hunks' lines after MaxLines, and the figures
// after MaxFigures, are counted, not shown.
const (
	MaxLines   = 2000
	MaxFigures = 1000
	// MaxFigureLines bounds the changed lines read for figures, half
	// removed and half added: a text rewritten whole (a consolidated act
	// of 200,000 lines) would otherwise hold every line's figures at
	// once, a hundred megabytes, to show a thousand. The changed lines
	// past it are counted, not read (UnreadLines).
	MaxFigureLines = 20_000
)

// figureHunks returns the hunks with at most max/2 removed and max/2
// added lines, the first of each in order (a text rewritten whole lists
// every removed line before the added ones, and only the first of both
// pair as rows), and how many changed lines were left out.
func figureHunks(hs []textview.Hunk, max int) (read []textview.Hunk, unread int) {
	removed, added := 0, 0
	for _, h := range hs {
		for _, l := range h.Lines {
			switch l.Op {
			case '-':
				removed++
			case '+':
				added++
			}
		}
	}
	if removed+added <= max {
		return hs, 0
	}
	// Each hunk's lines kept are counted, then copied into a slice of
	// that size: a text rewritten whole is one hunk of 400,000 lines, of
	// which 20,000 are read, and a copy the size of the hunk would hold
	// the other 380,000 in vain.
	type budget struct{ removed, added int }
	keep := func(b *budget, op byte) bool {
		switch op {
		case '-':
			if b.removed == 0 {
				return false
			}
			b.removed--
		case '+':
			if b.added == 0 {
				return false
			}
			b.added--
		}
		return true
	}
	counting, left := budget{max / 2, max / 2}, budget{max / 2, max / 2}
	read = make([]textview.Hunk, 0, len(hs))
	for _, h := range hs {
		n := 0
		for _, l := range h.Lines {
			if keep(&counting, l.Op) {
				n++
			}
		}
		cut := h
		cut.Lines = make([]textview.HunkLine, 0, n)
		for _, l := range h.Lines {
			if !keep(&left, l.Op) {
				unread++
				continue
			}
			cut.Lines = append(cut.Lines, l)
		}
		read = append(read, cut)
	}
	return read, unread
}

// Doc is the machine-readable form of one change: a source served new
// bytes (or went back to earlier ones) on Date. Its fields are described
// in docs/archive.md and schemas/change.schema.json.
type Doc struct {
	Version  int    `json:"version"`
	Source   string `json:"source"`
	URL      string `json:"url"`
	Date     string `json:"date"`
	Returned bool   `json:"returned"`
	From     Side   `json:"from"`
	To       Side   `json:"to"`
	// Text says what the hunks show (TextChanged, TextSame,
	// TextUnreadable); TextVersion which extractor derived the texts.
	Text        string `json:"text"`
	TextVersion string `json:"text_version"`
	// Removed and Added count the changed lines; OmittedLines the hunk
	// lines after MaxLines, OmittedFigures the figures after MaxFigures.
	Removed int `json:"removed"`
	Added   int `json:"added"`
	// Provisions lists, for a legislative text, the provisions the
	// change amended, added and repealed, in the text's order, before
	// the hunks as a reader should meet them; absent for a document
	// that is not read as law.
	Provisions []ProvisionChange `json:"provisions,omitempty"`
	// OmittedProvisionTexts counts the provisions listed without their
	// old and new texts, past MaxProvisionText.
	OmittedProvisionTexts int      `json:"omitted_provision_texts,omitempty"`
	Hunks                 []Hunk   `json:"hunks"`
	OmittedLines          int      `json:"omitted_lines,omitempty"`
	Figures               []Figure `json:"figures"`
	OmittedFigures        int      `json:"omitted_figures,omitempty"`
	// UnreadLines counts the changed lines past MaxFigureLines (the
	// first half of it removed lines, the other added), whose figures
	// were not read: when it is set, Figures and OmittedFigures are those
	// of the lines read.
	UnreadLines int `json:"unread_lines,omitempty"`
}

// ProvisionChange is one provision a change amended, added or repealed.
type ProvisionChange struct {
	// ID is the provision's label path (law.Provision.ID: "s. 113");
	// Address the publisher's own URL for it, where it has one.
	ID      string `json:"id"`
	Address string `json:"address,omitempty"`
	// Change is law.Amended, law.Added or law.Repealed.
	Change string `json:"change"`
	// Old and New are the provision's text on each side, absent on the
	// side that lacks it.
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
	// Figures are the figures that changed within the provision.
	Figures []Figure `json:"figures,omitempty"`
}

// Side is one of the two versions a change is between: an entry of
// the index.
type Side struct {
	SHA256      store.Sum `json:"sha256"`
	Size        int64     `json:"size"`
	ContentType string    `json:"content_type,omitempty"`
	FirstSeen   string    `json:"first_seen"`
}

// Hunk is a group of changed lines with the unchanged lines around them,
// as a unified diff's "@@ -old_start,old_lines +new_start,new_lines @@".
type Hunk struct {
	OldStart int    `json:"old_start"`
	OldLines int    `json:"old_lines"`
	NewStart int    `json:"new_start"`
	NewLines int    `json:"new_lines"`
	Lines    []Line `json:"lines"`
}

// The Op of a Line.
const (
	OpContext = "context"
	OpRemoved = "removed"
	OpAdded   = "added"
)

// Line is a line of a hunk: Old and New are its line numbers in each
// text, absent on the side that lacks it.
type Line struct {
	Op   string `json:"op"`
	Old  int    `json:"old,omitempty"`
	New  int    `json:"new,omitempty"`
	Text string `json:"text"`
	// OmittedBytes counts the bytes of a line longer than MaxLineBytes
	// left out after Text, its start.
	OmittedBytes int `json:"omitted_bytes,omitempty"`
}

// MaxLineBytes bounds the text of a hunk's line: a line of megabytes (an
// Act's XML held on one line) is shown by its start, so that its change
// document is no copy of the two texts.
const MaxLineBytes = 2000

// shownLine is a hunk line as a change document shows it: text cut after
// MaxLineBytes (at a character's start), and the bytes left out.
func shownLine(op byte, old, new int, text string) Line {
	l := Line{Op: opName(op), Old: old, New: new, Text: text}
	if len(text) > MaxLineBytes {
		cut := MaxLineBytes
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		l.Text, l.OmittedBytes = text[:cut], len(text)-cut
	}
	return l
}

// Figure is a figure that changed, old → new; Old is absent for a figure
// only the new text has (a row added), New for one only the old had.
type Figure struct {
	// Row is the label of the figure's line read as a table row: its
	// first cell of words, or the few words before its first figure.
	// Column is the heading of the figure's cell in the table, when one
	// is found above it.
	Row    string `json:"row,omitempty"`
	Column string `json:"column,omitempty"`
	Old    *Value `json:"old,omitempty"`
	New    *Value `json:"new,omitempty"`
}

// Value is a figure on one side: its line, the text as written ("£12,571",
// "21 %", "1.234,56 €"), the number as a plain decimal ("12571",
// "1234.56"; absent when the digits are no number, such as 2.1.3) and its
// unit ("%", "‰", a currency sign or ISO 4217 code as written).
type Value struct {
	Line  int    `json:"line"`
	Text  string `json:"text"`
	Value string `json:"value,omitempty"`
	Unit  string `json:"unit,omitempty"`
}

// Input is what a change document is made of.
type Input struct {
	Source, URL, Date string
	Returned          bool
	Old, New          store.Entry
	// OldText and NewText are the texts derived from the two (the
	// texts under snapshots/text/), TextOK false when either could not
	// be had.
	OldText, NewText string
	TextOK           bool
	// Compared says Hunks holds the two texts' comparison already
	// (textview.DiffHunks, with the default context), so Of need not
	// compare them again.
	Compared bool
	Hunks    []textview.Hunk
}

// Of is the change document of in.
func Of(in Input) Doc {
	d := Doc{
		Version: Version, Source: in.Source, URL: in.URL, Date: in.Date, Returned: in.Returned,
		From: versionOf(in.Old), To: versionOf(in.New),
		TextVersion: textview.Version, Hunks: []Hunk{}, Figures: []Figure{},
	}
	if !in.TextOK {
		d.Text = TextUnreadable
		return d
	}
	hs := in.Hunks
	if !in.Compared {
		hs = textview.Hunks(in.OldText, in.NewText, textview.DiffOptions{})
	}
	if len(hs) == 0 {
		d.Text = TextSame
		return d
	}
	d.Text = TextChanged
	shown := 0
	for _, h := range hs {
		out := Hunk{OldStart: h.OldStart, OldLines: h.OldLines, NewStart: h.NewStart, NewLines: h.NewLines, Lines: []Line{}}
		for _, l := range h.Lines {
			switch l.Op {
			case '-':
				d.Removed++
			case '+':
				d.Added++
			}
			if shown >= MaxLines {
				d.OmittedLines++
				continue
			}
			shown++
			out.Lines = append(out.Lines, shownLine(l.Op, l.Old, l.New, l.Text))
		}
		if len(out.Lines) > 0 {
			d.Hunks = append(d.Hunks, out)
		}
	}
	read, unread := figureHunks(hs, MaxFigureLines)
	d.UnreadLines = unread
	dec := byte(0)
	if ambiguous(read) { // only the lines read for figures need it told
		dec = decimalMark(in.OldText, in.NewText)
	}
	figs := figureChanges(read, texts{newTextLines(in.OldText, new(int)), newTextLines(in.NewText, new(int))}, dec)
	if len(figs) > MaxFigures {
		d.OmittedFigures = len(figs) - MaxFigures
		figs = figs[:MaxFigures]
	}
	if figs != nil {
		d.Figures = figs
	}
	d.Provisions, d.OmittedProvisionTexts = provisionChanges(in.URL, in.OldText, in.NewText, dec)
	return d
}

func versionOf(e store.Entry) Side {
	return Side{SHA256: e.SHA256, Size: e.Size, ContentType: e.ContentType, FirstSeen: e.FirstSeen}
}

func opName(op byte) string {
	switch op {
	case '-':
		return OpRemoved
	case '+':
		return OpAdded
	}
	return OpContext
}

func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// ambiguous reports whether a changed line has a figure whose decimal
// mark the text must tell (1,000 / 1.000): only then is the whole text
// read for it.
func ambiguous(hs []textview.Hunk) bool {
	for _, h := range hs {
		for _, l := range h.Lines {
			if l.Op == ' ' || !mayShowNoMark(l.Text) {
				continue
			}
			found := false
			eachFigure(l.Text, 0, func(f figure) bool {
				found = f.decimal == 0 && strings.ContainsAny(f.text, ",.")
				return !found
			})
			if found {
				return true
			}
		}
	}
	return false
}

// JSON is the document as written: indented, with a final newline, and
// without escaping <, > and & (it is served as JSON, never as HTML).
func (d Doc) JSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Path is where the document of a change is, under the reports directory
// and in a dataset: changes/<source>/<date>_<old 12 hex>..<new 12 hex>.json.
func Path(source, date string, old, new store.Sum) string {
	return fmt.Sprintf("%s/%s/%s_%s..%s.json", Dir, source, date, old.Short(), new.Short())
}

// IsPath says whether path is named as Path names a change document.
func IsPath(path string) bool { return pathRe.MatchString(path) }

// pathRe is what Path writes.
var pathRe = regexp.MustCompile(`^` + Dir + `/([a-z0-9-]+)/([0-9]{4}-[0-9]{2}-[0-9]{2})_([0-9a-f]{12})\.\.([0-9a-f]{12})\.json$`)

// Parse reads a change document, and checks that it is one: the version
// known, its hashes valid, and, given the path it was found at (a Path),
// that it names the same change.
func Parse(path string, data []byte) (Doc, error) {
	var d Doc
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return d, fmt.Errorf("not a change document: %w", err)
	}
	if d.Version != Version {
		return d, fmt.Errorf("version %d; this build reads version %d: use a newer taxkernelbot", d.Version, Version)
	}
	if !d.From.SHA256.Valid() || !d.To.SHA256.Valid() {
		return d, fmt.Errorf("from.sha256 %q or to.sha256 %q is not 64 lower-case hex digits", d.From.SHA256, d.To.SHA256)
	}
	m := pathRe.FindStringSubmatch(path)
	if m == nil {
		return d, fmt.Errorf("is not named as a change document (%s/<source>/<date>_<12 hex>..<12 hex>.json)", Dir)
	}
	if want := Path(d.Source, d.Date, d.From.SHA256, d.To.SHA256); want != path {
		return d, fmt.Errorf("describes the change %s, not the one its name says", want)
	}
	return d, nil
}
