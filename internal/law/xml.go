package law

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
)

// MaxDepth bounds the nesting of elements a reader follows: legislation
// nests a few dozen deep, and a document nesting deeper is refused
// rather than followed into a stack of frames as deep as its bytes.
const MaxDepth = 512

// maxMeta bounds the metadata kept aside (an Act's number, an
// identifier): a few hundred bytes are all any of it is.
const maxMeta = 1024

// ErrNotLaw is returned for a document none of the readers knows.
var ErrNotLaw = errors.New("not a structured legislation document this reader knows (Justice Canada's XML, legislation.gov.uk's CLML, USLM, eCFR's XML, New Zealand's legislation XML, gesetze-im-internet.de's XML)")

// WriteText streams the text view of a structured legislation document:
// emit is called with each line, in order, without its "\n". Each
// provision begins on a line that starts with its label (followed by
// its heading, if it has one); the Act's structural headings are lines
// starting with HeadingMark; markup, attributes and the publisher's
// metadata (consolidation dates, internal ids, amendment lists) are left
// out, so two consolidations that differ only in metadata have the same
// text. An error of emit stops the reading and is returned. Linear in
// the document's size; it never panics.
func WriteText(r io.Reader, emit func(line string) error) error {
	_, err := walk(r, func(line string, _ *start) error { return emit(line) })
	return err
}

