package warc

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/nlnwa/gowarc/v3"

	"github.com/taxkernel/taxkernelbot/internal/usage"
)

// Capture is one version of a source as fetched: the request and the
// response that first served its bytes.
type Capture struct {
	Source  string
	URL     string // the URL that answered (the final URL after redirects)
	Time    time.Time
	Status  int
	Header  map[string]string // response headers kept in the index
	SHA256  string            // hex, of the document: the index's hash
	Size    int64
	Payload func() (io.ReadCloser, error) // the document's bytes, from the store
	// Sent, when set, is the answer as the server sent it under Header's
	// Content-Encoding: the response record carries it, as sent, and a
	// conversion record beside it the document, so that the index's hash
	// names a payload of the file either way.
	Sent *Sent
	// Usage, when set, is what the publisher said about the use of the
	// bytes at that fetch: a metadata record concurrent to the response
	// carries it, as the index's JSON.
	Usage *usage.Prefs
}

// Sent is the payload of a response as it was sent, under a
// Content-Encoding.
type Sent struct {
	SHA256  string // hex; the response's payload digest
	Size    int64
	Payload func() (io.ReadCloser, error) // the bytes as sent, from the store
}

// payload is what c's response record carries: the bytes as sent when
// there are any, else the document.
func (c Capture) payload() (sum string, size int64, open func() (io.ReadCloser, error)) {
	if c.Sent != nil {
		return c.Sent.SHA256, c.Sent.Size, c.Sent.Payload
	}
	return c.SHA256, c.Size, c.Payload
}

// Revisit is a later check of a source that found bytes already captured.
type Revisit struct {
	Source     string
	URL        string
	Time       time.Time
	Status     int     // 304, or 200 for an identical payload
	RefersTo   Capture // the capture whose payload it confirms
	NotChanged bool    // true: 304 Not Modified; false: 200 with the same hash
}

// Identity is what the request records say the bot sent.
type Identity struct {
	UserAgent, From string
}

// Writer writes WARC records, each as its own gzip member, to w.
type Writer struct {
	w        *countingWriter
	id       Identity
	infoID   string
	captured map[string]string // capture key → response record id
	m        gowarc.Marshaler
	records  []Located
}

// NewWriter returns a Writer whose request records carry id's headers.
func NewWriter(w io.Writer, id Identity) *Writer {
	return &Writer{w: &countingWriter{w: w}, id: id, captured: map[string]string{}, m: gowarc.NewMarshaler()}
}

// Located is a record as an index of the file (a CDXJ line) sees it: what
// it is, and the gzip member it is, which a reader can decompress alone.
type Located struct {
	Type   string // the WARC-Type: "response", "revisit", "request", ...
	Source string // the source id; empty for the warcinfo record
	URL    string // WARC-Target-URI
	Time   time.Time
	Status int    // the HTTP status of a response or revisit, else 0
	MIME   string // the payload's media type, without parameters; "warc/revisit" for a revisit
	Digest string // WARC-Payload-Digest, "sha256:<hex>"; empty for a request or warcinfo
	// Offset and Length are the gzip member's place in the file, in bytes.
	Offset, Length int64
}

// Records lists the records written so far, in the order of the file.
func (w *Writer) Records() []Located { return w.records }

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

var recordOptions = []gowarc.WarcRecordOption{
	gowarc.WithDefaultDigestAlgorithm("sha256"),
	gowarc.WithDefaultDigestEncoding(gowarc.Base16),
	gowarc.WithAddMissingDigest(true),
	gowarc.WithAddMissingContentLength(true),
	gowarc.WithStrictValidation(),
}

