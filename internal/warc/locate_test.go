package warc

import (
	"bufio"
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/nlnwa/gowarc/v3"
)

// TestRecordsLocateEachMember: every record Export lists is the gzip
// member at its offset and length, read alone (as a CDXJ index's reader
// reads it), and is what the listing says: its type, target, date and
// payload digest.
func TestRecordsLocateEachMember(t *testing.T) {
	f := newFixture(t)
	items, err := Plan(f.in)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	n, err := Export(context.Background(), &buf, "small.warc.gz", time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), Identity{UserAgent: "TaxKernelBot/1.0"}, nil, items)
	if err != nil {
		t.Fatal(err)
	}
	file := buf.Bytes()
	if want := len(members(t, file)); len(n.Records) != want {
		t.Fatalf("Export lists %d records; the file has %d gzip members", len(n.Records), want)
	}
	var end int64
	types := map[string]int{}
	for i, loc := range n.Records {
		if loc.Offset != end || loc.Length <= 0 {
			t.Fatalf("record %d (%s %s) at %d+%d; the previous one ended at %d", i, loc.Type, loc.URL, loc.Offset, loc.Length, end)
		}
		end = loc.Offset + loc.Length
		member := file[loc.Offset:end]
		if len(members(t, member)) != 1 {
			t.Fatalf("record %d: bytes %d+%d are not one gzip member", i, loc.Offset, loc.Length)
		}
		rec, _, _, err := gowarc.NewUnmarshaler().Unmarshal(bufio.NewReader(bytes.NewReader(member)))
		if err != nil {
			t.Fatalf("record %d at %d+%d: %v", i, loc.Offset, loc.Length, err)
		}
		h := rec.WarcHeader()
		date, _ := h.GetTime(gowarc.WarcDate)
		if rec.Type().String() != loc.Type || h.Get(gowarc.WarcTargetURI) != loc.URL || !date.Equal(loc.Time) ||
			loc.Type != "request" && loc.Type != "warcinfo" && h.Get(gowarc.WarcPayloadDigest) != loc.Digest {
			t.Errorf("record %d at %d: listed %+v; the member is a %s of %q at %s, digest %q", i, loc.Offset, loc, rec.Type(), h.Get(gowarc.WarcTargetURI), date, h.Get(gowarc.WarcPayloadDigest))
		}
		rec.Close()
		types[loc.Type]++
	}
	if end != int64(len(file)) {
		t.Errorf("the records end at %d; the file is %d bytes", end, len(file))
	}
	if types["response"] != 3 || types["revisit"] != 3 || types["request"] != 3 || types["warcinfo"] != 1 {
		t.Errorf("records listed by type: %v; want 1 warcinfo and 3 each of request, response and revisit", types)
	}
	for _, loc := range n.Records {
		if loc.Type == "response" && (loc.Status != 200 || loc.MIME != "text/html" && loc.MIME != "text/plain") {
			t.Errorf("response %s: status %d, media type %q", loc.URL, loc.Status, loc.MIME)
		}
		if loc.Type == "revisit" && (loc.MIME != "warc/revisit" || loc.Status != 200 && loc.Status != 304) {
			t.Errorf("revisit %s: status %d, media type %q", loc.URL, loc.Status, loc.MIME)
		}
	}
}
