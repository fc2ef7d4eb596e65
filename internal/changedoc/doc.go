// Package changedoc gives each recorded change of a document a
// machine-readable form: the source, the two versions (old → new
// sha256), the text hunks with their line numbers, and each figure that
// changed (a number, a percentage, an amount), old → new, with its line
// and, on a table row, the row's label and the column's heading, so that
// a rules engine reads "20% → 21% in the Basic rate row" without parsing
// prose.
//
// The figures are read as pages write them: a currency sign or code
// before or after, thousands grouped by commas, points, spaces or
// apostrophes (1,000 / 1.000 / 1 000 / 1'000), a decimal comma or point
// (which of the two a document uses is learnt from its unambiguous
// figures), a per cent sign or words. Changed lines are paired by their
// row label first, then by position among lines that look alike; the
// figures of a pair by table cell and by position around the figures
// that stayed.
//
// A change document is a pure function of the two index entries and their
// derived texts, so the copy the public site serves beside the feeds and
// the one a dataset ships are the same bytes.
package changedoc
