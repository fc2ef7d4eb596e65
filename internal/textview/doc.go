// Package textview derives the plain text a document says from the exact
// bytes a server sent, and compares documents through that text.
//
// Extract turns HTML, PDF, CSV/TSV, plain text and XLSX into lines of plain
// text (tables as rows, cells joined by " | ", so a number stays on the line
// of its label); legislation in its publisher's structured XML is read as
// law (package law: each provision on a line starting with its label, no
// markup, no metadata), bounded in time and size, never panicking: a document that
// cannot be read gets a Reason instead of text. PDFs are read by poppler's
// pdftotext in layout mode where it is installed (it keeps table rows on
// one line), else by the built-in extractor. PDFs, workbooks and big texts
// are extracted in a child process bounded in memory, CPU time, wall time
// and output, so that no document can end, stall or starve the run. A View (a view.Spec
// compiled: CSS selectors to drop, regular expressions of lines to
// ignore) turns that into the normalised text on which "changed" is decided, so a rotating token or a
// "generated at" stamp is not a change. Diff renders a unified diff of two
// normalised texts for a pull request, with changed numbers highlighted;
// Noisy tells a source that blinks (new bytes at every fetch, same text).
//
// Derived text is kept beside the raw blobs in a store, content-addressed
// by the raw hash and the extractor's Version:
// <root>/text/<version>/<2 hex>/<hash>.txt, with the Engine that derived it
// in a .engine file beside it: a text of another engine is derived again,
// never compared. The repository's main keeps texts by source instead,
// the text of what each source serves now at one path whose git history
// holds the earlier ones (botrepo.TextPath says where, and why).
package textview
