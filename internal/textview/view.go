package textview

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"

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
func (v *View) NormalizeText(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	for line := range strings.Lines(text) {
		fields := strings.FieldsFunc(line, isSpace)
		if len(fields) == 0 {
			continue
		}
		s := strings.Join(fields, " ")
		if v != nil && v.ignored(s) {
			continue
		}
		b.WriteString(s)
		b.WriteByte('\n')
	}
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
