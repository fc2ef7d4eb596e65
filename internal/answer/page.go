package answer

import (
	"bytes"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// view is what one pass of the tokenizer finds in a head: only what the
// rules ask about, never a tree.
type view struct {
	title    string // lower-cased, spaces collapsed
	heading  string // the first <h1>, else the first <h2>; lower-cased
	h1       bool   // heading is an <h1>
	text     int    // visible bytes, spaces aside, outside scripts and styles
	textarea bool   // the page asks for free text (a form, not a wall)
	base     string // <base href>
	refresh  refresh
	script   string // the literal URL an inline script first sends the page to
}

// refresh is the first <meta http-equiv="refresh">.
type refresh struct {
	ok    bool
	delay float64
	url   string // "" reloads the page itself
}

// headingCap bounds the text kept of a title or heading: phrases that
// say "not found" are short, and a long heading is a document's.
const headingCap = 300

func scan(head []byte) *view {
	v := &view{}
	z := html.NewTokenizer(bytes.NewReader(head))
	var (
		raw       string // the raw-text element whose content comes next
		h1, h2    strings.Builder
		inH       int // 1 or 2 while inside the heading being kept
		seenH1    bool
		seenH2    bool
		titleDone bool
	)
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			v.heading, v.h1 = normText(h1.String()), seenH1
			if !seenH1 {
				v.heading = normText(h2.String())
			}
			return v
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := rawName(z.Raw())
			// Only a start tag opens raw text: "<script/>" has none.
			open := tt == html.StartTagToken
			switch name {
			case "title":
				if open && !titleDone {
					raw = "title"
				}
			case "script":
				if open {
					raw = "skip"
					if isJS(z, hasAttr) {
						raw = "script"
					}
				}
			case "style", "noscript", "iframe", "template", "xmp", "noembed", "noframes", "plaintext":
				if open {
					raw = "skip"
				}
			case "textarea":
				v.textarea = true
				if open {
					raw = "skip"
				}
			case "meta":
				if hasAttr && !v.refresh.ok {
					v.refresh = metaRefresh(z)
				}
			case "base":
				if hasAttr && v.base == "" {
					v.base = attr(z, "href")
				}
			case "h1":
				if open && !seenH1 {
					seenH1, inH = true, 1
				}
			case "h2":
				if open && !seenH1 && !seenH2 {
					seenH2, inH = true, 2
				}
			}
		case html.EndTagToken:
			name, _ := rawName(z.Raw())
			switch name {
			case "h1":
				if inH == 1 {
					inH = 0
				}
			case "h2":
				if inH == 2 {
					inH = 0
				}
			}
			raw = ""
		case html.TextToken:
			text := z.Text()
			switch raw {
			case "title":
				v.title = normText(string(capBytes(text, headingCap)))
				titleDone = true
			case "script":
				if v.script == "" {
					v.script = scriptTarget(text)
				}
			case "skip":
			default:
				v.text += visible(text)
				switch inH {
				case 1:
					keep(&h1, text)
				case 2:
					keep(&h2, text)
				}
				// A page with this much to say is no stand-in: the rules
				// still read its title and heading, nothing further on.
				if v.text >= smallText && titleDone && seenH1 && inH == 0 {
					v.heading, v.h1 = normText(h1.String()), true
					return v
				}
			}
		}
	}
}

// tagNames are the elements scan looks at; rawName names no other.
var tagNames = map[string]string{}

func init() {
	for _, n := range []string{
		"title", "script", "style", "noscript", "iframe", "template", "xmp", "noembed", "noframes",
		"plaintext", "textarea", "meta", "base", "h1", "h2",
	} {
		tagNames[n] = n
	}
}

