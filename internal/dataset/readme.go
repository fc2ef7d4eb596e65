package dataset

import (
	"bytes"
	"fmt"

	"github.com/taxkernel/taxkernelbot/internal/escape/markdown"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/warc"
)

// readme says what the dataset is, how to verify it and how to cite from
// it. It names nothing of the build (no time, no host), so a rebuild of
// the same record gives the same bytes.
func readme(p Period, ix *store.Index, n warc.Counts, frbr bool) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# TaxKernelBot dataset %s\n\n", p.Name())
	fmt.Fprintf(&b, "The documents TaxKernelBot held for the sources of its manifests from %s to %s (UTC dates, both included): every version a source served in that period, the one it held when the period began included, as the exact bytes its server sent (a Content-Encoding undone; the bytes as sent are in the WARC). %d document(s) of %d source(s).\n\n", p.from(), p.to(), ix.Len(), len(ix.IDs()))
	b.WriteString("## Files\n\n")
	fmt.Fprintf(&b, "- `%s`: WARC 1.1, one gzip member per record: a request and a response record for each document (%d), and a revisit record for each check in the period that found the same bytes (%d). A document whose publisher said something about its use is followed by a metadata record that refers to its response and carries those preferences as JSON, as in the index's `usage`. Each response's `WARC-Payload-Digest` is `sha256:` and the document's SHA-256; a response its server sent under a Content-Encoding (gzip, br) is kept as sent, its digest that of the bytes as sent, and followed by a conversion record that carries the document under the document's SHA-256.\n", p.WarcName(), n.Captures, n.Revisits)
	fmt.Fprintf(&b, "- `%s`: the same WARC as a WACZ 1.1.1 package, which web archive tools open as it is (ReplayWeb.page: https://replayweb.page, *Open*, or `<replay-web-page source=\"…\">` on a page): the WARC byte for byte under `archive/`, a CDXJ index of its responses and revisits under `indexes/`, a page per document under `pages/`, and `datapackage.json` with every file's SHA-256. A replay at a document's retrieval time serves its exact bytes; at a check answered 304 Not Modified, the 304.\n", p.WaczName())
	fmt.Fprintf(&b, "- `%s`: for each source id, its documents: `sha256`, `size`, `content_type`, `final_url`, `first_seen` (the UTC date it was first fetched), `returned` (dates it was served again after other bytes), and the response's `status`, `fetched` time and `header`, `sent` (`sha256`, `size`, `encoding`) for a document that came under a Content-Encoding, and `usage`: what the publisher said about the use of the document when it was fetched (the `Content-Usage` header, and the `Content-Usage` and `Content-Signal` rules of the robots.txt then in force; per key the most restrictive value, and the statements as written). The format of the repository's `snapshots/index.json`.\n", IndexName)
	fmt.Fprintf(&b, "- `%s`: the coverage report given to the build (the repository's `reports/coverage.json`; the release workflow takes the one `main` held at the period's end): each source's status, gaps and what it encodes.\n", CoverageName)
	if frbr {
		fmt.Fprintf(&b, "- `%s`: for each source whose manifest names its work or edition, and each of its documents in `%s` in the same order, the document in FRBR's levels: `work` (the law's own identifier: `scheme`, `id`), `expression` (`edition`: current, as-enacted or point-in-time, with its `date`), `manifestation` (`media_type`) and `item` (`sha256`).\n", FRBRName, IndexName)
	}
	fmt.Fprintf(&b, "- `%s/<version>/<first two hex>/<sha256>.txt`: the text derived from each document, by its hash (the repository keeps one file per source, the text of what it serves now, whose git history holds the earlier ones; here every document of the period has its own); `.engine` beside it names the extractor, `.reason` says why a text is missing or partial.\n", TextDir)
	fmt.Fprintf(&b, "- `%s/<source>/<date>_<old sha256, 12 hex>..<new sha256, 12 hex>.json`: each change in the period as data: the two versions, the text hunks with their line numbers, and each changed figure old → new with its row (the format of the feeds' change documents, `schemas/change.schema.json`).\n", ChangeDir)
	fmt.Fprintf(&b, "- `%s`: the SHA-256 of every other file.\n\n", SumsName)
	b.WriteString("## Verify\n\n")
	b.WriteString("In this directory, offline:\n\n```sh\n")
	fmt.Fprintf(&b, "sha256sum -c %s           # every file is whole\n", SumsName)
	b.WriteString("taxkernelbot verify --dataset .   # and every citation: each index entry's bytes are in the WARC under its hash, each text names a document\n```\n\n")
	b.WriteString("## Cite\n\n")
	b.WriteString("Cite a document by its source id, its URL, the date it was retrieved and its SHA-256, which names its bytes in the WARC (`WARC-Payload-Digest`) and its text (`text/…/<sha256>.txt`). From this dataset, for example:\n\n")
	id := ix.IDs()[0]
	e := ix.Entries(id)[0]
	retrieved := e.FirstSeen
	if e.Fetched != "" {
		retrieved = e.Fetched
	}
	// The URL is a server's (a redirect's target): a code span, so that no
	// character of it is read as Markdown.
	fmt.Fprintf(&b, "> %s, %s, retrieved %s, sha256:%s (TaxKernelBot dataset %s)\n", id, markdown.Code(e.FinalURL), retrieved, e.SHA256, p.Name())
	return b.Bytes()
}
