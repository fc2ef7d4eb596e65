package wacz_test

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/wacz"
)

// The checks below read the package with the standard library only (zip,
// gzip, JSON, HTTP): none of the writer's code or types, so that they
// test what a stranger's reader finds.

// readZip opens data as a zip and returns each member's bytes, refusing a
// member that is compressed (a replay reads the WARC by range).
func readZip(t *testing.T, data []byte) (map[string][]byte, []string) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("not a zip file: %v", err)
	}
	members := map[string][]byte{}
	var names []string
	for _, f := range zr.File {
		if f.Method != zip.Store {
			t.Errorf("%s is compressed (method %d); a WACZ stores its members", f.Name, f.Method)
		}
		if f.Flags&0x8 != 0 {
			t.Errorf("%s has a data descriptor: its sizes are not in its local header", f.Name)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc) // checks the CRC-32 too
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		members[f.Name] = b
		names = append(names, f.Name)
	}
	return members, names
}

// TestDataPackageHashesEveryMember: datapackage.json is WACZ 1.1.1's, and
// lists every member but itself and its digest with the SHA-256 and size
// recomputed here from the zip; datapackage-digest.json holds the SHA-256
// of datapackage.json.
func TestDataPackageHashesEveryMember(t *testing.T) {
	f := newFixture(t)
	t.Run("plain index", func(t *testing.T) { checkDataPackage(t, f.pack(t), "indexes/index.cdxj") })
	t.Run("index in blocks", func(t *testing.T) {
		checkDataPackage(t, f.pack(t, inBlocks), "indexes/index.cdx.gz", "indexes/index.idx")
	})
}

// checkDataPackage checks the datapackage.json of the package data, which
// must list the index files indexes.
func checkDataPackage(t *testing.T, data []byte, indexes ...string) {
	members, names := readZip(t, data)
	var dp struct {
		Profile     string `json:"profile"`
		WACZVersion string `json:"wacz_version"`
		Created     string `json:"created"`
		Resources   []struct {
			Name, Path, Hash string
			Bytes            int64
		} `json:"resources"`
	}
	if err := json.Unmarshal(members["datapackage.json"], &dp); err != nil {
		t.Fatalf("datapackage.json: %v", err)
	}
	if dp.Profile != "data-package" || dp.WACZVersion != "1.1.1" {
		t.Errorf("datapackage.json: profile %q, wacz_version %q; want data-package, 1.1.1", dp.Profile, dp.WACZVersion)
	}
	if _, err := time.Parse(time.RFC3339, dp.Created); err != nil {
		t.Errorf("datapackage.json: created %q is not an RFC 3339 time", dp.Created)
	}
	listed := map[string]bool{}
	for _, r := range dp.Resources {
		listed[r.Path] = true
		data, ok := members[r.Path]
		if !ok {
			t.Errorf("datapackage.json lists %s, which the zip lacks", r.Path)
			continue
		}
		s := sha256.Sum256(data)
		if r.Hash != "sha256:"+hex.EncodeToString(s[:]) || r.Bytes != int64(len(data)) {
			t.Errorf("%s: listed %s, %d bytes; the member hashes to sha256:%x, %d bytes", r.Path, r.Hash, r.Bytes, s, len(data))
		}
		if r.Name != r.Path[strings.LastIndex(r.Path, "/")+1:] {
			t.Errorf("%s: name %q", r.Path, r.Name)
		}
	}
	for _, name := range names {
		if !listed[name] && name != "datapackage.json" && name != "datapackage-digest.json" {
			t.Errorf("the zip's %s is not in datapackage.json", name)
		}
	}
	for _, want := range append([]string{"archive/taxkernelbot-2026-11.warc.gz", "pages/pages.jsonl"}, indexes...) {
		if !listed[want] {
			t.Errorf("datapackage.json does not list %s", want)
		}
	}
	var digest struct{ Path, Hash string }
	if err := json.Unmarshal(members["datapackage-digest.json"], &digest); err != nil {
		t.Fatalf("datapackage-digest.json: %v", err)
	}
	if s := sha256.Sum256(members["datapackage.json"]); digest.Path != "datapackage.json" || digest.Hash != "sha256:"+hex.EncodeToString(s[:]) {
		t.Errorf("datapackage-digest.json says %s of %s; datapackage.json hashes to sha256:%x", digest.Hash, digest.Path, s)
	}
}

