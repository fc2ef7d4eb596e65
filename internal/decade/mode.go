package decade

import (
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/store"
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
	// in main (nil: botrepo.TextPath, named by the bytes' hash).
	TextPath func(sourceID string, sum store.Sum) string
}

func (m Mode) textPath(sourceID string, sum store.Sum) string {
	if m.TextPath != nil {
		return m.TextPath(sourceID, sum)
	}
	return botrepo.TextPath(string(sum))
}

// BytesInMain is the layout before issue 39: the bot commit carries the
// index, the derived texts, the reports and the blobs themselves.
var BytesInMain = Mode{Name: "before", Carries: func(string) bool { return true }}

// RecordOnly is the layout after it: main keeps the record (the index, the
// derived texts, the reports) and the bytes are in the stores.
var RecordOnly = Mode{
	Name:    "after",
	Carries: func(path string) bool { return !strings.HasPrefix(path, blobsInRepo) },
	Stores:  true,
}

// RecordOnlyTextBySource is RecordOnly with each source's derived text at
// one path, snapshots/text/by-source/<id>.txt, rewritten by each version:
// the tree holds each source's latest text and history the others. git
// packs a file's versions as deltas of each other because its packer
// pairs objects by the end of their path; texts named by their bytes'
// hash end differently each version and are packed whole instead.
var RecordOnlyTextBySource = Mode{
	Name:    "after-text-by-source",
	Carries: RecordOnly.Carries,
	Stores:  true,
	TextPath: func(sourceID string, _ store.Sum) string {
		return "snapshots/text/by-source/" + sourceID + ".txt"
	},
}

// RecordOnlyTextInFolder is RecordOnly with each text kept, still under
// its bytes' hash, as the file text.txt of a folder named by the hash:
// snapshots/text/<version>/<2 hex>/<hash>/text.txt. Measured, it packs no
// better than RecordOnly (388.6 MB against 389.1 MB after two years of
// today's manifests): git's packer sorts by a hash of the path's last
// sixteen characters or so, and those still hold the bytes' hash, so a
// text's earlier versions are not its neighbours. Kept as the measured
// alternative; the benchmark runs it when -decade.modes names it.
var RecordOnlyTextInFolder = Mode{
	Name:    "after-text-in-folder",
	Carries: RecordOnly.Carries,
	Stores:  true,
	TextPath: func(_ string, sum store.Sum) string {
		return strings.TrimSuffix(botrepo.TextPath(string(sum)), ".txt") + "/text.txt"
	},
}

// RecordOnlyTextEndsInSource is RecordOnly with each text still named by
// its bytes' hash, in a folder of that name, as the file <source id>.txt:
// snapshots/text/<version>/<2 hex>/<hash>/<source id>.txt. Its path ends
// the same way for every version of a source, so git's packer sorts a
// text's versions next to each other and stores them as deltas, as it
// does for one path per source, while each version keeps a path of its
// own. Measured over two years of today's manifests it packs as well
// (35.5 MB against 35.0 MB) but checks out every version's text: 1,103 MB
// in the tree against 83.6 MB, and a slower clone. Kept as the measured
// alternative; the benchmark runs it when -decade.modes names it.
var RecordOnlyTextEndsInSource = Mode{
	Name:    "after-text-ends-in-source",
	Carries: RecordOnly.Carries,
	Stores:  true,
	TextPath: func(sourceID string, sum store.Sum) string {
		return strings.TrimSuffix(botrepo.TextPath(string(sum)), ".txt") + "/" + sourceID + ".txt"
	},
}
