package wacz

import (
	"archive/zip"
	"bytes"
	"cmp"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/warc"
)

// Version is the WACZ specification the packages follow.
const Version = "1.1.1"

// The members of a package besides its WARC files (under ArchiveDir).
const (
	ArchiveDir = "archive"
	IndexPath  = "indexes/index.cdxj"
	// A long index is written in blocks instead of IndexPath: the blocks,
	// each a gzip member, and the index of the blocks.
	BlocksPath      = "indexes/index.cdx.gz"
	BlockIndexPath  = "indexes/index.idx"
	PagesPath       = "pages/pages.jsonl"
	DataPackagePath = "datapackage.json"
	DigestPath      = "datapackage-digest.json"
)

// WARC is a WARC file to pack.
type WARC struct {
	Name string // its file name, stored under ArchiveDir
	// Open gives the file's bytes; it is read twice (once to hash it, once
	// to store it), and must give the same bytes each time.
	Open func() (io.ReadCloser, error)
	// Records are the file's records with their places, as warc.Export
	// lists them.
	Records []warc.Located
}

// Package is what a WACZ file holds and says about itself.
type Package struct {
	Title, Description string
	// Created is the package's date, in datapackage.json and as every
	// member's modification time: a fixed time (a dataset's period end),
	// so that the same WARC files give the same bytes.
	Created  time.Time
	Software string
	WARCs    []WARC
	// PlainIndexMax is the most lines the index may have and be written
	// whole (IndexPath), which a replay reads in full when it opens the
	// package; a longer one is written in gzip blocks of IndexBlock lines
	// (BlocksPath) with a line per block (BlockIndexPath), which a replay
	// searches, then reads the one block a URL's lines are in. 0 means
	// DefaultPlainIndexMax and DefaultIndexBlock.
	PlainIndexMax, IndexBlock int
}

// The defaults of Package.PlainIndexMax and Package.IndexBlock: a month of
// 300 sources checked daily keeps a plain index (about 3 MB, read at once);
// a longer one is cut in blocks of the size web archive crawlers use.
const (
	DefaultPlainIndexMax = 10000
	DefaultIndexBlock    = 3000
)

// Resource is an entry of datapackage.json's resources: a member of the
// package with its SHA-256 and size.
type Resource struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Hash  string `json:"hash"` // "sha256:<hex>"
	Bytes int64  `json:"bytes"`
}

// DataPackage is datapackage.json, in the order its fields are written.
type DataPackage struct {
	Profile     string     `json:"profile"`
	WACZVersion string     `json:"wacz_version"`
	Title       string     `json:"title,omitempty"`
	Description string     `json:"description,omitempty"`
	Created     string     `json:"created"`
	Software    string     `json:"software,omitempty"`
	Resources   []Resource `json:"resources"`
}

// Digest is datapackage-digest.json.
type Digest struct {
	Path string `json:"path"`
	Hash string `json:"hash"`
}

// Summary says what Write packed.
type Summary struct {
	Resources []Resource
	Indexed   int // CDXJ lines: the responses and revisits
	Blocks    int // the index's gzip blocks; 0 for a plain index
	Pages     int
}

