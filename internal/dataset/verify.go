package dataset

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/wacz"
)

// Problem is one thing wrong with a dataset: where (file:line, or a WARC
// record's offset) and what.
type Problem struct {
	Where, Message string
}

func (p Problem) String() string { return p.Where + ": " + p.Message }

// Checked says what Verify looked at.
type Checked struct {
	Files, Documents, Responses, Texts, Changes int
}

var sumLine = regexp.MustCompile(`^([0-9a-f]{64}) [ *](.+)$`)

// Verify checks the dataset in dir offline: SHA256SUMS lists every file
// and each file has its sum; each index entry's bytes are the payload of a
// response record of the WARC (or of the conversion record beside a
// response archived as sent, under a Content-Encoding), under their hash;
// each text names a
// document of the index, and each document has a text; each change
// document names two documents of its source, and, if it has any, each
// change of the period has one. It returns every
// problem found; the error is for a dataset it could not read at all.
func Verify(ctx context.Context, dir string) ([]Problem, Checked, error) {
	var c Checked
	var probs []Problem
	add := func(where, format string, args ...any) {
		probs = append(probs, Problem{where, fmt.Sprintf(format, args...)})
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, c, fmt.Errorf("dataset: %s is not a directory: give --dataset the directory a release unpacks to", dir)
	}

	// SHA256SUMS: every file, each with its sum.
	listed := map[string]int{} // path → line
	list, err := os.ReadFile(filepath.Join(dir, SumsName))
	if err != nil {
		add(SumsName, "cannot be read (%v): without it nothing is verified; download the release again", err)
		return probs, c, nil
	}
	sc := bufio.NewScanner(bytes.NewReader(list))
	for n := 1; sc.Scan(); n++ {
		where := fmt.Sprintf("%s:%d", SumsName, n)
		m := sumLine.FindStringSubmatch(sc.Text())
		if m == nil {
			add(where, "not a line of sha256sum's format (64 hex digits, two spaces, a path): %.80q", sc.Text())
			continue
		}
		name := m[2]
		if !fs.ValidPath(name) || name == SumsName {
			add(where, "%q is not a file of the dataset (an absolute path, '..', or SHA256SUMS itself)", name)
			continue
		}
		if first, dup := listed[name]; dup {
			add(where, "%s is listed again (first on line %d)", name, first)
			continue
		}
		listed[name] = n
		if err := ctx.Err(); err != nil {
			return probs, c, err
		}
		got, err := fileSum(filepath.Join(dir, filepath.FromSlash(name)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			add(where, "%s is listed but missing", name)
		case err != nil:
			add(where, "%s: %v", name, err)
		case got != m[1]:
			add(where, "%s hashes to %s, the list says %s: the file is damaged", name, got, m[1])
		default:
			c.Files++
		}
	}
	var files, warcs []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			add(rel, "is not a regular file (a link?): a dataset holds only files")
		case rel == SumsName:
		default:
			files = append(files, rel)
			if _, ok := listed[rel]; !ok {
				add(rel, "is not listed in %s", SumsName)
			}
			if strings.HasSuffix(rel, ".warc.gz") && !strings.Contains(rel, "/") {
				warcs = append(warcs, rel)
			}
		}
		return nil
	})
	if err != nil {
		return probs, c, fmt.Errorf("dataset: %w", err)
	}

	// The index, and its entries' lines for the messages.
	data, err := os.ReadFile(filepath.Join(dir, IndexName))
	if err != nil {
		add(IndexName, "cannot be read: %v", err)
		return probs, c, nil
	}
	ix, err := store.ParseIndex(data)
	if err != nil {
		add(IndexName, "is not an index (%v)", err)
		return probs, c, nil
	}
	lines := sumLines(data)

	// The WARC's response payloads.
	if len(warcs) != 1 {
		add(dir, "holds %d WARC file(s) (%s), want 1", len(warcs), strings.Join(warcs, ", "))
		return probs, c, nil
	}
	payloads, wp, err := readWarc(ctx, filepath.Join(dir, warcs[0]), warcs[0])
	if err != nil {
		return probs, c, err
	}
	probs = append(probs, wp...)
	c.Responses = len(payloads)
	probs = append(probs, checkWACZ(dir, files, warcs[0])...)

	docs := map[string]bool{}
	for _, id := range ix.IDs() {
		for _, e := range ix.Entries(id) {
			c.Documents++
			s := string(e.SHA256)
			docs[s] = true
			where := fmt.Sprintf("%s:%d", IndexName, lines[s])
			pl, ok := payloads[s]
			switch {
			case !ok:
				add(where, "%s sha256 %s: no response record of %s carries these bytes (nor a conversion record, for a document sent under a Content-Encoding)", id, s, warcs[0])
			case pl.size != e.Size:
				add(where, "%s sha256 %s: the index says %d bytes, the response at offset %d holds %d", id, s, e.Size, pl.offset, pl.size)
			}
		}
	}

	// Texts: named by a document, with their engine.
	hasText := map[string]bool{}
	parts := map[string]bool{}
	for _, f := range files {
		parts[f] = true
	}
	for _, f := range files {
		if !strings.HasPrefix(f, TextDir+"/") {
			continue
		}
		m := textFile.FindStringSubmatch(f)
		switch {
		case m == nil:
			add(f, "is not a text's name (%s/<version>/<2 hex>/<sha256>.txt, .engine or .reason)", TextDir)
			continue
		case m[2] != m[3][:2]:
			add(f, "is under %s/, but its hash starts with %s", m[2], m[3][:2])
		case !docs[m[3]]:
			add(f, "names sha256 %s, which no entry of %s has", m[3], IndexName)
		}
		stem := strings.TrimSuffix(f, "."+m[4])
		switch m[4] {
		case "txt":
			c.Texts++
			hasText[m[3]] = true
			if !parts[stem+".engine"] {
				add(f, "has no %s.engine beside it naming the extractor", base(stem))
			}
		case "engine", "reason":
			if !parts[stem+".txt"] {
				add(f, "has no %s.txt beside it", base(stem))
			}
		}
	}
	for _, id := range ix.IDs() {
		for _, e := range ix.Entries(id) {
			if s := string(e.SHA256); !hasText[s] {
				add(fmt.Sprintf("%s:%d", IndexName, lines[s]), "%s sha256 %s: no text under %s/", id, s, TextDir)
				hasText[s] = true // once per document
			}
		}
	}
	probs = append(probs, checkChanges(dir, files, ix, warcs[0], &c)...)
	return probs, c, nil
}

