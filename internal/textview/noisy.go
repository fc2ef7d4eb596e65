package textview

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/taxkernel/taxkernelbot/internal/view"
)

// Check is one fetch of a source, as far as blinking goes: the hash of the
// raw bytes and the Hash of their normalised text under the default view.
type Check struct {
	Raw, View string
}

// BlinkFetches is how many fetches in a row must bring new bytes with the
// same default view before a source counts as noisy.
const BlinkFetches = 3

// Blinks reports whether a source blinks: on each of its last BlinkFetches
// fetches (checks oldest first; BlinkFetches+1 checks are needed) the raw
// hash changed while the default view's hash did not. Such a source
// records no change, but its report lists it as noisy, once.
func Blinks(checks []Check) bool {
	if len(checks) < BlinkFetches+1 {
		return false
	}
	last := checks[len(checks)-BlinkFetches-1:]
	for i := 1; i < len(last); i++ {
		if last[i].Raw == last[i-1].Raw || last[i].View != last[i-1].View {
			return false
		}
	}
	return true
}

// StartsBlinking reports whether checks (oldest first, the newest last)
// make the source blink now but did not one fetch earlier: the moment its
// report gains the "noisy sources" entry, so that the report changes once
// and not at every fetch.
func StartsBlinking(checks []Check) bool {
	return Blinks(checks) && !Blinks(checks[:len(checks)-1])
}

// Doc is one fetched document: its bytes and the Content-Type served.
type Doc struct {
	Raw []byte
	// Open, when Raw is nil, reads the bytes (a held blob, checked against
	// its hash on the way), and Size is their length: such a document is
	// streamed to the extracting process, never held here whole.
	Open        func() (io.ReadCloser, error)
	Size        int64
	ContentType string
}

func (d Doc) size() int64 {
	if d.Raw != nil || d.Open == nil {
		return int64(len(d.Raw))
	}
	return d.Size
}

// readDoc reads a Doc's bytes through its Open, refusing more than max.
func readDoc(d Doc, max int64) ([]byte, error) {
	if d.Size > max {
		return nil, fmt.Errorf("%d bytes is over the %d-byte limit", d.Size, max)
	}
	rc, err := d.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	raw, err := io.ReadAll(io.LimitReader(rc, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(raw)) > max {
		return nil, fmt.Errorf("over the %d-byte limit", max)
	}
	if raw == nil {
		raw = []byte{}
	}
	return raw, nil
}

// Suggest proposes a view for a source from consecutive fetches of it
// (oldest first) that differ: CSS selectors for the HTML elements whose
// machinery or wording changed (a token in <meta> or a hidden input, a
// rotating banner), and regular expressions for changed lines that differ
// only in their numbers ("Page generated at 22:14:03"). It reports whether
// the view, applied to every doc, makes their normalised texts all equal;
// a view that does not is still returned, for a person to finish.
func Suggest(ctx context.Context, docs []Doc, lim Limits) (view.Spec, bool) {
	var spec view.Spec
	docs = slices.Clone(docs)
	for i, d := range docs {
		if d.Raw != nil || d.Open == nil {
			continue
		}
		// Read back from the store, for the HTML comparison: only one
		// source's pair at a time, and only within the input limit.
		raw, err := readDoc(d, lim.withDefaults().MaxInput)
		if err != nil {
			return spec, false
		}
		docs[i].Raw = raw
	}
	addDrop := func(sel string) {
		if sel != "" && !slices.Contains(spec.Drop, sel) && view.CheckSelector(sel) == nil {
			spec.Drop = append(spec.Drop, sel)
		}
	}
	addIgnore := func(re string) {
		if !slices.Contains(spec.Ignore, re) && view.CheckIgnore(re) == nil {
			spec.Ignore = append(spec.Ignore, re)
		}
	}
	for i := 1; i < len(docs); i++ {
		a, b := docs[i-1], docs[i]
		if k, _ := kindOf(b.Raw, b.ContentType); k == KindHTML {
			da, errA := html.Parse(strings.NewReader(string(a.Raw)))
			db, errB := html.Parse(strings.NewReader(string(b.Raw)))
			if errA == nil && errB == nil {
				var numeric []string
				comparePair(da, db, addDrop, &numeric)
				for _, line := range numeric {
					addIgnore(generalize(line))
				}
			}
			continue
		}
		// Other kinds: the changed lines of the text, generalised.
		ta := extract(ctx, a, nil, lim)
		tb := extract(ctx, b, nil, lim)
		for _, o := range diffLines(splitLines((*View)(nil).NormalizeText(ta.Text)), splitLines((*View)(nil).NormalizeText(tb.Text)), 5000) {
			if o.Op == '+' && hasDigit(o.Text) {
				addIgnore(generalize(o.Text))
			}
		}
	}
	v, err := Compile(spec)
	if err != nil || len(docs) == 0 {
		return spec, false
	}
	first := ""
	for i, d := range docs {
		h := v.NormalizedHash(extract(ctx, d, v, lim).Text)
		if i == 0 {
			first = h
		} else if h != first {
			return spec, false
		}
	}
	return spec, true
}

// comparePair walks two parses of a page side by side. An element the
// default view already hides (meta, hidden inputs, scripts) whose
// attributes or content changed is named by a selector; a text that
// changed is ignored by a regular expression of its line when only its
// numbers changed (numeric collects those texts), and otherwise dropped by
// the selector of its nearest element with an id or a class.
func comparePair(a, b *html.Node, drop func(string), numeric *[]string) {
	if a.Type != b.Type || a.DataAtom != b.DataAtom || (a.Type == html.ElementNode && a.Data != b.Data) {
		drop(selectorOf(b.Parent))
		return
	}
	switch b.Type {
	case html.TextNode:
		if a.Data != b.Data {
			ta, tb := strings.Join(strings.FieldsFunc(a.Data, isSpace), " "), strings.Join(strings.FieldsFunc(b.Data, isSpace), " ")
			switch {
			case ta == tb:
			case hasDigit(tb) && !inTable(b) && digitsOut.ReplaceAllString(ta, "0") == digitsOut.ReplaceAllString(tb, "0"):
				*numeric = append(*numeric, lineOf(b))
			default:
				drop(selectorOf(b.Parent))
			}
		}
		return
	case html.ElementNode:
		if skipped[b.DataAtom] || hidden(b) {
			if !sameAttrs(a, b) || html.UnescapeString(render(a)) != html.UnescapeString(render(b)) {
				drop(machinerySelector(b))
			}
			return
		}
	}
	ca, cb := children(a), children(b)
	if len(ca) != len(cb) {
		drop(selectorOf(b))
		return
	}
	for i := range ca {
		comparePair(ca[i], cb[i], drop, numeric)
	}
}

var digitsOut = regexp.MustCompile(`\d+`)

// inTable reports a node inside a table cell: a figure there is content
// (a rate, a threshold), never a stamp to ignore.
func inTable(n *html.Node) bool {
	for e := n.Parent; e != nil; e = e.Parent {
		if e.DataAtom == atom.Td || e.DataAtom == atom.Th {
			return true
		}
	}
	return false
}

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

func children(n *html.Node) []*html.Node {
	var out []*html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.CommentNode {
			continue
		}
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) == "" {
			continue
		}
		out = append(out, c)
	}
	return out
}

