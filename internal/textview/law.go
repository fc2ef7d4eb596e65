package textview

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/law"
)

// extractLaw writes the text view of a structured legislation document
// (law.WriteText): the law's text, each provision on a line that starts
// with its label, without markup or the publisher's metadata.
func extractLaw(ctx context.Context, raw []byte, lim Limits, out *lines) error {
	if bytes.HasPrefix(raw, []byte("PK\x03\x04")) {
		xml, err := unzipLaw(raw, lim.MaxInput)
		if err != nil {
			return err
		}
		raw = xml
	}
	n := 0
	return law.WriteText(bytes.NewReader(raw), func(line string) error {
		if n++; n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		return out.add(line)
	})
}

// isLaw reports whether the bytes are one of the structured forms of
// legislation law reads, by their root element and namespace: a
// consolidated Act served as application/xml, or as text/plain from a
// mirror, is read as law whatever its address.
//
// Only the first sniffSize bytes are read, however many head holds: a
// plain text with no markup is one run of character data to the XML
// decoder, which read the whole of a 20 MB text to find no element.
func isLaw(head []byte) bool {
	return law.Sniff(head[:min(len(head), sniffSize)]) != ""
}

// gesetze-im-internet.de serves each law's XML in a ZIP archive of its
// own (…/estg/xml.zip): the archive's first XML file is the document.

// zippedLaw reports whether head (the first bytes of a ZIP archive) is
// an archive whose first file is a structured legislation document. It
// reads the first local file header and inflates the start of that file
// only: the archive's directory, at its end, is not needed.
func zippedLaw(head []byte) bool {
	data, ok := firstZipEntry(head)
	if !ok {
		return false
	}
	buf := make([]byte, 4096)
	n, _ := io.ReadFull(data, buf)
	return isLaw(buf[:n])
}

// firstZipEntry is the start of the first file of a ZIP archive, as a
// reader of its uncompressed bytes (stored or deflated files only).
func firstZipEntry(b []byte) (io.Reader, bool) {
	const header = 30
	if len(b) < header || !bytes.HasPrefix(b, []byte("PK\x03\x04")) {
		return nil, false
	}
	method := binary.LittleEndian.Uint16(b[8:])
	nameLen := int(binary.LittleEndian.Uint16(b[26:]))
	extraLen := int(binary.LittleEndian.Uint16(b[28:]))
	start := header + nameLen + extraLen
	if start > len(b) || !strings.HasSuffix(strings.ToLower(string(b[header:header+nameLen])), ".xml") {
		return nil, false
	}
	switch method {
	case zip.Store:
		return bytes.NewReader(b[start:]), true
	case zip.Deflate:
		return flate.NewReader(bytes.NewReader(b[start:])), true
	}
	return nil, false
}

// unzipLaw returns the first XML file of a ZIP archive, read up to max
// bytes: an archive inflating past the limit for text extraction is
// refused, not inflated.
func unzipLaw(raw []byte, max int64) ([]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		return nil, fmt.Errorf("read the ZIP archive: %w", err)
	}
	for _, f := range zr.File {
		if !strings.HasSuffix(strings.ToLower(f.Name), ".xml") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("open %s in the ZIP archive: %w", f.Name, err)
		}
		defer rc.Close()
		data, err := io.ReadAll(io.LimitReader(rc, max+1))
		if err != nil {
			return nil, fmt.Errorf("inflate %s: %w", f.Name, err)
		}
		if int64(len(data)) > max {
			return nil, fmt.Errorf("%s inflates past %d bytes, the limit for text extraction; no text is derived", f.Name, max)
		}
		return data, nil
	}
	return nil, errors.New("the ZIP archive holds no XML file")
}
