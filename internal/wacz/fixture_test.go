package wacz_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/wacz"
	"github.com/taxkernel/taxkernelbot/internal/warc"
)

// version is a document as a source served it, and the capture that
// archived it: what a citation names (URL, time, SHA-256 of the bytes).
type version struct {
	url  string
	at   time.Time
	body []byte
	sum  string // hex SHA-256 of body
}

// fixture is a month's WARC: uk-rates served one page, a 304 and a 200
// confirmed it, then it changed; de-estg served a PDF-like document whose
// URL has a query; us-pub served a real PDF; ch-dba's page came gzipped
// and is archived as sent.
type fixture struct {
	warcFile []byte
	records  []warc.Located
	versions []version
	// revisits: a check's URL and time, and the version it confirmed.
	revisits []struct {
		url    string
		at     time.Time
		status int
		of     version
	}
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func sumOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{}
	capture := func(source, url, when, contentType string, body []byte) *warc.Capture {
		v := version{url: url, at: at(when), body: body, sum: sumOf(body)}
		f.versions = append(f.versions, v)
		return &warc.Capture{
			Source: source, URL: url, Time: v.at, Status: 200, SHA256: v.sum, Size: int64(len(body)),
			Header:  map[string]string{"Content-Type": contentType, "Content-Length": itoa(len(body))},
			Payload: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil },
		}
	}
	revisit := func(c *warc.Capture, when string, notModified bool) *warc.Revisit {
		status := 200
		if notModified {
			status = 304
		}
		r := &warc.Revisit{Source: c.Source, URL: c.URL, Time: at(when), Status: status, RefersTo: *c, NotChanged: notModified}
		f.revisits = append(f.revisits, struct {
			url    string
			at     time.Time
			status int
			of     version
		}{c.URL, r.Time, status, f.byURLAt(c.URL, c.Time)})
		return r
	}
	v1 := capture("uk-rates", "https://www.gov.uk/rates", "2026-11-01T09:00:01Z", "text/html; charset=utf-8", []byte("<!doctype html><title>Rates</title><p>Basic rate 20%</p>\n"))
	pdf := capture("de-estg", "https://www.gesetze-im-internet.de/estg/EStG.pdf?v=2&a=1", "2026-11-01T10:30:00Z", "application/pdf",
		append([]byte("%PDF-1.4\n% Einkommensteuergesetz\n"), bytes.Repeat([]byte{0, 0xff, 0x80, '\r', '\n'}, 200)...))
	// A real document of 435 KB, a US government publication (the ICDAR
	// 2013 table set textview's tests read): many times a range request's
	// usual size, in a record between others.
	real, err := os.ReadFile(filepath.Join("..", "textview", "testdata", "icdar2013", "us-001.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	us := capture("us-pub", "https://www.census.example.gov/prod/us-001.pdf", "2026-11-01T11:00:00Z", "application/pdf", real)
	r1 := revisit(v1, "2026-11-02T09:00:01Z", true)
	r2 := revisit(v1, "2026-11-03T09:00:01Z", false)
	v2 := capture("uk-rates", "https://www.gov.uk/rates", "2026-11-04T09:00:00Z", "text/html; charset=utf-8", []byte("<!doctype html><title>Rates</title><p>Basic rate 19%</p>\n"))
	r3 := revisit(v2, "2026-11-05T09:00:00Z", true)

	// A page sent gzipped: the response holds the gzip bytes, the
	// conversion record the page, whose hash the index and a citation name.
	page := []byte("<!doctype html><title>DBA</title><p>Mehrwertsteuer 8,1 %</p>\n")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(page)
	zw.Close()
	sent := gz.Bytes()
	enc := capture("ch-dba", "https://www.estv.admin.ch/mwst", "2026-11-06T08:00:00Z", "text/html", page)
	enc.Header = map[string]string{"Content-Type": "text/html", "Content-Encoding": "gzip", "Content-Length": itoa(len(sent))}
	enc.Sent = &warc.Sent{SHA256: sumOf(sent), Size: int64(len(sent)), Payload: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(sent)), nil }}

	items := []warc.Item{{Capture: v1}, {Capture: pdf}, {Capture: us}, {Revisit: r1}, {Revisit: r2}, {Capture: v2}, {Revisit: r3}, {Capture: enc}}
	var buf bytes.Buffer
	n, err := warc.Export(context.Background(), &buf, "taxkernelbot-2026-11.warc.gz", at("2026-11-30T23:59:59Z"),
		warc.Identity{UserAgent: "TaxKernelBot/1.0 (+https://taxkernel.com/bot)", From: "contact@taxkernel.com"}, nil, items)
	if err != nil {
		t.Fatal(err)
	}
	f.warcFile, f.records = buf.Bytes(), n.Records
	return f
}

func (f *fixture) byURLAt(url string, t time.Time) version {
	for _, v := range f.versions {
		if v.url == url && v.at.Equal(t) {
			return v
		}
	}
	panic("no version of " + url + " at " + t.String())
}

func itoa(n int) string { return strconv.Itoa(n) }

// pack writes the fixture's package, changed by each of with, and returns
// its bytes.
func (f *fixture) pack(t testing.TB, with ...func(*wacz.Package)) []byte {
	t.Helper()
	var buf bytes.Buffer
	p := wacz.Package{
		Title: "TaxKernelBot dataset 2026-11", Description: "test", Created: at("2026-11-30T23:59:59Z"), Software: "TaxKernelBot",
		WARCs: []wacz.WARC{{
			Name:    "taxkernelbot-2026-11.warc.gz",
			Open:    func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(f.warcFile)), nil },
			Records: f.records,
		}},
	}
	for _, w := range with {
		w(&p)
	}
	if _, err := wacz.Write(&buf, p); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// inBlocks has a package's index written in blocks of 3 lines, however
// short it is.
func inBlocks(p *wacz.Package) { p.PlainIndexMax, p.IndexBlock = 1, 3 }

// packFile writes the fixture's package into a temporary file.
func (f *fixture) packFile(t testing.TB, with ...func(*wacz.Package)) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "taxkernelbot-2026-11.wacz")
	if err := os.WriteFile(p, f.pack(t, with...), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
