package decade

import (
	"path/filepath"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// blobsInRepo is where the store keeps blobs in the repository:
// snapshots/sha256/<2 hex>/<64 hex>.
var blobsInRepo = "snapshots/" + strings.TrimSuffix(store.BlobPath(strings.Repeat("0", 64)), "00/"+strings.Repeat("0", 64))

// Mode is a layout of main: which of the files a merge of the bot's pull
// request could carry it does carry. The bytes of what it leaves out are
// in the stores.
type Mode struct {
	Name string
	// Carries reports whether a merge commit carries the file at path.
	Carries func(path string) bool
	// Stores reports whether the bytes go to the stores (release assets
	// and a bucket) rather than into main.
	Stores bool
	// TextPath is where the text derived from a source's version is kept
	// in main (nil: botrepo.TextPath, one path per source).
	TextPath func(sourceID string, sum store.Sum) string
}

func (m Mode) textPath(sourceID string, sum store.Sum) string {
	if m.TextPath != nil {
		return m.TextPath(sourceID, sum)
	}
	return botrepo.TextPath(sourceID)
}

// BytesInMain is the layout before issue 39: the bot commit carries the
// index, the derived texts, the reports and the blobs themselves.
var BytesInMain = Mode{Name: "before", Carries: func(string) bool { return true }}

// RecordOnly is the layout after it: main keeps the record (the index, the
// derived texts, the reports) and the bytes are in the stores. Each
// source's text is at its one path (botrepo.TextPath), rewritten by each
// version: the tree holds each source's latest text and the history the
// others. git packs a file's versions as deltas of each other because its
// packer pairs objects by the end of their path.
var RecordOnly = Mode{
	Name:    "after",
	Carries: func(path string) bool { return !strings.HasPrefix(path, blobsInRepo) },
	Stores:  true,
}

// RecordOnlyTextByHash is RecordOnly with the texts named by their bytes'
// hash, snapshots/text/<version>/<2 hex>/<hash>.txt, as main kept them
// before: every version's text stays in the tree, and texts that end
// differently each version are packed whole. Measured with weekly merges
// over two years of today's manifests: main's clone 388.7 MB packed,
// 1,103.7 MB in the checked-out tree, against 35.4 MB and 83.6 MB with a
// path per source; over a decade 776 MB and 116.9 s to clone and validate,
// against 68.9 MB and 12.6 s.
// (A folder per hash, <hash>/text.txt, packs no better: 388.6 MB against
// 389.1 MB over two years. A folder per hash holding <source id>.txt packs
// as a path per source does, 35.5 MB, because its path ends the same way
// each version, but still checks out every version: 1,103 MB.) Kept as
// the measured alternative; the benchmark runs it when -decade.modes
// names it.
var RecordOnlyTextByHash = Mode{
	Name:    "after-text-by-hash",
	Carries: RecordOnly.Carries,
	Stores:  true,
	TextPath: func(_ string, sum store.Sum) string {
		p, _ := textview.TextPath("snapshots", string(sum))
		return filepath.ToSlash(p)
	},
}
