package edition

import (
	"bytes"
	"io"
	"net/url"
	"regexp"
	"strings"

	"golang.org/x/net/html"
)

// maxLinkText bounds the text of a link read (a link around a whole
// section would be a page long).
const maxLinkText = 1000

// HTMLLinks reads the links (<a href>) of an HTML page served from base,
// each resolved against it (or the page's <base href>), with its text and the line of the page's
// source it starts on; at most MaxLinks. A page that is not HTML gives
// what its tags-looking parts give, possibly nothing.
func HTMLLinks(r io.Reader, base *url.URL) []Link {
	z := html.NewTokenizer(r)
	var out []Link
	line := 1
	open := -1 // the index of the link whose text is being read
	based := false
	for len(out) < MaxLinks {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		raw := z.Raw()
		at := line
		line += bytes.Count(raw, []byte{'\n'})
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if string(name) == "base" && hasAttr && !based {
				based = true // the first <base href> is the page's (HTML's rule)
				for {
					k, v, more := z.TagAttr()
					if string(k) == "href" {
						if u, err := base.Parse(strings.TrimSpace(string(v))); err == nil {
							base = u
						}
						break
					}
					if !more {
						break
					}
				}
				continue
			}
			if string(name) != "a" || !hasAttr {
				continue
			}
			for {
				k, v, more := z.TagAttr()
				if string(k) == "href" {
					if u, err := base.Parse(strings.TrimSpace(string(v))); err == nil && (u.Scheme == "https" || u.Scheme == "http") {
						u.Fragment, u.RawFragment = "", ""
						out = append(out, Link{URL: u.String(), Line: at})
						open = len(out) - 1
					}
					break
				}
				if !more {
					break
				}
			}
		case html.TextToken:
			if open >= 0 && len(out[open].Text) < maxLinkText {
				out[open].Text += html.UnescapeString(string(raw))
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == "a" {
				open = -1
			}
		}
	}
	for i := range out {
		out[i].Text = clipText(out[i].Text)
	}
	return out
}

// writtenURL is an address as a text writes it (a PDF's text keeps no
// links): http(s):// or www., up to a space or a closing mark.
var writtenURL = regexp.MustCompile(`(?:https?://|www\.)[^\s<>"'()\[\]{}]+`)

// TextLinks reads the addresses written in a document's text, each with
// its line (1-based) as the link's text; at most MaxLinks.
func TextLinks(text string) []Link {
	var out []Link
	for i, line := range strings.Split(text, "\n") {
		for _, u := range writtenURL.FindAllString(line, -1) {
			if len(out) == MaxLinks {
				return out
			}
			u = strings.TrimRight(u, ".,;:!?")
			if strings.HasPrefix(u, "www.") {
				u = "https://" + u
			}
			out = append(out, Link{URL: u, Text: clipText(line), Line: i + 1})
		}
	}
	return out
}

func clipText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxLinkText {
		s = s[:maxLinkText]
	}
	return s
}
