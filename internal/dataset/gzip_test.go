package dataset

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"testing"
)

func gunzipMembers(t *testing.T, p string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(p)
	must(t, err)
	br := bytes.NewReader(data)
	zr, err := gzip.NewReader(br)
	must(t, err)
	var out [][]byte
	for {
		zr.Multistream(false)
		m, err := io.ReadAll(zr)
		must(t, err)
		out = append(out, m)
		if err := zr.Reset(br); err == io.EOF {
			return out
		} else {
			must(t, err)
		}
	}
}

func gzipTo(t *testing.T, w io.Writer, m []byte) {
	t.Helper()
	zw := gzip.NewWriter(w)
	_, err := zw.Write(m)
	must(t, err)
	must(t, zw.Close())
}