// recordID is a name-based UUID (version 8, from SHA-256) so that the same
// store always yields the same file.
func recordID(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	b := sum[:16]
	b[6] = b[6]&0x0f | 0x80
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("<urn:uuid:%x-%x-%x-%x-%x>", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// Info writes the warcinfo record; fields are written in the order given.
func (w *Writer) Info(filename string, at time.Time, fields [][2]string) error {
	var body strings.Builder
	for _, f := range fields {
		fmt.Fprintf(&body, "%s: %s\r\n", f[0], f[1])
	}
	w.infoID = recordID("warcinfo", filename, at.UTC().Format(time.RFC3339), body.String())
	b := gowarc.NewRecordBuilder(gowarc.Warcinfo, recordOptions...)
	b.AddWarcHeader(gowarc.WarcRecordID, w.infoID)
	b.AddWarcHeaderTime(gowarc.WarcDate, at)
	b.AddWarcHeader(gowarc.WarcFilename, filename)
	b.AddWarcHeader(gowarc.ContentType, gowarc.ApplicationWarcFields)
	if _, err := b.WriteString(body.String()); err != nil {
		return fmt.Errorf("warc: warcinfo: %w", err)
	}
	return w.put(b, "warcinfo", Located{Type: "warcinfo", Time: at})
}

func captureKey(c Capture) string { return c.Source + "\x00" + c.SHA256 }

// Capture writes the request and response records of c.
func (w *Writer) Capture(c Capture) error {
	u, err := url.Parse(c.URL)
	if err != nil || u.Host == "" {
		return fmt.Errorf("warc: %s: capture URL %q is not absolute", c.Source, c.URL)
	}
	at := c.Time.UTC().Format(time.RFC3339)
	respID := recordID("response", c.Source, c.SHA256, c.URL, at)
	reqID := recordID("request", c.Source, c.SHA256, c.URL, at)

	req := gowarc.NewRecordBuilder(gowarc.Request, recordOptions...)
	w.common(req, reqID, c.URL, c.Time)
	req.AddWarcHeader(gowarc.ContentType, "application/http;msgtype=request")
	req.AddWarcHeader(gowarc.WarcConcurrentTo, respID)
	if _, err := req.WriteString(w.requestHead(u)); err != nil {
		return fmt.Errorf("warc: %s: request: %w", c.Source, err)
	}
	if err := w.put(req, c.Source+" request", Located{Type: "request", Source: c.Source, URL: c.URL, Time: c.Time}); err != nil {
		return err
	}

	resp := gowarc.NewRecordBuilder(gowarc.Response, recordOptions...)
	w.common(resp, respID, c.URL, c.Time)
	resp.AddWarcHeader(gowarc.ContentType, "application/http;msgtype=response")
	sum, size, open := c.payload()
	resp.AddWarcHeader(gowarc.WarcPayloadDigest, "sha256:"+sum)
	if _, err := resp.WriteString(responseHead(c.Status, c.Header)); err != nil {
		return fmt.Errorf("warc: %s: response: %w", c.Source, err)
	}
	if err := copyPayload(resp, c.Source, sum, size, open); err != nil {
		return err
	}
	status := c.Status
	if status == 0 {
		status = http.StatusOK // as responseHead says
	}
	if err := w.put(resp, c.Source+" response", Located{Type: "response", Source: c.Source, URL: c.URL, Time: c.Time, Status: status, MIME: mediaType(c.Header["Content-Type"]), Digest: "sha256:" + sum}); err != nil {
		return err
	}
	w.captured[captureKey(c)] = respID
	if err := w.usage(c, respID, at); err != nil {
		return err
	}
	if c.Sent == nil {
		return nil
	}

	// The document under the coding, which the index, the ledgers and a
	// citation name: an archival process's alternative version of the
	// response's content, in WARC's terms.
	conv := gowarc.NewRecordBuilder(gowarc.Conversion, recordOptions...)
	w.common(conv, recordID("conversion", c.Source, c.SHA256, c.URL, at), c.URL, c.Time)
	conv.AddWarcHeader(gowarc.ContentType, documentType(c.Header))
	conv.AddWarcHeader(gowarc.WarcRefersTo, respID)
	conv.AddWarcHeader(gowarc.WarcPayloadDigest, "sha256:"+c.SHA256)
	if err := copyPayload(conv, c.Source, c.SHA256, c.Size, c.Payload); err != nil {
		return err
	}
	return w.put(conv, c.Source+" conversion", Located{Type: "conversion", Source: c.Source, URL: c.URL, Time: c.Time, MIME: mediaType(documentType(c.Header)), Digest: "sha256:" + c.SHA256})
}

// usage writes c's preferences as a metadata record that refers to the
// response record respID: kept with the content, as
// draft-ietf-aipref-vocab asks of content used apart from its fetch.
func (w *Writer) usage(c Capture, respID, at string) error {
	if c.Usage == nil {
		return nil
	}
	js, err := json.Marshal(c.Usage)
	if err != nil {
		return fmt.Errorf("warc: %s: usage preferences: %w", c.Source, err)
	}
	meta := gowarc.NewRecordBuilder(gowarc.Metadata, recordOptions...)
	w.common(meta, recordID("metadata", c.Source, c.SHA256, c.URL, at), c.URL, c.Time)
	meta.AddWarcHeader(gowarc.ContentType, UsageContentType)
	meta.AddWarcHeader(gowarc.WarcConcurrentTo, respID)
	meta.AddWarcHeader(gowarc.WarcRefersTo, respID)
	if _, err := meta.Write(js); err != nil {
		return fmt.Errorf("warc: %s: usage preferences: %w", c.Source, err)
	}
	return w.put(meta, c.Source+" usage metadata", Located{Type: "metadata", Source: c.Source, URL: c.URL, Time: c.Time, MIME: mediaType(UsageContentType)})
}

// UsageContentType is the Content-Type of the metadata record that
// carries a capture's usage preferences.
const UsageContentType = "application/json; profile=\"https://taxkernel.com/schemas/index.schema.json#/$defs/usage\""

// copyPayload appends the bytes open gives to b, which must be size bytes
// (a blob of the store, which re-hashes them as they are read).
func copyPayload(b gowarc.WarcRecordBuilder, source, sum string, size int64, open func() (io.ReadCloser, error)) error {
	body, err := open()
	if err != nil {
		return fmt.Errorf("warc: %s: payload %s: %w", source, sum, err)
	}
	n, err := b.ReadFrom(body)
	body.Close()
	if err != nil {
		return fmt.Errorf("warc: %s: payload %s: %w", source, sum, err)
	}
	if n != size {
		return fmt.Errorf("warc: %s: payload %s is %d bytes, the index says %d; run `taxkernelbot verify`", source, sum, n, size)
	}
	return nil
}

// documentType is the media type a conversion record gives the document:
// the response's Content-Type.
func documentType(header map[string]string) string {
	if ct := header["Content-Type"]; ct != "" {
		return ct
	}
	return "application/octet-stream"
}

// Revisit writes a revisit record for r. When its capture is in this file
// (written earlier) the record names it in WARC-Refers-To; otherwise the
// target URI and date of the capture identify it.
func (w *Writer) Revisit(r Revisit) error {
	refID, inFile := w.captured[captureKey(r.RefersTo)]
	at := r.Time.UTC().Format(time.RFC3339)
	b := gowarc.NewRecordBuilder(gowarc.Revisit, recordOptions...)
	w.common(b, recordID("revisit", r.Source, r.URL, at), r.URL, r.Time)
	b.AddWarcHeader(gowarc.ContentType, "application/http;msgtype=response")
	status := r.Status
	if status == 0 {
		status = http.StatusOK
	}
	profile, head := gowarc.ProfileIdenticalPayloadDigestV1_1, responseHead(status, r.RefersTo.Header)
	if r.NotChanged {
		status = http.StatusNotModified
		profile, head = gowarc.ProfileServerNotModifiedV1_1, responseHead(status, nil)
	}
	b.AddWarcHeader(gowarc.WarcProfile, profile)
	if inFile {
		b.AddWarcHeader(gowarc.WarcRefersTo, refID)
	}
	b.AddWarcHeader(gowarc.WarcRefersToTargetURI, r.RefersTo.URL)
	b.AddWarcHeaderTime(gowarc.WarcRefersToDate, r.RefersTo.Time)
	sum, _, _ := r.RefersTo.payload()
	b.AddWarcHeader(gowarc.WarcPayloadDigest, "sha256:"+sum)
	if _, err := b.WriteString(head); err != nil {
		return fmt.Errorf("warc: %s: revisit: %w", r.Source, err)
	}
	return w.put(b, r.Source+" revisit", Located{Type: "revisit", Source: r.Source, URL: r.URL, Time: r.Time, Status: status, MIME: "warc/revisit", Digest: "sha256:" + sum})
}

func (w *Writer) common(b gowarc.WarcRecordBuilder, id, target string, at time.Time) {
	b.AddWarcHeader(gowarc.WarcRecordID, id)
	b.AddWarcHeaderTime(gowarc.WarcDate, at)
	b.AddWarcHeader(gowarc.WarcTargetURI, target)
	if w.infoID != "" {
		b.AddWarcHeader(gowarc.WarcWarcinfoID, w.infoID)
	}
}

// requestHead is the GET the bot sends: its identity and nothing else.
func (w *Writer) requestHead(u *url.URL) string {
	var b strings.Builder
	fmt.Fprintf(&b, "GET %s HTTP/1.1\r\nHost: %s\r\n", u.RequestURI(), u.Host)
	if w.id.UserAgent != "" {
		fmt.Fprintf(&b, "User-Agent: %s\r\n", w.id.UserAgent)
	}
	if w.id.From != "" {
		fmt.Fprintf(&b, "From: %s\r\n", w.id.From)
	}
	b.WriteString("\r\n")
	return b.String()
}

// responseHead is the status line and the kept headers, sorted by name.
func responseHead(status int, header map[string]string) string {
	if status == 0 {
		status = http.StatusOK // entries from before the index kept it: only 200s were stored
	}
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", status, http.StatusText(status))
	names := make([]string, 0, len(header))
	for n := range header {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(&b, "%s: %s\r\n", n, header[n])
	}
	b.WriteString("\r\n")
	return b.String()
}

// mediaType is a Content-Type's type/subtype, lower case, as indexes give it.
func mediaType(contentType string) string {
	t, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(t))
}

// put builds the record and writes it as one gzip member, noting where
// it lies in loc.
func (w *Writer) put(b gowarc.WarcRecordBuilder, what string, loc Located) error {
	defer b.Close()
	rec, validation, err := b.Build()
	if err != nil {
		return fmt.Errorf("warc: %s: %w", what, err)
	}
	if len(validation) > 0 {
		return fmt.Errorf("warc: %s: %w", what, errors.Join(validation...))
	}
	defer rec.Close()
	start := w.w.n
	gz := gzip.NewWriter(w.w)
	if _, _, err := w.m.Marshal(gz, rec, 0); err != nil {
		return fmt.Errorf("warc: write %s: %w", what, err)
	}
	if err := gz.Close(); err != nil {
		return fmt.Errorf("warc: write %s: %w", what, err)
	}
	loc.Time = loc.Time.UTC()
	loc.Offset, loc.Length = start, w.w.n-start
	w.records = append(w.records, loc)
	return nil
}