// cdxjLine is a line of indexes/index.cdxj.
type cdxjLine struct {
	key, ts  string
	URL      string `json:"url"`
	MIME     string `json:"mime"`
	Status   string `json:"status"`
	Digest   string `json:"digest"`
	Length   string `json:"length"`
	Offset   string `json:"offset"`
	Filename string `json:"filename"`
}

func readCDXJ(t *testing.T, data []byte) []cdxjLine {
	t.Helper()
	var out []cdxjLine
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		key, rest, ok1 := strings.Cut(sc.Text(), " ")
		ts, js, ok2 := strings.Cut(rest, " ")
		var l cdxjLine
		if !ok1 || !ok2 || json.Unmarshal([]byte(js), &l) != nil {
			t.Fatalf("index.cdxj:%d: not `SURT TIMESTAMP {json}`: %q", n, sc.Text())
		}
		l.key, l.ts = key, ts
		out = append(out, l)
	}
	return out
}

// TestCDXJAddressesEachRecord: index.cdxj is sorted, one line per
// response and revisit; each line's offset and length cut out of the WARC
// one gzip member, the WARC record of the line's URL, date and digest, and
// a response's payload is the archived bytes.
func TestCDXJAddressesEachRecord(t *testing.T) {
	f := newFixture(t)
	members, _ := readZip(t, f.pack(t))
	lines := readCDXJ(t, members["indexes/index.cdxj"])
	texts := strings.SplitAfter(string(members["indexes/index.cdxj"]), "\n")
	if !slices.IsSorted(texts[:len(texts)-1]) {
		t.Errorf("index.cdxj is not sorted:\n%s", members["indexes/index.cdxj"])
	}
	if want := len(f.versions) + len(f.revisits); len(lines) != want {
		t.Errorf("index.cdxj has %d lines; want one per response and revisit, %d", len(lines), want)
	}
	served := map[string]bool{} // url+ts → a response of the version's bytes was found
	for _, l := range lines {
		file := members["archive/"+l.Filename]
		off, err1 := strconv.ParseInt(l.Offset, 10, 64)
		n, err2 := strconv.ParseInt(l.Length, 10, 64)
		if file == nil || err1 != nil || err2 != nil || off < 0 || n <= 0 || off+n > int64(len(file)) {
			t.Errorf("%s %s: filename %q, offset %q, length %q do not address the WARC", l.key, l.ts, l.Filename, l.Offset, l.Length)
			continue
		}
		zr, err := gzip.NewReader(bytes.NewReader(file[off : off+n]))
		if err != nil {
			t.Errorf("%s %s: bytes %d+%d are not a gzip member: %v", l.key, l.ts, off, n, err)
			continue
		}
		zr.Multistream(false)
		rec, err := io.ReadAll(zr)
		if err != nil {
			t.Errorf("%s %s: %v", l.key, l.ts, err)
			continue
		}
		head, block, _ := strings.Cut(string(rec), "\r\n\r\n")
		fields := map[string]string{}
		for _, h := range strings.Split(head, "\r\n")[1:] {
			k, v, _ := strings.Cut(h, ": ")
			fields[k] = v
		}
		date, _ := time.Parse(time.RFC3339Nano, fields["WARC-Date"])
		if fields["WARC-Target-URI"] != l.URL || date.UTC().Format("20060102150405") != l.ts || fields["WARC-Payload-Digest"] != l.Digest {
			t.Errorf("%s %s (%s): the record there is a %s of %s at %s, digest %s", l.key, l.ts, l.Digest, fields["WARC-Type"], fields["WARC-Target-URI"], fields["WARC-Date"], fields["WARC-Payload-Digest"])
		}
		switch fields["WARC-Type"] {
		case "response":
			resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(block)), nil)
			if err != nil {
				t.Errorf("%s %s: %v", l.key, l.ts, err)
				continue
			}
			body, _ := io.ReadAll(resp.Body) // http undoes no Content-Encoding here: the bytes as sent
			if strconv.Itoa(resp.StatusCode) != l.Status || "sha256:"+sumOf(body) != l.Digest {
				t.Errorf("%s %s: status %d, payload sha256:%s; the line says %s, %s", l.key, l.ts, resp.StatusCode, sumOf(body), l.Status, l.Digest)
			}
			served[l.URL+" "+l.ts] = true
		case "revisit":
			if l.MIME != "warc/revisit" {
				t.Errorf("%s %s: a revisit's media type is %q; want warc/revisit", l.key, l.ts, l.MIME)
			}
		default:
			t.Errorf("%s %s: indexes a %s record", l.key, l.ts, fields["WARC-Type"])
		}
	}
	for _, v := range f.versions {
		if !served[v.url+" "+v.at.UTC().Format("20060102150405")] {
			t.Errorf("no line of index.cdxj leads to the response of %s at %s", v.url, v.at)
		}
	}
}

