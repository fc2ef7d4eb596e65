package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestInteropWarcioDataset has warcio, Webrecorder's JavaScript WARC
// reader from the npm registry, read a dataset's WARC: every response
// payload it extracts hashes to its WARC-Payload-Digest, and these are
// exactly the documents of the dataset's index.json. It runs when
// TAXKERNELBOT_NPM_DIR names a folder with node_modules/warcio
// (.ci/interop.sh sets it up) and skips otherwise.
func TestInteropWarcioDataset(t *testing.T) {
	npm := os.Getenv("TAXKERNELBOT_NPM_DIR")
	if npm == "" {
		t.Skip("set TAXKERNELBOT_NPM_DIR to a folder with node_modules/warcio (.ci/interop.sh does)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("TAXKERNELBOT_NPM_DIR is set but node is not on PATH: %v", err)
	}
	f := newFixture(t)
	dir, _ := build(t, f.in)
	script, err := filepath.Abs("../../scripts/interop/read-warc.cjs")
	must(t, err)
	out, err := exec.CommandContext(t.Context(), node, script, npm, filepath.Join(dir, f.in.Period.WarcName())).CombinedOutput()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", script, err, out)
	}
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