func sameAttrs(a, b *html.Node) bool {
	return slices.Equal(a.Attr, b.Attr)
}

func render(n *html.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

// lineOf is the text of the line a text node belongs to: the text of its
// nearest block element.
func lineOf(n *html.Node) string {
	e := n.Parent
	for e != nil && e.Type == html.ElementNode && !blocks[e.DataAtom] {
		e = e.Parent
	}
	if e == nil {
		e = n.Parent
	}
	out := &lines{max: 1 << 20}
	w := &htmlWriter{ctx: context.Background(), out: out}
	w.children(e)
	w.flush()
	first, _, _ := strings.Cut(out.String(), "\n")
	return first
}

// generalize turns a line into an anchored regular expression in which
// every run of digits may be any number.
func generalize(line string) string {
	parts := digitsOut.Split(line, -1)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return "^" + strings.Join(parts, `\d+`) + "$"
}

var simpleName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

// selectorOf names n or its nearest ancestor with an id or a class, as a
// CSS selector; "" when there is none short of <body>.
func selectorOf(n *html.Node) string {
	for depth := 0; n != nil && n.Type == html.ElementNode && depth < 6; n, depth = n.Parent, depth+1 {
		if n.DataAtom == atom.Body || n.DataAtom == atom.Html || n.DataAtom == atom.Main {
			return ""
		}
		if id := attr(n, "id"); simpleName.MatchString(id) {
			return "#" + id
		}
		for _, c := range strings.Fields(attr(n, "class")) {
			if simpleName.MatchString(c) {
				return n.Data + "." + c
			}
		}
	}
	return ""
}

// machinerySelector names an element the default view hides: by its name
// (meta, input) or id, else by its tag.
func machinerySelector(n *html.Node) string {
	if name := attr(n, "name"); name != "" && !strings.ContainsAny(name, `"\`) {
		return fmt.Sprintf(`%s[name="%s"]`, n.Data, name)
	}
	if id := attr(n, "id"); simpleName.MatchString(id) {
		return "#" + id
	}
	return n.Data
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}
