package audit

import (
	"bytes"
	"encoding/hex"
	"encoding/xml"
	"io"
	"net/url"
	"path"
	"regexp"
	"strings"
	"unicode/utf16"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// pageFacts is what an HTML page says of itself.
type pageFacts struct {
	title    string
	tables   int // <table> elements
	docLinks int // links to PDFs and spreadsheets
}

// readPage reads a page once, as a tokenizer: linear in its size.
func readPage(body io.Reader) pageFacts {
	var p pageFacts
	z := html.NewTokenizer(body)
	z.SetMaxBuf(maxToken) // a token longer than that ends the reading: what was read stands
	var in atom.Atom      // the title or first h1 being read
	var text, h1 strings.Builder
	seenTitle, seenH1 := false, false
	for {
		switch z.Next() {
		case html.ErrorToken:
			p.title = clean(text.String())
			if p.title == "" {
				p.title = clean(h1.String())
			}
			return p
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch a := atom.Lookup(name); a {
			case atom.Table:
				p.tables++
			case atom.Title:
				if !seenTitle {
					in, seenTitle = a, true
				}
			case atom.H1:
				if !seenH1 {
					in, seenH1 = a, true
				}
			case atom.A:
				for hasAttr {
					var k, v []byte
					k, v, hasAttr = z.TagAttr()
					if string(k) == "href" && documentLink(string(v)) {
						p.docLinks++
					}
				}
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if a := atom.Lookup(name); a == in {
				in = 0
			}
		case html.TextToken:
			switch in {
			case atom.Title:
				if text.Len() < 4*maxTitle {
					text.Write(z.Text())
				}
			case atom.H1:
				if h1.Len() < 4*maxTitle {
					h1.Write(z.Text())
				}
			}
		}
	}
}

// maxToken bounds the tokenizer's buffer: no tag or text run of a real
// page is near it, and a page of one endless token costs no more.
const maxToken = 256 << 10

// documentLink says whether an href leads to a PDF or a spreadsheet.
func documentLink(href string) bool {
	u, err := url.Parse(strings.TrimSpace(href))
	if err != nil {
		return false
	}
	switch strings.ToLower(path.Ext(u.Path)) {
	case ".pdf", ".xls", ".xlsx", ".ods", ".csv":
		return true
	}
	return false
}

// pdfTitleRE finds a PDF's document information Title, a literal or a
// hex string, and XMP's dc:title.
var (
	pdfTitleRE = regexp.MustCompile(`/Title\s*(\((?:\\.|[^\\)])*\)|<[0-9A-Fa-f\s]*>)`)
	xmpTitleRE = regexp.MustCompile(`(?s)<dc:title>.*?<rdf:li[^>]*>(.*?)</rdf:li>`)
	fileNameRE = regexp.MustCompile(`\.(docx?|pdf|xlsx?|indd|rtf)$`)
)

// pdfTitle is a PDF's own title, "" when it has none worth showing (a
// word processor's file name is not a title).
func pdfTitle(body []byte) string {
	var t string
	if m := xmpTitleRE.FindSubmatch(body); m != nil {
		t = html.UnescapeString(string(m[1]))
	} else if m := pdfTitleRE.FindSubmatch(body); m != nil {
		t = pdfString(m[1])
	}
	t = clean(t)
	lower := strings.ToLower(t)
	switch {
	case lower == "" || lower == "untitled" || strings.HasPrefix(lower, "microsoft word - "):
		return ""
	case fileNameRE.MatchString(lower):
		return ""
	}
	return t
}

// pdfString decodes a PDF string object: a literal (escapes undone) or a
// hex string, in PDFDocEncoding (read as Latin-1) or UTF-16BE with BOM.
func pdfString(s []byte) string {
	var raw []byte
	if s[0] == '<' {
		h := bytes.Map(func(r rune) rune {
			if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
				return -1
			}
			return r
		}, s[1:len(s)-1])
		if len(h)%2 == 1 {
			h = append(h, '0')
		}
		raw = make([]byte, hex.DecodedLen(len(h)))
		if _, err := hex.Decode(raw, h); err != nil {
			return ""
		}
	} else {
		in := s[1 : len(s)-1]
		for i := 0; i < len(in); i++ {
			c := in[i]
			if c != '\\' || i+1 == len(in) {
				raw = append(raw, c)
				continue
			}
			i++
			switch e := in[i]; e {
			case 'n':
				raw = append(raw, '\n')
			case 'r':
				raw = append(raw, '\r')
			case 't':
				raw = append(raw, '\t')
			case 'b', 'f':
			case '0', '1', '2', '3', '4', '5', '6', '7':
				v := int(e - '0')
				for k := 0; k < 2 && i+1 < len(in) && in[i+1] >= '0' && in[i+1] <= '7'; k++ {
					i++
					v = v*8 + int(in[i]-'0')
				}
				raw = append(raw, byte(v))
			default:
				raw = append(raw, e)
			}
		}
	}
	if len(raw) >= 2 && raw[0] == 0xFE && raw[1] == 0xFF {
		u := make([]uint16, 0, len(raw)/2)
		for i := 2; i+1 < len(raw); i += 2 {
			u = append(u, uint16(raw[i])<<8|uint16(raw[i+1]))
		}
		return string(utf16.Decode(u))
	}
	r := make([]rune, len(raw))
	for i, b := range raw {
		r[i] = rune(b)
	}
	return string(r)
}

// titleElements are the elements that hold a document's title in the
// XML forms legislation is published in: Justice Canada (ShortTitle,
// LongTitle), legislation.gov.uk's CLML and USLM (dc:title), New
// Zealand's (title), gesetze-im-internet.de (langue, jurabk).
var titleElements = map[string]bool{"title": true, "ShortTitle": true, "LongTitle": true, "longTitle": true, "shortTitle": true, "docTitle": true, "langue": true}

// xmlTitle is the text of the first title element of an XML document.
func xmlTitle(body io.Reader) string {
	d := xml.NewDecoder(body)
	d.Strict = false
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	depth := 0
	var text strings.Builder
	for {
		tok, err := d.RawToken()
		if err != nil {
			return ""
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth > 0 {
				depth++
			} else if titleElements[t.Name.Local] {
				depth = 1
			}
		case xml.EndElement:
			if depth > 0 {
				depth--
				if depth == 0 {
					if s := clean(text.String()); s != "" {
						return s
					}
					text.Reset()
				}
			}
		case xml.CharData:
			if depth > 0 && text.Len() < 4*maxTitle {
				text.Write(t)
			}
		}
	}
}
