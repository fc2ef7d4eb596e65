package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
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
