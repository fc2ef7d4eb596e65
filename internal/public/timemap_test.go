package public_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// rfc7089TimeMap is the TimeMap of RFC 7089, section 5.1.1 (its last
// link without the trailing comma and ellipsis of the figure).
const rfc7089TimeMap = `<http://a.example.org>;rel="original",
<http://arxiv.example.net/timemap/http://a.example.org>
  ; rel="self";type="application/link-format"
  ; from="Tue, 20 Jun 2000 18:02:59 GMT"
  ; until="Wed, 09 Apr 2008 20:30:51 GMT",
<http://arxiv.example.net/timegate/http://a.example.org>
  ; rel="timegate",
<http://arxiv.example.net/web/20000620180259/http://a.example.org>
  ; rel="first memento";datetime="Tue, 20 Jun 2000 18:02:59 GMT"
  ; license="http://creativecommons.org/publicdomain/zero/1.0/",
<http://arxiv.example.net/web/20091027204954/http://a.example.org>
   ; rel="last memento";datetime="Tue, 27 Oct 2009 20:49:54 GMT"
   ; license="http://creativecommons.org/publicdomain/zero/1.0/",
<http://arxiv.example.net/web/20000621011731/http://a.example.org>
  ; rel="memento";datetime="Wed, 21 Jun 2000 01:17:31 GMT"
  ; license="http://creativecommons.org/publicdomain/zero/1.0/",
<http://arxiv.example.net/web/20000621044156/http://a.example.org>
  ; rel="memento";datetime="Wed, 21 Jun 2000 04:41:56 GMT"
  ; license="http://creativecommons.org/publicdomain/zero/1.0/"
`

// link is one link-value of a link-format document (RFC 6690, section 2).
type link struct {
	target string
	params map[string]string
}