// Read returns the provisions of a structured legislation document in
// the order the document has them, cut from its text view exactly as
// Segment cuts that text: Segment(text view, its address) gives the
// same provisions, but for the addresses of New Zealand's provisions
// (named by ids that only the XML holds).
func Read(r io.Reader) ([]Provision, error) {
	var lines []string
	var starts []start
	_, err := walk(r, func(line string, s *start) error {
		if s != nil {
			s.line = len(lines)
			starts = append(starts, *s)
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return assemble(lines, starts), nil
}

// Sniff tells the structured form of a document from its first bytes:
// its root element and namespace, whatever its address or media type.
// It returns "" for a document none of the readers knows.
func Sniff(head []byte) Format {
	d := newDecoder(bytes.NewReader(head))
	for range 64 {
		tok, err := d.Token()
		if err != nil {
			return ""
		}
		if se, ok := tok.(xml.StartElement); ok {
			return formatOf(se)
		}
	}
	return ""
}

func newDecoder(r io.Reader) *xml.Decoder {
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte("\ufeff")) {
		br.Discard(3)
	}
	d := xml.NewDecoder(br)
	d.Strict = false
	d.Entity = xml.HTMLEntity
	d.CharsetReader = charset.NewReaderLabel
	return d
}

// frame is one open element.
type frame struct {
	name string
	// skipped: the element and its content are left out; heading: it
	// is a heading outside a provision (its text makes a heading line);
	// capture: its text goes to the provision's label or heading.
	skipped, heading bool
	capture          *strings.Builder
	block            bool
	field            bool
	quote            bool
	labelEl          bool
	wrap             bool
}

// provState is the provision being read.
type provState struct {
	depth          int
	attrs          []xml.Attr
	label, heading strings.Builder
	labelDone      bool
	headingDone    bool
	bodyBegun      bool
	body           []string
	ancestors      []string
	// fields holds the text of the elements a form reads by name (a
	// German norm's enbez, titel and gliederungsbez).
	fields map[string]string
	// idPrefix goes before the label in the provision's ID (the
	// article a German norm's paragraph belongs to: "Art 2 § 1").
	idPrefix string
}

type walker struct {
	sp    *spec
	f     Format
	stack []frame
	skip  int
	line  strings.Builder
	space bool
	// onlyLabel: the line holds a label and nothing else yet, so the
	// block that follows continues it ("(1) Subject to …").
	onlyLabel   bool
	headingLine bool
	// quoted counts the open elements of quoted text (see QuoteMark).
	quoted  int
	prov    *provState
	emit    func(string, *start) error
	meta    map[string]string
	metaKey string
	metaBuf strings.Builder
	// pendingHeading is a heading read before its provision (CLML's
	// P1group title before the P1).
	pendingHeading string
	pendingBuf     *strings.Builder
}

func walk(r io.Reader, emit func(string, *start) error) (f Format, err error) {
	defer func() {
		// encoding/xml does not panic on bad input; a reader's own
		// mistake must not end the run either.
		if p := recover(); p != nil {
			err = fmt.Errorf("legislation reader failed on these bytes: %v", p)
		}
	}()
	d := newDecoder(r)
	w := &walker{emit: emit, meta: map[string]string{}}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			line, col := d.InputPos()
			return w.f, fmt.Errorf("line %d, column %d: %w", line, col, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if w.sp == nil {
				w.f = formatOf(t)
				if w.f == "" {
					return "", fmt.Errorf("root element <%s>: %w", t.Name.Local, ErrNotLaw)
				}
				w.sp = specs[w.f]
			}
			if len(w.stack) >= MaxDepth {
				line, _ := d.InputPos()
				return w.f, fmt.Errorf("line %d: elements nested more than %d deep; no legislation nests so deep, so the document is not read", line, MaxDepth)
			}
			if err := w.open(t); err != nil {
				return w.f, err
			}
		case xml.EndElement:
			if len(w.stack) == 0 {
				continue
			}
			if err := w.close(); err != nil {
				return w.f, err
			}
		case xml.CharData:
			if err := w.text(string(t)); err != nil {
				return w.f, err
			}
		}
	}
	if w.sp == nil {
		return "", ErrNotLaw
	}
	for len(w.stack) > 0 { // a cut document: what was read is kept
		if err := w.close(); err != nil {
			return w.f, err
		}
	}
	return w.f, w.flush()
}

func attr(attrs []xml.Attr, local string) string {
	for _, a := range attrs {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

func (w *walker) open(t xml.StartElement) error {
	name := t.Name.Local
	fr := frame{name: name}
	// Metadata an address needs is kept aside even where the metadata
	// is left out of the text (CLML's dc:identifier).
	if key, ok := w.sp.meta[name]; ok {
		w.metaKey = key
		w.metaBuf.Reset()
	}
	if w.skip > 0 || w.sp.skip[name] || w.sp.skipIf != nil && w.sp.skipIf(name, t.Attr) {
		fr.skipped = true
		w.skip++
		w.stack = append(w.stack, fr)
		return nil
	}
	if w.sp.onStart != nil {
		w.sp.onStart(w, name, t.Attr)
	}
	if w.sp.quote[name] {
		if err := w.flush(); err != nil {
			return err
		}
		w.quoted++
		fr.quote = true
	}
	if w.prov == nil && w.sp.groupHeading != nil && w.sp.groupHeading(w.parent(), name) {
		w.pendingBuf = &strings.Builder{}
		fr.capture = w.pendingBuf
		w.stack = append(w.stack, fr)
		return nil
	}
	if w.prov == nil && w.quoted == 0 && w.sp.isProvision(name, t.Attr) {
		if err := w.flush(); err != nil {
			return err
		}
		p := &provState{depth: len(w.stack), attrs: t.Attr}
		for _, f := range w.stack {
			p.ancestors = append(p.ancestors, f.name)
		}
		if w.pendingHeading != "" {
			p.heading.WriteString(w.pendingHeading)
			p.headingDone = true
			w.pendingHeading = ""
		}
		w.prov = p
		w.stack = append(w.stack, fr)
		return nil
	}
	if p := w.prov; p != nil && !p.bodyBegun && w.sp.fields[name] {
		fr.capture = &strings.Builder{}
		fr.field = true
		w.stack = append(w.stack, fr)
		return nil
	}
	isLabel, isHeading := w.sp.label[name], w.sp.heading[name]
	if p := w.prov; p != nil && !p.bodyBegun && w.line.Len() == 0 && (isLabel && !p.labelDone || isHeading && !p.headingDone) {
		if isLabel && !p.labelDone {
			fr.capture = &p.label
		} else {
			fr.capture = &p.heading
		}
		w.stack = append(w.stack, fr)
		return nil
	}
	switch {
	case w.prov == nil && w.inHeading():
		// Inside a heading line everything runs on: "PART I Old Age
		// Security Pension".
		fr.labelEl = isLabel
	case w.prov == nil && (w.sp.headBlock[name] || (isLabel || isHeading) && (w.sp.levels == nil || w.sp.levels[w.parent()])):
		if !(w.headingLine && w.onlyLabel) {
			if err := w.flush(); err != nil {
				return err
			}
		}
		w.headingLine = true
		fr.heading = true
		fr.labelEl = isLabel
	case isLabel:
		if !w.onlyLabel {
			if err := w.flush(); err != nil {
				return err
			}
		}
		fr.labelEl = true
		if w.sp.wrapLabels {
			fr.capture = &strings.Builder{}
			fr.wrap = true
		}
	case w.sp.cell[name] || commonCell[name]:
		if w.line.Len() > 0 && !w.onlyLabel {
			w.line.WriteString(" | ")
			w.space = false
		}
	case w.sp.block[name] || commonBlock[name] || isHeading || w.sp.headBlock[name]:
		fr.block = true
		if !w.onlyLabel {
			if err := w.flush(); err != nil {
				return err
			}
		}
	}
	w.stack = append(w.stack, fr)
	return nil
}

func (w *walker) parent() string {
	if len(w.stack) == 0 {
		return ""
	}
	return w.stack[len(w.stack)-1].name
}

func (w *walker) inHeading() bool {
	for i := len(w.stack) - 1; i >= 0; i-- {
		if w.stack[i].heading {
			return true
		}
	}
	return false
}

func (w *walker) close() error {
	fr := w.stack[len(w.stack)-1]
	w.stack = w.stack[:len(w.stack)-1]
	if key, ok := w.sp.meta[fr.name]; ok && w.metaKey == key {
		if _, had := w.meta[key]; !had {
			w.meta[key] = strings.TrimSpace(w.metaBuf.String())
		}
		w.metaKey = ""
	}
	if fr.skipped {
		w.skip--
		return nil
	}
	if fr.quote {
		defer func() { w.quoted-- }()
		if err := w.flush(); err != nil {
			return err
		}
	}
	if key, ok := w.sp.meta[fr.name]; ok && w.metaKey == key {
		w.meta[key] = strings.TrimSpace(w.metaBuf.String())
		w.metaKey = ""
	}
	if fr.wrap {
		// legislation.gov.uk and New Zealand mark a subsection "1" and
		// print it "(1)": so does the text, or the subsection would
		// read as a section of that number.
		label := collapse(fr.capture.String())
		if label != "" && !strings.HasPrefix(label, "(") {
			label = "(" + label + ")"
		}
		if label != "" {
			if w.prov != nil {
				w.prov.bodyBegun = true
			}
			appendWords(&w.line, label, &w.space)
		}
		w.onlyLabel = true
		w.space = true
		return nil
	}
	if fr.field {
		if p := w.prov; p != nil {
			if p.fields == nil {
				p.fields = map[string]string{}
			}
			if _, had := p.fields[fr.name]; !had {
				p.fields[fr.name] = collapse(fr.capture.String())
			}
		}
		return nil
	}
	if fr.capture != nil {
		if fr.capture == w.pendingBuf {
			w.pendingHeading = collapse(w.pendingBuf.String())
			w.pendingBuf = nil
			return nil
		}
		p := w.prov
		if fr.capture == &p.label {
			p.labelDone = true
		} else {
			p.headingDone = true
		}
		return nil
	}
	if w.prov != nil && len(w.stack) == w.prov.depth {
		return w.endProvision()
	}
	switch {
	case w.prov == nil && w.inHeading():
		w.space = true
	case fr.heading && fr.labelEl:
		w.onlyLabel = true
		w.space = true
	case fr.heading:
		return w.flush()
	case fr.labelEl:
		w.onlyLabel = true
		w.space = true
	case fr.block:
		return w.flush()
	case fr.name == "BR" || fr.name == "br":
		return w.flush()
	}
	return nil
}

// text adds character data to where it belongs.
func (w *walker) text(s string) error {
	if w.metaKey != "" && w.metaBuf.Len() < maxMeta {
		w.metaBuf.WriteString(s)
	}
	if w.skip > 0 || w.metaKey != "" && w.sp.metaOnly[w.metaKey] {
		return nil
	}
	var dst *strings.Builder
	for i := len(w.stack) - 1; i >= 0; i-- {
		if c := w.stack[i].capture; c != nil {
			dst = c
			break
		}
	}
	if dst != nil {
		dst.WriteString(s)
		dst.WriteByte(' ')
		return nil
	}
	if strings.TrimSpace(s) == "" {
		if s != "" {
			w.space = true
		}
		return nil
	}
	if w.prov != nil {
		w.prov.bodyBegun = true
	}
	w.onlyLabel = false
	appendWords(&w.line, s, &w.space)
	return nil
}

// appendWords writes s's words to b with single spaces, a space before
// the first when *space is set (white space ended what came before) and
// b is not empty.
func appendWords(b *strings.Builder, s string, space *bool) {
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if unicode.IsSpace(r) {
			*space = true
			s = s[n:]
			continue
		}
		if r < ' ' || r == 0x7f {
			s = s[n:]
			continue
		}
		if *space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		*space = false
		if r == utf8.RuneError && n == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
}

func collapse(s string) string {
	var b strings.Builder
	sp := false
	appendWords(&b, s, &sp)
	return b.String()
}

// flush ends the current line.
func (w *walker) flush() error {
	line := w.line.String()
	w.line.Reset()
	w.space = false
	w.onlyLabel = false
	heading := w.headingLine
	w.headingLine = false
	if line == "" {
		return nil
	}
	switch {
	case w.quoted > 0:
		line = QuoteMark + line
	case heading && w.prov == nil:
		line = HeadingMark + line
	}
	if w.prov != nil {
		w.prov.body = append(w.prov.body, line)
		return nil
	}
	return w.emit(line, nil)
}

// endProvision writes the provision read: its first line (label and
// heading), then its body.
func (w *walker) endProvision() error {
	if err := w.flush(); err != nil {
		return err
	}
	p := w.prov
	w.prov = nil
	label, heading := collapse(p.label.String()), collapse(p.heading.String())
	if w.sp.splitHead != nil && label == "" {
		label, heading = w.sp.splitHead(heading)
	}
	if w.sp.labelOf != nil {
		label = w.sp.labelOf(label)
	}
	if w.sp.compose != nil {
		label, heading = w.sp.compose(p)
	}
	if label == "" {
		// Not a provision after all (a German norm that is a heading or
		// the title): its heading is a heading line, its text follows.
		if heading != "" {
			if err := w.emit(HeadingMark+heading, nil); err != nil {
				return err
			}
		}
		for _, l := range p.body {
			if err := w.emit(l, nil); err != nil {
				return err
			}
		}
		return nil
	}
	first := label
	if heading != "" {
		first += " " + heading
	}
	s := &start{label: label, heading: heading}
	s.id, s.address = w.sp.identify(w, label, p)
	if err := w.emit(first, s); err != nil {
		return err
	}
	for _, l := range p.body {
		if err := w.emit(l, nil); err != nil {
			return err
		}
	}
	return nil
}

// Elements that break lines or separate cells in every form: tables.
var (
	commonBlock = set("row", "tr", "ROW", "p", "P", "li", "caption", "table", "TABLE")
	commonCell  = set("entry", "td", "th", "ENT", "TD", "TH")
)

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
