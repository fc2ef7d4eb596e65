package dataset

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/interoptest"
)

// TestInteropWarcioDataset has warcio, Webrecorder's JavaScript WARC
// reader from the npm registry, read a dataset's WARC: every response
// payload it extracts hashes to its WARC-Payload-Digest, and these are
// exactly the documents of the dataset's index.json. It runs when
// TAXKERNELBOT_NPM_DIR names a folder with node_modules/warcio
// (.ci/interop.sh sets it up) and skips otherwise.
func TestInteropWarcioDataset(t *testing.T) {
	interoptest.Need(t, "warcio")
	f := newFixture(t)
	dir, _ := build(t, f.in)
	out := interoptest.Run(t, "read-warc.cjs", "warcio", filepath.Join(dir, f.in.Period.WarcName()))
	want := map[string]bool{}
	ix := Served(f.in.Index, f.in.Period)
	for _, id := range ix.IDs() {
		for _, e := range ix.Entries(id) {
			want[e.SHA256.String()] = true
		}
	}
	got := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var r struct {
			Type, URI, Digest string
			PayloadSHA256     string `json:"payload_sha256"`
		}
		must(t, json.Unmarshal(sc.Bytes(), &r))
		if r.Type != "response" {
			continue
		}
		if r.Digest != "sha256:"+r.PayloadSHA256 {
			t.Errorf("%s: WARC-Payload-Digest %s, warcio's payload hashes to %s", r.URI, r.Digest, r.PayloadSHA256)
		}
		got[r.PayloadSHA256] = true
	}
	if len(got) != len(want) {
		t.Errorf("warcio found %d response payloads, the index has %d documents", len(got), len(want))
	}
	for s := range want {
		if !got[s] {
			t.Errorf("index.json's %s is no response payload warcio read", s)
		}
	}
}

// TestInteropWarcioDatasetWACZ has warcio read the dataset's WACZ package
// as a replay reads it, line by line of its CDXJ index: each line's bytes
// are one record, the line's, and every document of the dataset's
// index.json is the payload of a response a line leads to (none of the
// fixture's came under a Content-Encoding, which a conversion record
// would carry).
func TestInteropWarcioDatasetWACZ(t *testing.T) {
	interoptest.Need(t, "warcio")
	f := newFixture(t)
	dir, _ := build(t, f.in)
	unzipped := t.TempDir()
	zr, err := zip.OpenReader(filepath.Join(dir, f.in.Period.WaczName()))
	must(t, err)
	defer zr.Close()
	for _, m := range zr.File {
		if !filepath.IsLocal(m.Name) {
			t.Fatalf("the package holds %q, a name outside it", m.Name)
		}
		p := filepath.Join(unzipped, filepath.FromSlash(m.Name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		rc, err := m.Open()
		must(t, err)
		data, err := io.ReadAll(rc)
		rc.Close()
		must(t, err)
		must(t, os.WriteFile(p, data, 0o644))
	}
	out := interoptest.Run(t, "read-wacz-index.cjs", "warcio", unzipped)
	want := map[string]bool{}
	ix := Served(f.in.Index, f.in.Period)
	for _, id := range ix.IDs() {
		for _, e := range ix.Entries(id) {
			want[e.SHA256.String()] = true
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var r struct {
			Key, TS string
			Fields  struct{ URL, Digest string }
			Records int
			Type    string
			URI     string
			Digest  string
			Payload string `json:"payload_sha256"`
		}
		must(t, json.Unmarshal(sc.Bytes(), &r))
		if r.Records != 1 || r.URI != r.Fields.URL || r.Digest != r.Fields.Digest {
			t.Errorf("%s %s: the line's bytes hold %d record(s), the first of %s, digest %s; the line says %s, %s", r.Key, r.TS, r.Records, r.URI, r.Digest, r.Fields.URL, r.Fields.Digest)
		}
		if r.Type == "response" {
			if r.Digest != "sha256:"+r.Payload {
				t.Errorf("%s %s: the response's payload hashes to %s; its digest is %s", r.Key, r.TS, r.Payload, r.Digest)
			}
			delete(want, r.Payload)
		}
	}
	for s := range want {
		t.Errorf("index.json's %s is the payload of no response the WACZ's index leads to", s)
	}
}
