// Package blobs is where the archive's bytes are held beyond the run that
// fetched them: a small interface over engines built for content-addressed
// storage — a local directory, GitHub Release assets, an S3-compatible
// bucket — so that main keeps the record (the hash index, the texts, the
// reports) and not the bytes.
//
// A Backend holds blobs named by their SHA-256. Every backend is held to
// one shared test suite (blobstest.Run): the bytes saved are the bytes
// loaded, loading re-hashes them and reports corruption, saving what is
// held is a no-op, a blob is visible only once whole, and listing names
// each blob once. The model is restic's backends.
//
// Local is a directory on this machine; Releases is a repository's GitHub
// release assets, one prerelease per month (see its documentation and
// docs/setup.md).
package blobs
