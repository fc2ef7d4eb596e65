package warc

import (
	"context"
	"io"
	"time"
)

// Counts says what an Export wrote.
type Counts struct {
	Captures, Revisits, Sources int
	// Records is every record written, in the order of the file, with
	// the place of its gzip member: what a CDXJ index of the file needs.
	Records []Located
}

// Export writes a whole WARC file to w: the warcinfo record (filename, at,
// the fields every export carries, then extra), then items in the order
// given. It stops with ctx's error between records.
func Export(ctx context.Context, w io.Writer, filename string, at time.Time, id Identity, extra [][2]string, items []Item) (Counts, error) {
	ww := NewWriter(w, id)
	info := [][2]string{
		{"software", "TaxKernelBot"},
		{"format", "WARC File Format 1.1"},
		{"conformsTo", "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"},
		{"description", "Documents fetched by TaxKernelBot for the sources listed in its manifests; each payload is the exact bytes served, named by its SHA-256 in the snapshot store"},
		{"robots", "obey"},
		{"http-header-user-agent", id.UserAgent},
		{"http-header-from", id.From},
	}
	var n Counts
	if err := ww.Info(filename, at, append(info, extra...)); err != nil {
		return n, err
	}
	sources := map[string]bool{}
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		sources[it.Source()] = true
		var err error
		if it.Capture != nil {
			err, n.Captures = ww.Capture(*it.Capture), n.Captures+1
		} else {
			err, n.Revisits = ww.Revisit(*it.Revisit), n.Revisits+1
		}
		if err != nil {
			return n, err
		}
	}
	n.Sources = len(sources)
	n.Records = ww.Records()
	return n, nil
}