// TestBlocksAreThePlainIndex: an index too long to be plain is written in
// gzip blocks: index.idx says the format, then gives each block's first
// key, offset and length in index.cdx.gz; the blocks, each one gzip member
// and together the whole file, hold the lines of the plain index in order;
// datapackage.json lists the two files instead of index.cdxj.
func TestBlocksAreThePlainIndex(t *testing.T) {
	f := newFixture(t)
	plain, _ := readZip(t, f.pack(t))
	members, _ := readZip(t, f.pack(t, inBlocks))
	if _, ok := members["indexes/index.cdxj"]; ok {
		t.Error("a package with a block index has index.cdxj too")
	}
	blocks, idx := members["indexes/index.cdx.gz"], members["indexes/index.idx"]
	lines := strings.Split(strings.TrimSuffix(string(idx), "\n"), "\n")
	var meta struct{ Format, Filename string }
	if !strings.HasPrefix(lines[0], "!meta 0 ") || json.Unmarshal([]byte(strings.TrimPrefix(lines[0], "!meta 0 ")), &meta) != nil ||
		meta.Format != "cdxj-gzip-1.0" || meta.Filename != "index.cdx.gz" {
		t.Errorf("index.idx:1: %q; want !meta 0 {\"format\":\"cdxj-gzip-1.0\",\"filename\":\"index.cdx.gz\"}", lines[0])
	}
	var joined []byte
	var end int64
	for i, l := range lines[1:] {
		key, rest, _ := strings.Cut(l, " ")
		ts, js, _ := strings.Cut(rest, " ")
		var b struct{ Offset, Length int64 }
		if err := json.Unmarshal([]byte(js), &b); err != nil || b.Offset != end || b.Length <= 0 || b.Offset+b.Length > int64(len(blocks)) {
			t.Fatalf("index.idx:%d: %q does not give the next block of index.cdx.gz (at %d of %d bytes)", i+2, l, end, len(blocks))
		}
		end = b.Offset + b.Length
		zr, err := gzip.NewReader(bytes.NewReader(blocks[b.Offset:end]))
		if err != nil {
			t.Fatalf("index.idx:%d: %v", i+2, err)
		}
		zr.Multistream(false)
		block, err := io.ReadAll(zr)
		if err != nil || zr.Close() != nil {
			t.Fatalf("index.idx:%d: the block is not one whole gzip member: %v", i+2, err)
		}
		if !strings.HasPrefix(string(block), key+" "+ts+" ") || strings.Count(string(block), "\n") > 3 {
			t.Errorf("index.idx:%d: keyed %s %s; its block (%d lines) starts %.60q", i+2, key, ts, strings.Count(string(block), "\n"), block)
		}
		joined = append(joined, block...)
	}
	if end != int64(len(blocks)) {
		t.Errorf("the blocks end at %d; index.cdx.gz is %d bytes", end, len(blocks))
	}
	if !bytes.Equal(joined, plain["indexes/index.cdxj"]) {
		t.Errorf("the blocks hold:\n%s\nthe plain index:\n%s", joined, plain["indexes/index.cdxj"])
	}
	if want := (strings.Count(string(joined), "\n") + 2) / 3; len(lines)-1 != want {
		t.Errorf("%d blocks of 3 lines; want %d", len(lines)-1, want)
	}
	var dp struct{ Resources []struct{ Path string } }
	if err := json.Unmarshal(members["datapackage.json"], &dp); err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, r := range dp.Resources {
		listed = append(listed, r.Path)
	}
	if !slices.Contains(listed, "indexes/index.cdx.gz") || !slices.Contains(listed, "indexes/index.idx") || slices.Contains(listed, "indexes/index.cdxj") {
		t.Errorf("datapackage.json lists %v; want the blocks and their index, not index.cdxj", listed)
	}
}

