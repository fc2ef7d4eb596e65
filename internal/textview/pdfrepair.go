package textview

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
)

// The built-in reader (ledongthuc/pdf) opens only a PDF that starts with
// a %PDF-1.x line, ends with %%EOF and whose startxref leads to a chain of
// cross-reference sections of one kind. Real files break each of these:
// bytes before the header (an HTTP header glued on), %PDF-2.0, an
// incremental update whose xref stream points back to a classic table (a
// filled-in form: "unexpected keyword xref"), offsets that are wrong. What
// other readers do then is rebuild the cross-reference from the objects
// themselves; repairPDF does that, so the built-in reader gets one fresh
// xref stream that names where each object is.

// Bounds of a rebuild: it runs only after the reader refused the file,
// inside the extracting child, but an object number or an object stream
// must not make it allocate without end.
const (
	repairMaxObject  = 1 << 22  // highest object number kept (28 MiB of xref)
	repairMaxInflate = 64 << 20 // object stream bytes inflated, in all
)

var (
	objHeader  = regexp.MustCompile(`(\d{1,10})[\x00\t\n\f\r ]+(\d{1,5})[\x00\t\n\f\r ]+obj\b`)
	streamKw   = regexp.MustCompile(`stream(\r\n|\n|\r)`)
	rootRef    = regexp.MustCompile(`/Root[\x00\t\n\f\r ]*(\d+)[\x00\t\n\f\r ]+(\d+)[\x00\t\n\f\r ]+R`)
	infoRef    = regexp.MustCompile(`/Info[\x00\t\n\f\r ]*(\d+)[\x00\t\n\f\r ]+(\d+)[\x00\t\n\f\r ]+R`)
	typeName   = regexp.MustCompile(`/Type[\x00\t\n\f\r ]*/(ObjStm|XRef|Catalog)\b`)
	intKey     = regexp.MustCompile(`/(N|First)[\x00\t\n\f\r ]+(\d+)`)
	flateOnly  = regexp.MustCompile(`/Filter[\x00\t\n\f\r ]*(\[[\x00\t\n\f\r ]*)?/FlateDecode[\x00\t\n\f\r ]*\]?`)
	anyFilter  = regexp.MustCompile(`/(Filter|DecodeParms)\b`)
	encryptKey = regexp.MustCompile(`/Encrypt\b`)
	// a /Length that is a number, not a reference "N G R"
	directLength = regexp.MustCompile(`/Length[\x00\t\n\f\r ]*(\d+)[\x00\t\n\f\r ]*[/>]`)
)

// xrefEntry is where an object is: at an offset (type 1), or the index-th
// object of object stream stm (type 2).
type xrefEntry struct {
	kind       byte
	off        int64
	gen        int
	stm, index int
}

// pdfObject is one "N G obj" found in the file.
type pdfObject struct {
	num, gen int
	at, end  int // the header's start and end
	dict     []byte
	data     []byte // the stream's bytes, when it has one
	dataAt   int    // where data starts in the body
}