var warcName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*\.warc(\.gz)?$`)

// Write writes the package p to w.
func Write(w io.Writer, p Package) (Summary, error) {
	var sum Summary
	if len(p.WARCs) == 0 {
		return sum, errors.New("wacz: no WARC file to pack")
	}
	seen := map[string]bool{}
	for _, f := range p.WARCs {
		if !warcName.MatchString(f.Name) {
			return sum, fmt.Errorf("wacz: WARC file name %q: want a plain file name ending in .warc.gz", f.Name)
		}
		if seen[f.Name] {
			return sum, fmt.Errorf("wacz: WARC file %s is given twice", f.Name)
		}
		seen[f.Name] = true
	}
	index, n := CDXJ(p.WARCs)
	pages, np := Pages(p.WARCs)
	sum.Indexed, sum.Pages = n, np

	zw := zip.NewWriter(w)
	for _, f := range p.WARCs {
		r, err := storeFile(zw, ArchiveDir+"/"+f.Name, p.Created, f.Open)
		if err != nil {
			return sum, err
		}
		sum.Resources = append(sum.Resources, r)
	}
	type member struct {
		path string
		data []byte
	}
	members := []member{{IndexPath, index}, {PagesPath, pages}}
	if limit := cmp.Or(p.PlainIndexMax, DefaultPlainIndexMax); n > limit {
		blocks, idx, nb := Blocks(index, cmp.Or(p.IndexBlock, DefaultIndexBlock))
		members = []member{{BlocksPath, blocks}, {BlockIndexPath, idx}, {PagesPath, pages}}
		sum.Blocks = nb
	}
	for _, m := range members {
		r, err := storeBytes(zw, m.path, p.Created, m.data)
		if err != nil {
			return sum, err
		}
		sum.Resources = append(sum.Resources, r)
	}
	dp, err := marshal(DataPackage{
		Profile: "data-package", WACZVersion: Version, Title: p.Title, Description: p.Description,
		Created: p.Created.UTC().Format(time.RFC3339), Software: p.Software, Resources: sum.Resources,
	})
	if err != nil {
		return sum, err
	}
	dpr, err := storeBytes(zw, DataPackagePath, p.Created, dp)
	if err != nil {
		return sum, err
	}
	digest, err := marshal(Digest{Path: DataPackagePath, Hash: dpr.Hash})
	if err != nil {
		return sum, err
	}
	if _, err := storeBytes(zw, DigestPath, p.Created, digest); err != nil {
		return sum, err
	}
	if err := zw.Close(); err != nil {
		return sum, fmt.Errorf("wacz: %w", err)
	}
	return sum, nil
}

func marshal(v any) ([]byte, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("wacz: %w", err)
	}
	return append(data, '\n'), nil
}

// CDXJ is the index of the WARC files' responses and revisits, one line
// each, sorted: the SURT of the URL, the capture's 14-digit UTC timestamp,
// and a JSON object with the URL, media type, status, payload digest, and
// the record's gzip member (file name, offset, length). The request,
// metadata and conversion records are not indexed: a replay looks a URL up
// and wants the response.
func CDXJ(files []WARC) ([]byte, int) {
	type line struct{ key, text string }
	var lines []line
	for _, f := range files {
		for _, r := range f.Records {
			if r.Type != "response" && r.Type != "revisit" {
				continue
			}
			// The fields of pywb's and py-wacz's indexes, which wabac
			// reads; numbers as strings, as they write them.
			js, _ := json.Marshal(struct {
				URL      string `json:"url"`
				MIME     string `json:"mime"`
				Status   string `json:"status"`
				Digest   string `json:"digest"`
				Length   string `json:"length"`
				Offset   string `json:"offset"`
				Filename string `json:"filename"`
			}{r.URL, r.MIME, fmt.Sprint(r.Status), r.Digest, fmt.Sprint(r.Length), fmt.Sprint(r.Offset), f.Name})
			key := SURT(r.URL) + " " + Timestamp(r.Time)
			lines = append(lines, line{key, key + " " + string(js) + "\n"})
		}
	}
	// Sorted as `LC_ALL=C sort` sorts the lines, which is what a reader's
	// binary search assumes; the JSON breaks a tie (two records of a URL
	// in one second).
	slices.SortFunc(lines, func(a, b line) int { return cmp.Compare(a.text, b.text) })
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(l.text)
	}
	return b.Bytes(), len(lines)
}

// Blocks cuts a sorted CDXJ index into blocks of n lines, each its own
// gzip member of blocks, and writes idx: a line saying the format and the
// blocks' file (ZipNum's CDXJ form, "cdxj-gzip-1.0"), then a line per
// block, keyed by its first line's SURT and timestamp, with the block's
// offset and length in blocks. It returns both and the number of blocks.
func Blocks(cdxj []byte, n int) (blocks, idx []byte, count int) {
	n = max(n, 1)
	var gz, ix bytes.Buffer
	ix.WriteString(`!meta 0 {"format":"cdxj-gzip-1.0","filename":"` + path.Base(BlocksPath) + `"}` + "\n")
	lines := bytes.SplitAfter(cdxj, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	for start := 0; start < len(lines); start += n {
		block := bytes.Join(lines[start:min(start+n, len(lines))], nil)
		offset := gz.Len()
		zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		zw.Write(block) // a bytes.Buffer does not fail
		zw.Close()
		fields := bytes.SplitN(block, []byte(" "), 3)
		fmt.Fprintf(&ix, "%s %s {\"offset\":%d,\"length\":%d}\n", fields[0], fields[1], offset, gz.Len()-offset)
		count++
	}
	return gz.Bytes(), ix.Bytes(), count
}

// Timestamp is t as a CDXJ index keys it: 14 digits, UTC, to the second.
func Timestamp(t time.Time) string { return t.UTC().Format("20060102150405") }

// Pages is pages.jsonl: its header line, then a page for each response
// (each version a source served): its URL, capture time and, as title,
// the source's id.
func Pages(files []WARC) ([]byte, int) {
	var b bytes.Buffer
	b.WriteString(`{"format":"json-pages-1.0","id":"pages","title":"Documents fetched by TaxKernelBot"}` + "\n")
	n := 0
	for _, f := range files {
		for _, r := range f.Records {
			if r.Type != "response" {
				continue
			}
			ts := r.Time.UTC().Format(time.RFC3339Nano)
			id := sha256.Sum256([]byte(r.URL + " " + ts))
			js, _ := json.Marshal(struct {
				ID    string `json:"id"`
				URL   string `json:"url"`
				TS    string `json:"ts"`
				Title string `json:"title,omitempty"`
			}{hex.EncodeToString(id[:16]), r.URL, ts, r.Source})
			b.Write(js)
			b.WriteByte('\n')
			n++
		}
	}
	return b.Bytes(), n
}

// SURT is u in the Sort-friendly URI Reordering Transform that CDXJ
// indexes are keyed on, computed as wabac (ReplayWeb.page's engine) does
// to look a URL up in a compressed index: a leading "www." (or www2. …)
// dropped, lower case, no scheme, the host's labels reversed and joined by
// commas, the port when it is not the scheme's, ")", the path, and the
// query's parameters sorted. A URL that does not parse is kept as it is.
func SURT(u string) string {
	if !strings.HasPrefix(u, "http:") && !strings.HasPrefix(u, "https:") {
		return u
	}
	p, err := url.Parse(strings.ToLower(leadingWWW.ReplaceAllString(u, "$1")))
	if err != nil || p.Host == "" {
		return u
	}
	labels := strings.Split(p.Hostname(), ".")
	slices.Reverse(labels)
	var b strings.Builder
	b.WriteString(strings.Join(labels, ","))
	if port := p.Port(); port != "" && !(p.Scheme == "http" && port == "80") && !(p.Scheme == "https" && port == "443") {
		b.WriteString(":" + port)
	}
	b.WriteString(")")
	if p.EscapedPath() == "" {
		b.WriteString("/")
	} else {
		b.WriteString(p.EscapedPath())
	}
	if p.RawQuery != "" {
		params := strings.Split(p.RawQuery, "&")
		slices.Sort(params)
		b.WriteString("?" + strings.Join(params, "&"))
	}
	return b.String()
}

var leadingWWW = regexp.MustCompile(`^(https?://)www\d*\.`)

// storeBytes stores data as the member name.
func storeBytes(zw *zip.Writer, name string, at time.Time, data []byte) (Resource, error) {
	return storeFile(zw, name, at, func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil })
}

