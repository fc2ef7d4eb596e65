package wacz_test

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/interoptest"
)

// unzip extracts the package at file into a new directory, with the
// standard library's zip reader, and returns the directory.
func unzip(t *testing.T, file string) string {
	t.Helper()
	zr, err := zip.OpenReader(file)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	dir := t.TempDir()
	for _, f := range zr.File {
		if !filepath.IsLocal(f.Name) {
			t.Fatalf("the package holds %q, a name outside it", f.Name)
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestInteropWarcio has warcio, Webrecorder's JavaScript WARC
// implementation from the npm registry, read the package's WARC: every
// record, each response's and conversion's payload hashing to its
// WARC-Payload-Digest, the version's SHA-256 (a response sent gzipped
// carries the gzip bytes, its conversion the document); and then each
// line of its CDXJ index, as a replay does: the bytes the line's offset
// and length give are exactly one record, the line's, whose payload
// hashes to the line's digest. It runs when TAXKERNELBOT_NPM_DIR names a
// folder with node_modules/warcio (.ci/interop.sh sets it up) and skips
// otherwise.
func TestInteropWarcio(t *testing.T) {
	interoptest.Need(t, "warcio")
	f := newFixture(t)
	dir := unzip(t, f.packFile(t))
	documents := map[string]bool{}
	for _, v := range f.versions {
		documents[v.sum] = true
	}

	out := interoptest.Run(t, "read-warc.cjs", "warcio", filepath.Join(dir, "archive", "taxkernelbot-2026-11.warc.gz"))
	counts := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var r struct {
			Type, URI, Digest string
			PayloadSHA256     string `json:"payload_sha256"`
			PayloadLength     int    `json:"payload_length"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("warcio output %q: %v", sc.Text(), err)
		}
		counts[r.Type]++
		switch r.Type {
		case "response", "conversion":
			if r.Digest != "sha256:"+r.PayloadSHA256 || r.PayloadLength == 0 {
				t.Errorf("%s %s: WARC-Payload-Digest %s; warcio's payload hashes to %s (%d bytes)", r.Type, r.URI, r.Digest, r.PayloadSHA256, r.PayloadLength)
			}
			delete(documents, r.PayloadSHA256)
		}
	}
	if counts["warcinfo"] != 1 || counts["request"] != 5 || counts["response"] != 5 || counts["revisit"] != 3 || counts["conversion"] != 1 {
		t.Errorf("warcio read %v; want 1 warcinfo, 5 requests, 5 responses, 3 revisits and 1 conversion", counts)
	}
	for sum := range documents {
		t.Errorf("no response or conversion that warcio read carries the document %s", sum)
	}

	out = interoptest.Run(t, "read-wacz-index.cjs", "warcio", dir)
	lines := 0
	sc = bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		t.Log(sc.Text())
		lines++
		var r struct {
			Key, TS string
			Fields  struct{ URL, Digest, Status string }
			Records int
			Type    string
			URI     string
			Date    string
			Digest  string
			Status  int
			Payload string `json:"payload_sha256"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("warcio output %q: %v", sc.Text(), err)
		}
		date, err := time.Parse(time.RFC3339Nano, r.Date)
		if r.Records != 1 || err != nil || r.URI != r.Fields.URL || date.UTC().Format("20060102150405") != r.TS ||
			r.Digest != r.Fields.Digest || strconv.Itoa(r.Status) != r.Fields.Status {
			t.Errorf("%s %s: the line's bytes hold %d record(s), the first a %s of %s at %s, digest %s, status %d; the line says %s, %s, status %s",
				r.Key, r.TS, r.Records, r.Type, r.URI, r.Date, r.Digest, r.Status, r.Fields.URL, r.Fields.Digest, r.Fields.Status)
		}
		switch r.Type {
		case "response":
			if "sha256:"+r.Payload != r.Digest {
				t.Errorf("%s %s: the response's payload hashes to %s; its digest is %s", r.Key, r.TS, r.Payload, r.Digest)
			}
		case "revisit":
		default:
			t.Errorf("%s %s: the index leads to a %s record", r.Key, r.TS, r.Type)
		}
	}
	if want := len(f.versions) + len(f.revisits); lines != want {
		t.Errorf("warcio read %d index lines; want %d", lines, want)
	}
}
