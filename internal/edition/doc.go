// Package edition notices that a document published once a year at a new
// address has a next edition, from what the bot already holds, and says
// which listed sources serve an earlier tax year than the one in force.
//
// An address names its edition in one of the forms Marks reads: a tax
// year (HMRC's rates-and-thresholds-for-employers-2025-to-2026, the ATO's
// tax-rates-2024-25), a year on its own (Retenciones/2026/, /t4032/2022/),
// a day or a month (the BMF's 2025-11-12-PAP-2026, CBO's 2025-01), the
// CRA's payroll tables issue (t4032-on-1-25eng: January 2025) or a Federal
// Register of Legislation id (F2025L00647). Two addresses whose only
// difference is their marks (and the file version v= of the German
// federal sites' ?__blob=publicationFile) are of one series; a later
// edition is one whose marks all stand as far or further, one further.
// The years in
// the address of a law or a gazette (ukpga/2007/3, eli/2024/act/43) name
// the work, not an edition a later one replaces, and are not read; a
// register id is, but every instrument has one, so its successor is the
// link whose text is the source's title with its year moved on. An
// address updated in place (the IRS's p15t.pdf, whose edition only its
// text says: "Publication 15-T (2026)") does not move, and there is
// nothing to propose for it.
//
// This is not manifest.Edition, which says which state of a law's text an
// address serves (current, as enacted, at a date); here an edition is the
// year a yearly document is for.
//
// Find reads only the links of the held copies of listed sources (HTMLLinks
// of an HTML page, TextLinks of a document's text) and proposes the next
// edition as a source of its own beside the listed one, with the page and
// line that name it: nothing is ever requested from a proposed address
// before a person lists it. Stale warns, from the manifests alone, of a
// source whose address names a tax year older than its jurisdiction's
// current one (the table of tax years is taxYears) with no later edition
// listed.
package edition
