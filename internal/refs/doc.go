// Package refs reads the references a rules repository's parameter files
// cite and matches each to the archive: what TaxKernelBot holds, or could
// hold, of the documents a rules engine names.
//
// Scan walks a checkout (PolicyEngine's and OpenFisca's YAML parameter
// trees) and returns every reference with its file, line, parameter, level
// and date key. The forms it reads are those the public rules repositories
// use: `reference` or `references` (on a node, in its `metadata`, or in a
// dated value's entry) holding a URL string, a list of strings, a
// {title, href} map (`url` for href and `name` for title are read too), a
// list of those, or a map from dates to any of them; and references a
// parent declares with `propagate_metadata_to_children: true` (in a
// directory's index.yaml or a parent key of the same file), which each
// parameter below it that cites nothing of its own inherits.
//
// An Archive is built from the manifest sources and the index's history,
// and Match says how a reference's URL relates to what is held: the same
// URL (exact), the same after normalising (scheme, www., fragment and
// highlight parameters dropped, known host aliases), the same provision
// on another host (a US Code or CFR section on Cornell's LII, the Law
// Revision Counsel or eCFR; a Federal Register document by number), another
// edition of the same document (irs-prior/X--YYYY beside irs-pdf/X, a
// legislation.gov.uk or legislation.govt.nz version pin), published inside
// a held document (a Revenue Procedure in the Internal Revenue Bulletin
// whose title or held text names it), within a held whole text (a section
// of an act whose whole text is held), a sibling of a held document (same
// folder on the same host), the host only, or none. The rules are
// written out in url.go, each with its reason.
//
// Build turns the references and their matches into a Report: counts by
// kind, the documents cited most (by number of files citing them) and
// whether each is held, the bytes held on each reference's date and
// whether the document changed after it, what the archive watches
// (Watch), and drafts of manifest entries for the most-cited documents not
// held (Suggest), whole texts rather than their parts. A reference older
// than the archive's first copy of its document is not left unknown once
// the archive has seen the document change: the bytes first held and
// those after differ, so the document changed after the reference, though
// what it cited may differ from both.
//
// A reference to a provision of a held whole text (a provision page whose
// address names it, law.ProvisionOfURL: section-19.html, /section/23,
// § 3402; or a page named by an internal id, by the address a change
// document gives the provision) is watched as that provision: it changed
// after the reference only when a change document after its date lists
// that provision as amended, added or repealed. A change whose document
// lists no provisions (a text not read as law, an older document, none in
// the record) counts as a change of the whole document, and the row says
// so (ChangedBy).
//
// The package is pure over its inputs apart from Scan's reading of the
// tree and GitDates, which asks the git binary when each line was
// written.
package refs