// rawName reads a tag's name from its raw bytes, as one of tagNames ("" for
// any other), and whether attributes follow. The tokenizer's TagName
// copies every name; a 64 KiB page has thousands of tags.
func rawName(raw []byte) (string, bool) {
	raw = bytes.TrimPrefix(bytes.TrimPrefix(raw, []byte("<")), []byte("/"))
	var buf [len("plaintext")]byte
	n := 0
	for ; n < len(raw); n++ {
		c := raw[n]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '/' || c == '>' {
			break
		}
		if n == len(buf) {
			return "", false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[n] = c
	}
	name, ok := tagNames[string(buf[:n])]
	if !ok {
		return "", false
	}
	rest := bytes.TrimLeft(raw[n:], " \t\n\r\f/")
	return name, len(rest) > 0 && rest[0] != '>'
}

func capBytes(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

func keep(sb *strings.Builder, text []byte) {
	if room := headingCap - sb.Len(); room > 0 {
		sb.Write(capBytes(text, room))
		sb.WriteByte(' ')
	}
}

// visible counts the bytes of text that are not spaces.
func visible(text []byte) int {
	n := 0
	for _, c := range text {
		switch c {
		case ' ', '\t', '\n', '\r', '\f':
		default:
			n++
		}
	}
	return n
}

// attr is the value of the current tag's attribute key ("" if absent).
func attr(z *html.Tokenizer, key string) string {
	for {
		k, val, more := z.TagAttr()
		if string(k) == key {
			return string(val)
		}
		if !more {
			return ""
		}
	}
}

// isJS reports whether a <script> holds script, not data (JSON-LD, a
// template) whose text merely mentions a location.
func isJS(z *html.Tokenizer, hasAttr bool) bool {
	if !hasAttr {
		return true
	}
	for {
		k, val, more := z.TagAttr()
		switch string(k) {
		case "src":
			return false
		case "type":
			t := strings.ToLower(strings.TrimSpace(string(val)))
			if t != "" && t != "module" && !strings.Contains(t, "javascript") && !strings.Contains(t, "ecmascript") {
				return false
			}
		}
		if !more {
			return true
		}
	}
}

func metaRefresh(z *html.Tokenizer) refresh {
	var equiv bool
	var content []byte // a slice of this tag's bytes, good until Next
	for {
		k, val, more := z.TagAttr()
		switch string(k) {
		case "http-equiv":
			equiv = bytes.EqualFold(bytes.TrimSpace(val), []byte("refresh"))
		case "content":
			content = val
		}
		if !more {
			break
		}
	}
	if !equiv {
		return refresh{}
	}
	return parseRefresh(string(capBytes(content, urlCap+64)))
}

// parseRefresh reads a refresh's content as browsers do: a delay, then
// optionally ';' or ',', optionally "url=", optionally a quoted URL.
func parseRefresh(s string) refresh {
	s = strings.TrimLeft(s, " \t\n\r\f")
	i := 0
	for i < len(s) && ('0' <= s[i] && s[i] <= '9' || s[i] == '.') {
		i++
	}
	if i == 0 {
		return refresh{}
	}
	delay, err := strconv.ParseFloat(strings.TrimRight(s[:i], "."), 64)
	if err != nil {
		// "1.2.3" and the like: the digits before the first dot are the delay.
		d, _, _ := strings.Cut(s[:i], ".")
		delay, _ = strconv.ParseFloat(d, 64)
	}
	r := refresh{ok: true, delay: delay}
	s = s[i:]
	if s == "" {
		return r
	}
	if !strings.ContainsRune(" \t\n\r\f;,", rune(s[0])) {
		return refresh{}
	}
	s = strings.TrimLeft(s, " \t\n\r\f")
	if s != "" && (s[0] == ';' || s[0] == ',') {
		s = strings.TrimLeft(s[1:], " \t\n\r\f")
	}
	if len(s) >= 3 && strings.EqualFold(s[:3], "url") {
		t := strings.TrimLeft(s[3:], " \t\n\r\f")
		if t != "" && t[0] == '=' {
			s = strings.TrimLeft(t[1:], " \t\n\r\f")
		}
	}
	if s != "" && (s[0] == '\'' || s[0] == '"') {
		q := s[0]
		s = s[1:]
		if j := strings.IndexByte(s, q); j >= 0 {
			s = s[:j]
		}
	}
	r.url = strings.TrimSpace(s)
	return r
}

// normText lower-cases a title or heading and collapses its spaces, so
// that phrases match however the page spaced or capitalised them. Text
// that is not UTF-8 is read as Latin-1, as the older German, French and
// Spanish sites serve it.
func normText(s string) string {
	if !utf8.ValidString(s) {
		rs := make([]rune, 0, len(s))
		for i := 0; i < len(s); i++ {
			rs = append(rs, rune(s[i]))
		}
		s = string(rs)
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r) || r == '\u00a0':
			space = b.Len() > 0
			continue
		case r == '\u2019' || r == '\u2018':
			r = '\''
		default:
			r = unicode.ToLower(r)
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}
