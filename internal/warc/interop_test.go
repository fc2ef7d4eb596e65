package warc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/interoptest"
)

// TestInteropWarcio has warcio, Webrecorder's independent JavaScript WARC
// implementation from the npm registry, read the fixture's export: every
// record is read, and every response payload it extracts hashes to the
// WARC-Payload-Digest we wrote, which is the store's SHA-256 of those bytes.
// It runs when TAXKERNELBOT_NPM_DIR names a folder with node_modules/warcio
// (.ci/interop.sh sets it up) and skips otherwise.
func TestInteropWarcio(t *testing.T) {
	interoptest.Need(t, "warcio")
	f := newFixture(t)
	file := filepath.Join(t.TempDir(), "small.warc.gz")
	if err := os.WriteFile(file, write(t, f.in), 0o644); err != nil {
		t.Fatal(err)
	}
	out := interoptest.Run(t, "read-warc.cjs", "warcio", file)
	held := map[string]bool{}
	for _, sum := range f.sums {
		held[sum] = true
	}
	counts := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		t.Log(sc.Text())
		var r struct {
			Type, URI, Digest string
			Status            int
			PayloadSHA256     string `json:"payload_sha256"`
			PayloadLength     int    `json:"payload_length"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("warcio output %q: %v", sc.Text(), err)
		}
		counts[r.Type]++
		switch r.Type {
		case "response":
			if r.Digest != "sha256:"+r.PayloadSHA256 || !held[r.PayloadSHA256] || r.PayloadLength == 0 {
				t.Errorf("%s: WARC-Payload-Digest %s, warcio's payload hashes to %s (%d bytes); want a hash the store holds", r.URI, r.Digest, r.PayloadSHA256, r.PayloadLength)
			}
		case "revisit":
			if len(r.Digest) != len("sha256:")+64 || !held[r.Digest[len("sha256:"):]] {
				t.Errorf("%s: revisit digest %s is not a held payload", r.URI, r.Digest)
			}
		}
	}
	if counts["warcinfo"] != 1 || counts["request"] != 3 || counts["response"] != 3 || counts["revisit"] != 3 {
		t.Errorf("warcio read %v; want 1 warcinfo, 3 request, 3 response, 3 revisit", counts)
	}
}

// TestInteropWarcioEncoded: warcio reads a page archived as it was sent,
// gzipped: the response's payload, as warcio extracts it, is the gzip
// bytes under their digest, and the conversion record's is the page under
// the index's hash; the revisits give the response's digest.
func TestInteropWarcioEncoded(t *testing.T) {
	interoptest.Need(t, "warcio")
	in, page, gz := encodedFixture(t)
	file := filepath.Join(t.TempDir(), "encoded.warc.gz")
	if err := os.WriteFile(file, write(t, in), 0o644); err != nil {
		t.Fatal(err)
	}
	out := interoptest.Run(t, "read-warc.cjs", "warcio", file)
	counts := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		t.Log(sc.Text())
		var r struct {
			Type, Digest  string
			PayloadSHA256 string `json:"payload_sha256"`
			PayloadLength int    `json:"payload_length"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("warcio output %q: %v", sc.Text(), err)
		}
		counts[r.Type]++
		want, size := "", 0
		switch r.Type {
		case "response":
			want, size = hexOf(gz), len(gz)
		case "conversion":
			want, size = hexOf(page), len(page)
		case "revisit":
			if r.Digest != "sha256:"+hexOf(gz) {
				t.Errorf("revisit digest %s, want the response's sha256:%s", r.Digest, hexOf(gz))
			}
			continue
		default:
			continue
		}
		if r.Digest != "sha256:"+want || r.PayloadSHA256 != want || r.PayloadLength != size {
			t.Errorf("%s: WARC-Payload-Digest %s, warcio's payload %s (%d bytes); want sha256:%s (%d bytes)", r.Type, r.Digest, r.PayloadSHA256, r.PayloadLength, want, size)
		}
	}
	if counts["response"] != 1 || counts["conversion"] != 1 || counts["revisit"] != 2 {
		t.Errorf("warcio read %v; want a response, a conversion and 2 revisits", counts)
	}
}