// repairPDF returns raw rebuilt so that the built-in reader can open it:
// from its %PDF- line on (with a %PDF-1.7 line before it), the objects as
// they are, and one new xref stream naming the last definition of each
// object, in the file or in an object stream. ok is false when there is
// nothing to rebuild from: no objects, no catalog, or an encrypted file.
func repairPDF(raw []byte) (fixed []byte, ok bool) {
	start := bytes.Index(raw[:min(len(raw), 1024)], []byte("%PDF-"))
	if start < 0 {
		start = 0
	}
	const head = "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"
	body := raw[start:]
	objs := findObjects(body)
	if len(objs) == 0 {
		return nil, false
	}
	table := map[int]xrefEntry{}
	var root, info []byte
	catalog := -1
	inflated := 0
	maxNum := 0
	for _, o := range objs {
		if o.num > repairMaxObject {
			continue
		}
		table[o.num] = xrefEntry{kind: 1, off: int64(len(head) + o.at), gen: o.gen}
		maxNum = max(maxNum, o.num)
		t := typeName.FindSubmatch(o.dict)
		if t != nil && string(t[1]) == "XRef" || bytes.Contains(o.dict, []byte("/Root")) {
			if encryptKey.Match(o.dict) {
				return nil, false
			}
			if m := rootRef.FindSubmatch(o.dict); m != nil {
				root = m[0][len("/Root"):]
			}
			if m := infoRef.FindSubmatch(o.dict); m != nil {
				info = m[0][len("/Info"):]
			}
		}
		switch {
		case t == nil:
		case string(t[1]) == "Catalog":
			catalog = o.num
		case string(t[1]) == "ObjStm":
			nums, n := objStmNumbers(o, repairMaxInflate-inflated)
			inflated += n
			for i, num := range nums {
				if num <= repairMaxObject && num != o.num {
					table[num] = xrefEntry{kind: 2, stm: o.num, index: i}
					maxNum = max(maxNum, num)
				}
			}
		}
	}
	// Classic trailers, after the objects: the last one that names a
	// catalog wins, as the newest update's would.
	for _, at := range allIndex(body, []byte("trailer")) {
		tr := body[at:min(len(body), at+4096)]
		if end := bytes.Index(tr, []byte("startxref")); end > 0 {
			tr = tr[:end]
		}
		if encryptKey.Match(tr) {
			return nil, false
		}
		if m := rootRef.FindSubmatch(tr); m != nil {
			root = m[0][len("/Root"):]
			if m := infoRef.FindSubmatch(tr); m != nil {
				info = m[0][len("/Info"):]
			}
		}
	}
	if root == nil && catalog >= 0 {
		root = fmt.Appendf(nil, " %d %d R", catalog, table[catalog].gen)
	}
	if root == nil {
		return nil, false
	}
	// A trailer may name a catalog the file does not hold (damage, or an
	// update that was cut off); a catalog object found is better then.
	if num, ok := refNumber(root); (!ok || table[num].kind == 0) && catalog >= 0 {
		root = fmt.Appendf(nil, " %d %d R", catalog, table[catalog].gen)
	}

	var out bytes.Buffer
	out.Grow(len(head) + len(body) + 7*(maxNum+2) + 256)
	out.WriteString(head)
	// A direct /Length that is not the stream's length (hand-edited
	// files) is set right: the reader trusts it and would cut the
	// stream. Objects after it move; their offsets move with them.
	copied := 0
	moved := map[int]int{} // object number → its new offset
	for _, o := range objs {
		if o.num <= repairMaxObject && table[o.num].kind == 1 && table[o.num].off == int64(len(head)+o.at) {
			moved[o.num] = out.Len() + o.at - copied
		}
		m := directLength.FindSubmatchIndex(o.dict)
		if o.data == nil || m == nil {
			continue
		}
		want := len(bytes.TrimSuffix(bytes.TrimSuffix(o.data, []byte("\n")), []byte("\r")))
		if have, err := strconv.Atoi(string(o.dict[m[2]:m[3]])); err == nil && have == want {
			continue
		}
		at := o.end + m[2] // the digits, in the body
		out.Write(body[copied:at])
		out.WriteString(strconv.Itoa(want))
		copied = o.end + m[3]
	}
	out.Write(body[copied:])
	out.WriteString("\n")
	for num, off := range moved {
		e := table[num]
		e.off = int64(off)
		table[num] = e
	}
	self := maxNum + 1
	size := self + 1
	xoff := out.Len()
	fmt.Fprintf(&out, "%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 2] /Root%s", self, size, root)
	if info != nil {
		fmt.Fprintf(&out, " /Info%s", info)
	}
	fmt.Fprintf(&out, " /Length %d >>\nstream\n", 7*size)
	var rec [7]byte
	for num := range size {
		e := table[num]
		rec = [7]byte{}
		switch {
		case num == self:
			rec[0] = 1
			binary.BigEndian.PutUint32(rec[1:5], uint32(xoff))
		case e.kind == 1 && e.off <= 0xffffffff:
			rec[0] = 1
			binary.BigEndian.PutUint32(rec[1:5], uint32(e.off))
			binary.BigEndian.PutUint16(rec[5:7], uint16(e.gen))
		case e.kind == 2:
			rec[0] = 2
			binary.BigEndian.PutUint32(rec[1:5], uint32(e.stm))
			binary.BigEndian.PutUint16(rec[5:7], uint16(e.index))
		default:
			binary.BigEndian.PutUint16(rec[5:7], 0xffff)
		}
		out.Write(rec[:])
	}
	fmt.Fprintf(&out, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", xoff)
	return out.Bytes(), true
}

// findObjects lists the "N G obj" headers of body in order, leaving out
// those inside a stream's data, with each object's dictionary and stream.
func findObjects(body []byte) []pdfObject {
	var objs []pdfObject
	skipTo := 0
	for _, m := range objHeader.FindAllSubmatchIndex(body, -1) {
		if m[0] < skipTo {
			continue
		}
		if m[0] > 0 && !isPDFSpaceOrDelim(body[m[0]-1]) {
			continue
		}
		num, err1 := strconv.Atoi(string(body[m[2]:m[3]]))
		gen, err2 := strconv.Atoi(string(body[m[4]:m[5]]))
		if err1 != nil || err2 != nil {
			continue
		}
		o := pdfObject{num: num, gen: gen, at: m[0], end: m[1]}
		rest := body[m[1]:]
		// The object's own text ends at endobj or at the next header,
		// whichever is first; a stream keyword before that starts data
		// that is skipped up to endstream.
		limit := len(rest)
		if i := bytes.Index(rest, []byte("endobj")); i >= 0 {
			limit = i
		}
		if next := objHeader.FindIndex(rest[:limit]); next != nil {
			limit = next[0]
		}
		o.dict = rest[:limit]
		if s := streamKw.FindIndex(rest[:limit]); s != nil {
			o.dict = rest[:s[0]]
			data := rest[s[1]:]
			if e := bytes.Index(data, []byte("endstream")); e >= 0 {
				data = data[:e]
				skipTo = m[1] + s[1] + e
			} else {
				skipTo = len(body)
			}
			o.data = data
			o.dataAt = m[1] + s[1]
		}
		objs = append(objs, o)
	}
	return objs
}

func isPDFSpaceOrDelim(c byte) bool {
	switch c {
	case 0, '\t', '\n', '\f', '\r', ' ', '>', ']', ')', '}', '/', '%':
		return true
	}
	return false
}

// objStmNumbers reads the object numbers an object stream holds, in
// order, inflating at most budget bytes; it returns how many it inflated.
// Streams with other filters than FlateDecode, or with parameters, are
// left alone: their objects stay unnamed.
func objStmNumbers(o pdfObject, budget int) ([]int, int) {
	var n, first = -1, -1
	for _, m := range intKey.FindAllSubmatch(o.dict, -1) {
		v, err := strconv.Atoi(string(m[2]))
		if err != nil {
			return nil, 0
		}
		if string(m[1]) == "N" {
			n = v
		} else {
			first = v
		}
	}
	if n < 0 || first < 0 || budget <= 0 {
		return nil, 0
	}
	var data []byte
	switch {
	case flateOnly.Match(o.dict) && len(anyFilter.FindAll(o.dict, -1)) == 1:
		zr, err := zlib.NewReader(bytes.NewReader(o.data))
		if err != nil {
			return nil, 0
		}
		// Only the header (object numbers and offsets) is needed.
		data, _ = io.ReadAll(io.LimitReader(zr, int64(min(budget, first))))
	case !anyFilter.Match(o.dict):
		data = o.data
	default:
		return nil, 0
	}
	if first > len(data) {
		return nil, len(data)
	}
	fields := bytes.Fields(data[:first])
	var nums []int
	for i := 0; i+1 < len(fields) && len(nums) < n; i += 2 {
		v, err := strconv.Atoi(string(fields[i]))
		if err != nil {
			break
		}
		nums = append(nums, v)
	}
	return slices.Clip(nums), len(data)
}

func allIndex(b, sep []byte) []int {
	var out []int
	for at := 0; ; {
		i := bytes.Index(b[at:], sep)
		if i < 0 {
			return out
		}
		out = append(out, at+i)
		at += i + len(sep)
	}
}

// refNumber is the object number of a reference " N G R".
func refNumber(ref []byte) (int, bool) {
	f := bytes.Fields(ref)
	if len(f) != 3 {
		return 0, false
	}
	n, err := strconv.Atoi(string(f[0]))
	return n, err == nil
}
