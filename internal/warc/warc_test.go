package warc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nlnwa/gowarc/v3"

	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

var update = flag.Bool("update", false, "rewrite testdata/small.warc from the current output")

// fixture is a small store: uk-rates fetched (200), confirmed by a 304,
// confirmed by a 200 with the same bytes, then changed; de-estg held from
// before the index kept headers, with no ledger at hand.
type fixture struct {
	in   Input
	sums map[string]string // body → sha256
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	root := t.TempDir()
	st, err := store.Open(filepath.Join(root, "snapshots"))
	if err != nil {
		t.Fatal(err)
	}
	f := fixture{sums: map[string]string{}}
	put := func(body string) (store.Sum, int64) {
		sum, n, err := st.Put(t.Context(), strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		f.sums[body] = sum.String()
		return sum, n
	}
	v1, n1 := put("<html>rates 2025</html>\n")
	v2, n2 := put("<html>rates 2026</html>\n")
	old, nOld := put("Einkommensteuergesetz\n")

	ix := store.NewIndex()
	ix.Add("uk-rates", store.Entry{SHA256: v1, Size: n1, ContentType: "text/html", FinalURL: "https://www.gov.uk/rates", FirstSeen: "2026-11-01",
		Status: 200, Fetched: "2026-11-01T09:00:01Z", Header: map[string]string{"Content-Type": "text/html", "ETag": `"v1"`, "Date": "Sun, 01 Nov 2026 09:00:01 GMT", "Content-Length": "24"}}, "")
	ix.Add("uk-rates", store.Entry{SHA256: v2, Size: n2, ContentType: "text/html", FinalURL: "https://www.gov.uk/rates", FirstSeen: "2026-11-04",
		Status: 200, Fetched: "2026-11-04T09:00:00Z", Header: map[string]string{"Content-Type": "text/html", "ETag": `"v2"`}}, "")
	ix.Add("de-estg", store.Entry{SHA256: old, Size: nOld, ContentType: "text/plain; charset=utf-8", FinalURL: "https://www.gesetze-im-internet.de/estg/", FirstSeen: "2026-10-15"}, "")

	led, err := ledger.Open(filepath.Join(root, "ledgers"))
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	for _, l := range []ledger.Line{
		{Event: ledger.Result, Time: at("2026-11-01T09:00:00.9Z"), Host: "www.gov.uk", URL: "https://www.gov.uk/robots.txt", Purpose: ledger.PurposeRobots, Status: 200, SHA256: strings.Repeat("0", 64)},
		{Event: ledger.Dispatch, Time: at("2026-11-01T09:00:01Z"), Host: "www.gov.uk", URL: "https://www.gov.uk/rates", Purpose: ledger.PurposeDocument, Source: "uk-rates"},
		{Event: ledger.Result, Time: at("2026-11-01T09:00:01.25Z"), Host: "www.gov.uk", URL: "https://www.gov.uk/rates", Purpose: ledger.PurposeDocument, Source: "uk-rates", Status: 200, SHA256: v1.String(), Bytes: n1},
		{Event: ledger.Result, Time: at("2026-11-02T09:00:01Z"), Host: "www.gov.uk", URL: "https://www.gov.uk/rates", Purpose: ledger.PurposeDocument, Source: "uk-rates", Status: 304},
		{Event: ledger.Result, Time: at("2026-11-03T09:00:01Z"), Host: "www.gov.uk", URL: "https://www.gov.uk/rates", Purpose: ledger.PurposeDocument, Source: "uk-rates", Status: 200, SHA256: v1.String(), Bytes: n1},
		{Event: ledger.Result, Time: at("2026-11-03T10:00:00Z"), Host: "www.gov.uk", URL: "https://www.gov.uk/rates", Purpose: ledger.PurposeDocument, Source: "uk-rates", Status: 503, Error: ""},
		{Event: ledger.Result, Time: at("2026-11-04T08:59:59.5Z"), Host: "www.gov.uk", URL: "https://www.gov.uk/rates", Purpose: ledger.PurposeDocument, Source: "uk-rates", Status: 200, SHA256: v2.String(), Bytes: n2},
		{Event: ledger.Result, Time: at("2026-11-05T09:00:00Z"), Host: "www.gov.uk", URL: "https://www.gov.uk/rates", Purpose: ledger.PurposeDocument, Source: "uk-rates", Status: 304},
	} {
		if err := led.Append(l); err != nil {
			t.Fatal(err)
		}
	}
	led.Close()
	f.in = Input{Index: ix, Store: st, LedgerDir: led.Dir()}
	return f
}

func write(t *testing.T, in Input) []byte {
	t.Helper()
	items, err := Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := NewWriter(&buf, Identity{UserAgent: "TaxKernelBot/1.0 (+https://taxkernel.com/bot)", From: "contact@taxkernel.com"})
	if err := w.Info("small.warc.gz", time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), [][2]string{{"software", "TaxKernelBot"}, {"format", "WARC File Format 1.1"}}); err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.Capture != nil {
			err = w.Capture(*it.Capture)
		} else {
			err = w.Revisit(*it.Revisit)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// members splits a gzip stream into its members' uncompressed contents.
func members(t *testing.T, data []byte) []string {
	t.Helper()
	br := bufio.NewReader(bytes.NewReader(data))
	var out []string
	for {
		if _, err := br.Peek(1); err == io.EOF {
			return out
		}
		zr, err := gzip.NewReader(br)
		if err != nil {
			t.Fatal(err)
		}
		zr.Multistream(false)
		b, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
}

// TestGolden: the export of the fixture, decompressed, is exactly
// testdata/small.warc, and each record is a gzip member of its own.
func TestGolden(t *testing.T) {
	f := newFixture(t)
	data := write(t, f.in)
	recs := members(t, data)
	got := strings.Join(recs, "")
	golden := filepath.Join("testdata", "small.warc")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("WARC differs from %s (run with -update after checking the change):\n%s", golden, got)
	}
	if len(recs) != 1+2*3+3 {
		t.Errorf("%d gzip members, want 10 (warcinfo, 3 captures of 2 records, 3 revisits)", len(recs))
	}
	if again := write(t, f.in); !bytes.Equal(again, data) {
		t.Error("two exports of the same store differ")
	}
}

// TestReadBack: gowarc's reader, with validation on, reads every record,
// and every response payload hashes to its WARC-Payload-Digest, which is
// the store's name for those bytes.
func TestReadBack(t *testing.T) {
	f := newFixture(t)
	r, err := gowarc.NewWarcFileReaderFromStream(bytes.NewReader(write(t, f.in)), 0, gowarc.WithStrictValidation())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	types := map[string]int{}
	for {
		next, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rec := next.WarcRecord
		if len(next.Validation) > 0 {
			t.Errorf("%s: %v", rec, next.Validation)
		}
		types[rec.Type().String()]++
		if rec.Type() == gowarc.Response {
			pb, ok := rec.Block().(gowarc.PayloadBlock)
			if !ok {
				t.Fatalf("%s: block is %T", rec, rec.Block())
			}
			pr, err := pb.PayloadBytes()
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(pr)
			sum := sha256.Sum256(body)
			if want := f.sums[string(body)]; hex.EncodeToString(sum[:]) != want || rec.WarcHeader().Get(gowarc.WarcPayloadDigest) != "sha256:"+want {
				t.Errorf("%s: payload digest %s, body hashes to %x, store has %s", rec, rec.WarcHeader().Get(gowarc.WarcPayloadDigest), sum, want)
			}
		}
		rec.Close()
	}
	if types["warcinfo"] != 1 || types["request"] != 3 || types["response"] != 3 || types["revisit"] != 3 {
		t.Errorf("record types %v", types)
	}
}

func TestPlanSinceAndOnly(t *testing.T) {
	f := newFixture(t)
	in := f.in
	in.Since = time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	in.Only = func(id string) bool { return id == "uk-rates" }
	items, err := Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range items {
		kind := "capture"
		if it.Revisit != nil {
			kind = "revisit"
		}
		got = append(got, it.Time().Format(time.RFC3339)+" "+kind)
	}
	want := []string{"2026-11-03T09:00:01Z revisit", "2026-11-04T08:59:59Z capture", "2026-11-05T09:00:00Z revisit"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("plan = %q, want %q", got, want)
	}
}
