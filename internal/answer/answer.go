package answer

import (
	"fmt"
	"net/http"
	"net/url"
)

// Kind names what stood in the document's place; Document when nothing did.
type Kind string

const (
	Document    Kind = ""            // it is the document (or nothing says otherwise)
	Challenge   Kind = "challenge"   // bot protection / WAF challenge or block
	HomePage    Kind = "home-page"   // redirected to the site's root
	SignIn      Kind = "sign-in"     // redirected to a login / sign-in page
	SoftMissing Kind = "soft-404"    // a 2xx "page not found"
	Maintenance Kind = "maintenance" // "down for maintenance", "service unavailable" pages
	Elsewhere   Kind = "elsewhere"   // meta refresh / JS location stub pointing to another URL
	WrongType   Kind = "wrong-type"  // HTML (or other) where the source held a PDF/XLSX/…
)

// Verdict is what an answer is, with the cause in words for a report.
type Verdict struct {
	Kind Kind
	// Vendor names the bot protection or firewall of a Challenge
	// ("Cloudflare", "Akamai", "F5 BIG-IP ASM", …), "" when unknown.
	Vendor string
	// Target is, for Elsewhere, the absolute URL the stub points to; for
	// HomePage and SignIn, the redirect's target.
	Target string
	// Words says the cause in plain words, e.g. "blocked by the site's bot
	// protection (Cloudflare challenge)"; "" exactly when Kind is Document.
	// It may quote a URL the server sent: escape it for the output.
	Words string
}

// IsDocument reports whether nothing said the answer is not the document.
func (v Verdict) IsDocument() bool { return v.Kind == Document }

// Refusal reports whether the answer counts as the site refusing us
// (Challenge), which the caller counts like a 403 toward pausing the host.
func (v Verdict) Refusal() bool { return v.Kind == Challenge }

// Answer is what a server answered, with what the source held before.
type Answer struct {
	URL    *url.URL // the URL that was asked (after any followed redirects)
	Status int
	Header http.Header
	// Head is the first bytes of the decoded body (up to HeadSize: more
	// is not read).
	Head []byte
	// Size is the whole body's size; 0 is taken as len(Head).
	Size int64
	// PriorType is the media type of the version the source holds now
	// ("" if none held).
	PriorType string
	// PriorHead is the first bytes of the held version (nil if none): a
	// marker that the held version also carries is not evidence (a rates
	// page that mentions "Access denied" in its text stays a document).
	PriorHead []byte
}

// HeadSize is as much of a body as Classify reads.
const HeadSize = 64 << 10

// Limits of a page that stands in for a document. Block pages, challenges
// and stubs say a sentence or two; a document page says far more, so a
// marker on a page with a lot to say is more likely a quotation.
const (
	smallText = 8 << 10   // visible bytes (spaces aside) of a small page
	smallSize = 256 << 10 // bytes of a small page's whole body
	tinyText  = 256       // visible bytes of a page that says nothing
)

// Classify says what a 2xx answer is — or, for a 401, 403, 405, 406, 429
// or 503 with a body, whose challenge or block it is (and, for a 503,
// whether it is a maintenance page). Any other answer is left to its
// status: Document. (AWS WAF answers its captcha with a 405, ModSecurity
// its blocks with a 406.)
//
// It leans to Document: a false "not the document" keeps a real change
// from being recorded. So each rule asks for a sign only a stand-in
// carries, on a page the size of a stand-in, that the held version did
// not carry already.
func Classify(a Answer) Verdict {
	full := a.Status >= 200 && a.Status < 300 && a.Status != 204 && a.Status != 206
	switch a.Status {
	case 401, 403, 405, 406, 429, 503:
	default:
		if !full {
			return Verdict{}
		}
	}
	c := newCheck(&a)

	if v, ok := c.challenge(); ok {
		return v
	}
	if a.Status == 503 {
		if v, ok := c.maintenance(); ok {
			return v
		}
		return Verdict{}
	}
	if !full {
		return Verdict{}
	}
	if v, ok := c.elsewhere(); ok {
		return v
	}
	if v, ok := c.softMissing(); ok {
		return v
	}
	if v, ok := c.maintenance(); ok {
		return v
	}
	if v, ok := c.wrongType(); ok {
		return v
	}
	return Verdict{}
}

// check is one Classify call: the answer and what has been read of it,
// each part read once and only when a rule asks.
type check struct {
	a      *Answer
	head   []byte
	prior  []byte
	markup bool // the answer is HTML (or close enough to carry a page)

	marks      *found // the body markers the head holds
	priorMarks *found
	page       *view
	priorPage  *view
}

func newCheck(a *Answer) *check {
	c := &check{a: a, head: clip(a.Head), prior: clip(a.PriorHead)}
	c.markup = isMarkup(a.Header.Get("Content-Type"), c.head)
	return c
}

func clip(b []byte) []byte {
	if len(b) > HeadSize {
		return b[:HeadSize]
	}
	return b
}

// markersIn finds the body markers in a head.
func markersIn(b []byte) *found {
	f := bodyMarkers.find(b)
	return &f
}

func (c *check) found() *found {
	if c.marks == nil {
		c.marks = markersIn(c.head)
	}
	return c.marks
}

func (c *check) priorFound() *found {
	if c.priorMarks == nil {
		c.priorMarks = markersIn(c.prior)
	}
	return c.priorMarks
}

func (c *check) view() *view {
	if c.page == nil {
		c.page = scan(c.head)
	}
	return c.page
}

// priorView is nil when no version is held, or the held one is not a page.
func (c *check) priorView() *view {
	if c.priorPage == nil && len(c.prior) > 0 && isMarkup("", c.prior) {
		c.priorPage = scan(c.prior)
	}
	return c.priorPage
}

// small reports whether the answer is the size of a page that stands in
// for a document rather than the size of a document.
func (c *check) small() bool {
	size := c.a.Size
	if size <= 0 {
		size = int64(len(c.a.Head))
	}
	return size <= smallSize && c.view().text < smallText
}

// status is how Words quotes the status of a page that says something
// the status does not.
func (c *check) status() string { return fmt.Sprintf("HTTP %d", c.a.Status) }