// checkWACZ checks the dataset's WACZ package, when it has one (a dataset
// built before packages were made has none): every member datapackage.json
// lists is in the zip with the size and SHA-256 it gives, and the WARC in
// it is the dataset's, byte for byte, so that a replay shows what a
// citation names.
func checkWACZ(dir string, files []string, warcName string) []Problem {
	name := strings.TrimSuffix(warcName, ".warc.gz") + ".wacz"
	if !slices.Contains(files, name) {
		return nil
	}
	var probs []Problem
	add := func(where, format string, args ...any) {
		probs = append(probs, Problem{where, fmt.Sprintf(format, args...)})
	}
	const again = "the package is damaged; build the dataset again or download it again"
	zr, err := zip.OpenReader(filepath.Join(dir, name))
	if err != nil {
		add(name, "is not a zip file (%v): %s", err, again)
		return probs
	}
	defer zr.Close()
	member := func(p string) ([]byte, error) {
		f, err := zr.Open(p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return io.ReadAll(f)
	}
	data, err := member(wacz.DataPackagePath)
	var dp wacz.DataPackage
	if err == nil {
		err = json.Unmarshal(data, &dp)
	}
	if err != nil {
		add(name+"/"+wacz.DataPackagePath, "cannot be read (%v): %s", err, again)
		return probs
	}
	archived := wacz.ArchiveDir + "/" + warcName
	found := false
	for i, r := range dp.Resources {
		where := fmt.Sprintf("%s/%s: resources[%d]", name, wacz.DataPackagePath, i)
		data, err := member(r.Path)
		if err != nil {
			add(where, "%s: %v: %s", r.Path, err, again)
			continue
		}
		sum := sha256.Sum256(data)
		if got := "sha256:" + hex.EncodeToString(sum[:]); got != r.Hash || int64(len(data)) != r.Bytes {
			add(where, "%s is %d bytes hashing to %s; datapackage.json says %d bytes, %s: %s", r.Path, len(data), got, r.Bytes, r.Hash, again)
			continue
		}
		if r.Path == archived {
			found = true
			if want, err := fileSum(filepath.Join(dir, warcName)); err == nil && r.Hash != "sha256:"+want {
				add(where, "%s is not the dataset's %s (sha256 %s): %s", r.Path, warcName, want, again)
			}
		}
	}
	if !found {
		add(name+"/"+wacz.DataPackagePath, "lists no %s: the package does not hold the dataset's WARC; build the dataset again", archived)
	}
	return probs
}

func base(stem string) string { return stem[strings.LastIndex(stem, "/")+1:] }

func fileSum(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// sumLines maps each "sha256" of an index file to its first line.
func sumLines(data []byte) map[string]int {
	out := map[string]int{}
	for n, l := range bytes.Split(data, []byte("\n")) {
		_, v, ok := bytes.Cut(l, []byte(`"sha256": "`))
		if ok && len(v) >= 64 {
			if s := string(v[:64]); out[s] == 0 {
				out[s] = n + 1
			}
		}
	}
	return out
}

type payload struct {
	offset, size int64
}

// readWarc reads every record of the gzipped WARC at p and returns the
// response payloads by their SHA-256. It is a reader of its own, not the
// one that wrote the file: each block is hashed against WARC-Block-Digest
// and each response's payload (the bytes after the HTTP header) against
// WARC-Payload-Digest. Offsets are those of the record's gzip member.
func readWarc(ctx context.Context, p, name string) (map[string]payload, []Problem, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, nil, fmt.Errorf("dataset: %w", err)
	}
	defer f.Close()
	cr := &countReader{r: f}
	br := bufio.NewReaderSize(cr, 64<<10)
	out := map[string]payload{}
	var probs []Problem
	var zr *gzip.Reader
	for {
		if err := ctx.Err(); err != nil {
			return out, probs, err
		}
		off := cr.n - int64(br.Buffered())
		if _, err := br.Peek(1); err == io.EOF {
			return out, probs, nil
		}
		where := fmt.Sprintf("%s: record at offset %d", name, off)
		fail := func(err error) (map[string]payload, []Problem, error) {
			return out, append(probs, Problem{where, fmt.Sprintf("cannot be read (%v); the records after it are not checked", err)}), nil
		}
		if zr == nil {
			zr, err = gzip.NewReader(br)
		} else {
			err = zr.Reset(br)
		}
		if err != nil {
			return fail(err)
		}
		zr.Multistream(false)
		rr := bufio.NewReaderSize(zr, 64<<10)
		for {
			if _, err := rr.Peek(1); err == io.EOF {
				break
			} else if err != nil {
				return fail(err)
			}
			rec, err := readRecord(rr)
			if err != nil {
				return fail(err)
			}
			what := rec.typ + " " + rec.header["warc-target-uri"]
			if want := rec.header["warc-block-digest"]; want != "" && want != "sha256:"+rec.block {
				probs = append(probs, Problem{where, fmt.Sprintf("%s: WARC-Block-Digest %s, the block hashes to sha256:%s", what, want, rec.block)})
			}
			if rec.typ != "response" && rec.typ != "conversion" {
				// A conversion record carries the document of a response
				// archived as sent, under a Content-Encoding.
				continue
			}
			if want := rec.header["warc-payload-digest"]; want != "sha256:"+rec.payload {
				probs = append(probs, Problem{where, fmt.Sprintf("%s: WARC-Payload-Digest %s, the payload hashes to sha256:%s", what, want, rec.payload)})
				continue
			}
			if _, ok := out[rec.payload]; !ok {
				out[rec.payload] = payload{off, rec.size}
			}
		}
	}
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

type record struct {
	typ     string
	header  map[string]string
	block   string // hex SHA-256 of the block
	payload string // of an HTTP response's payload
	size    int64  // the payload's length
}

// readRecord reads one WARC record: version line, fields, an empty line,
// Content-Length bytes of block, and the two CRLFs that end it.
func readRecord(r *bufio.Reader) (record, error) {
	rec := record{header: map[string]string{}}
	line, err := r.ReadString('\n')
	if err != nil {
		return rec, err
	}
	if !strings.HasPrefix(line, "WARC/") {
		return rec, fmt.Errorf("no WARC version line: %.40q", line)
	}
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return rec, fmt.Errorf("the WARC header does not end: %w", err)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			return rec, fmt.Errorf("not a WARC field: %.60q", line)
		}
		// Field names are case-insensitive: kept in lower case.
		rec.header[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
	}
	rec.typ = rec.header["warc-type"]
	n, err := strconv.ParseInt(rec.header["content-length"], 10, 64)
	if err != nil || n < 0 {
		return rec, fmt.Errorf("Content-Length %q is not a length", rec.header["content-length"])
	}
	bh, ph := sha256.New(), sha256.New()
	body := bufio.NewReaderSize(io.TeeReader(io.LimitReader(r, n), bh), 64<<10)
	if rec.typ == "response" {
		// The HTTP header ends at the first empty line.
		for {
			l, err := body.ReadString('\n')
			if err != nil {
				return rec, errors.New("the HTTP header of the response does not end")
			}
			if l == "\r\n" || l == "\n" {
				break
			}
		}
	}
	if rec.size, err = io.Copy(ph, body); err != nil {
		return rec, err
	}
	var end [4]byte
	if _, err := io.ReadFull(r, end[:]); err != nil || string(end[:]) != "\r\n\r\n" {
		return rec, fmt.Errorf("the block is shorter than its Content-Length %d, or does not end with two CRLFs", n)
	}
	rec.block, rec.payload = hex.EncodeToString(bh.Sum(nil)), hex.EncodeToString(ph.Sum(nil))
	return rec, nil
}
