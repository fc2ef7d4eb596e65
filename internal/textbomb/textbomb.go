// Package textbomb makes hostile documents for the tests and benchmarks of
// text extraction: a PDF whose content stream inflates a thousandfold, a
// PDF of very many pages, PDFs and HTML nested very deep, an XLSX whose
// sheets inflate to hundreds of MiB. They are made when needed, never
// committed.
package textbomb

import (
	"archive/zip"
	"bytes"
	"compress/zlib"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"io"
	"strings"
)

// op is one text-showing operation, repeated to fill a content stream.
const op = "BT /F1 9 Tf 72 720 Td (Basic rate 20% Higher rate 40% Additional rate 45%) Tj ET\n"

// PDF is a one-page PDF whose content stream, about inflated bytes of
// text operators, is compressed (FlateDecode) about a thousandfold.
func PDF(inflated int64) []byte {
	return build([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		stream("/Filter [/FlateDecode /FlateDecode]", zlibOf(Repeat([]byte(op), inflated))),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	})
}

// Pages is a PDF of n pages, all showing the same small content stream.
func Pages(n int) []byte {
	kids := make([]string, n)
	for i := range kids {
		kids[i] = fmt.Sprintf("%d 0 R", i+5)
	}
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n),
		stream("", []byte(op)),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	for range n {
		objs = append(objs, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 3 0 R >>")
	}
	return build(objs)
}

// Nested is a one-page PDF whose content stream holds an array nested
// depth deep, and whose page dictionary a chain of depth nested
// dictionaries.
func Nested(depth int) []byte {
	content := strings.Repeat("[", depth) + strings.Repeat("]", depth) + "\n" + op
	deep := strings.Repeat("<< /A ", depth) + "1" + strings.Repeat(" >>", depth)
	return build([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R /Deep " + deep + " >>",
		stream("", []byte(content)),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	})
}

// HTML is a page of elements nested depth deep.
func HTML(depth int) []byte {
	return []byte("<!doctype html><title>deep</title>" + strings.Repeat("<div><span>", depth) + "Basic rate 20%" + strings.Repeat("</span></div>", depth))
}

// Repeat is the zlib stream of unit repeated to about n bytes, written
// directly as deflate's copies of the unit before (a length of 258 at the
// unit's distance, under 20 bits each): quick to make, where a compressor
// would take many seconds. unit must be ASCII, 3 to 258 bytes long.
func Repeat(unit []byte, n int64) []byte {
	raw, total := deflateRepeat(nil, unit, nil, n)
	out := append([]byte{0x78, 0x01}, raw...)
	// The Adler-32 of the inflated bytes, which a reader may check.
	a := adler32.New()
	repeatInto(a, unit, total)
	return a.Sum(out)
}

// repeatInto writes unit repeated to exactly total bytes into w.
func repeatInto(w io.Writer, unit []byte, total int64) {
	buf := bytes.Repeat(unit, (64<<10)/len(unit))
	for total > 0 {
		k := min(total, int64(len(buf)))
		w.Write(buf[:k])
		total -= k
	}
}

// deflateRepeat is a raw deflate stream of prefix, unit repeated to about
// n bytes, and suffix, in one block, and the length of the repeated part.
func deflateRepeat(prefix, unit, suffix []byte, n int64) ([]byte, int64) {
	var w bitWriter
	w.bits(1, 1) // the final block
	w.bits(1, 2) // fixed Huffman codes
	for _, c := range prefix {
		w.code(0x30+uint32(c), 8) // literals 0..143
	}
	for _, c := range unit {
		w.code(0x30+uint32(c), 8)
	}
	distCode, extra, extraN := distance(len(unit))
	total := int64(len(unit))
	for ; total+258 <= n; total += 258 {
		w.code(0xc5, 8) // length 258: code 285
		w.code(uint32(distCode), 5)
		w.bits(uint32(extra), extraN)
	}
	for _, c := range suffix {
		w.code(0x30+uint32(c), 8)
	}
	w.code(0, 7) // end of block
	w.flush()
	return w.out.Bytes(), total
}

