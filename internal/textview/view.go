package textview

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"sync/atomic"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"

	"github.com/taxkernel/taxkernelbot/internal/view"
)

// View is a compiled view.Spec. The nil *View is the default view.
type View struct {
	spec   view.Spec
	drop   []cascadia.SelectorGroup
	ignore []*regexp.Regexp
}

// Compile checks and compiles a view.Spec. The zero Spec compiles to nil,
// the default view.
func Compile(s view.Spec) (*View, error) {
	if s.IsZero() {
		return nil, nil
	}
	v := &View{spec: s}
	for _, sel := range s.Drop {
		if err := view.CheckSelector(sel); err != nil {
			return nil, err
		}
		g, _ := cascadia.ParseGroup(sel)
		v.drop = append(v.drop, g)
	}
	for _, expr := range s.Ignore {
		if err := view.CheckIgnore(expr); err != nil {
			return nil, err
		}
		v.ignore = append(v.ignore, regexp.MustCompile(expr))
	}
	return v, nil
}

// dropFrom removes every element a Drop selector matches.
func (v *View) dropFrom(doc *html.Node) {
	for _, sel := range v.drop {
		for _, n := range cascadia.QueryAll(doc, sel) {
			if n.Parent != nil {
				n.Parent.RemoveChild(n)
			}
		}
	}
}

// NormalizeDoc returns the text on which "changed" is decided: d's text
// under v (elements of Drop removed), without the lines Ignore matches,
// each line's white space collapsed to single spaces, empty lines removed.
// A nil v is the default view.
func (v *View) NormalizeDoc(ctx context.Context, d Doc, lim Limits) Result {
	res := extract(ctx, d, v, lim)
	res.Text = v.NormalizeText(res.Text)
	return res
}

// NormalizeText applies v's Ignore and the white-space rules to text that
// was already extracted (a stored text view, say). Drop needs the HTML, so
// it is not applied here.
//
// A text normalised already (most extracted text, and every kept text
// under the default view) is returned as it is, not copied: the copy
// begins at the first line the rules change, if any.
func (v *View) NormalizeText(text string) string {
	var b strings.Builder
	copying := false
	at := 0 // where the line being read starts in text
	for line := range strings.Lines(text) {
		start := at
		at += len(line)
		s, ok := collapsed(line)
		if !ok {
			s = collapse(line)
		}
		keep := s != "" && (v == nil || !v.ignored(s))
		if !copying {
			if keep && ok && len(line) == len(s)+1 { // the line as it is, with its "\n"
				continue
			}
			b.Grow(len(text))
			b.WriteString(text[:start])
			copying = true
		}
		if keep {
			b.WriteString(s)
			b.WriteByte('\n')
		}
	}
	if !copying {
		return text
	}
	return b.String()
}

// normalizedHashes counts the texts NormalizedHash has read
// (NormalizedHashes).
var normalizedHashes atomic.Int64

// NormalizedHashes is how many texts this process has hashed under a
// view, for the tests that bound the work of a run (a change reads the
// new bytes' text once for the hash of its default view).
func NormalizedHashes() int64 { return normalizedHashes.Load() }

// NormalizedHash is Hash(v.NormalizeText(text)), without building the
// normalised text: a text at the size limit is not held twice to be
// hashed.
func (v *View) NormalizedHash(text string) string {
	normalizedHashes.Add(1)
	h := sha256.New()
	buf := make([]byte, 0, 4096)
	v.normalize(text, func(line string) {
		if len(buf)+len(line)+1 > cap(buf) {
			h.Write(buf)
			buf = buf[:0]
		}
		if len(line)+1 > cap(buf) {
			h.Write([]byte(line))
			h.Write([]byte{'\n'})
			return
		}
		buf = append(append(buf, line...), '\n')
	})
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil))
}

// normalize calls emit with each line of text that the view keeps, its
// white space collapsed to single spaces and trimmed, blank lines left
// out.
func (v *View) normalize(text string, emit func(line string)) {
	for line := range strings.Lines(text) {
		s, ok := collapsed(line)
		if !ok {
			if s = collapse(line); s == "" {
				continue
			}
		}
		if v != nil && v.ignored(s) {
			continue
		}
		emit(s)
	}
}

// collapsed returns line without its line ending when its white space is
// already collapsed (single ASCII spaces between words, none at either
// end, no other white space, not blank): most lines of an extracted text, which then need no
// copy. ok is false when the line needs the general rule.
func collapsed(line string) (string, bool) {
	line = strings.TrimSuffix(line, "\n")
	if line == "" || line[0] == ' ' || line[len(line)-1] == ' ' {
		return "", false
	}
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c < ' ', c == ' ' && line[i+1] == ' ':
			return "", false
		case c >= 0x80 && spaceAt(line, i):
			return "", false
		}
	}
	return line, true
}

// spaceAt reports whether the UTF-8 sequence at line[i] is one of the
// spaces above ASCII that isSpace names (U+00A0, U+2007, U+202F, U+200B,
// U+FEFF): any other character, or invalid UTF-8, is part of a word, so
// a line of letters beyond ASCII (’, é, §) needs no copy either.
func spaceAt(line string, i int) bool {
	rest := line[i:]
	switch {
	case strings.HasPrefix(rest, "\u00a0"), strings.HasPrefix(rest, "\u2007"), strings.HasPrefix(rest, "\u202f"),
		strings.HasPrefix(rest, "\u200b"), strings.HasPrefix(rest, "\ufeff"):
		return true
	}
	return false
}

// collapse is line's words (runs of what is not isSpace) joined by one
// space, built in one copy: a line of megabytes (an Act's XML on one
// line) is not first listed word by word.
func collapse(line string) string {
	var b strings.Builder
	start := -1 // where the word being read began
	flush := func(end int) {
		if start < 0 {
			return
		}
		if b.Len() == 0 {
			b.Grow(len(line) - start)
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(line[start:end])
		start = -1
	}
	for i, r := range line {
		switch {
		case isSpace(r):
			flush(i)
		case start < 0:
			start = i
		}
	}
	flush(len(line))
	return b.String()
}

func (v *View) ignored(line string) bool {
	for _, re := range v.ignore {
		if re.MatchString(line) {
			return true
		}
	}
	return false
}

// Hash is the hex SHA-256 of a normalised text: two documents with the same
// Hash say the same thing under that view.
func Hash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}