// storeFile stores what open gives as the member name, uncompressed, with
// its sizes and CRC in the local header (no data descriptor), so that a
// reader can find a WARC record's bytes at the member's data offset plus
// the record's offset.
func storeFile(zw *zip.Writer, name string, at time.Time, open func() (io.ReadCloser, error)) (Resource, error) {
	r := Resource{Name: path.Base(name), Path: name}
	crc := crc32.NewIEEE()
	sha := sha256.New()
	n, err := readAll(open, io.MultiWriter(crc, sha))
	if err != nil {
		return r, fmt.Errorf("wacz: %s: %w", name, err)
	}
	r.Bytes, r.Hash = n, "sha256:"+hex.EncodeToString(sha.Sum(nil))
	fh := &zip.FileHeader{Name: name, Method: zip.Store, Modified: at.UTC(), CRC32: crc.Sum32(), CompressedSize64: uint64(n), UncompressedSize64: uint64(n)}
	fh.SetMode(0o644)
	mw, err := zw.CreateRaw(fh)
	if err != nil {
		return r, fmt.Errorf("wacz: %s: %w", name, err)
	}
	again := sha256.New()
	m, err := readAll(open, io.MultiWriter(mw, again))
	if err != nil {
		return r, fmt.Errorf("wacz: %s: %w", name, err)
	}
	if m != n || "sha256:"+hex.EncodeToString(again.Sum(nil)) != r.Hash {
		return r, fmt.Errorf("wacz: %s changed while it was packed (%d bytes, then %d); pack it again", name, n, m)
	}
	return r, nil
}

func readAll(open func() (io.ReadCloser, error), w io.Writer) (int64, error) {
	rc, err := open()
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	return io.Copy(w, rc)
}