// TestPagesListEachVersion: pages.jsonl is a header then one page per
// version archived, with its URL and capture time.
func TestPagesListEachVersion(t *testing.T) {
	f := newFixture(t)
	members, _ := readZip(t, f.pack(t))
	lines := strings.Split(strings.TrimSuffix(string(members["pages/pages.jsonl"]), "\n"), "\n")
	var header struct{ Format, ID string }
	if err := json.Unmarshal([]byte(lines[0]), &header); err != nil || header.Format != "json-pages-1.0" || header.ID == "" {
		t.Errorf("pages.jsonl:1: %q is not a json-pages-1.0 header (%v)", lines[0], err)
	}
	got := map[string]bool{}
	ids := map[string]bool{}
	for i, l := range lines[1:] {
		var p struct{ ID, URL, TS, Title string }
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatalf("pages.jsonl:%d: %v", i+2, err)
		}
		ts, err := time.Parse(time.RFC3339Nano, p.TS)
		if err != nil || p.ID == "" || ids[p.ID] || p.Title == "" {
			t.Errorf("pages.jsonl:%d: %q: want a new id, an RFC 3339 ts and a title", i+2, l)
		}
		ids[p.ID] = true
		got[p.URL+" "+ts.UTC().Format(time.RFC3339)] = true
	}
	if len(lines)-1 != len(f.versions) {
		t.Errorf("pages.jsonl has %d pages; want %d, one per version", len(lines)-1, len(f.versions))
	}
	for _, v := range f.versions {
		if !got[v.url+" "+v.at.UTC().Format(time.RFC3339)] {
			t.Errorf("pages.jsonl lacks %s at %s", v.url, v.at)
		}
	}
}

// TestSameWARCSameBytes: packing the same WARC twice gives the same file.
func TestSameWARCSameBytes(t *testing.T) {
	f := newFixture(t)
	a, b := f.pack(t), f.pack(t)
	if !bytes.Equal(a, b) {
		t.Errorf("two packings of the same WARC differ (%d and %d bytes)", len(a), len(b))
	}
}

func TestSURT(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://www.gov.uk/rates", "uk,gov)/rates"},
		{"http://www2.Example.COM/Path/?b=2&a=1", "com,example)/path/?a=1&b=2"},
		{"http://WWW.example.com/", "com,example,www)/"}, // as wabac: it drops a lower-case www only
		{"https://example.com", "com,example)/"},
		{"https://example.com:8443/x", "com,example:8443)/x"},
		{"https://wwwx.example.com/", "com,example,wwwx)/"},
		{"https://www.gesetze-im-internet.de/estg/EStG.pdf?v=2&a=1", "de,gesetze-im-internet)/estg/estg.pdf?a=1&v=2"},
		{"https://example.com:443/x?a=2&a=1", "com,example)/x?a=1&a=2"},
		{"mailto:contact@taxkernel.com", "mailto:contact@taxkernel.com"},
	} {
		if got := wacz.SURT(c.in); got != c.want {
			t.Errorf("SURT(%q) = %q; want %q", c.in, got, c.want)
		}
	}
}

// TestWriteRefusesABadName: a WARC name that is not a plain .warc.gz name
// is refused before anything is written.
func TestWriteRefusesABadName(t *testing.T) {
	var buf bytes.Buffer
	_, err := wacz.Write(&buf, wacz.Package{WARCs: []wacz.WARC{{Name: "../x.warc.gz"}}})
	if err == nil || !strings.Contains(err.Error(), "../x.warc.gz") || buf.Len() != 0 {
		t.Errorf("Write of ../x.warc.gz: %v, %d bytes written; want a refusal naming it, nothing written", err, buf.Len())
	}
}
