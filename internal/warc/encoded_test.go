package warc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nlnwa/gowarc/v3"

	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

func hexOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// encodedFixture is a store with one page that was served gzipped: the
// document and the bytes as sent, the entry naming both, and a ledger
// with its capture, a 200 re-check of the same document and a 304.
func encodedFixture(t *testing.T) (in Input, page, gz []byte) {
	t.Helper()
	root := t.TempDir()
	st, err := store.Open(filepath.Join(root, "snapshots"))
	if err != nil {
		t.Fatal(err)
	}
	page = []byte(strings.Repeat("<tr><td>Basic rate</td><td>20%</td></tr>\n", 50))
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(page)
	zw.Close()
	gz = buf.Bytes()
	doc, _, err := st.Put(t.Context(), bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	sent, _, err := st.Put(t.Context(), bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	ix := store.NewIndex()
	ix.Add("fr-bareme", store.Entry{
		SHA256: doc, Size: int64(len(page)), ContentType: "text/html", FinalURL: "https://www.impots.gouv.fr/bareme", FirstSeen: "2026-11-01",
		Status: 200, Fetched: "2026-11-01T09:00:01Z",
		Header: map[string]string{"Content-Type": "text/html", "Content-Encoding": "gzip", "Content-Length": fmt.Sprint(len(gz)), "ETag": `"b1"`},
		Sent:   &store.Sent{SHA256: sent, Size: int64(len(gz)), Encoding: "gzip"},
	}, "")
	led, err := ledger.Open(filepath.Join(root, "ledgers"))
	if err != nil {
		t.Fatal(err)
	}
	day := func(d int) time.Time { return time.Date(2026, 11, d, 9, 0, 1, 0, time.UTC) }
	for _, l := range []ledger.Line{
		{Event: ledger.Result, Time: day(1), URL: "https://www.impots.gouv.fr/bareme", Purpose: ledger.PurposeDocument, Source: "fr-bareme", Status: 200, SHA256: doc.String(), Bytes: int64(len(page))},
		{Event: ledger.Result, Time: day(2), URL: "https://www.impots.gouv.fr/bareme", Purpose: ledger.PurposeDocument, Source: "fr-bareme", Status: 200, SHA256: doc.String(), Bytes: int64(len(page))},
		{Event: ledger.Result, Time: day(3), URL: "https://www.impots.gouv.fr/bareme", Purpose: ledger.PurposeDocument, Source: "fr-bareme", Status: 304},
	} {
		l.Host = "www.impots.gouv.fr"
		if err := led.Append(l); err != nil {
			t.Fatal(err)
		}
	}
	led.Close()
	return Input{Index: ix, Store: st, LedgerDir: led.Dir()}, page, gz
}

// readRecord is one record as gowarc, validating strictly, read it back.
type readRecord struct {
	typ      string
	header   gowarc.WarcFields
	http     http.Header // of a response
	payload  []byte      // a response's body, or a conversion's block
	blockSum string
}

func readAll(t *testing.T, data []byte) []readRecord {
	t.Helper()
	r, err := gowarc.NewWarcFileReaderFromStream(bytes.NewReader(data), 0, gowarc.WithStrictValidation())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []readRecord
	for {
		next, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		rec := next.WarcRecord
		if len(next.Validation) > 0 {
			t.Errorf("%s: %v", rec, next.Validation)
		}
		rr := readRecord{typ: rec.Type().String(), header: *rec.WarcHeader()}
		switch rec.Type() {
		case gowarc.Response:
			raw, err := rec.Block().RawBytes()
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(raw), nil)
			if err != nil {
				t.Fatal(err)
			}
			// Read as sent: net/http undoes no Content-Encoding here.
			rr.http = resp.Header
			rr.payload, _ = io.ReadAll(resp.Body)
		case gowarc.Conversion, gowarc.Metadata:
			raw, err := rec.Block().RawBytes()
			if err != nil {
				t.Fatal(err)
			}
			rr.payload, _ = io.ReadAll(raw)
			rr.blockSum = rec.WarcHeader().Get(gowarc.WarcBlockDigest)
		}
		rec.Close()
		out = append(out, rr)
	}
}

// TestEncodedCaptureAsSent: a page that came gzipped is archived as it was
// sent (the response record: Content-Encoding gzip over the gzip bytes,
// their digest) and as the document (a conversion record referring to it,
// the index's hash); the revisits give the response's payload digest.
func TestEncodedCaptureAsSent(t *testing.T) {
	in, page, gz := encodedFixture(t)
	recs := readAll(t, write(t, in))
	types := map[string]int{}
	var respID string
	for _, r := range recs {
		types[r.typ]++
		switch r.typ {
		case "response":
			respID = r.header.Get(gowarc.WarcRecordID)
			if r.http.Get("Content-Encoding") != "gzip" || !bytes.Equal(r.payload, gz) || r.header.Get(gowarc.WarcPayloadDigest) != "sha256:"+hexOf(gz) {
				t.Errorf("response: Content-Encoding %q, %d payload bytes, digest %s; want gzip over the %d bytes sent, digest sha256:%s",
					r.http.Get("Content-Encoding"), len(r.payload), r.header.Get(gowarc.WarcPayloadDigest), len(gz), hexOf(gz))
			}
		case "conversion":
			if r.header.Get(gowarc.WarcRefersTo) != respID || r.header.Get(gowarc.ContentType) != "text/html" {
				t.Errorf("conversion: refers to %s, type %s; want the response %s, text/html", r.header.Get(gowarc.WarcRefersTo), r.header.Get(gowarc.ContentType), respID)
			}
			if !bytes.Equal(r.payload, page) || r.header.Get(gowarc.WarcPayloadDigest) != "sha256:"+hexOf(page) || r.blockSum != "sha256:"+hexOf(page) {
				t.Errorf("conversion: %d bytes, payload digest %s, block digest %s; want the page, sha256:%s", len(r.payload), r.header.Get(gowarc.WarcPayloadDigest), r.blockSum, hexOf(page))
			}
		case "revisit":
			if got := r.header.Get(gowarc.WarcPayloadDigest); got != "sha256:"+hexOf(gz) {
				t.Errorf("revisit: payload digest %s, want the response's sha256:%s", got, hexOf(gz))
			}
		}
	}
	if types["warcinfo"] != 1 || types["request"] != 1 || types["response"] != 1 || types["conversion"] != 1 || types["revisit"] != 2 {
		t.Errorf("record types %v; want a warcinfo, a request, a response, a conversion and 2 revisits", types)
	}
}

// TestEncodedCaptureWithoutTheBytesAsSent: when the store lacks the bytes
// as sent, the response record carries the document and claims no coding
// (no Content-Encoding, no Content-Length of the coded bytes).
func TestEncodedCaptureWithoutTheBytesAsSent(t *testing.T) {
	in, page, gz := encodedFixture(t)
	if err := in.Store.Discard(store.Sum(hexOf(gz))); err != nil {
		t.Fatal(err)
	}
	types := map[string]int{}
	for _, r := range readAll(t, write(t, in)) {
		types[r.typ]++
		switch r.typ {
		case "response":
			if ce, cl := r.http.Values("Content-Encoding"), r.http.Values("Content-Length"); len(ce) != 0 || len(cl) != 0 {
				t.Errorf("response over the document says Content-Encoding %q, Content-Length %q", ce, cl)
			}
			if !bytes.Equal(r.payload, page) || r.header.Get(gowarc.WarcPayloadDigest) != "sha256:"+hexOf(page) || r.http.Get("ETag") != `"b1"` {
				t.Errorf("response: %d bytes, digest %s, ETag %q; want the page, sha256:%s, its other headers kept", len(r.payload), r.header.Get(gowarc.WarcPayloadDigest), r.http.Get("ETag"), hexOf(page))
			}
		case "revisit":
			if got := r.header.Get(gowarc.WarcPayloadDigest); got != "sha256:"+hexOf(page) {
				t.Errorf("revisit: payload digest %s, want the document's", got)
			}
		}
	}
	if types["conversion"] != 0 || types["response"] != 1 {
		t.Errorf("record types %v; want one response and no conversion", types)
	}
	// The index is untouched: it still names the bytes as sent.
	if e := in.Index.Entries("fr-bareme")[0]; e.Header["Content-Encoding"] != "gzip" || e.Sent == nil {
		t.Errorf("the plan changed the index's entry: %+v", e)
	}
}