// parseLinkFormat reads an application/link-format document as RFC 6690
// writes its grammar, with the whitespace between the parts that RFC
// 7089's examples put there: written here apart from the writer, so that
// the two do not share a misreading.
func parseLinkFormat(doc string) ([]link, error) {
	var links []link
	i := 0
	ws := func() {
		for i < len(doc) && strings.ContainsRune(" \t\r\n", rune(doc[i])) {
			i++
		}
	}
	// parmname = 1*( ALPHA / DIGIT / "!" / "#" / "$" / "&" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" ), RFC 5987 and RFC 6690.
	isName := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$&+-.^_`|~*", c) >= 0
	}
	for {
		ws()
		if i == len(doc) {
			if len(links) == 0 {
				return nil, fmt.Errorf("no link")
			}
			return links, nil
		}
		if doc[i] != '<' {
			return nil, fmt.Errorf("offset %d: %q where a link's '<' belongs", i, doc[i])
		}
		end := strings.IndexByte(doc[i:], '>')
		if end < 0 {
			return nil, fmt.Errorf("offset %d: '<' never closed", i)
		}
		l := link{target: doc[i+1 : i+end], params: map[string]string{}}
		if strings.ContainsAny(l.target, "<> \n\"") {
			return nil, fmt.Errorf("offset %d: a URI with a space, quote or bracket: %q", i, l.target)
		}
		i += end + 1
		for {
			ws()
			if i == len(doc) || doc[i] == ',' {
				break
			}
			if doc[i] != ';' {
				return nil, fmt.Errorf("offset %d: %q after a link, want ';' or ','", i, doc[i])
			}
			i++
			ws()
			start := i
			for i < len(doc) && isName(doc[i]) {
				i++
			}
			name := strings.ToLower(doc[start:i])
			if name == "" {
				return nil, fmt.Errorf("offset %d: a parameter without a name", i)
			}
			if _, dup := l.params[name]; dup && name == "rel" {
				return nil, fmt.Errorf("offset %d: rel twice in one link", i) // RFC 8288, section 3.3
			}
			ws()
			value := ""
			if i < len(doc) && doc[i] == '=' {
				i++
				ws()
				if i < len(doc) && doc[i] == '"' {
					i++
					var b strings.Builder
					for ; i < len(doc) && doc[i] != '"'; i++ {
						if doc[i] == '\\' && i+1 < len(doc) {
							i++
						}
						b.WriteByte(doc[i])
					}
					if i == len(doc) {
						return nil, fmt.Errorf("offset %d: a quoted string never closed", start)
					}
					i++
					value = b.String()
				} else {
					vs := i
					for i < len(doc) && !strings.ContainsRune(";, \t\r\n", rune(doc[i])) {
						i++
					}
					value = doc[vs:i]
				}
			}
			l.params[name] = value
		}
		links = append(links, l)
		if i < len(doc) {
			i++ // the ','
		}
	}
}

// checkTimeMap holds a parsed TimeMap to RFC 7089's rules (sections 4 and
// 5.1.1): one original resource; a self link of type
// application/link-format whose from and until are the first and last
// memento's datetimes; each memento with a datetime in the HTTP date
// format, at its own URI; first memento the earliest, last memento the
// latest. It returns the mementos' datetimes by URI.
func checkTimeMap(links []link) (map[string]time.Time, error) {
	mementos := map[string]time.Time{}
	var originals int
	var self *link
	var first, last, earliest, latest time.Time
	for k := range links {
		l := &links[k]
		rels := strings.Fields(l.params["rel"])
		if len(rels) == 0 {
			return nil, fmt.Errorf("<%s> has no rel", l.target)
		}
		has := func(r string) bool {
			for _, x := range rels {
				if x == r {
					return true
				}
			}
			return false
		}
		if has("original") {
			originals++
		}
		if has("self") {
			if self != nil {
				return nil, fmt.Errorf("two self links")
			}
			self = l
			if l.params["type"] != "application/link-format" {
				return nil, fmt.Errorf("self link type %q", l.params["type"])
			}
		}
		if !has("memento") {
			continue
		}
		at, err := http.ParseTime(l.params["datetime"])
		if err != nil || !strings.HasSuffix(l.params["datetime"], " GMT") || at.Format(http.TimeFormat) != l.params["datetime"] {
			return nil, fmt.Errorf("memento <%s>: datetime %q is not an HTTP date (RFC 7231 IMF-fixdate)", l.target, l.params["datetime"])
		}
		if _, dup := mementos[l.target]; dup {
			return nil, fmt.Errorf("memento <%s> listed twice", l.target)
		}
		mementos[l.target] = at
		if earliest.IsZero() || at.Before(earliest) {
			earliest = at
		}
		if at.After(latest) {
			latest = at
		}
		if has("first") {
			first = at
		}
		if has("last") {
			last = at
		}
	}
	if originals != 1 {
		return nil, fmt.Errorf("%d original links, want 1", originals)
	}
	if len(mementos) > 0 {
		if !first.Equal(earliest) || !last.Equal(latest) {
			return nil, fmt.Errorf("first memento %s, last %s; the earliest is %s, the latest %s", first, last, earliest, latest)
		}
		if self != nil && self.params["from"] != "" {
			from, _ := http.ParseTime(self.params["from"])
			if !from.Equal(earliest) {
				return nil, fmt.Errorf("self from %q is not the first memento's datetime %s", self.params["from"], earliest)
			}
		}
	}
	return mementos, nil
}

// TestLinkFormatParserReadsRFC7089: the test's parser reads RFC 7089's
// own TimeMap as the RFC describes it, and refuses broken documents.
func TestLinkFormatParserReadsRFC7089(t *testing.T) {
	links, err := parseLinkFormat(rfc7089TimeMap)
	if err != nil {
		t.Fatal(err)
	}
	if len(links) != 7 {
		t.Fatalf("%d links, want 7", len(links))
	}
	if links[1].params["until"] != "Wed, 09 Apr 2008 20:30:51 GMT" || links[2].params["rel"] != "timegate" || links[3].params["license"] != "http://creativecommons.org/publicdomain/zero/1.0/" {
		t.Errorf("misread: %+v", links)
	}
	mementos, err := checkTimeMap(links)
	if err != nil {
		t.Fatal(err)
	}
	if len(mementos) != 4 || !mementos["http://arxiv.example.net/web/20000621011731/http://a.example.org"].Equal(time.Date(2000, 6, 21, 1, 17, 31, 0, time.UTC)) {
		t.Errorf("mementos %v", mementos)
	}
	for _, bad := range []string{
		``,
		`<http://a.example.org;rel="original"`,
		`<http://a.example.org>;rel="original" <http://b>`,
		`<http://a.example.org>;rel="original;`,
		`<http://a.example.org>;="x"`,
	} {
		if _, err := parseLinkFormat(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	for _, bad := range []string{
		`<http://a>;rel="memento";datetime="Tue, 20 Jun 2000 18:02:59 GMT"`,                                                                                                        // no original
		`<http://a>;rel="original",<http://m>;rel="first last memento";datetime="2000-06-20T18:02:59Z"`,                                                                            // not an HTTP date
		`<http://a>;rel="original",<http://m>;rel="first memento";datetime="Wed, 21 Jun 2000 01:17:31 GMT",<http://n>;rel="last memento";datetime="Tue, 20 Jun 2000 18:02:59 GMT"`, // first after last
	} {
		links, err := parseLinkFormat(bad)
		if err != nil {
			t.Fatalf("%q: %v", bad, err)
		}
		if _, err := checkTimeMap(links); err == nil {
			t.Errorf("%q passed as a TimeMap", bad)
		}
	}
}

// TestTimeMap: a source's TimeMap lists every set of bytes it served at
// the time it was first captured (the response's time when the index
// keeps it), its URI where the stores serve the bytes, with the original
// address and the TimeMap's own; bytes that are not the document are
// left out, and a page links the TimeMap.
func TestTimeMap(t *testing.T) {
	in, rules := siteExample(t)
	files := siteFiles(t, in, rules)
	doc := string(files[public.TimeMapOf("xa-rates")])
	links, err := parseLinkFormat(doc)
	if err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	mementos, err := checkTimeMap(links)
	if err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	a, b := string(sumOf([]byte("a"))), string(sumOf([]byte("b")))
	if len(mementos) != 2 || !mementos[bytesBase+a].Equal(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)) || !mementos[bytesBase+b].Equal(time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("mementos %v\n%s", mementos, doc)
	}
	if links[0].target != "https://www.example.gov/rates" || links[0].params["rel"] != "original" {
		t.Errorf("the first link is %+v, want the original", links[0])
	}
	if self := links[1]; self.params["rel"] != "self" || !strings.HasSuffix(self.target, "/"+public.TimeMapOf("xa-rates")) || !strings.HasPrefix(self.target, "https://") ||
		self.params["from"] != "Sun, 01 Nov 2026 00:00:00 GMT" || self.params["until"] != "Tue, 03 Nov 2026 00:00:00 GMT" {
		t.Errorf("the self link is %+v", self)
	}

	// The response's time, a capture that is not the document, and no
	// store serving the bytes.
	fetched := store.Entry{SHA256: sumOf([]byte("x")), FirstSeen: "2026-11-02", Fetched: "2026-11-02T06:12:09Z"}
	challenge := store.Entry{SHA256: sumOf([]byte("challenge")), FirstSeen: "2026-11-03", NotDocument: "a bot challenge"}
	doc = string(public.TimeMap("https://www.example.gov/x", "", []store.Entry{fetched, challenge}, testBytesURL))
	links, err = parseLinkFormat(doc)
	if err != nil {
		t.Fatal(err)
	}
	if mementos, err = checkTimeMap(links); err != nil || len(mementos) != 1 || mementos[bytesBase+string(fetched.SHA256)].Format(time.RFC3339) != fetched.Fetched || links[1].params["rel"] != "first last memento" {
		t.Errorf("%v %v\n%s", mementos, err, doc)
	}
	doc = string(public.TimeMap("https://www.example.gov/x", "", []store.Entry{fetched}, nil))
	if links, err = parseLinkFormat(doc); err != nil || len(links) != 1 {
		t.Errorf("with no store serving bytes: %v\n%s", err, doc)
	}
}
