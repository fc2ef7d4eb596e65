package store

import (
	"net/http"
	"strings"
	"testing"
)

// TestIndexReplayFields: the replay fields are written in a fixed order,
// read back, and an index written before they existed still loads.
func TestIndexReplayFields(t *testing.T) {
	old := `{
  "sources": {
    "uk-rates": [
      {
        "sha256": "` + strings.Repeat("a", 64) + `",
        "size": 5,
        "content_type": "text/html",
        "final_url": "https://www.gov.uk/rates",
        "first_seen": "2026-11-01"
      }
    ]
  }
}
`
	ix, err := ParseIndex([]byte(old))
	if err != nil {
		t.Fatalf("an index from before the replay fields does not load: %v", err)
	}
	h := http.Header{}
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("ETag", `"v2"`)
	h.Set("Set-Cookie", "session=1")
	h.Set("Server", "Apache")
	h.Add("Link", "</a>; rel=canonical")
	h.Add("Link", "</b>; rel=alternate")
	ix.Add("uk-rates", Entry{
		SHA256: Sum(strings.Repeat("b", 64)), Size: 7, ContentType: "text/html; charset=utf-8",
		FinalURL: "https://www.gov.uk/rates", FirstSeen: "2026-11-02",
		Status: 200, Fetched: "2026-11-02T10:00:00Z", Header: KeepHeaders(h),
	}, "")
	b, err := ix.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), old[:len(old)-len("    ]\n  }\n}\n")-1]) {
		t.Errorf("the old entry's rendering changed:\n%s", b)
	}
	want := `        "first_seen": "2026-11-02",
        "status": 200,
        "fetched": "2026-11-02T10:00:00Z",
        "header": {
          "Content-Type": "text/html; charset=utf-8",
          "ETag": "\"v2\"",
          "Link": "</a>; rel=canonical, </b>; rel=alternate"
        }
`
	if !strings.Contains(string(b), want) {
		t.Errorf("new entry:\n%s\nwant it to contain\n%s", b, want)
	}
	back, err := ParseIndex(b)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := back.Lookup("uk-rates", Sum(strings.Repeat("b", 64)))
	if e.Status != 200 || e.Header["ETag"] != `"v2"` || e.Header["Set-Cookie"] != "" || e.Header["Server"] != "" {
		t.Errorf("read back %+v", e)
	}
}
