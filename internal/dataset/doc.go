// Package dataset builds and verifies the release of the record for a
// period: the documents served during it, as a WARC file, the index
// entries that name them, the coverage report, their derived texts, a
// SHA256SUMS and a README that says how to verify and cite it.
//
// A dataset is self-contained: it holds every version a source served in
// the period, the one it held when the period began included, so a rules
// engine can check every citation in it offline (Verify) without the
// repository. Build is deterministic: the same record and period give the
// same bytes, so a release can be rebuilt and compared, never rewritten.
package dataset