// zlibOf compresses data (the inner stream of a PDF's doubled filter).
func zlibOf(data []byte) []byte {
	var b bytes.Buffer
	w, _ := zlib.NewWriterLevel(&b, zlib.BestCompression)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// distance is deflate's distance code and extra bits for d (3..258).
func distance(d int) (code, extra, bits int) {
	base := []int{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385}
	for c := len(base) - 1; c >= 0; c-- {
		if d >= base[c] {
			return c, d - base[c], max(0, c/2-1)
		}
	}
	return 0, 0, 0
}

// bitWriter writes deflate's bit stream: values least significant bit
// first, Huffman codes most significant bit first.
type bitWriter struct {
	out  bytes.Buffer
	acc  uint64
	nacc uint
}

func (w *bitWriter) bits(v uint32, n int) {
	w.acc |= uint64(v) << w.nacc
	w.nacc += uint(n)
	for w.nacc >= 8 {
		w.out.WriteByte(byte(w.acc))
		w.acc >>= 8
		w.nacc -= 8
	}
}

func (w *bitWriter) code(c uint32, n int) {
	r := uint32(0)
	for i := 0; i < n; i++ {
		r = r<<1 | (c>>i)&1
	}
	w.bits(r, n)
}

func (w *bitWriter) flush() {
	if w.nacc > 0 {
		w.out.WriteByte(byte(w.acc))
		w.acc, w.nacc = 0, 0
	}
}

func stream(dict string, data []byte) string {
	return fmt.Sprintf("<< /Length %d %s >>\nstream\n%s\nendstream", len(data), dict, data)
}

// Raw writes objs as objects 1..n of a PDF (object 1 the catalog) with a
// correct cross-reference table: for tests that write a PDF's objects
// themselves.
func Raw(objs ...string) []byte { return build(objs) }

// build writes objs as objects 1..n of a PDF with a cross-reference table.
func build(objs []string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// XLSX is a workbook of sheets sheets, each a sheet XML of about inflated
// bytes of rows (deflated to a small fraction of that).
func XLSX(sheets int, inflated int64) []byte {
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	file := func(name, body string) {
		w, _ := z.Create(name)
		io.WriteString(w, body)
	}
	var ct, wb, rels strings.Builder
	for i := 1; i <= sheets; i++ {
		fmt.Fprintf(&ct, `<Override PartName="/xl/worksheets/sheet%d.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`, i)
		fmt.Fprintf(&wb, `<sheet name="Sheet%d" sheetId="%d" r:id="rId%d"/>`, i, i, i)
		fmt.Fprintf(&rels, `<Relationship Id="rId%d" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet%d.xml"/>`, i, i)
	}
	file("[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>`+ct.String()+`</Types>`)
	file("_rels/.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`)
	file("xl/workbook.xml", `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>`+wb.String()+`</sheets></workbook>`)
	file("xl/_rels/workbook.xml.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`+rels.String()+`</Relationships>`)
	row := `<row><c t="inlineStr"><is><t>Basic rate</t></is></c><c><v>20</v></c><c t="inlineStr"><is><t>Higher rate</t></is></c></row>`
	head := `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`
	tail := `</sheetData></worksheet>`
	rows, total := deflateRepeat([]byte(head), []byte(row), []byte(tail), inflated)
	crc := crc32.NewIEEE()
	io.WriteString(crc, head)
	repeatInto(crc, []byte(row), total)
	io.WriteString(crc, tail)
	size := uint64(len(head)) + uint64(total) + uint64(len(tail))
	for i := 1; i <= sheets; i++ {
		w, _ := z.CreateRaw(&zip.FileHeader{
			Name: fmt.Sprintf("xl/worksheets/sheet%d.xml", i), Method: zip.Deflate,
			CRC32: crc.Sum32(), CompressedSize64: uint64(len(rows)), UncompressedSize64: size,
		})
		w.Write(rows)
	}
	z.Close()
	return b.Bytes()
}

// Plain is an ordinary one-page PDF, the bombs' harmless neighbour: lines
// of text, one under the other, each line's cells (split at " | ") set
// 150 points apart. id goes in the trailer's /ID, so two calls with the
// same lines and another id give other bytes with the same text.
func Plain(lines []string, id string) []byte {
	var content strings.Builder
	for i, l := range lines {
		for j, cell := range strings.Split(l, " | ") {
			esc := strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(cell)
			fmt.Fprintf(&content, "BT /F1 10 Tf %d %d Td (%s) Tj ET\n", 72+150*j, 720-14*i, esc)
		}
	}
	b := build([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		stream("", []byte(content.String())),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	})
	return bytes.Replace(b, []byte("/Root 1 0 R >>"), []byte(fmt.Sprintf("/Root 1 0 R /ID [(%s) (%s)] >>", id, id)), 1)
}
