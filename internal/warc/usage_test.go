package warc

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nlnwa/gowarc/v3"

	"github.com/taxkernel/taxkernelbot/internal/usage"
)

// A capture with usage preferences gets a metadata record beside its
// response, which refers to it and carries the preferences as the index
// keeps them; a capture without gets none.
func TestCaptureKeepsUsagePreferences(t *testing.T) {
	prefs := usage.Combine([]usage.Statement{
		{Field: usage.ContentUsage, From: "robots.txt line 4", Value: "train-ai=n"},
		{Field: usage.ContentUsage, From: "header", Value: "train-ai=y, search=y"},
	})
	body := "<html>rates</html>\n"
	open := func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(body)), nil }
	var buf bytes.Buffer
	w := NewWriter(&buf, Identity{UserAgent: "TaxKernelBot/1.0"})
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for _, c := range []Capture{
		{Source: "uk-said", URL: "https://www.gov.uk/said", Time: at, Status: 200, Header: map[string]string{"Content-Type": "text/html"},
			SHA256: hexOf([]byte(body)), Size: int64(len(body)), Payload: open, Usage: prefs},
		{Source: "uk-quiet", URL: "https://www.gov.uk/quiet", Time: at, Status: 200, Header: map[string]string{"Content-Type": "text/html"},
			SHA256: hexOf([]byte(body)), Size: int64(len(body)), Payload: open},
	} {
		if err := w.Capture(c); err != nil {
			t.Fatal(err)
		}
	}
	recs := readAll(t, buf.Bytes())
	var types []string
	for _, r := range recs {
		types = append(types, r.typ)
	}
	if want := []string{"request", "response", "metadata", "request", "response"}; !cmp.Equal(types, want) {
		t.Fatalf("records %v, want %v", types, want)
	}
	meta, resp := recs[2], recs[1]
	respID := resp.header.Get(gowarc.WarcRecordID)
	if meta.header.Get(gowarc.WarcRefersTo) != respID || meta.header.Get(gowarc.WarcConcurrentTo) != respID {
		t.Errorf("metadata refers to %q, concurrent to %q; want the response %q", meta.header.Get(gowarc.WarcRefersTo), meta.header.Get(gowarc.WarcConcurrentTo), respID)
	}
	if got := meta.header.Get(gowarc.ContentType); got != UsageContentType {
		t.Errorf("metadata Content-Type %q", got)
	}
	var got usage.Prefs
	if err := json.Unmarshal(meta.payload, &got); err != nil {
		t.Fatalf("metadata block is not JSON: %v\n%s", err, meta.payload)
	}
	if diff := cmp.Diff(*prefs, got); diff != "" {
		t.Errorf("metadata block (-want +got):\n%s", diff)
	}
}
